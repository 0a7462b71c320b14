"""The state a list's rating system keeps beside the rating, in API rows: each figure the
system declares by its name (Glicko-2's ``rd``, ``volatility``, as the API always had
them) and the whole ``state`` object.

A stored state holds the declared fields only (the close and the player service write it
through the system), so a figure is read from the row's state by name, without loading
the row's list: a ranking of 200,000 rows asks no list per row.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers


class _StateSource(serializers.Field):  # type: ignore[type-arg]
    def bind(self, field_name: str, parent: Any) -> None:
        # DRF refuses a source equal to the field's name ("state" read from "state").
        if self.source == field_name:
            self.source = None
        super().bind(field_name, parent)


@extend_schema_field(OpenApiTypes.DOUBLE)
class StateFigure(_StateSource):
    """One figure of the row's state (``state_field``: the model's JSON field); null on a
    list whose system does not keep it, or where it is not set yet."""

    def __init__(self, figure: str, *, state_field: str = "state", **kwargs: Any) -> None:
        self.figure = figure
        kwargs.setdefault("allow_null", True)
        super().__init__(source=state_field, read_only=True, **kwargs)

    def to_representation(self, value: Any) -> float | None:
        if not isinstance(value, dict):
            return None
        figure = value.get(self.figure)
        return None if figure is None else float(figure)


@extend_schema_field(
    {
        "type": "object",
        "nullable": True,
        "additionalProperties": {"type": "number"},
        "description": "What the list's rating system keeps beside the rating, by the names "
        "it declares (Glicko-2: rd, volatility); null on a system that keeps none.",
    }
)
class StateObject(_StateSource):
    def __init__(self, *, state_field: str = "state", **kwargs: Any) -> None:
        kwargs.setdefault("allow_null", True)
        super().__init__(source=state_field, read_only=True, **kwargs)

    def to_representation(self, value: Any) -> dict[str, float] | None:
        return dict(value) if isinstance(value, dict) else None
