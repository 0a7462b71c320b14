"""The queue with real worker processes (``manage.py worker``) on PostgreSQL.

Each test starts workers as separate processes against the test database, drives the API
from this process (the web side), and kills workers the way a crash or an operator would:
SIGKILL in the middle of a close, SIGTERM between jobs. Outcomes, not timings, are
asserted; each wait has a deadline (a bound, far above what the work takes) so a hung
worker fails the test instead of hanging it.

PostgreSQL only: the workers are other processes, and the SQLite test database is an
in-memory database that only this process can open.
"""

from __future__ import annotations

import datetime
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.db import connection, connections
from django_tasks_db.models import DBTaskResult
from rest_framework.test import APIClient

from players.models import Job, PlayerRating, RatingChange, RatingPeriod, RatingRun, Role
from players.services import membership_set
from tests.conftest import postgres_server_url
from tests.tournaments.helpers import make_club, make_owner, make_player, period_of, play

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.usefixtures("queued_jobs")]

ROOT = Path(__file__).resolve().parents[2]
LEASE_SECONDS = 3
FAST = "0.2"
DEADLINE_SECONDS = 90


@pytest.fixture
def on_postgres(transactional_db: None) -> None:
    if connection.vendor != "postgresql":
        pytest.skip(
            "needs PostgreSQL: worker processes must open the test database, and SQLite's "
            "test database is in memory in this process"
        )


def database_url() -> str:
    return f"{postgres_server_url()}/{connection.settings_dict['NAME']}"


def dsn() -> str:
    s = connection.settings_dict
    return (
        f"host={s['HOST'] or '127.0.0.1'} port={s['PORT'] or 5432} dbname={s['NAME']} "
        f"user={s['USER']}" + (f" password={s['PASSWORD']}" if s.get("PASSWORD") else "")
    )


Start = Callable[..., subprocess.Popen[bytes]]


@pytest.fixture
def start_worker(on_postgres: None, database_cache_table: None, tmp_path: Path) -> Iterator[Start]:
    """Start a ``manage.py worker`` process on the test database; all are killed at the
    end (before the test database is emptied)."""
    started: list[subprocess.Popen[bytes]] = []

    def start(
        name: str,
        *,
        max_attempts: int = 2,
        interval: str = FAST,
        extra: dict[str, str] | None = None,
    ) -> subprocess.Popen[bytes]:
        env = {
            **os.environ,
            "DATABASE_URL": database_url(),
            "JOBS_HEARTBEAT_SECONDS": "0.5",
            "JOBS_LEASE_SECONDS": str(LEASE_SECONDS),
            "JOBS_MAX_ATTEMPTS": str(max_attempts),
            "DJANGO_SETTINGS_MODULE": "ratings_site.settings.base",
            **(extra or {}),
        }
        env.pop("TASKS_BACKEND", None)
        if extra is None or "WORKER_NICE" not in extra:
            env.pop("WORKER_NICE", None)  # the setting's default
        log = (tmp_path / f"{name}.log").open("wb")
        process = subprocess.Popen(
            [
                sys.executable,
                "manage.py",
                "worker",
                "--no-reload",
                "--no-startup-delay",
                "--interval",
                interval,
                "--worker-id",
                name,
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        started.append(process)
        return process

    yield start
    for log in tmp_path.glob("*.log"):
        print(f"--- {log.name}\n{log.read_text()[-3000:]}")
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
    connections.close_all()


def wait_for(what: str, check: Callable[[], Any]) -> Any:
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"not within {DEADLINE_SECONDS} s: {what}")


def job_status(job_id: str) -> str:
    return str(Job.objects.values_list("status", flat=True).get(pk=job_id))


def club_with_games(slug: str) -> tuple[Any, Any, RatingPeriod]:
    owner = make_owner(f"{slug}-owner")
    club = make_club(owner, slug=slug)
    officer = make_owner(f"{slug}-officer")
    membership_set(club=club, user=officer, role=Role.OFFICER, by=owner)
    players = [make_player(club, owner, f"{slug} {i}", 1500 + 50 * i) for i in range(6)]
    play(
        club,
        owner,
        [(players[i], players[(i + 1) % 6], "1-0") for i in range(6)],
        date=datetime.date(2026, 10, 5),
    )
    return club, officer, period_of(club, "2026-10")


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def close_url(club: Any, month: str = "2026-10") -> str:
    return f"/api/v1/clubs/{club.slug}/lists/standard/periods/{month}/close/"


def hold_a_rating_row(club: Any) -> psycopg.Connection[Any]:
    """A second session that locks one of the list's PlayerRating rows: the close reads,
    plans and COPYs its RatingChange rows, then waits on this row in its final UPDATE,
    inside its transaction with its writes not committed: the middle of a close."""
    holder = psycopg.connect(dsn())
    rows = PlayerRating.objects.filter(rating_list__club=club, rating_list__kind="standard")
    row = rows.order_by("pk").values_list("pk", flat=True)[0]
    table = PlayerRating._meta.db_table
    holder.execute(f"SELECT 1 FROM {table} WHERE id = %s FOR UPDATE", [row])  # noqa: S608
    return holder


def waiting_on_a_lock() -> bool:
    with psycopg.connect(dsn()) as probe:
        found = probe.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND wait_event_type = 'Lock' AND query ILIKE 'UPDATE%'"
        ).fetchone()
    return bool(found and found[0])


