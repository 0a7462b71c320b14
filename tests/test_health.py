"""``/healthz``: 200 with the database and the queue's age, 503 when the database is away;
open to anyone, and nothing about the internals."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from players.jobs import job_start
from players.models import Job
from tests.tournaments.helpers import make_club, make_owner

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.django_db
def test_healthy_with_an_empty_queue() -> None:
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"database": "ok", "queue": {"oldest_queued_seconds": None}}
    assert "no-store" in response["Cache-Control"]


@pytest.mark.django_db
def test_the_oldest_queued_job_is_its_age(queued_jobs: Any) -> None:
    owner = make_owner()
    club = make_club(owner)
    job = job_start(kind="history_export", club=club, by=owner, params={"list": 0})
    Job.objects.filter(pk=job.pk).update(created="2020-01-01T00:00Z")
    body = Client().get("/healthz").json()
    assert body["queue"]["oldest_queued_seconds"] > 3600 * 24 * 365


@pytest.mark.slow
def test_503_when_the_database_does_not_answer() -> None:
    # A real client in a real process whose database is a closed port.
    env = {
        **os.environ,
        "DATABASE_URL": "postgres://nobody@127.0.0.1:1/nothing",
        "DJANGO_SETTINGS_MODULE": "ratings_site.settings.base",
    }
    code = (
        "from django.test import Client; r = Client().get('/healthz'); "
        "print(r.status_code); print(r.content.decode())"
    )
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        check=True,
    )
    status, body = done.stdout.decode().strip().splitlines()[-2:]
    assert status == "503"
    assert json.loads(body) == {"database": "unavailable", "queue": None}
