"""``manage.py worker``: runs queued jobs (django-tasks-db's worker) and takes back the jobs
of workers that died.

Everything of ``db_worker`` (``--batch``, ``--interval``, ``--max-tasks``, ``--worker-id``,
``--queue-name``...), plus: a thread that every half lease looks for running jobs whose
heartbeat stopped (``players.services.jobs_reap``) and queues them again or fails them.
Start as many workers as you like, on any machine that reaches the database; a job runs in
one of them (the queue hands a task out under ``SELECT ... FOR UPDATE SKIP LOCKED``, the
job is claimed with a compare-and-set).
"""

from __future__ import annotations

import logging
import signal
import threading
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connections
from django_tasks_db.management.commands.db_worker import Command as DatabaseWorkerCommand

from players.services import jobs_reap

logger = logging.getLogger(__name__)


def _reap_forever(stop: threading.Event) -> None:
    interval = max(float(settings.JOBS_LEASE_SECONDS) / 2, 0.5)
    try:
        while not stop.wait(interval):
            try:
                jobs_reap()
            except DatabaseError:
                # The database is away or busy: the next round will do.
                logger.warning("Could not look for jobs of dead workers", exc_info=True)
    finally:
        connections.close_all()


class Command(DatabaseWorkerCommand):
    help = "Run background jobs (and take back the jobs of workers that died)."

    def handle(self, *args: Any, **options: Any) -> None:
        # Jobs stuck since before this worker started are looked at once, at once.
        jobs_reap()
        if options.get("batch"):
            # A batch run may be called inside another program (tests, a script): it gets
            # its Ctrl-C and TERM handling back afterwards.
            signals = (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT)
            saved = {sig: signal.getsignal(sig) for sig in signals}
            try:
                super().handle(*args, **options)
            finally:
                for sig, handler in saved.items():
                    signal.signal(sig, handler)
            return
        stop = threading.Event()
        reaper = threading.Thread(target=_reap_forever, args=(stop,), daemon=True, name="reaper")
        reaper.start()
        try:
            super().handle(*args, **options)
        finally:
            stop.set()
