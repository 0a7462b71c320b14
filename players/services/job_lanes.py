"""The queue's lanes, each club's fair share of a lane, and each job kind's deadline
(docs/queue.md).

A lane is a django-tasks queue name: every job kind says which it runs in, and workers are
started per lane (``manage.py worker --queue-name files``), so a lane's work never waits
behind another lane's. Inside a lane the database backend hands out the task of highest
priority first (then the oldest): a job's priority is minus the number of jobs its club
already has waiting in the lane, so one club's tenth queued import goes after every other
club's first. Only the engine's own ordering is used; nothing here schedules.

A deadline is a wall-clock bound on one job, counted from its start in a worker: at the
deadline a SIGALRM interrupts the job's thread (the worker's main thread) with
``JobDeadlineExceeded``, the work's transaction rolls back, and the job fails with a message
that says so.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from django.conf import settings
from django_tasks.base import TASK_MIN_PRIORITY

from players.models import Job

#: The lanes (queue names). Webhook deliveries and e-mails are queued by their own tasks
#: (players/services/webhook_delivery.py), named "deliveries" there.
RATING = "rating"
REPLAYS = "replays"
FILES = "files"
DELIVERIES = "deliveries"

DEADLINE_EXCEEDED = "deadline_exceeded"


def lane_priority(*, club_id: int, kinds: Iterable[str], job_id: str) -> int:
    """Minus how many jobs of the club wait in the lane of ``kinds`` besides ``job_id``:
    a club's first waiting job goes level with every other club's first, its second
    behind every other club's first, and so on (the engine's floor, -100, is the last
    place)."""
    waiting = (
        Job.objects.filter(club_id=club_id, status=Job.Status.QUEUED, kind__in=list(kinds))
        .exclude(pk=job_id)
        .count()
    )
    return max(-waiting, TASK_MIN_PRIORITY)


class JobDeadlineExceeded(KeyboardInterrupt):
    """The job ran past its kind's deadline.

    An interrupt, as Ctrl-C is, on purpose: psycopg answers one that arrives while it waits
    for the server by cancelling the statement there and leaving the connection usable
    (any other exception would leave the statement running and the connection stuck), and
    no ``except Exception`` in the job's code can swallow it."""

    def __init__(self, kind: str, seconds: float) -> None:
        super().__init__(kind, seconds)
        self.kind = kind
        self.seconds = seconds

    @property
    def message(self) -> str:
        return (
            f"The job ran longer than its deadline ({self.seconds:g} s for a {self.kind} job) "
            "and was stopped; nothing it did was kept. The operator sets the deadline "
            f"(JOBS_DEADLINE_{self.kind.upper()})."
        )


def deadline_seconds(kind: str) -> float:
    deadlines: dict[str, float] = settings.JOBS_DEADLINE_SECONDS
    return float(deadlines.get(kind, deadlines.get("default", 0)))


@contextmanager
def job_deadline(kind: str) -> Iterator[None]:
    """Interrupt the body once the deadline of ``kind`` has passed.

    Only in a process's main thread (where Python delivers signals: a worker's job runs
    there); a job run inside a web request (the immediate backend) has the request's own
    bounds. The alarm is disarmed before the body's answer is stored."""
    seconds = deadline_seconds(kind)
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise JobDeadlineExceeded(kind, seconds)

    previous: Any = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
