"""How fast the interchange parsers read a 100,000-game file (figures printed, not asserted).

BENCH_SCALE=small runs 1% of the size. Each format prints one JSON line:
{"name": ..., "games": ..., "seconds": ..., "peak_mb": ...}; peak_mb is how far the process's
resident memory rose above where it was when the parse began (Linux /proc; null elsewhere).
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable

import pytest

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


def _rss_mb(field: str) -> float | None:
    """A field of /proc/self/status in MB (Linux); None elsewhere."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS mark (VmHWM) so it measures the parse alone."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
            refs.write("5")
    except OSError:
        return False
    return True


def _measure(name: str, text: str, parse: Callable[[str], int]) -> None:
    # Peak resident memory from the kernel, not tracemalloc: tracing every allocation would
    # slow the parse several times over and spoil the timing.
    before = _rss_mb("VmRSS") if _reset_peak_rss() else None
    started = time.perf_counter()
    games = parse(text)
    seconds = time.perf_counter() - started
    peak = _rss_mb("VmHWM")
    peak_mb = round(peak - before, 1) if peak is not None and before is not None else None
    figures = {"name": name, "games": games, "seconds": round(seconds, 3), "peak_mb": peak_mb}
    print(json.dumps(figures))
    assert games == GAMES


@pytest.mark.benchmark
def test_trf_parse_speed() -> None:
    _measure("trf", _trf(GAMES), lambda text: len(parse_trf(text).games))


@pytest.mark.benchmark
def test_csv_parse_speed() -> None:
    _measure("csv", _csv(GAMES), lambda text: len(parse_games_csv(text).games))


@pytest.mark.benchmark
def test_pgn_parse_speed() -> None:
    _measure("pgn", _pgn(GAMES), lambda text: len(parse_pgn(text).games))
