"""`make run`'s console is not flooded with the job queue's INFO lines (each task started
and finished): with DEBUG on, the queue's loggers reach the console from WARNING up, even
though the worker sets them to INFO itself; production keeps its INFO lines."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# What the worker does at its default verbosity (db_worker's configure_logging), then a
# line of each kind from the queue and one from the site.
SCRIPT = """
import logging, django
django.setup()
from django_tasks_db.management.commands.db_worker import Command
Command().configure_logging(1)
queue = logging.getLogger("django_tasks_db")
queue.info("Task id=1 state=RUNNING")
logging.getLogger("django_tasks").info("Task id=1 state=SUCCEEDED")
queue.warning("queue warning")
logging.getLogger("ratings_site").warning("site warning")
"""


def _console(**env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "QUEUE_LOG_LEVEL")}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "ratings_site.settings.development", **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout + done.stderr


@pytest.mark.slow
def test_with_debug_the_queues_info_lines_stay_off_the_console() -> None:
    console = _console(DEBUG="1")
    assert "state=RUNNING" not in console
    assert "state=SUCCEEDED" not in console
    assert "queue warning" in console
    assert "site warning" in console


@pytest.mark.slow
def test_without_debug_or_when_asked_they_show() -> None:
    assert "state=RUNNING" in _console(DEBUG="0")
    assert "state=SUCCEEDED" in _console(DEBUG="1", QUEUE_LOG_LEVEL="info")
