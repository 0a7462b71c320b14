"""How much memory a large tournament file's import takes (figures printed, not asserted).

A file of about ``BENCH_IMPORT_MB`` MB (default 50; ``BENCH_SCALE=small``: 1) is written
to disk for each format and imported from the file, as ``manage.py import_pgn`` does, in
a forked child. Each format prints one JSON line: {"name": "import_memory_pgn", "file_mb":
..., "games": ..., "seconds": ..., "parse_seconds": ..., "ratio": ..., "peak_mb": ...,
"start_mb": ..., "peak_scope": "child"}. ``peak_mb`` is the child's peak resident memory
(``getrusage`` maxrss: the interpreter, Django and what it shared with the parent at the
fork included), ``start_mb`` its resident memory before the import began, so
``peak_mb - start_mb`` is the import's own share. ``parse_seconds`` is the parse alone of
the same file in another child.

A TRF cannot reach 50 MB: start numbers have four digits and a tournament at most 99
rounds, so its largest file (9,999 players, 99 rounds, about 490,000 games) is about
11 MB; the TRF line is that file, whatever the size asked.
"""

from __future__ import annotations

import json
import os
import random
import resource
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from players.services import club_create
from tests.benchmarks.report import MB, emit, ratio
from tournaments.interchange import parse_games_csv, parse_pgn, parse_trf
from tournaments.services.imports import import_file

FILE_MB = float(
    os.environ.get("BENCH_IMPORT_MB") or (1 if os.environ.get("BENCH_SCALE") == "small" else 50)
)
TRF_MAX_PLAYERS = 9999
TRF_MAX_ROUNDS = 99


def _rss_mb(maxrss: int) -> float:
    # Linux reports kilobytes, macOS bytes.
    return round(maxrss / (MB if sys.platform == "darwin" else 1024), 1)


