"""The first of the month: every club closes at once. ``MONTH_CLUBS`` small clubs
(``MONTH_CLUB_PLAYERS`` players and ``MONTH_CLUB_GAMES`` games each: 1,000 / 50 / 250) and
one federation (``MONTH_FEDERATION_PLAYERS``, five games a player: 200,000 / 1,000,000)
queue their closes together, the federation's first (the small clubs' worst case), while a
load driver reads pages through gunicorn; the same queue is worked by 1, 2 and 4 worker
processes of the rating lane (``MONTH_WORKERS``), the data reset between the runs. The
visitors are ``MONTH_CONNECTIONS`` (2) connections that each ask again as soon as they have
their answer, or, with ``MONTH_RATE``, that many requests a second in all, each timed from
when it was due (an open loop: a stall shows in every request it delays, not only in the
ones it caught in flight).

``make bench PYTEST_ARGS="-k first_of_month"`` with ``DATABASE_URL`` on PostgreSQL (the
workers are other processes); ``BENCH_SCALE=small``: 100 clubs and a federation of 20,000.
One JSON line per worker count: ``last_published_seconds`` (from the first job queued
until the last list was published), the small clubs' waits (queued to published) p50,
p99 and max, the federation's, closes a second, and the pages' p99 before the storm and
during it, per page, with their requests a second in all (``pages_rps``); ``ratio`` is
closes a second over the one-worker run's, in the same run. No timing is asserted; every
close must succeed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from players.jobs import job_start
from players.models import (
    Club,
    Job,
    Player,
    RatingList,
    RatingPeriod,
    RatingRun,
)
from ratings_site.workshop import bench_floor
from ratings_site.workshop.bench_data import MONTH, generate
from tests.benchmarks.load_driver import figures
from tests.benchmarks.report import emit
from tests.benchmarks.test_load_bench import ROOT, _env, _gunicorn, _spec, driver_until_stopped

pytestmark = [pytest.mark.benchmark, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SMALL = os.environ.get("BENCH_SCALE") == "small"
CLUBS = int(os.environ.get("MONTH_CLUBS") or (100 if SMALL else 1000))
CLUB_PLAYERS = int(os.environ.get("MONTH_CLUB_PLAYERS") or 50)
CLUB_GAMES = int(os.environ.get("MONTH_CLUB_GAMES") or 250)
FEDERATION = int(os.environ.get("MONTH_FEDERATION_PLAYERS") or (20_000 if SMALL else 200_000))
WORKER_COUNTS = [int(n) for n in os.environ.get("MONTH_WORKERS", "1,2,4").split(",")]
CONNECTIONS = int(os.environ.get("MONTH_CONNECTIONS", "2"))
# Visitors' requests a second in all (open loop); 0: each connection asks again as soon as
# it has its answer (closed loop), which takes every cycle the web can get.
RATE = float(os.environ.get("MONTH_RATE") or 0)
BEFORE = 8.0
DEADLINE = 3600.0
SNAPSHOT = "bench_month_snapshot"
# Asked in the fixture too, before it builds a thousand clubs (CI's small benchmarks run on
# SQLite, whose test database is in this process's memory).
NEEDS = "needs PostgreSQL: the workers and gunicorn must open the test database"
WORKER = [sys.executable, "manage.py", "worker", "--no-reload", "--no-startup-delay"]


@pytest.fixture
def month() -> Iterator[list[tuple[RatingList, RatingPeriod]]]:
    """The federation's list and period first, then each small club's; a snapshot of
    their ratings to put back between runs."""
    if connection.vendor != "postgresql":
        pytest.skip(NEEDS)
    made = [_one(FEDERATION, FEDERATION * 5, seed=1)]
    made += [_one(CLUB_PLAYERS, CLUB_GAMES, seed=100 + n) for n in range(CLUBS)]
    lists = [int(rating_list.pk) for rating_list, _ in made]
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {SNAPSHOT}")
    bench_floor.snapshot_lists(lists, SNAPSHOT)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    Club.objects.filter(rating_lists__in=lists).update(public=True)
    yield made
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {SNAPSHOT}")


def _one(players: int, games: int, *, seed: int) -> tuple[RatingList, RatingPeriod]:
    rating_list, _ = generate(players=players, games=games, seed=seed, quiet=True)
    return rating_list, RatingPeriod.objects.get(rating_list=rating_list, month=MONTH)


def _reset(made: list[tuple[RatingList, RatingPeriod]]) -> None:
    """Every close undone (bench_floor.reset_periods), and the runs and jobs gone."""
    bench_floor.reset_periods([int(period.pk) for _, period in made], SNAPSHOT)
    # After the rating changes, which name their run.
    RatingRun.objects.filter(rating_list__in=[rating_list for rating_list, _ in made]).delete()
    Job.objects.all().delete()


@contextmanager
def _workers(count: int, logs: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``count`` workers of the rating lane and one of the other lanes (as deploy/start.sh
    starts them), each waiting at the queue when this yields."""
    env = _env()
    env.pop("TASKS_BACKEND", None)
    lanes = ["rating"] * count + ["replays,files,deliveries"]
    started = []
    for n, lane in enumerate(lanes):
        log = logs / f"worker-{count}-{n}.log"
        started.append(
            (
                subprocess.Popen(
                    [*WORKER, "--queue-name", lane],
                    cwd=ROOT,
                    env=env,
                    stdout=log.open("wb"),
                    stderr=subprocess.STDOUT,
                ),
                log,
            )
        )
    try:
        for process, log in started:
            for _ in range(600):
                if log.stat().st_size > 0 or process.poll() is not None:
                    break
                time.sleep(0.1)
            assert process.poll() is None, log.read_text()
        yield [process for process, _ in started]
    finally:
        for process, _ in started:
            process.terminate()
        for process, _ in started:
            process.wait(timeout=120)


