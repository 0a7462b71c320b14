"""Template context every page may use."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from players.selectors.names import club_name_order_by_slug


def name_order(request: HttpRequest) -> dict[str, object]:
    """``name_order``: on a club's page, the order the club shows names in (looked up only
    when a template uses it); elsewhere names stay as stored."""
    match = getattr(request, "resolver_match", None)
    slug = match.kwargs.get("club") if match is not None else None
    if not isinstance(slug, str):
        return {"name_order": ""}

    def order() -> str:
        return club_name_order_by_slug(slug)

    return {"name_order": SimpleLazyObject(order)}