def _current_rss_mb() -> float:
    try:
        with open("/proc/self/statm") as statm:
            pages = int(statm.read().split()[1])
    except OSError:
        return _rss_mb(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    return round(pages * os.sysconf("SC_PAGE_SIZE") / MB, 1)


def _pgn_lines(target: int) -> Iterator[str]:
    written = index = 0
    while written < target:
        block = (
            f'[Event "Ladder"]\n[Site "Riverton"]\n[Date "2026.10.{1 + index % 28:02d}"]\n'
            f'[Round "{1 + index % 9}"]\n[White "Player, {index % 5000}"]\n'
            f'[Black "Player, {(index * 7 + 1) % 5000}"]\n[Result "1-0"]\n'
            f'[WhiteElo "1800"]\n[BlackElo "1750"]\n[TimeControl "5400+30"]\n\n'
            "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n\n"
        )
        written += len(block)
        index += 1
        yield block


def _csv_lines(target: int) -> Iterator[str]:
    header = "date;white;black;result;tournament;round\n"
    written = len(header)
    yield header
    results = ["1-0", "0-1", "1/2-1/2", "½-½", "+-"]
    index = 0
    while written < target:
        # Every line a different game: a ladder of 5,000 players whose pairings cycle only
        # after 5,000 x 4,999 games. (Lines repeating after 315,000 games made two thirds
        # of a 50 MB file identical lines, which an import stores once and reports.)
        white = index % 5000
        black = (white + 1 + (index // 5000) % 4999) % 5000
        row = (
            f'2026-10-{1 + index % 28:02d};"Player, {white}";"Player, {black}";'
            f"{results[index % 5]};Ladder;{1 + index % 9}\n"
        )
        written += len(row)
        index += 1
        yield row


def _trf_lines(target: int) -> Iterator[str]:
    """A Swiss of TRF's largest shape that fits ``target`` bytes (each player every round)."""
    rounds = TRF_MAX_ROUNDS
    players = min(TRF_MAX_PLAYERS, max(2, target // (92 + 10 * rounds)))
    players -= players % 2
    rng = random.Random(2026)
    blocks: list[list[str]] = [[] for _ in range(players + 1)]
    codes = [("1", "0"), ("0", "1"), ("=", "=")]
    for _round in range(rounds):
        order = list(range(1, players + 1))
        rng.shuffle(order)
        for white, black in zip(order[::2], order[1::2], strict=True):
            white_code, black_code = rng.choice(codes)
            blocks[white].append(f"{black:>4} w {white_code}")
            blocks[black].append(f"{white:>4} b {black_code}")
    yield "012 Benchmark Open\n042 2026/10/01\n052 2026/10/31\n"
    for number in range(1, players + 1):
        head = (
            f"001 {number:>4} m    {'Player ' + str(number):<33} {1500 + number % 900:>4} ENG "
            f"{1000000 + number:>11} {'1990/01/01':<10} {'5.0':>4} {number:>4}"
        )
        yield f"{head}  {'  '.join(blocks[number])}\n"
        blocks[number] = []


def _in_child(work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run ``work`` in a forked child and return what it returned, with the child's peak."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report through the pipe, never return into pytest
        code = 0
        try:
            os.close(read_end)
            figures = work()
            figures["peak_mb"] = _rss_mb(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
            os.write(write_end, json.dumps(figures).encode())
        except BaseException as error:
            os.write(write_end, json.dumps({"error": repr(error)}).encode())
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        answer = pipe.read()
    os.waitpid(pid, 0)
    figures: dict[str, Any] = json.loads(answer)
    assert "error" not in figures, figures["error"]
    return figures


def _measure(
    fmt: str,
    lines: Callable[[int], Iterator[str]],
    parse: Callable[[Any], Any],
    tmp_path: Path,
) -> None:
    path = tmp_path / f"bench.{fmt}"

    def write() -> dict[str, Any]:
        with path.open("w", encoding="utf-8") as file:
            file.writelines(lines(int(FILE_MB * MB)))
        return {}

    _in_child(write)  # the generator's memory stays out of the parent
    owner = get_user_model().objects.create_user(f"bench-memory-{fmt}")
    club = club_create(name=f"Bench memory {fmt}", slug=f"bench-memory-{fmt}", by=owner)

    def parse_only() -> dict[str, Any]:
        started = time.perf_counter()
        with path.open("rb") as file:
            parse(file)
        return {"seconds": time.perf_counter() - started}

    def run() -> dict[str, Any]:
        start_mb = _current_rss_mb()
        started = time.perf_counter()
        with path.open("rb") as file:
            report = import_file(format=fmt, club=club, rating_list="standard", data=file, by=owner)
        seconds = time.perf_counter() - started
        assert report.errors == [], report.errors[:3]
        return {"seconds": seconds, "start_mb": start_mb, "games": report.games_created}

    # PostgreSQL: the child opens its own connection (one socket must not serve two
    # processes). SQLite's test database lives in this process's memory: the child
    # works on its copy.
    if connection.vendor == "postgresql":
        connection.close()
    parsed = _in_child(parse_only)
    imported = _in_child(run)
    emit(
        {
            "name": f"import_memory_{fmt}",
            "file_mb": round(path.stat().st_size / MB, 1),
            "games": imported["games"],
            "seconds": round(imported["seconds"], 3),
            "parse_seconds": round(parsed["seconds"], 3),
            "ratio": ratio(imported["seconds"], parsed["seconds"]),
            "peak_mb": imported["peak_mb"],
            "start_mb": imported["start_mb"],
            "peak_scope": "child",
        }
    )


@pytest.mark.benchmark
@pytest.mark.django_db(transaction=True)
def test_import_memory_trf(tmp_path: Path) -> None:
    _measure("trf", _trf_lines, parse_trf, tmp_path)


@pytest.mark.benchmark
@pytest.mark.django_db(transaction=True)
def test_import_memory_pgn(tmp_path: Path) -> None:
    _measure("pgn", _pgn_lines, parse_pgn, tmp_path)


@pytest.mark.benchmark
@pytest.mark.django_db(transaction=True)
def test_import_memory_csv(tmp_path: Path) -> None:
    _measure("csv", _csv_lines, parse_games_csv, tmp_path)