def _queue(made: list[tuple[RatingList, RatingPeriod]], officer: Any) -> list[Job]:
    """The closes queued as the API queues them (job_start), the federation's first."""
    return [
        job_start(kind="close", club=rating_list.club, by=officer, params={"period": period.pk})
        for rating_list, period in made
    ]


def _finished(jobs: list[Job]) -> list[Job]:
    ids = [job.pk for job in jobs]
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        if not Job.objects.filter(pk__in=ids).exclude(status__in=Job.FINISHED).exists():
            done = {job.pk: job for job in Job.objects.filter(pk__in=ids)}
            failed = [job.error for job in done.values() if job.status != Job.Status.SUCCEEDED]
            assert not failed, failed[:3]
            return [done[pk] for pk in ids]
        time.sleep(0.2)
    raise AssertionError("the month's closes did not end within the deadline")


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _pages(base: str, made: list[tuple[RatingList, RatingPeriod]]) -> list[dict[str, Any]]:
    small, federation = made[1][0].club, made[0][0].club
    player = Player.objects.filter(club=small).order_by("pk").first()
    assert player is not None
    targets: dict[str, tuple[str, int, dict[str, str]]] = {
        "not_found": ("/load-baseline-not-found/", 404, {}),
        "club_list": (f"/clubs/{small.slug}/lists/standard/", 200, {}),
        "club_player": (f"/clubs/{small.slug}/players/{player.pk}/", 200, {}),
        "federation_list": (f"/clubs/{federation.slug}/lists/standard/", 200, {}),
    }
    return _spec(base, targets)


Pages = dict[str, dict[str, dict[str, Any]]]


def _windows(
    samples: list[list[Any]], names: list[str], spans: dict[str, tuple[float, float]]
) -> Pages:
    out: dict[str, dict[str, Any]] = {}
    for window, (low, high) in spans.items():
        for index, name in enumerate(names):
            mine = [s for s in samples if s[0] == index and low <= s[1] < high]
            line = figures([s[2] for s in mine], max(high - low, 0.001))
            line["errors"] = sum(1 for s in mine if not s[3])
            out.setdefault(name, {})[window] = line
    return out


