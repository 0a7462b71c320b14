"""Everything under /api/v1/: each app contributes its own url module."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path

urlpatterns: list[URLPattern | URLResolver] = [
    path("", include("players.api.urls")),
    path("", include("tournaments.api.urls")),
]
