"""``DATABASE_REPLICA_URL``: the public pages and exports read the replica, everything else
the primary. Proven with two real database aliases in a real process: two SQLite files,
migrated alike (copies of the run's migrated template, ``migrated_sqlite``), and a club
that exists only in the "replica" one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import migrated_copy

# Starts processes on databases of their own.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def _manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_public_pages_read_the_replica_and_the_rest_the_primary(
    tmp_path: Path, migrated_sqlite: Path
) -> None:
    base = {**os.environ, "DJANGO_SETTINGS_MODULE": "ratings_site.settings.base"}
    base.pop("DATABASE_REPLICA_URL", None)
    primary = {**base, "DATABASE_URL": f"sqlite:///{tmp_path / 'primary.sqlite3'}"}
    replica = {**base, "DATABASE_URL": f"sqlite:///{tmp_path / 'replica.sqlite3'}"}
    for name in ("primary.sqlite3", "replica.sqlite3"):
        migrated_copy(migrated_sqlite, tmp_path / name)
    _manage(
        replica,
        "shell",
        "-c",
        "from django.contrib.auth import get_user_model; from players.services import club_create; "
        "u = get_user_model().objects.create_user('founder'); "
        "club_create(name='Only On The Replica', slug='mirror', public=True, by=u)",
    )
    both = {**primary, "DATABASE_REPLICA_URL": replica["DATABASE_URL"]}
    check = (
        "from django.test import Client; c = Client(); "
        "print(c.get('/clubs/mirror/').status_code, "  # a public page: the replica
        "c.get('/clubs/mirror/lists/standard/').status_code, "  # another public page
        "c.get('/api/v1/clubs/mirror/').status_code, "  # the API: the primary
        "c.get('/admin/login/').status_code)"
    )
    out = _manage(both, "shell", "-c", check).split()
    assert out[-4:] == ["200", "200", "404", "200"], out


def test_a_replica_that_does_not_answer_leaves_the_public_pages_on_the_primary(
    tmp_path: Path, migrated_sqlite: Path
) -> None:
    # A PostgreSQL replica URL where no server listens (a stopped standby): the public
    # pages answer from the primary instead of failing (db_router.replica_usable).
    base = {**os.environ, "DJANGO_SETTINGS_MODULE": "ratings_site.settings.base"}
    primary = {**base, "DATABASE_URL": f"sqlite:///{tmp_path / 'primary.sqlite3'}"}
    migrated_copy(migrated_sqlite, tmp_path / "primary.sqlite3")
    _manage(
        primary,
        "shell",
        "-c",
        "from django.contrib.auth import get_user_model; from players.services import club_create; "
        "u = get_user_model().objects.create_user('founder'); "
        "club_create(name='On The Primary', slug='mirror', public=True, by=u)",
    )
    down = {
        **primary,
        "DATABASE_REPLICA_URL": "postgres://postgres@127.0.0.1:9/nothing",
        "DATABASE_REPLICA_TIMEOUT": "1",
    }
    check = (
        "from django.test import Client; c = Client(); "
        "print(c.get('/clubs/mirror/').status_code, c.get('/clubs/mirror/').status_code)"
    )
    out = _manage(down, "shell", "-c", check).split()
    assert out[-2:] == ["200", "200"], out
