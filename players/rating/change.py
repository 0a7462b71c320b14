"""A rated player's change for one period (FIDE 8.3.1, 8.3.2, 8.3.3 and 8.3.4)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

from players.rating.differences import (
    CAP,
    FAST_UNRATED_ABOVE,
    FAST_UNRATED_GAP,
    NOTE_FAST_GAP,
    player_is_capped,
)
from players.rating.expected import PD_HUNDREDTHS, TABLE_LIMIT, expected_from_formula
from players.rating.k_factor import cap_k
from players.rating.rounding import round_half_away, round_ratio_half_away
from players.rating.types import (
    ExpectedMethod,
    GameInput,
    GameLine,
    ListKind,
    Number,
    PeriodChange,
    PeriodSums,
    RatingRules,
)

NOTE_FORFEIT = "forfeit: not rated"
NOTE_UNRATED_OPPONENT = "opponent unrated: counts only toward the opponent's first rating"

# (game, score in halves, raw difference, counted difference, expected, note); expected is
# hundredths (table) or a float (formula), None when the game is not rated.
_Row = tuple[GameInput, int, int | None, int | None, int | float | None, str]


@lru_cache(maxsize=4096)
def _exact(numerator: int, denominator: int) -> Fraction:
    # A period close builds three Fractions per player from a few thousand distinct
    # values; Fractions are immutable, so equal ones can be shared.
    return Fraction(numerator, denominator)


def _score_halves(game: GameInput) -> int:
    # Scores are whole halves; working in halves keeps the hot loop in integers.
    score = game.score
    numerator = score.numerator
    denominator = score.denominator
    if denominator == 1 and (numerator == 0 or numerator == 1):
        return 2 * numerator
    if denominator == 2 and numerator == 1:
        return 1
    raise ValueError(f"a rated game's score must be 1, 1/2 or 0 (got {score})")


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
    capped_player = player_is_capped(rating, rules)
    fast = rules.list_kind is not ListKind.STANDARD
    table = rules.method is ExpectedMethod.FIDE_TABLE
    rows: list[_Row] | None = [] if keep_lines else None

    count = 0
    score_halves = 0
    expected_hundredths = 0
    if start is not None:
        if not table:
            raise ValueError("period sums are in table hundredths: the list must use the table")
        count, score_halves, expected_hundredths = start
    # Formula expectations are summed with math.fsum: exactly rounded, so the total does not
    # depend on the order the games come in (the database returns them in no fixed order).
    expected_floats: list[float] = []
    for game in games:
        opponent = game.opponent_rating
        if not game.played:
            if rows is not None:
                raw_or_none = None if opponent is None else rating - opponent
                rows.append((game, 0, raw_or_none, None, None, NOTE_FORFEIT))
            continue
        if opponent is None:
            if rows is not None:
                rows.append((game, 0, None, None, None, NOTE_UNRATED_OPPONENT))
            continue
        raw = rating - opponent
        # Same rule as differences.not_rated_reason, inlined: this loop runs per game of a
        # federation-sized month.
        if (
            fast
            and (raw >= FAST_UNRATED_GAP or raw <= -FAST_UNRATED_GAP)
            and (rating > FAST_UNRATED_ABOVE or opponent > FAST_UNRATED_ABOVE)
        ):
            if rows is not None:
                rows.append((game, 0, raw, None, None, NOTE_FAST_GAP))
            continue
        counted = raw
        if capped_player:
            if counted > CAP:
                counted = CAP
            elif counted < -CAP:
                counted = -CAP
        halves = _score_halves(game)
        score_halves += halves
        count += 1
        expected: int | float
        if table:
            index = counted
            if index > TABLE_LIMIT:
                index = TABLE_LIMIT
            elif index < -TABLE_LIMIT:
                index = -TABLE_LIMIT
            expected = PD_HUNDREDTHS[index + TABLE_LIMIT]
            expected_hundredths += expected
        else:
            expected = expected_from_formula(counted)
            expected_floats.append(expected)
        if rows is not None:
            note = (
                f"400-point rule: {opponent} counted as {rating - counted}"
                if counted != raw
                else ""
            )
            rows.append((game, halves, raw, counted, expected, note))

    k_used = cap_k(k, count)
    score = _exact(score_halves, 2)
    total_expected: Number
    change_unrounded: Number
    if table:
        # K x (score - expected), in exact hundredths.
        total_hundredths = k_used * (score_halves * 50 - expected_hundredths)
        total_expected = _exact(expected_hundredths, 100)
        change_unrounded = _exact(total_hundredths, 100)
        change = round_ratio_half_away(total_hundredths, 100)
    else:
        total_expected = math.fsum(expected_floats)
        change_unrounded = k_used * (score_halves / 2 - total_expected)
        change = round_half_away(change_unrounded)

    lines: tuple[GameLine, ...] = ()
    if rows is not None:
        lines = tuple(_line(row, k_used=k_used, table=table) for row in rows)
    return PeriodChange(
        rating=rating,
        k_base=k,
        k=k_used,
        lines=lines,
        games_count=count,
        score=score,
        expected=total_expected,
        change_unrounded=change_unrounded,
        change=change,
        new_rating=rating + change,
    )


def _line(row: _Row, *, k_used: int, table: bool) -> GameLine:
    game, halves, raw, counted, expected, note = row
    line_expected: Number | None = None
    line_change: Number | None = None
    if expected is not None:
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
        rating_difference=raw,
        counted_difference=counted,
        capped=counted is not None and counted != raw,
        expected=line_expected,
        change=line_change,
        rated=expected is not None,
        note=note,
    )