def _storm(
    made: list[tuple[RatingList, RatingPeriod]], officer: Any, base: str, count: int, logs: Path
) -> tuple[list[Job], float, float, Pages]:
    targets = _pages(base, made)
    spec = {
        "targets": targets,
        "connections": CONNECTIONS,
        "rate": RATE,
        "seconds": 0,
        "samples": True,
    }
    with _workers(count, logs):
        driver = driver_until_stopped(spec)
        time.sleep(BEFORE)
        began = time.time()
        queued = _queue(made, officer)
        queued_at = time.time()
        jobs = _finished(queued)
        ended = time.time()
        out, _ = driver.communicate("stop\n", timeout=300)
    result = json.loads(out)
    names = [target["name"] for target in targets]
    pages = _windows(
        result["samples"], names, {"before": (began - BEFORE + 2, began), "during": (began, ended)}
    )
    return jobs, began, queued_at, pages


def _figures(jobs: list[Job], began: float, queued_at: float, count: int) -> dict[str, Any]:
    def waited(job: Job) -> float:
        assert job.finished is not None
        return job.finished.timestamp() - job.created.timestamp()

    def ran(job: Job) -> float:
        assert job.finished is not None
        assert job.started is not None
        return (job.finished - job.started).total_seconds()

    federation, small = jobs[0], jobs[1:]
    waits = [waited(job) for job in small]
    last = max(job.finished.timestamp() for job in jobs if job.finished is not None)
    return {
        "workers": count,
        "clubs": len(small),
        "club_players": CLUB_PLAYERS,
        "club_games": CLUB_GAMES,
        "federation_players": FEDERATION,
        "queueing_seconds": round(queued_at - began, 2),
        "last_published_seconds": round(last - began, 2),
        "club_wait_p50_seconds": round(_quantile(waits, 0.5), 2),
        "club_wait_p99_seconds": round(_quantile(waits, 0.99), 2),
        "club_wait_max_seconds": round(max(waits), 2),
        "federation_wait_seconds": round(waited(federation), 2),
        "closes_per_second": round(len(jobs) / (last - began), 2),
        # A job's own time in its worker (started to finished): the rest of a wait is the
        # queue, and the other jobs ahead.
        "club_run_p50_seconds": round(_quantile([ran(job) for job in small], 0.5), 3),
        "club_run_sum_seconds": round(sum(ran(job) for job in small), 2),
        "federation_run_seconds": round(ran(federation), 2),
    }


@pytest.mark.usefixtures("database_cache_table")
def test_first_of_the_month(
    queued_jobs: None, month: list[tuple[RatingList, RatingPeriod]], tmp_path: Path
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip(NEEDS)
    from django.contrib.auth import get_user_model

    officer = get_user_model().objects.get(username="bench")
    one_worker: float | None = None
    with _gunicorn() as base:
        for n, count in enumerate(WORKER_COUNTS):
            if n:
                _reset(month)
            jobs, began, queued_at, pages = _storm(month, officer, base, count, tmp_path)
            line = _figures(jobs, began, queued_at, count)
            one_worker = one_worker or line["closes_per_second"]
            line["ratio"] = round(line["closes_per_second"] / one_worker, 2)
            line["pages_p99_ms"] = {
                name: {w: figures_of["p99_ms"] for w, figures_of in windows.items()}
                for name, windows in pages.items()
            }
            line["visitors"] = {"connections": CONNECTIONS, "rate": RATE or "closed loop"}
            line["pages_rps"] = {
                window: round(sum(page[window]["rps"] or 0 for page in pages.values()), 1)
                for window in ("before", "during")
            }
            line["pages_errors"] = sum(
                w["errors"] for windows in pages.values() for w in windows.values()
            )
            line["load"] = os.getloadavg()[0]
            emit({"name": "first_of_the_month", **line})
            assert RatingPeriod.objects.filter(
                pk__in=[period.pk for _, period in month], status=RatingPeriod.Status.CLOSED
            ).count() == len(month)
