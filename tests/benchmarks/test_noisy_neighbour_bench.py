"""Noisy neighbour: a quiet club's closes while another club loads every lane of the queue.

The noisy club queues ``BENCH_NOISY_IMPORTS`` PGN imports (20), the largest PGN the limits
accept (a 63.6 MB file of 580,000 games naming 50,000 players: ``IMPORT_MAX_PLAYERS``),
the same file's neighbour that names a million players (refused while read), a replay of
its 12 closed months, and ``BENCH_NOISY_HOOKS`` webhook events to a receiver that answers
a byte every 5 s. Meanwhile the quiet club queues a close every ``BENCH_NOISY_INTERVAL``
seconds (10), ``BENCH_NOISY_CLOSES`` of them (6). Before the noise, the same number of the
quiet club's closes run alone on the same workers: their time is the baseline.

For each layout (``BENCH_NOISY_LAYOUTS``: ``runsite``, ``make run``'s command; ``deploy``,
deploy/start.sh) one JSON line: ``pickup_p99_seconds`` (the quiet closes' job created ->
started under the noise; the bar is 2 s), ``ratio`` (their mean run time under the noise /
alone; the bar is 1.5), each close's figures, what the noise did, and ``files_worker_peak_mb``
(the files lane worker's peak resident memory, VmHWM, after the largest PGN). No timing is
asserted. PostgreSQL only (the workers are other processes). ``BENCH_SCALE=small``: 200
quiet players, 3 closes 2 s apart, small files, for CI.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path
from typing import Any

import pytest
from django.db import connection, connections, transaction

from players.jobs import job_start
from players.models import Job, RatingList, RatingPeriod
from players.webhooks import webhook_create
from players.webhooks.services import events_emit
from ratings_site.workshop.bench_data import generate
from tests.benchmarks.big_pgn import write_pgn
from tests.benchmarks.noisy import LAYOUTS, layout, nearest_rank, peak_rss_mb, slow_receiver
from tests.benchmarks.report import emit
from tournaments.services import period_close, period_reopen

pytestmark = [pytest.mark.benchmark, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SMALL = os.environ.get("BENCH_SCALE") == "small"


def _setting(name: str, full: str, small: str) -> str:
    return os.environ.get(name) or (small if SMALL else full)


CLOSES = int(_setting("BENCH_NOISY_CLOSES", "6", "3"))
INTERVAL = float(_setting("BENCH_NOISY_INTERVAL", "10", "2"))
QUIET_PLAYERS = int(_setting("BENCH_NOISY_PLAYERS", "2000", "200"))
NOISY_PLAYERS = int(_setting("BENCH_NOISY_REPLAY_PLAYERS", "3000", "200"))
IMPORTS = int(_setting("BENCH_NOISY_IMPORTS", "20", "20"))
IMPORT_GAMES = int(_setting("BENCH_NOISY_IMPORT_GAMES", "5000", "200"))
BIG_GAMES = int(_setting("BENCH_NOISY_BIG_GAMES", "580000", "20000"))
BIG_PLAYERS = int(_setting("BENCH_NOISY_BIG_PLAYERS", "50000", "2000"))
HOOKS = int(_setting("BENCH_NOISY_HOOKS", "10", "3"))
SELECTED = _setting("BENCH_NOISY_LAYOUTS", ",".join(LAYOUTS), ",".join(LAYOUTS)).split(",")
DEADLINE_SECONDS = 1800
ROOT = Path(__file__).resolve().parents[2]


def _wait(jobs: list[str]) -> None:
    deadline = time.monotonic() + DEADLINE_SECONDS
    while Job.objects.filter(pk__in=jobs, finished__isnull=True).exists():
        assert time.monotonic() < deadline, f"jobs not done within {DEADLINE_SECONDS} s"
        time.sleep(0.2)


def _closes(periods: list[RatingPeriod], user: Any) -> list[dict[str, Any]]:
    """Queue a close of each period, ``INTERVAL`` seconds apart; each one's figures."""
    jobs = []
    for index, period in enumerate(periods):
        if index:
            time.sleep(INTERVAL)
        club = period.rating_list.club
        jobs.append(
            str(job_start(kind="close", club=club, by=user, params={"period": period.pk}).pk)
        )
    _wait(jobs)
    figures = []
    for pk in jobs:
        job = Job.objects.get(pk=pk)
        assert job.status == Job.Status.SUCCEEDED, job.error
        assert job.started
        assert job.finished
        figures.append(
            {
                "pickup": (job.started - job.created).total_seconds(),
                "run": (job.finished - job.started).total_seconds(),
                "started": job.started.timestamp(),
            }
        )
    return figures


def _pgn(path: Path, games: int, players: int, event: str, first: int = 0) -> Path:
    """``event``: four characters, the length of the "Open" it replaces (the largest file
    stays the size that passes the upload limit); the players numbered from ``first``."""
    assert len(event) == 4
    write_pgn(path, games=games, players=players, first=first)
    # Each layout's files differ (an identical file is "already imported" at once); the
    # games are in November, after the replayed months.
    text = path.read_text().replace('[Event "Open ', f'[Event "{event} ')
    text = text.replace('[Date "2026.10.', '[Date "2026.11.')
    path.write_text(text)
    return path


def _noise(noisy: RatingList, user: Any, files: list[Path], hook_url: str) -> dict[str, str]:
    """Queue the noisy club's work in every lane; the job ids by what they are."""
    club = noisy.club
    started: dict[str, str] = {}
    for index, path in enumerate(files):
        params = {"format": "pgn", "list": "standard", "file": path.name}
        with path.open("rb") as payload:
            job = job_start(kind="import", club=club, by=user, params=params, payload=payload)
        started[path.stem if index >= len(files) - 2 else f"import-{index}"] = str(job.pk)
    replay = job_start(kind="replay", club=club, by=user, params={"list": noisy.pk})
    started["replay"] = str(replay.pk)
    for _ in range(HOOKS):
        with transaction.atomic():
            events_emit(club_id=club.pk, events=["players.changed"], data={"hook": hook_url})
    return started


