"""Table 8.1.1 (dp from a percentage) and the three performance ratings (C.07 10, 1.4.6-1.4.9)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from players.rating.expected import elo_formula
from players.rating.rounding import round_half_away

# FIDE 8.1.1: dp for p = 1.00, .99, ... .50 (index = 100 - percent).
DP_TABLE: tuple[int, ...] = (
    800, 677, 589, 538, 501, 470, 444, 422, 401, 383, 366, 351, 336, 322, 309, 296, 284, 273,
    262, 251, 240, 230, 220, 211, 202, 193, 184, 175, 166, 158, 149, 141, 133, 125, 117, 110,
    102, 95, 87, 80, 72, 65, 57, 50, 43, 36, 29, 21, 14, 7, 0,
)  # fmt: skip

# The exact search stops when the bracket is this narrow (rating points).
EXACT_TOLERANCE = 1e-7


def dp_from_percentage(p: Fraction) -> int:
    """FIDE 8.1.1: dp for a score fraction p in [0, 1], p rounded to whole percent (.5 up).

    p >= .50 reads the table; below .50, dp(p) = -dp(1 - p). 100% gives 800, 0% gives -800.
    """
    if p < 0 or p > 1:
        raise ValueError(f"percentage must be between 0 and 1 (got {p})")
    percent = round_half_away(Fraction(p) * 100)
    if percent >= 50:
        return DP_TABLE[100 - percent]
    return -DP_TABLE[percent]


def _check(opponents: Sequence[int], score: Fraction) -> int:
    games = len(opponents)
    if score < 0 or score > games:
        raise ValueError(f"score {score} is impossible in {games} games")
    return games


def performance_fide(opponents: Sequence[int], score: Fraction) -> int | None:
    """FIDE tournament performance rating (C.07 10; Title Regulations 1.4.6-1.4.9).

    Rp = Ra + dp: Ra = the opponents' average rounded to whole (.5 up), dp from table 8.1.1
    with the percentage rounded to whole percent (.5 up); 100% and 0% give +/-800.
    None when there are no games.
    """
    games = _check(opponents, score)
    if games == 0:
        return None
    average = round_half_away(Fraction(sum(opponents), games))
    return average + dp_from_percentage(Fraction(score) / games)


def performance_exact(opponents: Sequence[int], score: Fraction) -> float | None:
    """The rating whose Elo-formula expected score against these opponents equals the score.

    Found by bisection to 1e-7 rating points (seed 004, "found by search"). None when there
    are no games, or at 0% and 100%, where no finite rating fits.
    """
    games = _check(opponents, score)
    if games == 0 or score == 0 or score == games:
        return None
    target = float(score)

    def expected_total(candidate: float) -> float:
        return sum(elo_formula(candidate - opponent) for opponent in opponents)

    low = float(min(opponents))
    high = float(max(opponents))
    step = 400.0
    while expected_total(low) > target:
        low -= step
        step *= 2
    step = 400.0
    while expected_total(high) < target:
        high += step
        step *= 2
    while high - low > EXACT_TOLERANCE:
        middle = (low + high) / 2
        if expected_total(middle) < target:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def performance_linear(opponents: Sequence[int], score: Fraction) -> float | None:
    """The "algorithm of 400": average + 400 x (W - L) / n, with W - L = 2 x score - n.

    Widely used; at a clean sweep it says +400 whatever the field. None when there are no games.
    """
    games = _check(opponents, score)
    if games == 0:
        return None
    return sum(opponents) / games + 400.0 * float(2 * Fraction(score) - games) / games
