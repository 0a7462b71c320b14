"""A job's deadline in a real worker process (``manage.py worker``) on PostgreSQL: a close
stalled in the middle of its transaction (waiting on a row another session holds, its
rating changes written but not committed) is interrupted at the deadline, the statement
is cancelled on the server, the transaction rolls back, the job fails with a message that
says why, and the same worker goes on to run the next job on its connection.
"""

from __future__ import annotations

import pytest

from players.models import Job, RatingChange, RatingRun
from tests.tournaments.test_workers import (
    Start,
    client_for,
    close_url,
    club_with_games,
    hold_a_rating_row,
    job_status,
    on_postgres,
    start_worker,
    wait_for,
    waiting_on_a_lock,
)

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.usefixtures("queued_jobs")]
__all__ = ["on_postgres", "start_worker"]  # fixtures, used by name

DEADLINE = "4"


def test_a_close_past_its_deadline_is_stopped_rolled_back_and_the_worker_goes_on(
    start_worker: Start,
) -> None:
    club, officer, period = club_with_games("deadline")
    holder = hold_a_rating_row(club)
    try:
        worker = start_worker("rating", extra={"JOBS_DEADLINE_CLOSE": DEADLINE})
        job_id = client_for(officer).post(close_url(club) + "?wait=0").json()["id"]
        wait_for(
            "the close waits on the held row",
            lambda: waiting_on_a_lock() or Job.objects.get(pk=job_id).is_finished,
        )
        wait_for("the job ends", lambda: job_status(job_id) not in ("queued", "running"))
        # The server's statement was cancelled, not left waiting on the row.
        assert not waiting_on_a_lock()
    finally:
        holder.rollback()
        holder.close()
    body = client_for(officer).get(f"/api/v1/jobs/{job_id}/").json()
    assert body["status"] == "failed", body
    assert body["error"]["code"] == "deadline_exceeded"
    assert f"deadline ({DEADLINE} s for a close job)" in body["error"]["message"]
    period.refresh_from_db()
    assert period.status == "open"
    assert not RatingChange.objects.filter(period=period).exists()
    assert not RatingRun.objects.filter(rating_list=period.rating_list, kind="close").exists()
    # The same worker, on the same connection, closes the period when asked again.
    again = client_for(officer).post(close_url(club) + "?wait=0").json()["id"]
    wait_for("the second close ends", lambda: job_status(again) not in ("queued", "running"))
    assert job_status(again) == "succeeded", Job.objects.get(pk=again).error
    assert worker.poll() is None
    assert Job.objects.get(pk=again).worker.endswith(f":{worker.pid}")
    period.refresh_from_db()
    assert period.status == "closed"
