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

import numpy as np
import pytest

from players.rating import GameInput, PeriodSums, RatingRules, period_change
from players.rating.bulk import table_period_sums
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


def _bulk(month: list[tuple[int, int, list[GameInput]]]) -> tuple[float, int]:
    """The same month through table_period_sums (arrays) and period_change(start=...)."""
    rules = RatingRules()
    halves = {Fraction(0): 0, Fraction(1, 2): 1, Fraction(1): 2}
    player = np.repeat(np.arange(len(month), dtype=np.intp), GAMES_PER_PLAYER)
    own = np.repeat(np.array([rating for rating, _, _ in month], dtype=np.int64), GAMES_PER_PLAYER)
    opponent = np.array(
        [game.opponent_rating for _, _, games in month for game in games], dtype=np.int64
    )
    scores = np.array([halves[game.score] for _, _, games in month for game in games])
    played = np.ones(len(player), dtype=np.bool_)
    started = time.perf_counter()
    sums = table_period_sums(
        player=player,
        own=own,
        opponent=opponent,
        score_halves=scores,
        played=played,
        players=len(month),
        rules=rules,
    )
    total = 0
    for (rating, k, _), count, score, expected in zip(
        month,
        sums.games.tolist(),
        sums.score_halves.tolist(),
        sums.expected_hundredths.tolist(),
        strict=True,
    ):
        start = PeriodSums(count, score, expected)
        total += period_change(rating=rating, games=(), k=k, rules=rules, start=start).change
    return time.perf_counter() - started, total


@pytest.mark.benchmark
def test_period_sums_federation_month() -> None:
    """The close's path: arrays, then one period_change per player; the baseline is the
    loop (keep_lines=False) over the same month in the same process."""
    players = PLAYERS // 100 if os.environ.get("BENCH_SCALE") == "small" else PLAYERS
    month = _month(players)
    loop_seconds, loop_total = _close(month, keep_lines=False)
    bulk_seconds, bulk_total = _bulk(month)
    assert bulk_total == loop_total
    emit(
        {
            "name": "engine_period_sums",
            "players": players,
            "games": players * GAMES_PER_PLAYER,
            "seconds": round(bulk_seconds, 3),
            "peak_mb": traced_peak_mb(lambda: _bulk(month[:TRACED_PLAYERS])),
            "peak_scope": "work",
            "loop_seconds": round(loop_seconds, 3),
            "loop_ratio": ratio(loop_seconds, bulk_seconds),
        }
    )
