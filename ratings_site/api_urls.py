"""Everything under /api/v1/: each app contributes its own url module."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path

from ratings_site.oembed import OEmbedView

urlpatterns: list[URLPattern | URLResolver] = [
    path("", include("players.api.urls")),
    path("", include("tournaments.api.urls")),
    # The site's pages, not a club's rows: answered here, beside the apps' routes.
    path("oembed/", OEmbedView.as_view(), name="oembed"),
]
