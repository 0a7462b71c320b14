"""What a locked-out sign-in gets (django-axes' AXES_LOCKOUT_CALLABLE): the API's error
shape under /api/, the site's page elsewhere; 429 either way."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext, gettext_noop

from players.api.base import error_body

# English for the API; the page shows it translated (gettext at the answer).
MESSAGE = gettext_noop(
    "Too many wrong passwords: this account (or address) is locked out for an hour. "
    "Reset the password by email, or ask the site's staff."
)


def locked_out(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    if request.path_info.startswith("/api/"):
        return JsonResponse(error_body("locked_out", MESSAGE), status=429)
    return render(
        request,
        "error.html",
        {"title": gettext("Locked out"), "message": gettext(MESSAGE)},
        status=429,
    )
