"""Speed of the rules engine on a federation-sized month (prints figures; asserts no timings).

Run with `make bench`. BENCH_SCALE=small runs 1% of the players. ``seconds`` is the lean
close (keep_lines=False); the baseline is the same month closed with keep_lines=True in the
same process, and ``keep_lines_ratio`` is keep_lines seconds / lean seconds. ``peak_mb``:
see ``report.py``; here it is the lean close of the first ``TRACED_PLAYERS`` players repeated
under tracing (the loop keeps nothing per player, so its peak does not grow with the month,
and tracing all 200,000 would add a minute).
"""

from __future__ import annotations

import os
import random
import time
from fractions import Fraction

import pytest

from players.rating import GameInput, RatingRules, period_change
from tests.benchmarks.report import emit, ratio, traced_peak_mb

PLAYERS = 200_000
GAMES_PER_PLAYER = 10
SCORES = (Fraction(0), Fraction(1, 2), Fraction(1))
TRACED_PLAYERS = 2_000


def _month(players: int) -> list[tuple[int, int, list[GameInput]]]:
    rng = random.Random(20_261_130)
    month = []
    for _ in range(players):
        rating = rng.randint(1000, 2800)
        games = [
            GameInput(rng.randint(1000, 2800), rng.choice(SCORES)) for _ in range(GAMES_PER_PLAYER)
        ]
        month.append((rating, rng.choice((10, 20, 40)), games))
    return month


def _close(month: list[tuple[int, int, list[GameInput]]], *, keep_lines: bool) -> tuple[float, int]:
    rules = RatingRules()
    started = time.perf_counter()
    total = 0
    for rating, k, games in month:
        total += period_change(
            rating=rating, games=games, k=k, rules=rules, keep_lines=keep_lines
        ).change
    return time.perf_counter() - started, total


@pytest.mark.benchmark
def test_period_change_federation_month() -> None:
    players = PLAYERS // 100 if os.environ.get("BENCH_SCALE") == "small" else PLAYERS
    month = _month(players)
    lean_seconds, lean_total = _close(month, keep_lines=False)
    full_seconds, full_total = _close(month, keep_lines=True)
    # Both runs must agree; this is a correctness check, not a timing assertion.
    assert lean_total == full_total
    emit(
        {
            "name": "engine_period_change",
            "players": players,
            "games": players * GAMES_PER_PLAYER,
            "seconds": round(lean_seconds, 3),
            "peak_mb": traced_peak_mb(lambda: _close(month[:TRACED_PLAYERS], keep_lines=False)),
            "peak_scope": "work",
            "keep_lines_seconds": round(full_seconds, 3),
            "keep_lines_ratio": ratio(full_seconds, lean_seconds),
        }
    )
