"""A whole period's rated games at once, in arrays (FIDE 8.3.1, 8.3.2, table 8.1.2).

A federation-sized period has two million game sides, and a Python loop over them costs
seconds. ``table_period_sums`` computes with numpy, per player, the three sums that
``period_change`` accumulates game by game: rated games, score in halves and expected score
in hundredths of the FIDE table. Everything is integer arithmetic, so the sums are exact and
identical to those of ``differences.score_game`` game by game (property and exhaustive
tests in tests/rating/test_bulk.py); ``period_change`` then finishes each player from them
(``start=``): the 700 rule, one rounding, the new rating. ``table_game_sums`` gives the
same sums from one row per game (both sides), which is how the close hands them over.

Only the FIDE table: the formula's floats would be summed in another order than the loop's,
and a float sum may differ in its last bit.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from players.rating.differences import (
    CAP,
    FAST_UNRATED_ABOVE,
    FAST_UNRATED_GAP,
    STANDARD_UNCAPPED_FROM,
)
from players.rating.expected import PD_HUNDREDTHS, TABLE_LIMIT
from players.rating.types import ExpectedMethod, RatingRules

_PD = np.array(PD_HUNDREDTHS, dtype=np.int64)

IntArray = NDArray[np.int64]


class PeriodSumArrays(NamedTuple):
    """``PeriodSums`` for players 0..n-1, one array per sum."""

    games: IntArray
    score_halves: IntArray
    expected_hundredths: IntArray


def table_period_sums(
    *,
    player: NDArray[np.intp],
    own: IntArray,
    opponent: IntArray,
    score_halves: IntArray,
    played: NDArray[np.bool_],
    players: int,
    rules: RatingRules,
) -> PeriodSumArrays:
    """Per player index 0..``players``-1, the sums of their rated games.

    One row per game side: the player's index, their own rating and the opponent's (both
    rated: a game against an unrated opponent is never rated for the rated side, leave it
    out), the score in halves (0, 1 or 2) and whether it counts (False: a forfeit or a game
    marked not rated). The rules of ``differences.score_game``, in its order: the 400-point
    rule by the player's own rating (2650 exception on the standard list), the rapid/blitz
    600/2600 rule, then PD from table 8.1.2; tests/rating/test_bulk.py proves the sums equal
    to those of ``score_game`` over every rating from 0 to 4000.
    """
    if rules.method is not ExpectedMethod.FIDE_TABLE:
        raise ValueError("table_period_sums needs a list scored by the FIDE table")
    rows = len(player)
    if not (len(own) == len(opponent) == len(score_halves) == len(played) == rows):
        raise ValueError("every column needs one value per game side")
    if rows and (score_halves.min() < 0 or score_halves.max() > 2):
        raise ValueError("a rated game's score must be 1, 1/2 or 0")
    if rows and (player.min() < 0 or player.max() >= players):
        raise ValueError(f"player indexes must lie in 0..{players - 1}")
    # score_game's decisions, in its order, on arrays.
    difference = own - opponent
    counted = difference
    if rules.apply_400_rule:
        capped = np.clip(difference, -CAP, CAP)
        if not rules.list_kind.fast and rules.exception_2650:
            counted = np.where(own < STANDARD_UNCAPPED_FROM, capped, difference)
        else:
            counted = capped
    rated = played
    if rules.list_kind.fast and rules.fast_gap:
        far = (difference >= FAST_UNRATED_GAP) | (difference <= -FAST_UNRATED_GAP)
        strong = (own > FAST_UNRATED_ABOVE) | (opponent > FAST_UNRATED_ABOVE)
        rated = rated & ~(far & strong)
    expected = _PD[np.clip(counted, -TABLE_LIMIT, TABLE_LIMIT) + TABLE_LIMIT]
    who = player[rated]
    # bincount's weighted sums are float64: exact for integers far beyond these totals.
    return PeriodSumArrays(
        np.bincount(who, minlength=players).astype(np.int64),
        np.bincount(who, weights=score_halves[rated], minlength=players).astype(np.int64),
        np.bincount(who, weights=expected[rated], minlength=players).astype(np.int64),
    )


def table_game_sums(
    *,
    white: NDArray[np.intp],
    black: NDArray[np.intp],
    white_own: IntArray,
    black_own: IntArray,
    white_halves: IntArray,
    black_halves: IntArray,
    played: NDArray[np.bool_],
    players: int,
    rules: RatingRules,
) -> PeriodSumArrays:
    """``table_period_sums`` of both sides of each game, one row per game: the white and
    the black player's index and rating, each side's score in halves, and whether the game
    counts (a game that does not may hold any rating: an unrated side's, say). The sums
    are those of ``table_period_sums`` over the white sides followed by the black ones
    (tests/rating/test_bulk.py), without building those two-million-row columns: a
    federation's month takes half the arrays, and the 600/2600 rule, the same for both
    sides of a game, is decided once."""
    if rules.method is not ExpectedMethod.FIDE_TABLE:
        raise ValueError("table_game_sums needs a list scored by the FIDE table")
    rows = len(white)
    columns = (black, white_own, black_own, white_halves, black_halves, played)
    if any(len(column) != rows for column in columns):
        raise ValueError("every column needs one value per game")
    if rows:
        for halves in (white_halves, black_halves):
            if halves.min() < 0 or halves.max() > 2:
                raise ValueError("a rated game's score must be 1, 1/2 or 0")
        for side in (white, black):
            if side.min() < 0 or side.max() >= players:
                raise ValueError(f"player indexes must lie in 0..{players - 1}")
    difference = white_own - black_own
    counted = played
    if rules.list_kind.fast and rules.fast_gap:
        far = np.abs(difference) >= FAST_UNRATED_GAP
        far &= (white_own > FAST_UNRATED_ABOVE) | (black_own > FAST_UNRATED_ABOVE)
        counted = played & ~far
    white_expected = _expected_hundredths(white_own, difference, rules)
    np.negative(difference, out=difference)
    black_expected = _expected_hundredths(black_own, difference, rules)
    white_who, black_who = white[counted], black[counted]

    def summed(white_weights: IntArray | None, black_weights: IntArray | None) -> IntArray:
        # bincount's weighted sums are float64: exact for integers far beyond these totals.
        white_sum = np.bincount(
            white_who,
            weights=None if white_weights is None else white_weights[counted],
            minlength=players,
        )
        white_sum += np.bincount(
            black_who,
            weights=None if black_weights is None else black_weights[counted],
            minlength=players,
        )
        return white_sum.astype(np.int64)

    return PeriodSumArrays(
        summed(None, None),
        summed(white_halves, black_halves),
        summed(white_expected, black_expected),
    )


def _expected_hundredths(own: IntArray, difference: IntArray, rules: RatingRules) -> IntArray:
    """PD of table 8.1.2 in hundredths for the sides rated ``own``, ``difference`` (own -
    opponent) counted by the 400-point rule and its 2650 exception (``table_period_sums``'s
    order)."""
    if rules.apply_400_rule:
        counted = np.clip(difference, -CAP, CAP)
        if not rules.list_kind.fast and rules.exception_2650:
            np.copyto(counted, difference, where=own >= STANDARD_UNCAPPED_FROM)
        np.clip(counted, -TABLE_LIMIT, TABLE_LIMIT, out=counted)
    else:
        counted = np.clip(difference, -TABLE_LIMIT, TABLE_LIMIT)
    counted += TABLE_LIMIT
    return _PD.take(counted)
