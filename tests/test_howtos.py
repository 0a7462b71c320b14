"""The how-tos followed literally, in a copy of the project, so that they cannot drift.

A how-to's fenced blocks are its steps, in order: a block after a marker
``<!-- howto: OP PATH ["LINE"] -->`` changes a file (``write`` it whole, ``append`` to it,
``replace`` the line LINE with the block, insert the block ``before`` the line LINE); a
``console`` block's ``$ `` lines are commands (tests/test_docs.py's convention; the how-tos
are left out there, since they change the project). The copy is the checkout's files as
they are now (``git ls-files``: the tracked and the new ones, without .git and .venv),
with this virtual environment.

After the steps: ``makemigrations --check`` finds nothing left, the one migration the
how-to made is migrated back and forwards again, and every URL of the site answers a
signed-in user with no server error with the new system's or kind's list present
(tests/api/howto_walk.py, run by pytest in the copy). The database is the suite's kind,
migrated as the reader's is before they start: a copy of the run's migrated SQLite file,
or a clone of its migrated PostgreSQL database on the suite's server.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.test_docs import commands_of

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
BLOCK = re.compile(
    r'(?:^<!-- howto: (?P<op>write|append|replace|before) (?P<path>\S+)(?: "(?P<line>[^"]*)")? -->\n)?'
    r"^```(?P<lang>\w*)[^\n]*\n(?P<body>.*?)^```[ \t]*$",
    re.MULTILINE | re.DOTALL,
)

# (the page, what the walk is told is new)
HOWTOS = [
    ("developers/howto-rating-system.md", {"HOWTO_SYSTEM": "tally"}),
    ("developers/howto-list-kind.md", {"HOWTO_KIND": "correspondence"}),
]


@dataclass(frozen=True)
class Step:
    op: str  # write, append, replace, before; or run
    path: str
    line: str
    body: str


def steps_of(text: str) -> list[Step]:
    steps = []
    for block in BLOCK.finditer(text):
        if block["op"]:
            steps.append(Step(block["op"], block["path"], block["line"] or "", block["body"]))
        elif block["lang"] == "console":
            fence = f"```console\n{block['body']}```\n"
            steps.extend(Step("run", "", "", command) for command in commands_of(fence))
    return steps


def change_file(root: Path, step: Step) -> None:
    target = root / step.path
    if step.op == "write":
        assert not target.exists(), f"{step.path}: the how-to writes a file that exists"
        target.write_text(step.body, encoding="utf-8")
        return
    text = target.read_text(encoding="utf-8")
    if step.op == "append":
        target.write_text(text.rstrip("\n") + "\n\n" + step.body, encoding="utf-8")
        return
    lines = text.splitlines(keepends=True)
    at = next((i for i, line in enumerate(lines) if line.rstrip("\n") == step.line), None)
    assert at is not None, f"{step.path}: no line {step.line!r} to {step.op}"
    lines[at : at + (step.op == "replace")] = [step.body]
    target.write_text("".join(lines), encoding="utf-8")


def test_the_steps_are_read_in_order() -> None:
    text = (
        '<!-- howto: before a.py "}" -->\n```python\n    x,\n```\n'
        "```console\n$ echo one\nshown\n```\n```sh\n$ not run\n```\n"
        "<!-- howto: append b.po -->\n```po\nmsgid\n```\n"
    )
    assert steps_of(text) == [
        Step("before", "a.py", "}", "    x,\n"),
        Step("run", "", "", "echo one"),
        Step("append", "b.po", "", "msgid\n"),
    ]


def test_a_file_is_changed_where_the_step_says(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("A = {\n    1,\n}\nimport b\n", encoding="utf-8")
    change_file(tmp_path, Step("before", "a.py", "}", "    2,\n"))
    change_file(tmp_path, Step("replace", "a.py", "import b", "import b, c\n"))
    change_file(tmp_path, Step("append", "a.py", "", "D = 1\n"))
    assert (tmp_path / "a.py").read_text() == "A = {\n    1,\n    2,\n}\nimport b, c\n\nD = 1\n"
    with pytest.raises(AssertionError, match="no line"):
        change_file(tmp_path, Step("before", "a.py", "nowhere", "x\n"))


@pytest.mark.parametrize(("page", "_new"), HOWTOS)
def test_each_howto_changes_files_and_runs_commands(page: str, _new: dict[str, str]) -> None:
    steps = steps_of((DOCS / page).read_text(encoding="utf-8"))
    ops = {step.op for step in steps}
    assert "run" in ops, f"{page}: no command found"
    assert ops - {"run"}, f"{page}: no file to change found"
    assert any("makemigrations" in step.body for step in steps if step.op == "run")


def copy_of_the_project(target: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file() and not source.is_symlink():  # a file deleted since is left out
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    (target / ".venv").symlink_to(Path(sys.executable).parent.parent)


def _run(command: str, *, cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        ["bash", "-c", f"set -euo pipefail\n{command}"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, (
        f"$ {command}\nexit status {done.returncode}\n--- stdout\n{done.stdout[-4000:]}\n"
        f"--- stderr\n{done.stderr[-6000:]}"
    )
    return done.stdout


@pytest.mark.slow
@pytest.mark.parametrize(("page", "new"), HOWTOS)
def test_the_howto_followed_literally_migrates_both_ways_and_every_url_answers(
    page: str, new: dict[str, str], tmp_path: Path, migrated_database_url: str
) -> None:
    copy = tmp_path / "project"
    copy_of_the_project(copy)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "PYTEST_")) and key not in {"DATABASE_URL", "PYTHONPATH"}
    }
    # The database as the reader's is: migrated before they start (a copy of the run's
    # migrated database; migrating it here would cost 7 s of CPU for nothing new).
    env.update(DATABASE_URL=migrated_database_url, **new)
    migrations = copy / "players" / "migrations"
    before = {p.name for p in migrations.glob("0*.py")}

    for step in steps_of((DOCS / page).read_text(encoding="utf-8")):
        if step.op == "run":
            _run(step.body, cwd=copy, env=env)
        else:
            change_file(copy, step)

    made = sorted({p.name for p in migrations.glob("0*.py")} - before)
    assert len(made) == 1, f"{page}: makemigrations wrote {made}"
    _run(".venv/bin/python manage.py makemigrations --check --dry-run", cwd=copy, env=env)
    previous = max(before).removesuffix(".py")
    # The how-to migrated forwards: backwards, and forwards again.
    for command in (f"migrate players {previous}", "migrate"):
        _run(f".venv/bin/python manage.py {command} --noinput -v 0", cwd=copy, env=env)
    _run(
        ".venv/bin/python -m pytest tests/api/howto_walk.py -q -n 0 -p no:randomly"
        " -p no:cacheprovider",
        cwd=copy,
        env=env,
    )
