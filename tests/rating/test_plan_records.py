"""A plan's records are built by keyword: a positional record of seventeen fields reads
right until someone adds or moves a field, and then it writes one figure into another's
column. The write step reads them by name too (tournaments/services/close/write.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from players.rating import period

ENGINE = Path(period.__file__).parent
RECORDS = {"PlannedChange", "PlannedKChange", "Uncertainty", "PeriodPlan"}


def _positional_builds() -> list[str]:
    found = []
    for path in sorted(ENGINE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name in RECORDS and (node.args or any(k.arg is None for k in node.keywords)):
                found.append(f"{path.relative_to(ENGINE.parent.parent)}:{node.lineno} {name}")
    return found


def test_every_plan_record_is_built_by_keyword() -> None:
    assert _positional_builds() == []


@pytest.mark.parametrize("record", sorted(RECORDS))
def test_the_engine_builds_each_record_somewhere(record: str) -> None:
    # The scan above must see the records it speaks of: a renamed record would pass it
    # silently.
    built = False
    for path in ENGINE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                built = built or name == record
    assert built, record