def _layout_run(
    name: str, quiet: list[RatingPeriod], noisy: RatingList, user: Any, tmp: Path, hook: str
) -> dict[str, Any]:
    tag = name[0].upper()
    files = [
        _pgn(tmp / f"{name}-{i}.pgn", IMPORT_GAMES, 1000, f"{tag}{i:03d}") for i in range(IMPORTS)
    ]
    # New players in each layout (as many digits: the same size), so each layout's largest
    # import creates its 50,000 players and stores its 580,000 games.
    first = 3_000_000 * (1 + SELECTED.index(name))
    files.append(_pgn(tmp / "largest.pgn", BIG_GAMES, BIG_PLAYERS, f"{tag}BIG", first))
    files.append(_pgn(tmp / "refused.pgn", BIG_GAMES, 2 * BIG_GAMES, f"{tag}REF", first))
    sizes = {path.stem: round(path.stat().st_size / 2**20, 1) for path in files[-2:]}
    period_reopen(period=RatingPeriod.objects.filter(rating_list=noisy).earliest("month"), by=user)
    limits = {
        "IMPORT_MAX_PLAYERS": str(BIG_PLAYERS),
        "WEBHOOKS_ALLOW_PRIVATE": "1",
        "WEBHOOKS_ALLOWED_PORTS": "*",
    }
    with layout(name, tmp / f"{name}.log", **limits):
        alone = _closes(quiet[:CLOSES], user)
        began, noise_epoch = time.monotonic(), time.time()
        noise = _noise(noisy, user, files, hook)
        time.sleep(1)  # the noise's workers have taken their first jobs
        crowded = _closes(quiet[CLOSES:], user)
        quiet_seconds = time.monotonic() - began
        _wait([noise["largest"], noise["replay"]])
        files_worker = int(Job.objects.get(pk=noise["largest"]).worker.rsplit(":", 1)[1])
        peak = peak_rss_mb(files_worker)
        _wait(list(noise.values()))
    jobs = {key: Job.objects.get(pk=pk) for key, pk in noise.items()}
    pickups = [c["pickup"] for c in crowded]
    alone_run = statistics.mean(c["run"] for c in alone)
    crowded_run = statistics.mean(c["run"] for c in crowded)
    return {
        "name": "noisy_neighbour",
        "layout": name,
        "closes": CLOSES,
        "interval_seconds": INTERVAL,
        "quiet_players": QUIET_PLAYERS,
        "pickup_p99_seconds": round(nearest_rank(pickups, 0.99), 3),
        "pickup_p50_seconds": round(nearest_rank(pickups, 0.5), 3),
        "alone_pickup_p99_seconds": round(nearest_rank([c["pickup"] for c in alone], 0.99), 3),
        "alone_run_seconds": round(alone_run, 3),
        "crowded_run_seconds": round(crowded_run, 3),
        "ratio": round(crowded_run / alone_run, 3),
        "max_ratio": round(max(c["run"] for c in crowded) / alone_run, 3),
        # Each close under the noise: seconds after the noise was queued, its run time.
        "crowded_runs": [
            [round(c["started"] - noise_epoch, 1), round(c["run"], 3)] for c in crowded
        ],
        "quiet_phase_seconds": round(quiet_seconds, 1),
        "noise": {
            key: _job_figure(job, noise_epoch) for key, job in jobs.items() if not key[-1].isdigit()
        },
        "imports_succeeded": sum(
            job.status == Job.Status.SUCCEEDED for key, job in jobs.items() if key[-1].isdigit()
        ),
        "files_mb": sizes,
        "files_worker_peak_mb": peak,
    }


def _job_figure(job: Job, epoch: float) -> dict[str, Any]:
    seconds = (job.finished - job.started).total_seconds() if job.started and job.finished else None
    return {
        "status": job.status,
        "started_after": job.started and round(job.started.timestamp() - epoch, 1),
        "seconds": seconds and round(seconds, 1),
        "error": (job.error or {}).get("message", "")[:120],
    }


@pytest.mark.usefixtures("queued_jobs", "database_cache_table")
def test_noisy_neighbour(tmp_path: Path, settings: Any) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: the workers are other processes")
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    settings.WEBHOOKS_ALLOWED_PORTS = (
        "*"  # the slow receiver listens on a port of the system's choice
    )
    settings.JOBS_HEARTBEAT_SECONDS = 2.0
    quiet_list, user = generate(
        players=QUIET_PLAYERS,
        games=QUIET_PLAYERS * 5,
        seed=34,
        quiet=True,
        months=2 * CLOSES * len(SELECTED),
    )
    noisy, _ = generate(
        players=NOISY_PLAYERS, games=NOISY_PLAYERS * 5, seed=35, quiet=True, months=12
    )
    for period in RatingPeriod.objects.filter(rating_list=noisy).order_by("month"):
        period_close(period=period, by=user)
    quiet = list(RatingPeriod.objects.filter(rating_list=quiet_list).order_by("month"))
    try:
        with slow_receiver(byte_every=5.0) as hook_url:
            webhook_create(club=noisy.club, by=user, url=hook_url, events=["players.changed"])
            for index, name in enumerate(SELECTED):
                span = quiet[index * 2 * CLOSES : (index + 1) * 2 * CLOSES]
                emit(_layout_run(name, span, noisy, user, tmp_path, hook_url))
    finally:
        connections.close_all()
