"""Jobs through the API on the database queue, with the worker's task step run in this
process (tests/queue.py: it runs what is queued, then returns).

The endpoints that start jobs answer 202 with ``Location`` when the job is not done in
``?wait=`` seconds; ``GET /api/v1/jobs/{id}/`` shows it to the club's members only; the
result is the body the endpoint answers synchronously (a close's: its counts and links,
while its synchronous answer lists every row), the error the usual error shape.
Real worker processes on PostgreSQL: tests/tournaments/test_workers.py.
"""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest

from players.api.jobs import job_answer
from players.jobs import jobs_reap
from players.models import Job, PlayerRating, RatingChange, RatingPeriod, RatingRun
from tests.api.conftest import World, assert_error_shape, client_for
from tests.queue import run_queued_jobs
from tests.tournaments.import_world import read
from tournaments.selectors import period_changes
from tournaments.services.results import changes_body

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("queued_jobs")]

JOB_KEYS = {"id", "kind", "status", "progress", "result", "error", "created", "started", "finished"}
PERIOD = "/api/v1/clubs/north/lists/standard/periods/2026-02/"
CLOSE = PERIOD + "close/"
RATINGS = "/api/v1/clubs/north/lists/standard/ratings/"


def run_worker() -> None:
    assert run_queued_jobs() > 0


def accepted(response: Any) -> dict[str, Any]:
    assert response.status_code == 202, response.content[:300]
    body: dict[str, Any] = response.json()
    assert set(body) == JOB_KEYS
    assert response["Location"] == f"/api/v1/jobs/{body['id']}/"
    return body


def test_a_close_answers_202_then_the_worker_closes_it(world: World) -> None:
    officer = client_for(world.north.users["officer"])
    job = accepted(officer.post(CLOSE + "?wait=0"))
    assert job["kind"] == "close"
    assert job["status"] == "queued"
    assert job["result"] is None
    assert job["started"] is None
    period = RatingPeriod.objects.get(rating_list__club=world.north.club, month="2026-02-01")
    assert period.status == "open"

    run_worker()

    done = officer.get(f"/api/v1/jobs/{job['id']}/").json()
    assert set(done) == JOB_KEYS
    assert done["status"] == "succeeded", done
    assert done["error"] is None
    assert done["started"] is not None
    assert done["finished"] is not None
    period.refresh_from_db()
    assert period.status == "closed"
    players = PlayerRating.objects.filter(rating_list=period.rating_list).count()
    assert done["progress"] == {"done": players, "total": players}
    result = done["result"]
    assert result["period"] == "2026-02"
    assert result["status"] == "closed"
    assert result["games_count"] == 2
    stored = RatingChange.objects.filter(period=period, current=True)
    run = RatingRun.objects.get(job_id=job["id"])
    # Counts and links, not the rows: a federation's close would store 200,000 of them.
    assert result == {
        "period": "2026-02",
        "status": "closed",
        "games_count": 2,
        "players": stored.count(),
        "players_changed": run.players_changed,
        "run": run.pk,
        "changes": f"{PERIOD}changes/",
        "ratings": RATINGS + "?period=2026-02",
    }
    # The rows are the changes endpoint's, a page at a time, and what the database holds.
    rows = []
    page: str | None = result["changes"] + "?page_size=2"
    while page:
        body = officer.get(page).json()
        rows += body["results"]
        page = body["next"]
    assert len(rows) == stored.count() > 2
    after = dict(stored.values_list("player_id", "rating_after"))
    assert {c["player"]: c["rating_after"] for c in rows} == after


def test_wait_answers_a_close_with_every_row_of_the_close(world: World) -> None:
    """The synchronous answer keeps its documented shape (CloseOutSerializer): every
    player's line, read from the database by the waiting call (the job keeps none)."""
    officer = client_for(world.north.users["officer"])
    job = accepted(officer.post(CLOSE + "?wait=0"))
    run_worker()
    answer = job_answer(Job.objects.get(pk=job["id"]), 0)
    assert answer.status_code == 200
    period = RatingPeriod.objects.get(rating_list__club=world.north.club, month="2026-02-01")
    assert answer.data == changes_body(period, period_changes(period), 2)
    assert len(answer.data["changes"]) == RatingChange.objects.filter(period=period).count()
    paged = officer.get(f"{PERIOD}changes/?page_size=500").json()["results"]
    assert answer.data["changes"] == paged


def test_closing_a_closed_period_is_a_409_as_the_jobs_error(world: World) -> None:
    officer = client_for(world.north.users["officer"])
    url = CLOSE.replace("2026-02", "2026-01") + "?wait=0"
    job = accepted(officer.post(url))
    run_worker()
    done = officer.get(f"/api/v1/jobs/{job['id']}/").json()
    assert done["status"] == "failed"
    assert done["result"] is None
    assert_error_shape({"error": done["error"]})
    assert done["error"]["code"] == "conflict"
    assert done["error"]["fields"]["status"] == ["closed"]
    assert "already closed" in done["error"]["message"]


