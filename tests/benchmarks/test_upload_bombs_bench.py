"""How much memory the job worker takes on hostile uploads of FIDE's list (figures printed).

Each bomb is run as a FIDE list job (``job_run``, the worker's own step) in a forked
child, past the upload's door (``fide_upload_problem``) so that the job's own bounds are
what is measured; the door's verdict is printed beside it. One JSON line per bomb:
{"name": "upload_bomb_<bomb>", "file_mb": ..., "unpacked_mb": ..., "door": "accepted" or
the refusal, "outcome": the job's status and message, "seconds": ..., "peak_mb": ...,
"start_mb": ..., "after_mb": ..., "ratio": peak_mb / start_mb, "peak_scope": "child"}.
``peak_mb`` is the child's peak resident memory, ``start_mb`` before the job ran and
``after_mb`` after it (what the worker keeps). A child still running after
``BENCH_BOMB_SECONDS`` (default 120), or holding more than ``BENCH_BOMB_MAX_MB`` (default
4096: the machine is shared), is stopped and printed with "stopped": true and its peak so
far.

The bombs unpack to ``BENCH_BOMB_MB`` MB (default 1024; ``BENCH_SCALE=small``: 32), and are
kept in ``BENCH_BOMB_DIR`` when it is set (so that runs of two versions use one set).
"""

from __future__ import annotations

import json
import os
import select
import signal
import struct
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import override_settings

from players.jobs import job_run, job_start
from players.models import Job
from players.services import club_create, player_create
from tests.benchmarks.report import MB, emit, ratio

UNPACKED_MB = int(
    os.environ.get("BENCH_BOMB_MB") or (32 if os.environ.get("BENCH_SCALE") == "small" else 1024)
)
TIME_LIMIT = float(os.environ.get("BENCH_BOMB_SECONDS") or 120)
MEMORY_LIMIT = float(os.environ.get("BENCH_BOMB_MAX_MB") or 4096)
TXT_HEADER = (
    b"ID Number      Name                                                         "
    b"Fed Sex Tit  WTit OTit           FOA SRtng SGm SK RRtng RGm Rk BRtng BGm BK B-day Flag\n"
)
_CHUNK = 1 << 20


def _repeat(piece: bytes, total: int) -> Iterator[bytes]:
    """``total`` bytes of ``piece`` repeated, a megabyte at a time."""
    block = piece * (_CHUNK // len(piece))
    left = total
    while left > 0:
        yield block[:left]
        left -= len(block)


def _zip(path: Path, name: str, parts: Iterator[bytes]) -> None:
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive,
        archive.open(name, "w") as member,
    ):
        for part in parts:
            member.write(part)


def _txt_one_line(path: Path, size: int) -> None:
    _zip(path, "players_list_foa.txt", _repeat(b"x", size))


def _xml_prolog(path: Path, size: int) -> None:
    def parts() -> Iterator[bytes]:
        yield b'<?xml version="1.0" encoding="UTF-8"?>\n'
        yield from _repeat(b" ", size)
        yield b"<playerslist></playerslist>\n"

    _zip(path, "players_list_xml_foa.xml", parts())


def _xml_unclosed(path: Path, size: int) -> None:
    def parts() -> Iterator[bytes]:
        yield b"<playerslist>\n<player><fideid>1</fideid><name>"
        yield from _repeat(b"a", size)

    _zip(path, "players_list_xml_foa.xml", parts())


def _xml_deep(path: Path, size: int) -> None:
    """A wanted player (FIDE ID 1 is the club's) whose element nests ``size / 7`` deep."""
    depth = size // 7

    def parts() -> Iterator[bytes]:
        yield b"<playerslist>\n<player><fideid>1</fideid>"
        yield from _repeat(b"<a>", depth * 3)
        yield from _repeat(b"</a>", depth * 4)
        yield b"</player>\n</playerslist>\n"

    _zip(path, "players_list_xml_foa.xml", parts())


