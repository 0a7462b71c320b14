"""Jobs start and answer at once, not at the next poll: on PostgreSQL a worker is woken by
the NOTIFY sent when a job is queued, and a call waiting for a job (``?wait=``) by the one
sent when the job finishes (players/jobs/events.py).

Real worker processes (tests/tournaments/test_workers.py). Behaviour, not timings: each
test sets the fallback polls far beyond the call's ``?wait=``, so only a notification can
make the job run and the answer come in time; without it the call answers 202.
How fast, measured: tests/benchmarks/test_queue_close_bench.py.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from players.jobs import selectors as job_selectors
from players.jobs.events import FINISHED, job_event, listening
from players.models import Job
from tests.tournaments.helpers import make_club, make_owner
from tests.tournaments.test_workers import (  # noqa: F401 - the fixtures, by name
    Start,
    client_for,
    close_url,
    club_with_games,
    on_postgres,
    start_worker,
    wait_for,
)

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.usefixtures("queued_jobs")]

#: Longer than any ?wait= (at most 30 s): a poll never rescues the test.
NEVER = "600"


def test_a_worker_polling_rarely_still_runs_a_job_at_once_and_the_wait_answers(
    start_worker: Start,  # noqa: F811 - the fixture
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    club, officer, _period = club_with_games("woken")
    start_worker("patient", interval=NEVER)
    log = tmp_path / "patient.log"
    wait_for("the worker looked at the queue", lambda: "Starting worker" in log.read_text())
    assert "pickup=notify" in log.read_text()
    # Its first look at the queue follows the line at once; after it, only a NOTIFY or
    # the 600 s poll makes it look again.
    time.sleep(1)
    # The waiting call reads its job only when woken (or after 600 s).
    monkeypatch.setattr(job_selectors, "_SAFETY_READ_SECONDS", float(NEVER))
    client = client_for(officer)
    clock = time.monotonic()
    closed = client.post(close_url(club) + "?wait=20")
    elapsed = time.monotonic() - clock
    assert closed.status_code == 200, closed.content[:300]
    assert closed.json()["status"] == "closed"
    assert len(closed.json()["changes"]) == 6
    # A refusal ends the job too (failed): the wait is woken the same way.
    again = client.post(close_url(club) + "?wait=20")
    assert again.status_code == 409, again.content[:300]
    print(f"\nclose answered in {elapsed:.3f} s with polls every {NEVER} s")


def test_a_notification_reaches_only_after_its_transaction_commits(
    on_postgres: None,  # noqa: F811 - the fixture
) -> None:
    """The NOTIFY is part of the transaction that queues or finishes the job: a listener
    hears nothing while it is open, nothing at all if it rolls back."""
    from django.db import transaction

    with listening(FINISHED) as listener:
        assert listener is not None
        with transaction.atomic():
            job_event(FINISHED, "open")
            assert not listener.wait(0.3, payload="open")
        assert listener.wait(5, payload="open")
        try:
            with transaction.atomic():
                job_event(FINISHED, "undone")
                raise RuntimeError
        except RuntimeError:
            pass
        assert not listener.wait(0.3, payload="undone")


def test_the_wait_polls_where_nothing_notifies(db: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite (or a listener that cannot connect): the row is read every POLL_SECONDS
    until the deadline, where before the reads thinned out to one every 500 ms."""
    monkeypatch.setattr(job_selectors, "listening", _no_listener)
    owner = make_owner()
    job = Job.objects.create(club=make_club(owner), kind="close", created_by=owner)
    reads: list[float] = []
    real = job_selectors._reread

    def counted(job: Job) -> Job:
        reads.append(time.monotonic())
        return real(job)

    monkeypatch.setattr(job_selectors, "_reread", counted)
    assert job_selectors.job_wait(job=job, seconds=1.0).status == Job.Status.QUEUED
    # 20 reads in the second at 50 ms; the old backoff (50, 100, 200, 400 ms...) made 5.
    assert len(reads) >= 10


@contextmanager
def _no_listener(channel: str) -> Iterator[None]:
    yield None
