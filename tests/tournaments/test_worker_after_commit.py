"""A job's answer survives its worker: a worker killed after the close committed, before
the job's answer was stored, leaves the job to the next attempt, which finds the run the
close made (it records its job in the close's own transaction) and answers the close's
result instead of closing again ("409 already closed").

Real worker processes on PostgreSQL, started as in tests/tournaments/test_workers.py.
"""

from __future__ import annotations

import signal
from typing import Any

import psycopg
import pytest

from players.models import Job, RatingChange, RatingPeriod, RatingRun
from tests.tournaments.test_workers import (  # noqa: F401 - the fixtures, by name
    Start,
    client_for,
    close_url,
    club_with_games,
    dsn,
    hold_a_rating_row,
    job_status,
    on_postgres,
    start_worker,
    wait_for,
    waiting_on_a_lock,
)

pytestmark = [pytest.mark.postgres, pytest.mark.usefixtures("queued_jobs")]


def hold_the_job_row(job_id: str) -> psycopg.Connection[Any]:
    """A session that holds the Job row against updates (not against the run's foreign
    key, which takes a key-share lock): the work commits, the job's answer waits."""
    holder = psycopg.connect(dsn())
    table = Job._meta.db_table
    holder.execute(f"SELECT 1 FROM {table} WHERE id = %s FOR NO KEY UPDATE", [job_id])  # noqa: S608
    return holder


def committed_status(period: RatingPeriod) -> str:
    return str(RatingPeriod.objects.values_list("status", flat=True).get(pk=period.pk))


@pytest.mark.parametrize("max_attempts", [1, 2])
def test_a_worker_killed_after_the_close_committed_leaves_the_job_its_result(
    start_worker: Start,  # noqa: F811 - the fixture
    max_attempts: int,
) -> None:
    club, officer, period = club_with_games(f"after{max_attempts}")
    rating_row = hold_a_rating_row(club)  # the close waits before its commit
    job_row = None
    try:
        worker = start_worker("doomed", max_attempts=max_attempts)
        answer = client_for(officer).post(close_url(club) + "?wait=0")
        assert answer.status_code == 202
        job_id = answer.json()["id"]
        wait_for("the close waits on the held row", waiting_on_a_lock)
        job_row = hold_the_job_row(job_id)
        rating_row.rollback()  # the close goes on, and commits
        wait_for("the close committed", lambda: committed_status(period) == "closed")
        # The worker is past the commit: building the answer, or waiting to store it.
        assert job_status(job_id) == "running"
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
        # The dead worker's database sessions would still store the answer once the row
        # is free (a statement waiting on a lock outlives its client): end them, as the
        # server does when it notices the client gone.
        job_row.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE %s = ANY(pg_blocking_pids(pid))",
            [job_row.info.backend_pid],
        )
    finally:
        rating_row.close()
        if job_row is not None:
            job_row.rollback()
            job_row.close()
    assert job_status(job_id) == "running"
    start_worker("survivor", max_attempts=max_attempts)
    wait_for("the job is finished", lambda: Job.objects.get(pk=job_id).is_finished)
    job = Job.objects.get(pk=job_id)
    assert job.status == "succeeded", job.error
    assert job.attempts == 2
    body = client_for(officer).get(f"/api/v1/jobs/{job_id}/").json()
    assert body["result"]["status"] == "closed"
    assert body["result"]["period"] == "2026-10"
    assert body["result"]["players"] == 6
    assert body["result"]["run"] == job.runs.get().pk
    rows = client_for(officer).get(body["result"]["changes"]).json()
    assert rows["count"] == 6
    # Closed once: the retry answered the committed close, it did not run another.
    runs = RatingRun.objects.filter(rating_list=period.rating_list, kind="close")
    assert list(runs.values_list("job_id", flat=True)) == [job.pk]
    assert RatingChange.objects.filter(period=period).count() == 6