def _many_members(path: Path, size: int) -> None:
    """Empty stored members, written by hand (zipfile takes minutes for a million): one
    member per 1 KB of ``size``."""
    count = max(1000, size // 1024)
    central = bytearray()
    with path.open("wb") as out:
        for index in range(count):
            name = b"m%07d.txt" % index
            offset = out.tell()
            out.write(
                struct.pack("<4s5H3I2H", b"PK\x03\x04", 20, 0, 0, 0, 0, 0, 0, 0, len(name), 0)
            )
            out.write(name)
            central += struct.pack(
                "<4s6H3I5H2I", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, 0, 0, 0, len(name), 0, 0, 0, 0, 0,
                offset,
            )  # fmt: skip
            central += name
        start = out.tell()
        out.write(central)
        entries = min(count, 0xFFFF)  # the real count only in ZIP64's record: kept simple
        out.write(
            struct.pack("<4s4H2IH", b"PK\x05\x06", 0, 0, entries, entries, len(central), start, 0)
        )


def _declared_ratio(path: Path, size: int) -> None:
    """FIDE TXT lines (of players no club has) that unpack to ``size``, and a central
    directory that says they unpack to 4 GB."""
    line = (
        b"900000001      Nobody, Some                                                 FID M"
        + b" " * 60
        + b"\n"
    )
    _zip(path, "players_list_foa.txt", iter([TXT_HEADER, *_repeat(line, size)]))
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.infolist()[0]
    central = data.rfind(b"PK\x01\x02")
    struct.pack_into("<I", data, info.header_offset + 22, 0xFFFFFFFE)
    struct.pack_into("<I", data, central + 24, 0xFFFFFFFE)
    path.write_bytes(bytes(data))


BOMBS: dict[str, Callable[[Path, int], None]] = {
    "txt_one_line": _txt_one_line,
    "xml_prolog_spaces": _xml_prolog,
    "xml_unclosed_player": _xml_unclosed,
    "xml_deep_nesting": _xml_deep,
    "zip_many_members": _many_members,
    "zip_declared_ratio": _declared_ratio,
}


def _bomb(name: str, folder: Path) -> Path:
    path = folder / f"{name}-{UNPACKED_MB}.zip"
    if not path.exists():
        BOMBS[name](path.with_suffix(".part"), UNPACKED_MB * MB)
        path.with_suffix(".part").rename(path)
    return path


def _rss_mb(field: str, pid: int | str = "self") -> float:
    """VmHWM (the peak) or VmRSS (now) of a process, in MB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def _in_child(work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``work`` in a forked child, with its peak; stopped after TIME_LIMIT seconds."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(read_end)
            figures = work()
            figures["peak_mb"] = _rss_mb("VmHWM")
            os.write(write_end, json.dumps(figures).encode())
        except BaseException as error:
            os.write(write_end, json.dumps({"error": repr(error)}).encode())
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    started = time.monotonic()
    while not select.select([read_end], [], [], 0.2)[0]:
        # Stopped when too slow, or before it takes the machine: "over X MB after Y s".
        if time.monotonic() - started > TIME_LIMIT or _rss_mb("VmRSS", pid) > MEMORY_LIMIT:
            peak = _rss_mb("VmHWM", pid)
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(read_end)
            seconds = round(time.monotonic() - started, 1)
            return {
                "stopped": True,
                "peak_mb": peak,
                "outcome": f"over {peak} MB after {seconds} s",
            }
    with os.fdopen(read_end, "rb") as pipe:
        answer = pipe.read()
    os.waitpid(pid, 0)
    figures: dict[str, Any] = json.loads(answer)
    assert "error" not in figures, figures["error"]
    return figures


def _door(path: Path) -> str:
    try:
        from tournaments.services.fide_list import fide_upload_problem
    except ImportError:  # the version before the door looked inside a ZIP
        from tournaments.services.fide_list import fide_upload_too_large

        return fide_upload_too_large(path.stat().st_size) or "accepted"
    with path.open("rb") as upload:
        return fide_upload_problem(upload) or "accepted"


@pytest.fixture(scope="module")
def bomb_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    chosen = os.environ.get("BENCH_BOMB_DIR")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("bombs")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.benchmark
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("lifted", [False, True], ids=["limits", "declared_sizes_lifted"])
@pytest.mark.parametrize("bomb", list(BOMBS))
def test_upload_bomb_memory(bomb: str, lifted: bool, bomb_dir: Path, queued_jobs: None) -> None:
    """``lifted``: the ZIP's declared size and ratio allowed whatever they are, so that
    what bounds the job is the reading (lines, elements) and not the declaration."""
    path = _bomb(bomb, bomb_dir)
    owner = get_user_model().objects.create_user(f"bench-bomb-{bomb}")
    club = club_create(name=f"Bench bomb {bomb}", slug=f"bench-{bomb.replace('_', '-')}", by=owner)
    player_create(club=club, by=owner, name="Wanted, One", fide_id=1)
    with path.open("rb") as upload:
        job = job_start(
            kind="fide_list", club=club, by=owner, params={"file": path.name}, payload=upload
        )
    door = _door(path)

    def run() -> dict[str, Any]:
        start_mb = _rss_mb("VmRSS")
        started = time.perf_counter()
        lift = {"FIDE_LIST_MAX_ZIP_RATIO": 1e9, "FIDE_LIST_MAX_UNZIPPED_MB": 1 << 20}
        with override_settings(**(lift if lifted else {})):
            job_run(job_id=str(job.pk))
        seconds = time.perf_counter() - started
        done = Job.objects.get(pk=job.pk)
        message = (done.error or {}).get("message", "") if done.error else ""
        return {
            "seconds": round(seconds, 2),
            "start_mb": start_mb,
            "after_mb": _rss_mb("VmRSS"),
            "outcome": f"{done.status}: {message}"[:200],
        }

    if connection.vendor == "postgresql":
        connection.close()  # the child opens its own connection
    figures = _in_child(run)
    record = {
        "name": f"upload_bomb_{bomb}" + ("_declared_sizes_lifted" if lifted else ""),
        "file_mb": round(path.stat().st_size / MB, 2),
        "unpacked_mb": UNPACKED_MB,
        "door": door,
        **figures,
        "ratio": ratio(figures["peak_mb"], figures.get("start_mb") or figures["peak_mb"]),
        "peak_scope": "child",
    }
    emit(record)
