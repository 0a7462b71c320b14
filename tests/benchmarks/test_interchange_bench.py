"""How fast the interchange parsers read a 100,000-game file (figures printed, not asserted).

BENCH_SCALE=small runs 1% of the size. Each format prints one JSON line:
{"name": ..., "games": ..., "seconds": ..., "baseline_seconds": ..., "ratio": ...,
"peak_mb": ..., "peak_scope": "work"}. The baseline does the least work that reads the same
text in the same process (csv.reader over the CSV; the TRF's lines with their fixed columns
sliced; a line scan of the PGN for its tag pairs), so ``ratio`` (parser / baseline) can be
compared between machines of different speed. ``peak_mb``: see ``report.py``.
"""

from __future__ import annotations

import csv
import io
import os
import random
import re
import time
from collections.abc import Callable

import pytest

from tests.benchmarks.report import emit, ratio, traced_peak_mb
from tournaments.interchange import parse_games_csv, parse_pgn, parse_trf

GAMES = 100_000 if os.environ.get("BENCH_SCALE", "") != "small" else 1_000
# TRF start numbers have four digits, so 100,000 games need many rounds: 25 rounds of
# 8,000 players (an open festival's worth of rounds, in one file).
ROUNDS = 25


def _trf(games: int) -> str:
    """A Swiss-shaped TRF: players = 2 x games / rounds, every player paired every round."""
    players = 2 * games // ROUNDS
    rng = random.Random(2026)
    blocks: list[list[str]] = [[] for _ in range(players + 1)]
    codes = [("1", "0"), ("0", "1"), ("=", "=")]
    for _round in range(ROUNDS):
        order = list(range(1, players + 1))
        rng.shuffle(order)
        for white, black in zip(order[::2], order[1::2], strict=True):
            white_code, black_code = rng.choice(codes)
            blocks[white].append(f"{black:>4} w {white_code}")
            blocks[black].append(f"{white:>4} b {black_code}")
    lines = ["012 Benchmark Open", "042 2026/10/01", "052 2026/10/31"]
    for number in range(1, players + 1):
        head = (
            f"001 {number:>4} m    {'Player ' + str(number):<33} {1500 + number % 900:>4} ENG "
            f"{1000000 + number:>11} {'1990/01/01':<10} {'5.0':>4} {number:>4}"
        )
        lines.append(f"{head}  {'  '.join(blocks[number])}")
    return "\n".join(lines) + "\n"


def _csv(games: int) -> str:
    rows = ["date;white;black;result;tournament;round"]
    results = ["1-0", "0-1", "1/2-1/2", "½-½", "+-"]
    for index in range(games):
        white, black = index % 5000, (index * 7 + 1) % 5000
        rows.append(
            f'2026-10-{1 + index % 28:02d};"Player, {white}";"Player, {black}";'
            f"{results[index % 5]};Ladder;{1 + index % 9}"
        )
    return "\n".join(rows) + "\n"


def _pgn(games: int) -> str:
    blocks = []
    for index in range(games):
        blocks.append(
            f'[Event "Ladder"]\n[Site "Riverton"]\n[Date "2026.10.{1 + index % 28:02d}"]\n'
            f'[Round "{1 + index % 9}"]\n[White "Player, {index % 5000}"]\n'
            f'[Black "Player, {(index * 7 + 1) % 5000}"]\n[Result "1-0"]\n'
            f'[WhiteElo "1800"]\n[BlackElo "1750"]\n[TimeControl "5400+30"]\n\n'
            "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 1-0\n"
        )
    return "\n".join(blocks)


# The baselines: the least work that reads every game of the same text.


def _trf_baseline(text: str) -> int:
    """Split into lines and slice the fixed columns of each player line (TRF16 layout)."""
    played = 0
    for line in text.splitlines():
        if not line.startswith("001"):
            continue
        _name, _rating = line[14:47], line[48:52]
        # Round blocks start at column 92 and take ten columns each.
        for start in range(91, len(line), 10):
            opponent, _colour, _result = line[start : start + 4], line[start + 5], line[start + 7]
            if opponent.strip():
                played += 1
    return played // 2


def _csv_baseline(text: str) -> int:
    rows = csv.reader(io.StringIO(text), delimiter=";")
    next(rows)
    return sum(1 for _row in rows)


_TAG = re.compile(r'\[(\w+) "([^"]*)"\]')


def _pgn_baseline(text: str) -> int:
    """A plain line scan for ``[Tag "value"]``; a game is counted by its Result tag."""
    games = 0
    for line in text.splitlines():
        if line.startswith("["):
            tag = _TAG.match(line)
            if tag is not None and tag.group(1) == "Result":
                games += 1
    return games


def _timed(run: Callable[[str], int], text: str) -> tuple[float, int]:
    started = time.perf_counter()
    games = run(text)
    return time.perf_counter() - started, games


def _measure(
    name: str, text: str, parse: Callable[[str], int], baseline: Callable[[str], int]
) -> None:
    baseline_seconds, baseline_games = _timed(baseline, text)
    seconds, games = _timed(parse, text)
    figures = {
        "name": name,
        "games": games,
        "seconds": round(seconds, 3),
        "baseline_seconds": round(baseline_seconds, 5),
        "ratio": ratio(seconds, baseline_seconds),
        "peak_mb": traced_peak_mb(lambda: parse(text)),
        "peak_scope": "work",
    }
    emit(figures)
    assert games == GAMES
    # The baseline must have read the same games, or the ratio compares different work.
    assert baseline_games == GAMES


@pytest.mark.benchmark
def test_trf_parse_speed() -> None:
    _measure("trf", _trf(GAMES), lambda text: len(parse_trf(text).games), _trf_baseline)


@pytest.mark.benchmark
def test_csv_parse_speed() -> None:
    _measure("csv", _csv(GAMES), lambda text: len(parse_games_csv(text).games), _csv_baseline)


@pytest.mark.benchmark
def test_pgn_parse_speed() -> None:
    _measure("pgn", _pgn(GAMES), lambda text: len(parse_pgn(text).games), _pgn_baseline)
