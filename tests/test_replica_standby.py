"""A real PostgreSQL hot standby as the read replica (``deploy/replica.sh``; CI starts one).

``TEST_REPLICA_URL`` names the standby's server (``postgres://postgres@127.0.0.1:5433/``):
it streams the primary, so it holds this test database under the same name. The data is
written here, committed, on the primary; the site runs in a subprocess with
``DATABASE_URL`` on the primary's test database and ``DATABASE_REPLICA_URL`` on the
standby's copy of it. Pausing the standby's replay (``pg_wal_replay_pause()``) freezes its
copy: a change made on the primary after that is what tells the two apart.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from players.services import club_create, player_create

ROOT = Path(__file__).resolve().parents[1]
STANDBY = os.environ.get("TEST_REPLICA_URL", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not STANDBY,
        reason="no standby configured: set TEST_REPLICA_URL (deploy/replica.sh start prints it; "
        ".ci/run does both)",
    ),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="a hot standby replicates a PostgreSQL primary (DATABASE_URL is not one)",
    ),
    pytest.mark.django_db(transaction=True),
]


def _url(server: str, name: str) -> str:
    return server.rstrip("/") + "/" + name


def _primary_url() -> str:
    s = connection.settings_dict
    return f"postgres://{s['USER']}@{s['HOST']}:{s['PORT']}/{s['NAME']}"


def _standby(sql: str) -> Any:
    with psycopg.connect(_url(STANDBY, "postgres"), autocommit=True, connect_timeout=5) as db:
        row = db.execute(sql).fetchone()
    return row[0] if row else None


def _caught_up() -> None:
    """Wait until the standby has replayed everything the primary has committed so far."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn()::text")
        target = cursor.fetchone()[0]
    for _ in range(300):
        if _standby(f"SELECT pg_last_wal_replay_lsn() >= '{target}'::pg_lsn"):
            return
        time.sleep(0.1)
    raise AssertionError(f"the standby did not replay up to {target} in 30 s")


@pytest.fixture
def resumed() -> Iterator[None]:
    """The standby's replay resumed after the test, whatever it did."""
    try:
        yield
    finally:
        _standby("SELECT pg_wal_replay_resume()")


def _site(check: str, replica: str | None = None) -> list[str]:
    """Run ``check`` in ``manage.py shell`` against the primary's test database, with the
    standby's copy of it as the replica (or ``replica``); its printed words."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "ratings_site.settings.base",
        "DATABASE_URL": _primary_url(),
        "DATABASE_REPLICA_URL": replica or _url(STANDBY, str(connection.settings_dict["NAME"])),
        "DATABASE_REPLICA_TIMEOUT": "1",
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", check],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.split()


def _paths(alpha: Any, beta: Any) -> str:
    """A check printing the status of: Alpha's public page (there on both), Beta's public
    page and Beta's history export (public: the replica), Beta through the API signed in
    (the primary). Beta is created while the standby is paused: 404 where it is not yet."""
    return (
        "from django.contrib.auth import get_user_model; from django.test import Client; "
        "c = Client(); api = Client(); "
        "api.force_login(get_user_model().objects.get(username='owner')); "
        f"print(c.get('/clubs/mirror/players/{alpha.pk}/').status_code, "
        f"c.get('/clubs/mirror/players/{beta.pk}/').status_code, "
        f"c.get('/clubs/mirror/players/{beta.pk}/history.csv').status_code, "
        f"api.get('/api/v1/clubs/mirror/players/{beta.pk}/').status_code)"
    )


def _world() -> tuple[Any, Any, Any]:
    # The site's database cache table (the subprocess's cache; pytest's own settings use
    # another, so the test database has none).
    _site("from django.core.management import call_command; call_command('createcachetable')")
    owner = get_user_model().objects.create_user("owner")
    club = club_create(name="Mirror", slug="mirror", public=True, by=owner)
    ratings = [{"list": "standard", "rating": 1800, "rated_games": 30}]
    alpha = player_create(club=club, by=owner, name="Alpha Standby", ratings=ratings)
    return owner, club, alpha


def _add_beta(owner: Any, club: Any) -> Any:
    ratings = [{"list": "standard", "rating": 1700, "rated_games": 30}]
    return player_create(club=club, by=owner, name="Beta Standby", ratings=ratings)


def test_public_pages_and_exports_read_the_standby_the_signed_in_api_the_primary(
    resumed: None,
) -> None:
    owner, club, alpha = _world()
    _caught_up()
    # Replay stops before the next WAL record it would apply: Beta's.
    _standby("SELECT pg_wal_replay_pause()")
    beta = _add_beta(owner, club)

    frozen = _site(_paths(alpha, beta))

    # The public page and the export: the standby's frozen copy (Alpha, no Beta). The
    # signed-in API, which decides and writes: the primary (Beta).
    assert frozen[-4:] == ["200", "404", "404", "200"], frozen
    _standby("SELECT pg_wal_replay_resume()")
    _caught_up()
    # Replayed: the public page and the export find Beta too (so the 404s above were the
    # standby's lag, not pages that cannot show Beta).
    assert _site(_paths(alpha, beta))[-4:] == ["200", "200", "200", "200"]


def test_with_the_standby_stopped_public_pages_read_the_primary() -> None:
    script, data = ROOT / "deploy" / "replica.sh", os.environ.get("REPLICA_DIR", "")
    if not data or not Path(data, "standby.signal").exists():
        pytest.skip("REPLICA_DIR does not name the standby's directory: it cannot be stopped here")
    owner, club, alpha = _world()
    beta = _add_beta(owner, club)
    subprocess.run([script, "stop"], check=True, timeout=120)
    try:
        started = time.monotonic()
        out = _site(_paths(alpha, beta))
        seconds = time.monotonic() - started
    finally:
        subprocess.run([script, "start"], check=True, timeout=180, capture_output=True)
    # Every page answered, from the primary (Beta is there): the failed connection to the
    # standby cost its short timeout once, not a failed page.
    assert out[-4:] == ["200", "200", "200", "200"], out
    assert seconds < 60
