"""The site's error answers outside a DRF view (middleware, URL resolving, Django's own
refusals of a body over the upload limits): the API's error shape under /api/, the site's
error page (or Django's) elsewhere."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext
from django.views import defaults as django_defaults

from players.api.base import error_body
from ratings_site.api import SERVER_ERROR, TOO_LARGE, too_large_message


def server_error(request: HttpRequest) -> HttpResponse:
    if request.path_info.startswith("/api/"):
        return JsonResponse(error_body("server_error", SERVER_ERROR), status=500)
    return render(
        request,
        "error.html",
        {"title": gettext("Server error"), "message": gettext(SERVER_ERROR), "status": 500},
        status=500,
    )


# -- bad requests: the answers outside DRF's views ----------------------------------------------


def error_answer(
    request: HttpRequest, *, status: int, code: str, message: str, field: str = ""
) -> HttpResponse:
    """An error answer: the API's error shape under /api/, the site's error page elsewhere
    (``message`` is English; the page shows it translated when the catalog has it)."""
    if request.path_info.startswith("/api/"):
        fields = {field: [message]} if field else {}
        return JsonResponse(error_body(code, message, fields), status=status)
    return render(
        request,
        "error.html",
        {"title": gettext("Bad request"), "message": gettext(message), "status": status},
        status=status,
    )


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler400: a SuspiciousOperation, a body over the upload limits (413)."""
    if isinstance(exception, TOO_LARGE):
        return error_answer(
            request, status=413, code="too_large", message=too_large_message(exception)
        )
    if not request.path_info.startswith("/api/"):
        return django_defaults.bad_request(request, exception)  # type: ignore[arg-type]
    return error_answer(request, status=400, code="bad_request", message="Bad request.")


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if not request.path_info.startswith("/api/"):
        return django_defaults.permission_denied(request, exception)  # type: ignore[arg-type]
    return error_answer(
        request, status=403, code="permission_denied", message="You may not do this."
    )


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler404: under /api/ an address no view answers is a 404 in the error shape."""
    if not request.path_info.startswith("/api/"):
        return django_defaults.page_not_found(request, exception)
    return error_answer(request, status=404, code="not_found", message="Not found.")
