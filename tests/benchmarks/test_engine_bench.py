"""Speed of the rules engine on a federation-sized month (prints figures; asserts no timings).

Run with `make bench`. BENCH_SCALE=small runs 1% of the players.
"""

from __future__ import annotations

import json
import os
import random
import resource
import time
from fractions import Fraction

import pytest

from players.rating import GameInput, RatingRules, period_change

PLAYERS = 200_000
GAMES_PER_PLAYER = 10
SCORES = (Fraction(0), Fraction(1, 2), Fraction(1))


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
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "name": "engine_period_change",
                "players": players,
                "games": players * GAMES_PER_PLAYER,
                "seconds": round(lean_seconds, 3),
                "peak_mb": round(peak_mb, 1),
                "keep_lines_seconds": round(full_seconds, 3),
                "keep_lines_ratio": round(full_seconds / lean_seconds, 2),
            }
        )
    )
