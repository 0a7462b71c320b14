"""The API's ``?ordering=``: a module of its own, as DRF's settings import the filter
backends while its generic views are still loading (players.http.api imports them)."""

from __future__ import annotations

from typing import Any

from rest_framework.filters import OrderingFilter
from rest_framework.request import Request

from players.errors import invalid_field


class StrictOrderingFilter(OrderingFilter):
    """``?ordering=``: one of the view's ``ordering_fields``, ``-`` reversing it; anything
    else is a 400 naming ``ordering`` (DRF's drops an unknown field without a word)."""

    def choices(self, view: Any) -> list[str]:
        # No guess from the serializer's fields (DRF's default): a view names its orderings.
        if getattr(view, "ordering_fields", None) is None:
            return []
        fields = [name for name, _ in self.get_valid_fields(view.get_queryset(), view)]
        return [f"{sign}{name}" for name in fields for sign in ("", "-")]

    def get_ordering(self, request: Request, queryset: Any, view: Any) -> Any:
        raw = request.query_params.get(self.ordering_param)
        if raw is None:
            return self.get_default_ordering(view)
        allowed = self.choices(view)
        if raw not in allowed:
            message = f"One of: {', '.join(allowed)}." if allowed else "Not ordered on request."
            raise invalid_field(self.ordering_param, message)
        return [raw]

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        choices = self.choices(view)
        if not choices:
            return []
        parameters: list[dict[str, Any]] = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"]["enum"] = choices
        return parameters
