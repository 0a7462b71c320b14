"""Load: gunicorn (4 sync workers) on PostgreSQL serving the pages benchmark's club,
driven from a second process at many concurrent connections.

``make bench PYTEST_ARGS="-k load"`` with ``DATABASE_URL`` on PostgreSQL. Full size: 5,000
players, 32 connections, 20 s per endpoint; ``BENCH_SCALE=small``: 500 players, 8
connections, 5 s. ``LOAD_CONNECTIONS``, ``LOAD_SECONDS`` and ``LOAD_WORKERS`` override.
One JSON line per endpoint: ``{"name": "load_list", "rps", "p50_ms", "p99_ms", "errors",
"requests", ...}``, and ``load_not_found`` (a 404: middleware and URL resolution only) as
the baseline, with ``rps_ratio`` = endpoint rps / baseline rps. Errors are asserted to be
zero (a failed request is a bug, not a figure); timings are not asserted.

PostgreSQL only: gunicorn's processes must open the test database (SQLite's is in memory).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from django.db import connection

from tests.benchmarks.report import emit
from tests.benchmarks.test_pages_bench import YEAR, build

pytestmark = [pytest.mark.benchmark, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SMALL = os.environ.get("BENCH_SCALE") == "small"
PLAYERS = 500 if SMALL else 5000
CONNECTIONS = int(os.environ.get("LOAD_CONNECTIONS", "8" if SMALL else "32"))
SECONDS = float(os.environ.get("LOAD_SECONDS", "5" if SMALL else "20"))
WORKERS = int(os.environ.get("LOAD_WORKERS", "4"))
ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _database_url() -> str:
    s = connection.settings_dict
    auth = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
    return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def _drive(url: str, expect: int) -> dict[str, object]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.benchmarks.load_driver",
            url,
            str(CONNECTIONS),
            str(SECONDS),
            str(expect),
        ],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


@pytest.mark.usefixtures("database_cache_table")
def test_load_under_gunicorn() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: gunicorn's processes must open the test database")
    club, player = build(PLAYERS)
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "DJANGO_SETTINGS_MODULE": "ratings_site.settings.base",
        "DEBUG": "0",
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_WORKERS": str(WORKERS),
    }
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "-c",
            "deploy/gunicorn.conf.py",
            "--access-logfile",
            "/dev/null",
            "ratings_site.wsgi",
        ],
        cwd=ROOT,
        env=env,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{base}/healthz", timeout=2)  # noqa: S310
                break
            except OSError:
                time.sleep(0.2)
        targets = {
            "load_not_found": ("/load-baseline-not-found/", 404),
            "load_list": (f"/clubs/{club.slug}/lists/standard/", 200),
            "load_player": (f"/clubs/{club.slug}/players/{player.pk}/", 200),
            "load_period_report": (f"/clubs/{club.slug}/lists/standard/periods/{YEAR}-06/", 200),
            "load_ratings_api": (f"/api/v1/clubs/{club.slug}/lists/standard/ratings/", 200),
            "load_players_api": (f"/api/v1/clubs/{club.slug}/players/", 200),
        }
        baseline_rps = 0.0
        for name, (path, status) in targets.items():
            figures = _drive(base + path, status)
            rps = float(figures["rps"])  # type: ignore[arg-type]
            if name == "load_not_found":
                baseline_rps = rps
            emit(
                {
                    "name": name,
                    "players": PLAYERS,
                    "connections": CONNECTIONS,
                    "seconds": SECONDS,
                    "gunicorn_workers": WORKERS,
                    **figures,
                    "rps_ratio": round(rps / baseline_rps, 3) if baseline_rps else None,
                }
            )
            assert figures["errors"] == 0, (name, figures)
    finally:
        server.terminate()
        server.wait(timeout=30)
