"""The site's error answers outside a DRF view (middleware, URL resolving, Django's own
refusals of a body over the upload limits): the API's error shape under /api/, the site's
error page (or Django's) elsewhere."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import render
from django.urls import Resolver404, resolve
from django.utils.translation import gettext
from django.views import defaults as django_defaults
from django.views.decorators.csrf import csrf_exempt

from players.http.api import error_body
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


# Nothing to protect: it answers 404 whatever is sent (a POST without a CSRF token too).
@csrf_exempt
def api_not_found(request: HttpRequest, rest: str = "") -> HttpResponse:
    """The last route under /api/: an address no API view answers. handler404 is not
    called with DEBUG on (Django draws its HTML page instead), so the API's error shape
    needs a route. A path that only lacks its slash is redirected as APPEND_SLASH would
    (this route matching it stops CommonMiddleware from doing so)."""
    path = request.path_info
    if settings.APPEND_SLASH and not path.endswith("/") and request.method in ("GET", "HEAD"):
        try:
            match = resolve(path + "/")
        except Resolver404:
            match = None
        if match is not None and match.func is not api_not_found:
            return HttpResponsePermanentRedirect(request.get_full_path(force_append_slash=True))
    return error_answer(request, status=404, code="not_found", message="Not found.")