def _kill_mid_close(start_worker: Start, max_attempts: int) -> tuple[Any, Any, RatingPeriod, str]:
    club, officer, period = club_with_games("kill")
    holder = hold_a_rating_row(club)
    try:
        worker = start_worker("doomed", max_attempts=max_attempts)
        answer = client_for(officer).post(close_url(club) + "?wait=0")
        assert answer.status_code == 202
        job_id = answer.json()["id"]
        wait_for(
            "the close waits on the held row",
            lambda: waiting_on_a_lock() or Job.objects.get(pk=job_id).is_finished,
        )
        assert job_status(job_id) == "running", Job.objects.get(pk=job_id).error
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
    finally:
        holder.rollback()
        holder.close()
    # The dead worker's transaction never committed: the period is as it was.
    period.refresh_from_db()
    assert period.status == "open"
    assert not RatingChange.objects.filter(period=period).exists()
    assert not RatingRun.objects.filter(rating_list=period.rating_list, kind="close").exists()
    return club, officer, period, job_id


def test_a_worker_killed_mid_close_leaves_the_period_and_the_job_runs_again(
    start_worker: Start,
) -> None:
    _club, officer, period, job_id = _kill_mid_close(start_worker, max_attempts=2)
    killed = time.monotonic()
    survivor = start_worker("survivor")
    wait_for("the job succeeds again", lambda: job_status(job_id) == "succeeded")
    print(f"\nrecovered {time.monotonic() - killed:.1f} s after the kill (lease {LEASE_SECONDS} s)")
    job = Job.objects.get(pk=job_id)
    assert job.attempts == 2
    assert job.worker.endswith(f":{survivor.pid}")  # host:pid of the worker that finished it
    period.refresh_from_db()
    assert period.status == "closed"
    assert RatingRun.objects.filter(rating_list=period.rating_list, kind="close").count() == 1
    assert RatingChange.objects.filter(period=period).count() == 6
    body = client_for(officer).get(f"/api/v1/jobs/{job_id}/").json()
    assert body["result"]["status"] == "closed"
    # The killed attempt's task is not left "running" for ever. The close's own follow-up
    # (the webhooks' fan-out, queued at its commit) may still be running for a moment.
    wait_for(
        "no task left running", lambda: not DBTaskResult.objects.filter(status="RUNNING").exists()
    )


def test_after_its_last_attempt_the_job_fails_with_a_message_and_starting_again_works(
    start_worker: Start,
) -> None:
    club, officer, period, job_id = _kill_mid_close(start_worker, max_attempts=1)
    start_worker("reaper", max_attempts=1)
    wait_for("the job is failed", lambda: job_status(job_id) == "failed")
    body = client_for(officer).get(f"/api/v1/jobs/{job_id}/").json()
    assert body["error"]["code"] == "worker_lost"
    assert "Start the job again" in body["error"]["message"]
    period.refresh_from_db()
    assert period.status == "open"
    again = client_for(officer).post(close_url(club) + "?wait=30")
    assert again.status_code == 200, again.content[:300]
    assert again.json()["status"] == "closed"


def test_wait_answers_the_close_itself_and_a_closed_period_is_the_usual_409(
    start_worker: Start,
) -> None:
    club, officer, _period = club_with_games("waits")
    start_worker("one")
    client = client_for(officer)
    closed = client.post(close_url(club) + "?wait=30")
    assert closed.status_code == 200, closed.content[:300]
    assert closed.json()["period"] == "2026-10"
    assert len(closed.json()["changes"]) == 6
    again = client.post(close_url(club) + "?wait=30")
    assert again.status_code == 409
    assert again.json()["error"]["fields"]["status"] == ["closed"]
    failed = Job.objects.filter(club=club, status="failed").get()
    assert failed.error is not None
    assert failed.error["code"] == "conflict"


