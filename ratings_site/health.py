"""``/healthz``: is this node able to serve? For load balancers and orchestrators.

200 ``{"database": "ok", "queue": {"oldest_queued_seconds": ...}}`` (None when nothing
waits; a number that keeps growing means no worker is taking jobs); 503 when the database
does not answer. No authentication, and nothing about the internals (no versions, hosts or
error texts): anyone can call it.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from players.jobs import queue_oldest_queued_seconds

logger = logging.getLogger(__name__)


@never_cache
@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        oldest = queue_oldest_queued_seconds()
    except DatabaseError:
        logger.warning("Health check: the database does not answer", exc_info=True)
        return JsonResponse({"database": "unavailable", "queue": None}, status=503)
    return JsonResponse({"database": "ok", "queue": {"oldest_queued_seconds": oldest}})
