"""The shell examples of the docs run against the demo as written.

The convention (docs/index.md says it to writers): a fenced block marked ``console`` in any
page under ``docs/`` is a session to run. Its lines that start with ``$ `` are commands (a
command whose line ends in `` \\`` goes on to the next line); every other line is what the
reader would see and is not compared, since the demo's passwords, ids and ratings are drawn
afresh each time. Blocks marked ``sh`` or ``text`` are shown and never run: deployment
steps, a synopsis with placeholders.

Each page runs in one bash (``set -euo pipefail``: a failing command fails the page, and
variables carry from one block to the next), from a directory of its own that holds
``manage.py`` and ``docs/``, against a fresh copy of one demo database (a SQLite file:
``manage.py migrate`` and ``manage.py load_demo``). A page whose commands talk to
``127.0.0.1:8000`` gets ``manage.py runsite`` (the server and its job worker, what
``make run`` starts) on a free port, and that port replaces 8000 in its commands.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import migrated_copy

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```console[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
DEMO_PORT = "127.0.0.1:8000"


def commands_of(text: str) -> list[str]:
    """The commands of a page's ``console`` blocks, continuation lines joined."""
    commands: list[str] = []
    for block in FENCE.findall(text):
        pending: list[str] | None = None
        for line in block.splitlines():
            if pending is not None:
                pending.append(line)
                if not line.endswith("\\"):
                    commands.append("\n".join(pending))
                    pending = None
            elif line.startswith("$ "):
                if line.endswith("\\"):
                    pending = [line[2:]]
                else:
                    commands.append(line[2:])
        assert pending is None, f"a command ends in a backslash with no line after it: {pending}"
    return commands


def pages_with_commands() -> list[Path]:
    """The pages run against the demo. The how-tos (``howto-*.md``) change the project
    itself (a file written, a migration made): tests/test_howtos.py follows them in a copy."""
    return sorted(
        p
        for p in DOCS.rglob("*.md")
        if not p.name.startswith("howto-") and commands_of(p.read_text(encoding="utf-8"))
    )


def test_commands_are_found_in_the_task_pages() -> None:
    # The slow test below runs what this finds: a convention the pages stopped following
    # (another fence, a missing "$ ") would leave it running nothing.
    found = {p.relative_to(DOCS).as_posix() for p in pages_with_commands()}
    for page in (
        "tasks/monthly-routine.md",
        "tasks/adding-members.md",
        "tasks/importing-a-tournament.md",
        "tasks/closing-and-correcting.md",
        "tasks/api-token.md",
        "tasks/backing-up.md",
        "tasks/claiming.md",
    ):
        assert page in found, f"{page} shows no command to run"


def test_commands_use_the_projects_python_as_a_fresh_checkout_has_it() -> None:
    """``python manage.py`` fails unless the virtual environment is active (``python`` is
    not the venv's, or not there at all): the pages say ``.venv/bin/python``."""
    bare = [
        f"{page.relative_to(DOCS)}: {command}"
        for page in pages_with_commands()
        for command in commands_of(page.read_text(encoding="utf-8"))
        if re.search(r"(^|[\s;|&(])python\s", command)
    ]
    assert bare == []


def test_continuation_lines_are_one_command() -> None:
    text = "```console\n$ echo a \\\n  b\nout\n$ echo c\n```\n```sh\n$ not run\n```\n"
    assert commands_of(text) == ["echo a \\\n  b", "echo c"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _environment(database: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "PYTEST_")) and key != "DATABASE_URL"
    }
    env.update(
        DATABASE_URL=f"sqlite:///{database}",
        DEBUG="1",  # as `make run`
        # The demo's open month is today's in the site's TIME_ZONE (UTC); the pages' `date`
        # must name the same month at midnight on the first too.
        TZ="UTC",
        # No virtual environment on PATH: a reader who did not activate one has none, so
        # the pages name `.venv/bin/python` (the workdir's .venv is this one).
        PATH=os.pathsep.join(
            part
            for part in env.get("PATH", "").split(os.pathsep)
            if part and Path(part).resolve() != Path(sys.executable).parent.resolve()
        ),
        PYTHONPATH=str(ROOT),
    )
    return env


@pytest.fixture(scope="module")
def demo_database(tmp_path_factory: pytest.TempPathFactory, migrated_sqlite: Path) -> Path:
    # The run's migrated template, then the demo as `make run` loads it.
    database = migrated_copy(migrated_sqlite, tmp_path_factory.mktemp("demo") / "demo.sqlite3")
    subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "load_demo"],
        env=_environment(database),
        check=True,
        capture_output=True,
        timeout=600,
    )
    return database


def _wait_for(url: str, process: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, "runsite ended before it answered"
        try:
            with urllib.request.urlopen(url, timeout=2):  # noqa: S310 - a local test server
                return
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"{url} did not answer within {seconds} s")


def _server(workdir: Path, env: dict[str, str], addrport: str) -> subprocess.Popen[bytes]:
    log = (workdir / "runsite.log").open("wb")
    return subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), "runsite", addrport, "--noreload"],
        env=env,
        cwd=workdir,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its worker child goes with it
    )


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.fixture
def workdir(tmp_path: Path) -> Iterator[Path]:
    # Files the examples write (exports, backups) land here, not in the checkout.
    (tmp_path / "manage.py").symlink_to(ROOT / "manage.py")
    (tmp_path / "docs").symlink_to(DOCS)
    # As in a checkout after `make run`: the virtual environment this test runs in.
    (tmp_path / ".venv").symlink_to(Path(sys.executable).parent.parent)
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize(
    "page", pages_with_commands(), ids=lambda p: p.relative_to(DOCS).as_posix()
)
def test_page_commands_run_against_the_demo(page: Path, demo_database: Path, workdir: Path) -> None:
    database = workdir / "db.sqlite3"
    shutil.copyfile(demo_database, database)
    env = _environment(database)
    commands = commands_of(page.read_text(encoding="utf-8"))
    server = None
    if any(DEMO_PORT in command for command in commands):
        addrport = f"127.0.0.1:{_free_port()}"
        commands = [command.replace(DEMO_PORT, addrport) for command in commands]
        server = _server(workdir, env, addrport)
    try:
        if server is not None:
            _wait_for(f"http://{addrport}/healthz", server)
        script = "set -euo pipefail\nset -x\n" + "\n".join(commands) + "\n"
        done = subprocess.run(
            ["bash", "-c", script],
            env=env,
            cwd=workdir,
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        if server is not None:
            _stop(server)
    assert done.returncode == 0, (
        f"{page.relative_to(ROOT)}: exit status {done.returncode}\n"
        f"--- stdout\n{done.stdout[-4000:]}\n--- stderr (the last command is the failing one)\n"
        f"{done.stderr[-6000:]}"
    )
