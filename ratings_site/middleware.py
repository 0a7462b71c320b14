"""Site-wide middleware: refusing addresses no view should see, ``Cache-Control: private``
on answers that depend on who asks, the audit trail's channel for each request, and the
pages' language."""

from __future__ import annotations

import re
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.middleware.locale import LocaleMiddleware
from django.utils import translation
from django.utils.cache import patch_cache_control, patch_vary_headers

from players.models.audit import Via, audit_context
from ratings_site.errors import error_answer, not_found

# Control characters (NUL first: PostgreSQL's text refuses it) have no place in an
# address; every view would otherwise have to refuse them before its first query.
CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f]")
#: Longer addresses get 414: no URL of ours comes near it.
MAX_PATH_CHARACTERS = 2048
# A segment of digits longer than any 64-bit id names nothing; SQLite cannot even compare
# it with an integer column (OverflowError), so it is a 404 before any view looks it up.
NUMBER_TOO_LONG = re.compile(r"/[0-9]{19,}(?=/|$|\.)")


def refuse_bad_paths(
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[..., HttpResponse]:
    """A path with a control character is a 400, an over-long one a 414, before any URL
    pattern or view sees it."""

    def middleware(request: HttpRequest) -> HttpResponse:
        path = request.path_info
        if len(path) > MAX_PATH_CHARACTERS:
            return error_answer(
                request,
                status=414,
                code="uri_too_long",
                message=f"The address is longer than {MAX_PATH_CHARACTERS} characters.",
            )
        if CONTROL_CHARACTERS.search(path):
            return error_answer(
                request,
                status=400,
                code="bad_path",
                message="The address holds a control character.",
            )
        if NUMBER_TOO_LONG.search(path):
            return not_found(request)
        return get_response(request)

    return middleware


# The widgets' prefix (ratings_site/pages/embed.py).
WIDGETS_PREFIX = "/embed/"


def widgets_without_cookies(
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[..., HttpResponse]:
    """A widget is the same for everyone who looks (it sits on a club's website, in front
    of anyone): the cookies its request carries are dropped before the session, the CSRF
    check or the language choice read them, so a member's session neither changes the
    answer nor gets one that a shared cache could keep, and no answer sets a cookie."""

    def middleware(request: HttpRequest) -> HttpResponse:
        if not request.path_info.startswith(WIDGETS_PREFIX):
            return get_response(request)
        request.COOKIES = {}
        request.META.pop("HTTP_COOKIE", None)
        # Credentials neither: a widget is the anonymous answer, which a shared cache may keep.
        request.META.pop("HTTP_AUTHORIZATION", None)
        response = get_response(request)
        # The session was read (empty) on the way: the answer does not vary by cookie, and
        # saying so would split a proxy's copy of it by every visitor's cookies.
        vary = [v.strip() for v in response.get("Vary", "").split(",") if v.strip()]
        kept = [v for v in vary if v.lower() != "cookie"]
        if kept:
            response["Vary"] = ", ".join(kept)
        elif "Vary" in response:
            del response["Vary"]
        return response

    return middleware


def private_answers(
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[..., HttpResponse]:
    """An answer to a signed-in user (a session) or to a request with credentials (an API
    token) may hold what only they may see: ``Cache-Control: private`` keeps it out of
    shared caches (a proxy, a CDN), and ``Vary`` says what it depends on. Anonymous
    answers (the public pages) stay cacheable as their views say."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        user = getattr(request, "user", None)
        signed_in = bool(user is not None and user.is_authenticated)
        if signed_in or "HTTP_AUTHORIZATION" in request.META:
            patch_cache_control(response, private=True)
            patch_vary_headers(response, ("Cookie", "Authorization"))
        return response

    return middleware


def audit_channel(
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[..., HttpResponse]:
    """History rows written while answering a request say whether it came through the
    admin, the API or a web page (an import says "import" inside its service)."""

    def middleware(request: HttpRequest) -> HttpResponse:
        path = request.path_info
        via = (
            Via.ADMIN
            if path.startswith("/admin/")
            else Via.API
            if path.startswith("/api/")
            else Via.WEB
        )
        with audit_context(via=via):
            return get_response(request)

    return middleware


class PageLocaleMiddleware(LocaleMiddleware):
    """Django's LocaleMiddleware for the pages; the API always answers in English.

    The API's error messages and JSON are read by programs, which must not get another
    language because a browser or an HTTP library sent Accept-Language (DRF ships German
    messages of its own, which the plain middleware would switch on)."""

    def process_request(self, request: HttpRequest) -> None:
        if request.path_info.startswith("/api/"):
            translation.activate(settings.LANGUAGE_CODE)
            request.LANGUAGE_CODE = settings.LANGUAGE_CODE
            return
        super().process_request(request)

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if request.path_info.startswith("/api/"):
            return response
        return super().process_response(request, response)
