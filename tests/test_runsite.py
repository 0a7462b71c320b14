"""``make run``'s command: ``manage.py runsite`` serves the site and runs a job worker per
lane as child processes, on a SQLite file; Ctrl-C stops them all.

Real processes: the command is started the way a terminal starts it (its own process
group, which receives Ctrl-C's SIGINT), a job is queued by another process, the worker
runs it, and SIGINT to the group leaves no process behind.
"""

from __future__ import annotations

import datetime
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ratings_site.management.commands.runsite import site_url
from tests.conftest import migrated_copy

# Starts the site and a worker as processes.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
DEADLINE_SECONDS = 120


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(what: str, check: Callable[[], Any]) -> Any:
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline:
        try:
            value = check()
        except OSError:
            value = None
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"not within {DEADLINE_SECONDS} s: {what}")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for every purpose but its parent's bookkeeping.
    status = Path(f"/proc/{pid}/status")
    return not (status.exists() and "zombie" in status.read_text())


def _manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, check=True
    )
    return done.stdout.decode()


def _lane_workers(text: str) -> dict[str, int]:
    found = re.findall(r"Job worker for the (\w+) lane started \(process (\d+)\)", text)
    return {lane: int(pid) for lane, pid in found}


def test_runsite_serves_runs_jobs_and_stops_both_on_ctrl_c(
    tmp_path: Path, migrated_sqlite: Path
) -> None:
    # Migrated as `make run` leaves it before runsite (tests/test_ensure_database.py runs
    # make run's migrate itself): a copy of the run's migrated file.
    database = migrated_copy(migrated_sqlite, tmp_path / "site.sqlite3")
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{database}",
        "DJANGO_SETTINGS_MODULE": "ratings_site.settings.development",
        "DEBUG": "1",
    }
    env.pop("TASKS_BACKEND", None)
    port = _free_port()
    loaded = _manage(env, "load_demo", "--if-empty", "--site", f"http://127.0.0.1:{port}")
    # The printed admin URL follows the port the site runs on (make run HOST=...).
    assert f" at http://127.0.0.1:{port}/admin/" in loaded
    output = (tmp_path / "runsite.log").open("wb")
    site = subprocess.Popen(
        [sys.executable, "manage.py", "runsite", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=output,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, as in a terminal
    )
    try:
        health = _wait_for(
            "the site answers",
            lambda: urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5).read(),
        )
        assert b'"database": "ok"' in health
        log = tmp_path / "runsite.log"
        # One worker per lane: a neighbour's import (files), replay (replays) or slow
        # receiver (deliveries) never holds up a close (rating).
        workers = _wait_for("the workers started", lambda: len(_lane_workers(log.read_text())) == 4)
        assert workers
        workers = _lane_workers(log.read_text())
        assert set(workers) == {"rating", "replays", "files", "deliveries"}
        assert f"the admin: http://127.0.0.1:{port}/admin/" in log.read_text()
        # The demo's open month (this month, so an early close), closed through the queue
        # by another process.
        month = datetime.date.today().strftime("%Y-%m")
        queued = _manage(
            env, "close_period", "--club", "riverside", "--period", month, "--queue", "--early"
        )
        assert "Queued job" in queued

        def job_status() -> str | None:
            with sqlite3.connect(database) as db:
                row = db.execute("SELECT status FROM players_job").fetchone()
            return None if row is None or row[0] in ("queued", "running") else str(row[0])

        assert _wait_for("the worker ran the job", job_status) == "succeeded"
        with sqlite3.connect(database) as db:
            ran_by = db.execute("SELECT worker FROM players_job").fetchone()[0]
        # The close ran in the rating lane's worker.
        assert ran_by.endswith(f":{workers['rating']}")
    finally:
        os.killpg(site.pid, signal.SIGINT)  # Ctrl-C
        code = site.wait(timeout=60)
    assert code == 0, (tmp_path / "runsite.log").read_text()[-2000:]
    assert "Job workers stopped." in (tmp_path / "runsite.log").read_text()
    for pid in workers.values():
        _wait_for("the worker is gone", lambda pid=pid: not _alive(pid))


@pytest.mark.parametrize(
    ("addrport", "url"),
    [
        ("127.0.0.1:8101", "http://127.0.0.1:8101/"),
        ("8101", "http://127.0.0.1:8101/"),
        ("0.0.0.0:8101", "http://127.0.0.1:8101/"),
        ("ratings.local:9000", "http://ratings.local:9000/"),
    ],
)
def test_the_site_url_follows_the_address_served(addrport: str, url: str) -> None:
    assert site_url(addrport) == url


def test_make_run_passes_its_host_to_the_printed_admin_url() -> None:
    recipe = (ROOT / "Makefile").read_text().split("\nrun:", 1)[1].split("\n\n", 1)[0]
    assert "load_demo --if-empty --site http://$(HOST)" in recipe
    assert "runsite $(HOST)" in recipe
