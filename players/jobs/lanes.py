"""The queue's lanes, each club's fair share of a lane, and each job kind's deadline
(docs/reference/queue.md).

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

A lane may give way to more urgent lanes (``JOBS_GIVE_WAY``): between the chunks of its
job's COPY writes the job waits while a job of those lanes runs. The workers' niceness
orders their own CPU, not the database server's, where a neighbour's 580,000-game COPY and
an officer's close otherwise share the cores as equals.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from types import FrameType
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django_tasks.base import TASK_MIN_PRIORITY

from players.bulk import between_chunks
from players.models import Job

#: The lanes (queue names). Webhook deliveries and e-mails are queued by their own tasks
#: (players/webhooks/delivery.py), named "deliveries" there.
RATING = "rating"
REPLAYS = "replays"
FILES = "files"
DELIVERIES = "deliveries"

DEADLINE_EXCEEDED = "deadline_exceeded"

# How often a job that gives way asks whether more urgent work runs: one indexed query a
# twentieth of a second at most, nothing beside the COPY chunks between which it asks.
GIVE_WAY_CHECK_SECONDS = 0.05


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


class GiveWay:
    """The pause between a job's COPY chunks (``players.bulk.between_chunks``): while a job
    of the ``urgent`` kinds runs, wait; ``budget`` seconds of waiting in all, so that a
    rating lane never idle (or a job left running by a dead worker) cannot starve this one."""

    def __init__(self, urgent: list[str], budget: float) -> None:
        self.urgent = urgent
        self.budget = budget
        self.waited = 0.0
        self._next_check = 0.0
        self._db: Any = None

    def _urgent_running(self) -> bool:
        # A connection of its own: the job's is inside a COPY here, which takes no query.
        if self._db is None:
            self._db = connections.create_connection(DEFAULT_DB_ALIAS)
        table = self._db.ops.quote_name(Job._meta.db_table)
        # IN with a placeholder per kind: SQLite has no ``= ANY(array)``.
        kinds = ", ".join(["%s"] * len(self.urgent))
        with self._db.cursor() as cursor:
            cursor.execute(
                f"SELECT EXISTS (SELECT 1 FROM {table} WHERE status = %s AND kind IN ({kinds}))",  # noqa: S608 - our own table, placeholders
                [Job.Status.RUNNING, *self.urgent],
            )
            row = cursor.fetchone()
        return bool(row and row[0])

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __call__(self) -> None:
        now = time.monotonic()
        if now < self._next_check or self.waited >= self.budget:
            return
        began = now
        while self._urgent_running() and self.waited + (now - began) < self.budget:
            time.sleep(GIVE_WAY_CHECK_SECONDS)
            now = time.monotonic()
        self.waited += now - began
        self._next_check = now + GIVE_WAY_CHECK_SECONDS


def urgent_lanes(lane: str) -> tuple[str, ...]:
    """The lanes that ``lane`` gives way to (``JOBS_GIVE_WAY``)."""
    lanes: Mapping[str, Iterable[str]] = settings.JOBS_GIVE_WAY
    return tuple(lanes.get(lane, ()))


@contextmanager
def give_way(urgent: list[str]) -> Iterator[GiveWay | None]:
    """Inside the block, COPY writes pause between chunks while a job of the ``urgent``
    kinds runs (at most ``JOBS_GIVE_WAY_MAX_SECONDS`` in all). Yields the pause (its
    ``waited`` seconds), or None where there is nothing to give way to."""
    budget = float(settings.JOBS_GIVE_WAY_MAX_SECONDS)
    # SQLite lets one transaction write at a time: a close cannot run beside an import's
    # write to give way to, and a second connection to an in-memory database (the tests')
    # finds the job's tables locked.
    if not urgent or budget <= 0 or connections[DEFAULT_DB_ALIAS].vendor != "postgresql":
        yield None
        return
    pause = GiveWay(urgent, budget)
    try:
        with between_chunks(pause):
            yield pause
    finally:
        pause.close()
