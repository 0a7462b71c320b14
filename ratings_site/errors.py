"""The site's 500 answer outside a DRF view (middleware, URL resolving): the API's error
shape under /api/, the site's error page elsewhere."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext

from players.api.base import error_body
from ratings_site.api import SERVER_ERROR


def server_error(request: HttpRequest) -> HttpResponse:
    if request.path_info.startswith("/api/"):
        return JsonResponse(error_body("server_error", SERVER_ERROR), status=500)
    return render(
        request,
        "error.html",
        {"title": gettext("Server error"), "message": gettext(SERVER_ERROR), "status": 500},
        status=500,
    )
