"""The period close through the queue: from the API call (``POST .../close/?wait=0``, 202)
to the job's ``succeeded`` seen through ``GET /api/v1/jobs/{id}/``, next to the same close
run in this process on the same data (then undone), as ``ratio``.

``make bench PYTEST_ARGS="-k queue"`` with ``DATABASE_URL`` on PostgreSQL (the worker is
another process: SQLite's test database is in memory). ``BENCH_QUEUE_PLAYERS`` players
(default 10,000; ``BENCH_SCALE=small``: 1,000) and five times as many games in one month;
full size is ``BENCH_QUEUE_PLAYERS=200000`` (the close benchmark's 200,000 players and
1,000,000 games). One JSON line: ``{"name": "queue_close", "seconds", "in_process_seconds",
"ratio", "queued_seconds", "run_seconds", "cpu_ratio", ...}``: ``queued_seconds`` from the
call until a worker started the job, ``run_seconds`` the job's own start to finish,
``cpu_ratio`` the worker's CPU time over the in-process close's (steady on busy cores).
The worker is started, and has looked at the queue once, before the clock starts. No
timing is asserted.
"""

from __future__ import annotations

import gc
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from django.db import connection, connections
from rest_framework.test import APIClient

from players.models import Job, RatingPeriod, RatingRun
from ratings_site.workshop import bench_floor
from ratings_site.workshop.bench_data import MONTH, generate
from tests.benchmarks.report import emit
from tests.benchmarks.test_load_bench import cpu_seconds, start_worker
from tournaments.services import period_close

pytestmark = [pytest.mark.benchmark, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SMALL = os.environ.get("BENCH_SCALE") == "small"
PLAYERS = int(os.environ.get("BENCH_QUEUE_PLAYERS") or (1_000 if SMALL else 10_000))
GAMES = PLAYERS * 5
ROOT = Path(__file__).resolve().parents[2]
DEADLINE_SECONDS = 1800
T = TypeVar("T")


@pytest.mark.usefixtures("database_cache_table")
def test_close_through_the_queue(queued_jobs: None, tmp_path: Path) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: the worker process must open the test database")
    rating_list, user = generate(players=PLAYERS, games=GAMES, seed=2026, quiet=True)
    period = RatingPeriod.objects.get(rating_list=rating_list, month=MONTH)
    bench_floor.vacuum_analyze(bench_floor.GENERATED)
    bench_floor.snapshot(rating_list)
    # The generator left millions of objects in this process, which a site's web process
    # does not hold: the collector's first full pass in the API call walked them all (0.5 s
    # at 10,000 players, inside the queued figure). Frozen, it skips them.
    gc.collect()
    gc.freeze()
    worker: subprocess.Popen[bytes] | None = None
    try:
        clock, cpu = time.perf_counter(), time.process_time()
        in_process_run = period_close(period=period, by=user)
        in_process = time.perf_counter() - clock
        in_process_cpu = time.process_time() - cpu
        bench_floor.reset(rating_list, period)
        worker = start_worker(tmp_path / "worker.log")
        # Started and polling: it has looked at the queue (its first reap) once.
        _wait_until(lambda: (tmp_path / "worker.log").stat().st_size > 0 or worker.poll())
        time.sleep(1)
        assert worker.poll() is None, (tmp_path / "worker.log").read_text()
        client = APIClient()
        client.force_authenticate(user)
        url = f"/api/v1/clubs/{rating_list.club.slug}/lists/{rating_list.slug}/periods/"
        # A running site has its URLconf and views loaded; this process loads them on its
        # first request (0.8 s, which the clock measured before as part of the queue).
        assert client.get(f"{url}{MONTH:%Y-%m}/").status_code == 200
        worker_cpu = cpu_seconds(worker.pid)
        clock = time.perf_counter()
        answer = client.post(f"{url}{MONTH:%Y-%m}/close/?wait=0")
        assert answer.status_code == 202, answer.content
        job_url = answer["Location"]

        def finished() -> dict[str, Any] | None:
            body: dict[str, Any] = client.get(job_url).json()
            return body if body["status"] in ("succeeded", "failed") else None

        body = _wait_until(finished, pause=0.05)
        through_queue = time.perf_counter() - clock
        worker_cpu = cpu_seconds(worker.pid) - worker_cpu
        assert body["status"] == "succeeded", body
    finally:
        if worker is not None:
            worker.terminate()
            worker.wait(timeout=60)
        bench_floor.drop_snapshot(rating_list)
        connections.close_all()
        gc.unfreeze()
    job = Job.objects.get(pk=body["id"])
    assert job.started is not None
    assert job.finished is not None
    queued_run = RatingRun.objects.get(job=job)
    emit(
        {
            "name": "queue_close",
            "players": PLAYERS,
            "games": GAMES,
            "seconds": round(through_queue, 3),
            "in_process_seconds": round(in_process, 3),
            "ratio": round(through_queue / in_process, 3),
            "queued_seconds": round((job.started - job.created).total_seconds(), 3),
            "run_seconds": round((job.finished - job.started).total_seconds(), 3),
            # CPU seconds, which other programs on busy cores do not move: the worker's
            # from the call to the job's end / the in-process close's (the database
            # server's work is in neither).
            "worker_cpu_seconds": round(worker_cpu, 3),
            "in_process_cpu_seconds": round(in_process_cpu, 3),
            "cpu_ratio": round(worker_cpu / in_process_cpu, 3),
            # The close's own phases (read, compute, write) in each: where they differ.
            "in_process_phases": in_process_run.summary["seconds"],
            "queued_phases": queued_run.summary["seconds"],
        }
    )


def _wait_until(check: Callable[[], T], *, pause: float = 0.2) -> T:
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(pause)
    raise AssertionError(f"not within {DEADLINE_SECONDS} s")