def test_only_members_of_the_club_see_a_job(world: World) -> None:
    job = accepted(client_for(world.north.users["officer"]).post(CLOSE + "?wait=0"))
    url = f"/api/v1/jobs/{job['id']}/"
    assert client_for(world.north.users["viewer"]).get(url).status_code == 200
    for outsider in (world.south.users["owner"], world.stranger, None):
        response = client_for(outsider).get(url)
        assert response.status_code == 404, outsider
        assert_error_shape(response.json())
    # A public club's jobs are its staff's too: south's visitors do not see them.
    south = accepted(
        client_for(world.south.users["officer"]).post(CLOSE.replace("north", "south") + "?wait=0")
    )
    assert client_for(None).get(f"/api/v1/jobs/{south['id']}/").status_code == 404
    assert (
        client_for(world.north.users["owner"]).get(f"/api/v1/jobs/{south['id']}/").status_code
        == 404
    )


def test_refused_requests_start_no_job(world: World) -> None:
    before = Job.objects.count()
    assert client_for(world.north.users["officer"]).post(CLOSE + "?wait=99").status_code == 400
    assert client_for(world.north.users["arbiter"]).post(CLOSE).status_code == 403
    assert client_for(world.south.users["officer"]).post(CLOSE).status_code == 404
    assert client_for(None).post(CLOSE).status_code == 401
    assert Job.objects.count() == before


def test_wait_gives_up_after_its_seconds_without_a_worker(world: World) -> None:
    body = accepted(client_for(world.north.users["officer"]).post(CLOSE + "?wait=1"))
    assert body["status"] == "queued"


def test_an_import_runs_as_a_job_and_its_result_is_the_report(world: World) -> None:
    arbiter = client_for(world.north.users["arbiter"])
    upload = io.BytesIO(read("swiss_9_rounds.trf"))
    upload.name = "cup.trf"
    response = arbiter.post(
        "/api/v1/clubs/north/imports/?wait=0",
        {"file": upload, "format": "trf", "list": "blitz"},
        format="multipart",
    )
    job = accepted(response)
    assert job["kind"] == "import"
    run_worker()
    done = arbiter.get(f"/api/v1/jobs/{job['id']}/").json()
    assert done["status"] == "succeeded", done
    assert done["result"]["stored"] is True
    assert done["result"]["games_created"] > 0
    assert done["progress"]["done"] > 0
    # The uploaded file is not kept once the job is done.
    assert Job.objects.values_list("payload", flat=True).get(pk=job["id"]) is None


def test_the_history_export_job_makes_a_csv_of_every_published_row(world: World) -> None:
    viewer = client_for(world.north.users["viewer"])
    job = accepted(viewer.post("/api/v1/clubs/north/lists/standard/history-export/?wait=0"))
    assert viewer.get(f"/api/v1/jobs/{job['id']}/download/").status_code == 404  # not yet
    run_worker()
    done = viewer.get(f"/api/v1/jobs/{job['id']}/").json()
    assert done["status"] == "succeeded"
    download = viewer.get(done["result"]["download"])
    assert download.status_code == 200
    assert download["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(download.content.decode())))
    published = RatingChange.objects.filter(
        rating_list__club=world.north.club, rating_list__kind="standard", current=True
    )
    assert len(rows) == published.count() == done["result"]["rows"]
    assert {int(r["player"]) for r in rows} == set(published.values_list("player_id", flat=True))
    outsider = client_for(world.south.users["owner"])
    assert outsider.get(done["result"]["download"]).status_code == 404


def test_a_job_whose_worker_stopped_beating_is_queued_again_then_failed(world: World) -> None:
    """The reaper's bookkeeping (the real SIGKILL is in tests/tournaments/test_workers.py):
    a running job with a heartbeat older than the lease goes back on the queue once, and
    fails with a message the second time."""
    officer = client_for(world.north.users["officer"])
    job_id = accepted(officer.post(CLOSE + "?wait=0"))["id"]
    Job.objects.filter(pk=job_id).update(
        status="running", attempts=1, heartbeat="2026-01-01T00:00Z"
    )
    assert jobs_reap(lease_seconds=30, max_attempts=2) == 1
    assert Job.objects.get(pk=job_id).status == "queued"
    run_worker()  # runs the first task (the job is claimed once) and the new one
    job = Job.objects.get(pk=job_id)
    assert (job.status, job.attempts) == ("succeeded", 2)

    second = accepted(officer.post("/api/v1/clubs/north/lists/rapid/replay/?wait=0"))["id"]
    Job.objects.filter(pk=second).update(
        status="running", attempts=2, heartbeat="2026-01-01T00:00Z"
    )
    assert jobs_reap(lease_seconds=30, max_attempts=2) == 1
    failed = officer.get(f"/api/v1/jobs/{second}/").json()
    assert failed["status"] == "failed"
    assert failed["error"]["code"] == "worker_lost"
    assert "Start the job again" in failed["error"]["message"]
