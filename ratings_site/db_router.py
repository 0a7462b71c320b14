"""Read replicas for the public pages and the exports, when ``DATABASE_REPLICA_URL`` is set.

``ReplicaReadsMiddleware`` marks a GET or HEAD request whose view is a public page
(``ratings_site.pages``) or an export download (``tournaments.views_exports``); during that
request ``ReplicaRouter`` sends reads to the ``replica`` alias. Everything else (the API,
the admin, the close, previews, jobs, every write) uses the primary, so nothing that
decides or writes ever reads a lagging copy.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse

REPLICA = "replica"
#: The views whose reads may lag a little behind the primary (published data only).
REPLICA_VIEW_MODULES = ("ratings_site.pages.", "tournaments.views_exports")

_reads_from_replica: ContextVar[bool] = ContextVar("reads_from_replica", default=False)


class ReplicaRouter:
    def db_for_read(self, model: type[Any], **hints: Any) -> str | None:
        if _reads_from_replica.get() and REPLICA in settings.DATABASES:
            return REPLICA
        return None

    def db_for_write(self, model: type[Any], **hints: Any) -> str | None:
        return "default"

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        # The replica is a copy of the primary: a row from either relates to both.
        return True

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        return db != REPLICA


class ReplicaReadsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            return self.get_response(request)
        finally:
            token = getattr(request, "_replica_token", None)
            if token is not None:
                _reads_from_replica.reset(token)

    def process_view(
        self, request: HttpRequest, view: Callable[..., Any], args: Any, kwargs: Any
    ) -> None:
        module = getattr(view, "__module__", "") or ""
        if request.method in {"GET", "HEAD"} and module.startswith(REPLICA_VIEW_MODULES):
            request._replica_token = _reads_from_replica.set(True)  # type: ignore[attr-defined]