def test_two_workers_never_run_the_same_job(start_worker: Start) -> None:
    clubs = [club_with_games(f"pair{i}") for i in range(6)]
    start_worker("left")
    start_worker("right")
    ids = []
    for club, officer, _period in clubs:
        for _ in range(2):  # the second close of each period must be the 409
            answer = client_for(officer).post(close_url(club) + "?wait=0")
            assert answer.status_code == 202
            ids.append(answer.json()["id"])
    wait_for(
        "every job finishes",
        lambda: (
            Job.objects.filter(pk__in=ids, status__in=["succeeded", "failed"]).count() == len(ids)
        ),
    )
    jobs = Job.objects.filter(pk__in=ids)
    assert {job.attempts for job in jobs} == {1}
    tasks = DBTaskResult.objects.filter(id__in=[job.task_id for job in jobs])
    assert tasks.count() == len(ids)
    assert all(len(task.worker_ids) == 1 for task in tasks)
    for _club, _officer, period in clubs:
        period.refresh_from_db()
        assert period.status == "closed"
        # Closed once: one run, one row per player.
        assert RatingRun.objects.filter(rating_list=period.rating_list, kind="close").count() == 1
        assert RatingChange.objects.filter(period=period).count() == 6
    assert jobs.filter(status="succeeded").count() == len(clubs)
    assert jobs.filter(status="failed", error__code="conflict").count() == len(clubs)
    print(f"\nworkers used: {sorted({job.worker for job in jobs})}")


def test_the_queue_survives_a_restart_of_every_process(start_worker: Start, tmp_path: Path) -> None:
    club, officer, period = club_with_games("restart")
    client = client_for(officer)
    first = start_worker("before")
    log = tmp_path / "before.log"
    wait_for("the worker is up", lambda: "Starting worker" in log.read_text())
    first.send_signal(signal.SIGTERM)  # an operator's restart: stops between jobs
    assert first.wait(timeout=30) == 0
    # Queued with no worker running; then the web side restarts too (new connections).
    close = client.post(close_url(club) + "?wait=0").json()["id"]
    export = client.post("/api/v1/clubs/restart/lists/standard/history-export/?wait=0")
    connections.close_all()
    assert job_status(close) == "queued"
    start_worker("after")
    wait_for("both jobs ran", lambda: job_status(close) == "succeeded")
    wait_for("the export ran", lambda: job_status(export.json()["id"]) == "succeeded")
    period.refresh_from_db()
    assert period.status == "closed"


def thread_niceness(pid: int) -> dict[str, int]:
    """The niceness of each thread of process ``pid`` (Linux: a niceness is per thread)."""
    found = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        stat = (task / "stat").read_text()
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        found[f"{task.name} {name}"] = int(stat.rsplit(")", 1)[1].split()[16])
    return found


def test_a_worker_runs_its_jobs_at_the_worker_niceness(start_worker: Start, tmp_path: Path) -> None:
    # Background work yields the CPU to the web: every thread of the worker (the job's,
    # the reaper, the heartbeat) runs at WORKER_NICE, lower than the web's 0.
    own = os.getpriority(os.PRIO_PROCESS, 0)
    default = start_worker("default")
    wait_for(
        "the worker is up", lambda: "Starting worker" in (tmp_path / "default.log").read_text()
    )
    assert f"nice={max(10, own)}" in (tmp_path / "default.log").read_text()
    assert set(thread_niceness(default.pid).values()) == {max(10, own)}
    default.send_signal(signal.SIGTERM)
    assert default.wait(timeout=30) == 0
    club, officer, period = club_with_games("nice")
    holder = hold_a_rating_row(club)
    try:
        worker = start_worker("nice", extra={"WORKER_NICE": "7"})
        job_id = client_for(officer).post(close_url(club) + "?wait=0").json()["id"]
        wait_for(
            "the close waits on the held row",
            lambda: waiting_on_a_lock() or Job.objects.get(pk=job_id).is_finished,
        )
        assert job_status(job_id) == "running", Job.objects.get(pk=job_id).error
        threads = thread_niceness(worker.pid)
        assert len(threads) >= 3, threads  # the job's, the reaper, the heartbeat
        assert set(threads.values()) == {max(7, own)}, threads
    finally:
        holder.rollback()
        holder.close()
    wait_for("the close ran", lambda: job_status(job_id) == "succeeded")
    period.refresh_from_db()
    assert period.status == "closed"
