"""A rated player's change for one period (FIDE 8.3.1, 8.3.2, 8.3.3 and 8.3.4)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

from players.rating.differences import GameScore, score_game
from players.rating.k_factor import cap_k
from players.rating.rounding import round_half_away, round_ratio_half_away
from players.rating.types import (
    ExpectedMethod,
    GameInput,
    GameLine,
    Number,
    PeriodChange,
    PeriodSums,
    RatingRules,
)


@lru_cache(maxsize=4096)
def _exact(numerator: int, denominator: int) -> Fraction:
    # A period close builds three Fractions per player from a few thousand distinct
    # values; Fractions are immutable, so equal ones can be shared.
    return Fraction(numerator, denominator)


def period_change(
    *,
    rating: int,
    games: Sequence[GameInput],
    k: int,
    rules: RatingRules,
    keep_lines: bool = True,
    start: PeriodSums | None = None,
) -> PeriodChange:
    """FIDE 8.3: a rated player's rating change over all rated games of one period.

    Per rated game: D after the 400-point rule (8.3.1), PD from table 8.1.2 (exact
    hundredths) or the Elo formula (float), delta = score - PD (8.3.2). K is the base K cut by
    the 700 rule over the rated games (8.3.3); change = K x sum(delta), rounded once for the
    period, a half away from zero (8.3.4). Not rated: unplayed games, games against unrated
    opponents (8.2 / 7.1.4) and, on rapid and blitz, 600+ apart with a player above 2600.
    `score`, `expected` and `games_count` cover rated games only. With keep_lines=False no
    per-game objects are built (lines=()); every total is identical either way.

    ``start``: sums of more rated games of the same period, from ``table_period_sums`` (FIDE
    table only), added to those of ``games`` before K is capped and the change rounded;
    they have no lines.
    """
    if k < 0:
        raise ValueError(f"K must not be negative (got {k})")
    table = rules.method is ExpectedMethod.FIDE_TABLE
    scored_games: list[tuple[GameInput, GameScore]] | None = [] if keep_lines else None

    count = 0
    score_halves = 0
    expected_hundredths = 0
    if start is not None:
        if not table:
            raise ValueError("period sums are in table hundredths: the list must use the table")
        count, score_halves, expected_hundredths = start
    # PD of each rated game: hundredths (ints) on the table, floats with the formula.
    expected_values: list[int | float] = []
    for game in games:
        scored = score_game(rating, game.opponent_rating, game.score, game.played, rules)
        if scored_games is not None:
            scored_games.append((game, scored))
        _, _, expected, halves, _ = scored
        if expected is not None:
            score_halves += halves
            expected_values.append(expected)
    count += len(expected_values)

    k_used = cap_k(k, count) if rules.cap_700 else k
    if table:
        total_expected, change_unrounded, change = _table_totals(
            k_used, score_halves, expected_hundredths + int(sum(expected_values))
        )
    else:
        total_expected, change_unrounded, change = _formula_totals(
            k_used, score_halves, expected_values
        )

    lines: tuple[GameLine, ...] = ()
    if scored_games is not None:
        lines = tuple(
            _line(game, scored, rating=rating, k_used=k_used, table=table)
            for game, scored in scored_games
        )
    return PeriodChange(
        rating=rating,
        k_base=k,
        k=k_used,
        lines=lines,
        games_count=count,
        score=_exact(score_halves, 2),
        expected=total_expected,
        change_unrounded=change_unrounded,
        change=change,
        new_rating=rating + change,
    )


def _table_totals(
    k: int, score_halves: int, expected_hundredths: int
) -> tuple[Number, Number, int]:
    """Expected score, K x (score - expected) and its rounding, in exact hundredths."""
    total_hundredths = k * (score_halves * 50 - expected_hundredths)
    return (
        _exact(expected_hundredths, 100),
        _exact(total_hundredths, 100),
        round_ratio_half_away(total_hundredths, 100),
    )


def _formula_totals(
    k: int, score_halves: int, expected_values: list[int | float]
) -> tuple[Number, Number, int]:
    """The same with the formula's floats. math.fsum is exactly rounded, so the total does
    not depend on the order the games come in (the database returns them in no fixed order)."""
    total_expected = math.fsum(expected_values)
    change_unrounded = k * (score_halves / 2 - total_expected)
    return total_expected, change_unrounded, round_half_away(change_unrounded)


def _line(game: GameInput, scored: GameScore, *, rating: int, k_used: int, table: bool) -> GameLine:
    difference, counted, expected, halves, not_rated = scored
    line_expected: Number | None = None
    line_change: Number | None = None
    note = not_rated or ""
    if expected is None:
        counted = None
    else:
        if counted is not None and counted != difference:
            note = f"400-point rule: {game.opponent_rating} counted as {rating - counted}"
        if table:
            # Built from integer hundredths: the same exact value as K x (score - PD).
            line_expected = Fraction(int(expected), 100)
            line_change = Fraction(k_used * (halves * 50 - int(expected)), 100)
        else:
            line_expected = float(expected)
            line_change = k_used * (halves / 2 - line_expected)
    return GameLine(
        opponent_rating=game.opponent_rating,
        score=game.score,
        rating_difference=difference,
        counted_difference=counted,
        capped=counted is not None and counted != difference,
        expected=line_expected,
        change=line_change,
        rated=expected is not None,
        note=note,
    )
