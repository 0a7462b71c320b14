"""Site-wide middleware: the audit trail's channel for each request."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

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
