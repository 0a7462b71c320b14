"""The list's rating system on the pages: its template fragments, found by convention
from its name (``systems/<name>/<fragment>``, else the shared ``systems/default/``), and
its declared figures read from a row.

A system added with no templates of its own is shown by the defaults: its period
columns and state fields as it declares them, its game lines as it explains them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, cast

from django.template.loader import select_template

from players.rating.systems import RatingSystem
from players.rating.systems.explain import Column

FRAGMENTS = ("current.html", "period_row.html", "game_lines.html")


def fragment_names(system: RatingSystem, fragment: str) -> list[str]:
    """Where the system's ``fragment`` is looked for, its own first."""
    if fragment not in FRAGMENTS:
        raise ValueError(f"no system fragment {fragment!r}")
    return [f"systems/{system.name}/{fragment}", f"systems/default/{fragment}"]


class Fragment(Protocol):
    def render(self, context: dict[str, Any]) -> str: ...


def fragment(system: RatingSystem, name: str) -> Fragment:
    """The system's fragment, ready to render a dict (compiled once by the cached loader)."""
    return cast(Fragment, select_template(fragment_names(system, name)))


def column_value(column: Column, row: Any, state: Mapping[str, float] | None) -> Any:
    """A period column's value on a RatingChange: a state figure after the period or a
    field of the row."""
    name = column.state_field
    if name is not None:
        return None if state is None else state.get(name)
    return getattr(row, column.source, None)
