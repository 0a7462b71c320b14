"""``make run`` with a PostgreSQL URL whose database does not exist yet: ``manage.py
ensure_database`` (run before ``migrate``) creates it; where it cannot, one line says the
one command that does, and no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
URL = os.environ.get("DATABASE_URL", "")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not URL.startswith("postgres"), reason="needs a PostgreSQL DATABASE_URL"),
]


def _with_name(url: str, name: str, user: str | None = None) -> str:
    parts = urlsplit(url)
    netloc = parts.netloc if user is None else f"{user}@{parts.netloc.rpartition('@')[2]}"
    return urlunsplit(parts._replace(netloc=netloc, path=f"/{name}"))


def _manage(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DATABASE_URL": url, "DEBUG": "1"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_make_runs_first_step_creates_a_missing_database_then_migrate_runs() -> None:
    name = f"{urlsplit(URL).path.lstrip('/')}_fresh_{os.getpid()}"
    url = _with_name(URL, name)
    assert "ensure_database" in (ROOT / "Makefile").read_text().split("\nrun:", 1)[1]
    try:
        created = _manage(url, "ensure_database")
        assert created.returncode == 0, created.stderr
        assert f"Created the PostgreSQL database '{name}'." in created.stdout
        again = _manage(url, "ensure_database")
        assert (again.returncode, again.stdout, again.stderr) == (0, "", "")
        migrated = _manage(url, "migrate", "--noinput", "-v", "0")
        assert migrated.returncode == 0, migrated.stderr
    finally:
        drop = _manage(
            url,
            "shell",
            "-c",
            f"from django.db import connection as c\n"
            f"with c._nodb_cursor() as k: k.execute('DROP DATABASE IF EXISTS \"{name}\"')",
        )
        assert drop.returncode == 0, drop.stderr


def test_a_database_that_cannot_be_created_gets_one_line_and_the_command() -> None:
    url = _with_name(URL, "ratings_never_made", user="no_such_role_here")
    done = _manage(url, "ensure_database")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "'ratings_never_made' does not exist and could not be created" in lines[0]
    assert "; create it with: createdb " in lines[0]
    assert lines[0].endswith(" -U no_such_role_here ratings_never_made")
