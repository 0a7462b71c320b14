"""A lane that gives way (``JOBS_GIVE_WAY``, docs/reference/queue.md): a files-lane job's COPY writes
pause while a rating-lane job runs, for at most ``JOBS_GIVE_WAY_MAX_SECONDS``; the rating
lane itself never waits. Through the worker's own task step (tests/queue.py) on
PostgreSQL, where the writes are COPY.
"""

from __future__ import annotations

import io
import logging
import threading
import time
from typing import Any

import pytest
from django.db import connection

from players.jobs import job_start
from players.jobs import lanes as job_lanes
from players.jobs import services as jobs_module
from players.models import Job
from tests.queue import run_queued_jobs
from tests.tournaments.helpers import make_club, make_owner
from tests.tournaments.test_workers import club_with_games

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("queued_jobs", "postgres_only"),
]

GAVE_WAY = "gave way"


def _csv(rows: int) -> bytes:
    lines = ["date,white,black,result,round"]
    lines += [
        f"2026-10-{1 + i % 28:02d},P{i % 50},P{(i + 7) % 50},1-0,{i // 50 + 1}" for i in range(rows)
    ]
    return ("\n".join(lines) + "\n").encode()


def _import(rows: int = 300) -> Job:
    owner = make_owner("noisy-owner")
    club = make_club(owner, slug="noisy")
    params = {"format": "csv", "list": "standard", "file": "games.csv"}
    return job_start(
        kind="import", club=club, by=owner, params=params, payload=io.BytesIO(_csv(rows))
    )


def _running_close() -> Job:
    """Another club's close, running in the rating lane's worker (its row as that worker
    keeps it)."""
    club, officer, period = club_with_games("quiet")
    return Job.objects.create(
        club=club,
        kind="close",
        params={"period": period.pk},
        created_by=officer,
        status=Job.Status.RUNNING,
    )


def _finish_later(job: Job, seconds: float) -> threading.Thread:
    def finish() -> None:
        try:
            time.sleep(seconds)
            Job.objects.filter(pk=job.pk).update(status=Job.Status.SUCCEEDED)
        finally:
            connection.close()

    thread = threading.Thread(target=finish)
    thread.start()
    return thread


def _gave_way(caplog: pytest.LogCaptureFixture, job: Job) -> list[float]:
    return [
        float(record.getMessage().rsplit(" ", 2)[-2])
        for record in caplog.records
        if GAVE_WAY in record.getMessage() and str(job.pk) in record.getMessage()
    ]


def test_an_import_waits_while_another_clubs_close_runs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="players.jobs.services")
    close = _running_close()
    job = _import()
    thread = _finish_later(close, 1.0)
    began = time.monotonic()
    run_queued_jobs()
    took = time.monotonic() - began
    thread.join()

    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert (job.result or {})["games_created"] == 300
    assert took >= 1.0
    (waited,) = _gave_way(caplog, job)
    assert 0.5 <= waited <= took


def test_it_gives_way_for_at_most_the_budget(
    caplog: pytest.LogCaptureFixture, settings: Any
) -> None:
    # A close that never ends (a dead worker's row, or closes back to back).
    settings.JOBS_GIVE_WAY_MAX_SECONDS = 0.5
    caplog.set_level(logging.INFO, logger="players.jobs.services")
    _running_close()
    job = _import()
    run_queued_jobs()

    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    (waited,) = _gave_way(caplog, job)
    assert 0.5 <= waited < 1.0


def test_without_a_lane_to_give_way_to_it_does_not_wait(
    caplog: pytest.LogCaptureFixture, settings: Any
) -> None:
    settings.JOBS_GIVE_WAY = {}
    caplog.set_level(logging.INFO, logger="players.jobs.services")
    _running_close()
    job = _import()
    run_queued_jobs()

    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert _gave_way(caplog, job) == []


def test_a_close_gives_way_to_nothing_an_import_to_the_rating_lane(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: dict[str, list[str]] = {}
    real = job_lanes.give_way

    def spy(urgent: list[str]) -> Any:
        asked[str(running.get().kind)] = urgent  # type: ignore[union-attr]
        return real(urgent)

    running = jobs_module._running
    monkeypatch.setattr(jobs_module, "give_way", spy)
    club, officer, period = club_with_games("second")
    close = job_start(kind="close", club=club, by=officer, params={"period": period.pk})
    job = _import()
    run_queued_jobs()

    for each in (close, job):
        each.refresh_from_db()
        assert each.status == Job.Status.SUCCEEDED, each.error
    assert asked["close"] == []
    assert set(asked["import"]) == {"close", "reopen", "periods"}
