"""Root URLs: admin, accounts, the API (v1, schema, docs), the public pages and the health
check."""

from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from ratings_site.errors import api_not_found
from ratings_site.health import healthz

urlpatterns = [
    # Periods, runs and rating changes moved to the players app (players migration 0007):
    # bookmarks of their old admin pages still arrive.
    re_path(
        r"^admin/tournaments/(?P<model>ratingperiod|ratingrun|ratingchange)/(?P<rest>.*)$",
        RedirectView.as_view(url="/admin/players/%(model)s/%(rest)s", query_string=True),
    ),
    # Browsers ask for /favicon.ico whatever the pages link; send them to the SVG icon.
    path("favicon.ico", RedirectView.as_view(url=settings.STATIC_URL + "favicon.svg")),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/", include("ratings_site.accounts.urls")),
    path("api/v1/", include("ratings_site.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script as a file: the
    # Content-Security-Policy allows no inline script.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    re_path(r"^api/(?P<rest>.*)$", api_not_found),
    path("", include("ratings_site.pages.urls")),
    path("", include("tournaments.urls_exports")),
]

handler400 = "ratings_site.errors.bad_request"
handler403 = "ratings_site.errors.permission_denied"
handler404 = "ratings_site.errors.not_found"
handler500 = "ratings_site.errors.server_error"
