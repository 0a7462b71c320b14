"""A plan's records are built by keyword: a positional record of seventeen fields reads
right until someone adds or moves a field, and then it writes one figure into another's
column. The write step reads them by name too (tournaments/services/close/write.py)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import NamedTuple

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


def test_records_from_columns_puts_each_column_in_its_named_field() -> None:
    class Row(NamedTuple):
        a: int
        b: str
        c: int = 7

    # Named out of order: each column still lands in its own field; c takes its default.
    rows = period.records_from_columns(Row, 2, b=["x", "y"], a=[1, 2])
    assert rows == [Row(a=1, b="x", c=7), Row(a=2, b="y", c=7)]
    assert all(type(row) is Row for row in rows)
    with pytest.raises(TypeError, match="no field 'd'"):
        period.records_from_columns(Row, 1, a=[1], b=["x"], d=[0])
    with pytest.raises(TypeError, match="needs 'b'"):
        period.records_from_columns(Row, 1, a=[1])
    # A column of another length than the others is an error, not a short plan.
    with pytest.raises(ValueError, match="shorter"):
        period.records_from_columns(Row, 2, a=[1, 2], b=["x"])
