"""import_trf / import_pgn / import_csv: output, dry run, exit codes."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.conftest import migrated_copy
from tests.tournaments.import_world import FILES, ImportWorld, build_import_world, counts

pytestmark = pytest.mark.django_db


@pytest.fixture
def world() -> ImportWorld:
    return build_import_world()


def run(command: str, name: str, *args: str) -> str:
    out = io.StringIO()
    call_command(
        command, str(FILES / name), "--club", "riverton", *args, stdout=out, stderr=io.StringIO()
    )
    return out.getvalue()


def test_import_trf_prints_the_report(world: ImportWorld) -> None:
    output = run("import_trf", "swiss_9_rounds.trf", "--user", "riverton-arbiter")

    assert "Import report (trf, standard)" in output
    assert "Tournament #" in output
    assert "Riverton Autumn Open 2026" in output
    assert "Games created: 48" in output
    assert "not rated (line 12): round 8 Kowalski, Jan - Petrov, Ivan -+: forfeit" in output
    assert "Players created: 12" in output
    assert "line 18: round 5 Horvath, Bence: full-point bye (F)" in output
    assert "withdrew after round 5" in output
    assert counts()["games"] == 48


def test_dry_run_stores_nothing_and_says_so(world: ImportWorld) -> None:
    before = counts()
    output = run("import_csv", "games_good.csv", "--dry-run", "--list", "blitz")
    assert "DRY RUN: nothing was stored (csv, blitz)" in output
    assert "Dry run: October Ladder: would create 6 games" in output
    assert counts() == before


def test_second_run_says_already_imported(world: ImportWorld) -> None:
    run("import_pgn", "games_good.pgn")
    before = counts()
    output = run("import_pgn", "games_good.pgn")
    assert "Already imported" in output
    assert counts() == before


def test_errors_exit_with_the_line_numbers(world: ImportWorld) -> None:
    before = counts()
    with pytest.raises(CommandError) as error:
        run("import_trf", "trf_broken.trf")
    message = str(error.value)
    assert "3 error(s) in trf_broken.trf; nothing was stored" in message
    assert "line 4: date '2026/13/45' is not YYYY/MM/DD" in message
    assert "line 10: round 2" in message
    assert counts() == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--club", "nowhere"], "no club 'nowhere'"),
        (["--club", "riverton", "--user", "ghost"], "no user 'ghost'"),
        (["--club", "riverton", "--user", "riverton-viewer"], "needs the arbiter role"),
    ],
)
def test_refusals_are_command_errors(world: ImportWorld, args: list[str], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        call_command("import_trf", str(FILES / "swiss_9_rounds.trf"), *args, stdout=io.StringIO())


def test_missing_file_is_a_command_error(world: ImportWorld, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="cannot read"):
        call_command("import_trf", str(tmp_path / "none.trf"), "--club", "riverton")


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_exit_status_is_non_zero_on_errors(tmp_path: Path, migrated_sqlite: Path) -> None:
    """Through manage.py as a user runs it, on a migrated database of its own: status 1 and
    the lines on stderr."""
    database = tmp_path / "db.sqlite3"
    env = {"DATABASE_URL": f"sqlite:///{database}", "PATH": "/usr/bin:/bin"}
    root = Path(__file__).resolve().parents[2]

    def manage(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )

    migrated_copy(migrated_sqlite, database)
    assert manage("import_trf", str(FILES / "trf_broken.trf"), "--club", "x").returncode == 1
    broken = manage(
        "shell",
        "-c",
        "from django.contrib.auth.models import User; from players.services import club_create; "
        "club_create(name='X', slug='x', by=User.objects.create_user('o'))",
    )
    assert broken.returncode == 0, broken.stderr
    failed = manage("import_trf", str(FILES / "trf_broken.trf"), "--club", "x")
    assert failed.returncode == 1
    assert "line 8: column 53 must be blank" in failed.stderr
    ok = manage("import_trf", str(FILES / "round_robin_trf26.trf"), "--club", "x", "-v0")
    assert ok.returncode == 0, ok.stderr
