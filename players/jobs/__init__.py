"""The job queue: long work (closes, replays, imports, exports, archives) run by worker
processes, never in a request (docs/reference/queue.md).

:mod:`.services` starts a job, runs it in a worker and takes back what a dead worker
left; :mod:`.lanes` are the queue's lanes, each club's fair share of one and each kind's
deadline; :mod:`.files` keeps a job's uploaded file apart from its row; :mod:`.events`
wakes whoever waits for a job; :mod:`.selectors` reads the jobs a user may see. The
tables are the app's own (``players.models.jobs``); the kinds that do the work are
registered by ``tournaments/jobs.py``. Callers import from here.
"""

from __future__ import annotations

from players.jobs.files import job_payload
from players.jobs.selectors import (
    job_get_visible,
    job_output,
    job_wait,
    jobs_visible_to,
    queue_oldest_queued_seconds,
)
from players.jobs.services import (
    JOB_KINDS,
    JobOutcome,
    JobProgress,
    job_kind,
    job_run,
    job_start,
    jobs_reap,
)

__all__ = [
    "JOB_KINDS",
    "JobOutcome",
    "JobProgress",
    "job_get_visible",
    "job_kind",
    "job_output",
    "job_payload",
    "job_run",
    "job_start",
    "job_wait",
    "jobs_reap",
    "jobs_visible_to",
    "queue_oldest_queued_seconds",
]
