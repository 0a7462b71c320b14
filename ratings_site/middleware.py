"""Site-wide middleware: the audit trail's channel for each request, and the pages'
language."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.middleware.locale import LocaleMiddleware
from django.utils import translation

from players.models.audit import Via, audit_context


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
