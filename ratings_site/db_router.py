"""Read replicas for the public pages and the exports, when ``DATABASE_REPLICA_URL`` is set.

``ReplicaReadsMiddleware`` marks a GET or HEAD request whose view is a public page
(``ratings_site.pages``) or an export download (``tournaments.views_exports``); during that
request ``ReplicaRouter`` sends reads to the ``replica`` alias. Everything else (the API,
the admin, the close, previews, jobs, every write) uses the primary, so nothing that
decides or writes ever reads a lagging copy.

A replica that does not answer (stopped, restarting, unreachable) is not an outage of the
public pages: before a request is sent to it, :func:`replica_usable` makes sure its
connection works (connecting with the short ``connect_timeout`` the settings give it); when
it does not, the request reads the primary, and so do the requests of the next
``DATABASE_REPLICA_RETRY_SECONDS`` (30) before the replica is tried again.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connections
from django.http import HttpRequest, HttpResponse

logger = logging.getLogger(__name__)

REPLICA = "replica"
#: The views whose reads may lag a little behind the primary (published data only).
REPLICA_VIEW_MODULES = ("ratings_site.pages.", "tournaments.views_exports")

_reads_from_replica: ContextVar[bool] = ContextVar("reads_from_replica", default=False)

# When (time.monotonic()) the replica may be tried again after it failed; per process.
_retry_at = 0.0
_retry_lock = threading.Lock()


def replica_usable() -> bool:
    """Whether this request may read the replica: it is configured, not in its cooldown
    after a failure, and its connection (this thread's) answers. A failure starts the
    cooldown and closes the broken connection."""
    global _retry_at
    if REPLICA not in settings.DATABASES or time.monotonic() < _retry_at:
        return False
    replica = connections[REPLICA]
    try:
        if replica.connection is not None and not replica.is_usable():
            replica.close()
        replica.ensure_connection()
    except DatabaseError as error:
        with _retry_lock:
            _retry_at = time.monotonic() + settings.DATABASE_REPLICA_RETRY_SECONDS
        logger.warning(
            "The read replica does not answer (%s); public pages read the primary for %s s.",
            str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__,
            settings.DATABASE_REPLICA_RETRY_SECONDS,
        )
        with contextlib.suppress(DatabaseError):
            replica.close()
        return False
    return True


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
        if (
            request.method in {"GET", "HEAD"}
            and module.startswith(REPLICA_VIEW_MODULES)
            and replica_usable()
        ):
            request._replica_token = _reads_from_replica.set(True)  # type: ignore[attr-defined]
