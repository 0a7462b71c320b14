"""The base of every view under /api/v1/clubs/{club}/: club lookup and role check.

The club comes from the URL's slug through ``clubs_visible_to`` (via the selector
``club_get_visible``), so a private club and everything under it answer 404 to anyone who
is not a member. Writes then need the role the view names for that method.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rest_framework.generics import GenericAPIView
from rest_framework.request import Request

from players.api.schema import ClubAutoSchema
from players.models import Club, Role
from players.selectors import club_get_visible, require_role
from ratings_site.api import Pagination


class ClubScopedView(GenericAPIView):  # type: ignore[type-arg]
    """Looks the club up before anything else; ``roles`` maps an HTTP method to the least
    role it needs (a method not listed needs only the right to see the club)."""

    schema = ClubAutoSchema()
    pagination_class = Pagination
    roles: ClassVar[dict[str, Role | None]] = {}
    club: Club

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        # Authentication and the anonymous-write check (401) come first, then the club
        # (404 hides a private club), then the role (403).
        super().initial(request, *args, **kwargs)
        self.club = club_get_visible(user=request.user, slug=kwargs["club"])
        role = self.roles.get(request.method or "")
        if role is not None:
            require_role(request.user, self.club, role)

    @property
    def is_schema_view(self) -> bool:
        """drf-spectacular builds views without a request to inspect their querysets."""
        return bool(getattr(self, "swagger_fake_view", False))
