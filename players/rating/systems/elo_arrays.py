"""The Elo family's per-player finish for most of a big list at once, in numpy arrays.

A federation-sized close has 200,000 players, and the scalar path (``elo._plan_player``)
costs about ten microseconds each. Most of them are ordinary: rated on the list, every
game already added up in arrays (``period_sums``), no officer's override, no adjustment.
For those, ``finish`` computes what ``_plan_player`` computes, as arrays: K by FIDE 8.3.3
(``k_arrays``, the array form of ``k_factor.k_factor_for``), the 700 rule, the change in
hundredths rounded half away from zero, the floor, the next period's K; then one record
per player. A property test (tests/rating/test_elo_arrays.py) holds both equal to the
scalar functions over the whole input range; everything else takes the scalar path.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from players.rating.change import _exact
from players.rating.k_factor import (
    ELITE_FROM,
    JUNIOR_BELOW,
    JUNIOR_MAX_AGE,
    K_ELITE,
    K_NEW,
    K_STANDARD,
    NEW_PLAYER_GAMES,
    PERIOD_CAP,
    junior_age,
    k_change_reason,
)
from players.rating.period import (
    ListSettings,
    PeriodEvent,
    PlannedChange,
    PlannedKChange,
    PlayerStart,
)
from players.rating.rounding import round_ratio_half_away
from players.rating.types import KFactor, KReason, PeriodSums

IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]
# A birth year that makes nobody a junior (an unknown birth year is never junior age).
NO_BIRTH_YEAR = -(10**6)
REASONS = (KReason.REACHED_2400, KReason.JUNIOR, KReason.NEW_PLAYER, KReason.STANDARD)
_ELITE, _JUNIOR, _NEW, _STANDARD = range(4)
_K_OF_REASON = np.array([K_ELITE, K_NEW, K_NEW, K_STANDARD], dtype=np.int64)


def k_arrays(
    *,
    rating: IntArray,
    rated: BoolArray,
    rated_games: IntArray,
    birth_year: IntArray,
    reached_2400: BoolArray,
    period_year: int,
) -> IntArray:
    """``k_factor_for`` for many players on their own list (no standard rating to count
    through): the index in REASONS of each player's K. FIDE 8.3.3's order: 10 once a
    published rating has reached 2400; 40 for a junior (to the end of the year of the 18th
    birthday) rated under 2300 or unrated; 40 for an unrated player or one with fewer than
    30 rated games; else 20. ``rating`` is read only where ``rated``."""
    junior = (period_year - birth_year <= JUNIOR_MAX_AGE) & (~rated | (rating < JUNIOR_BELOW))
    new = ~rated | (rated_games < NEW_PLAYER_GAMES)
    return np.where(
        reached_2400, _ELITE, np.where(junior, _JUNIOR, np.where(new, _NEW, _STANDARD))
    ).astype(np.int64)


def finish(
    *,
    ids: Sequence[int],
    starts: Sequence[PlayerStart],
    sums: Sequence[PeriodSums | None],
    settings: ListSettings,
    month: datetime.date,
    next_month: datetime.date,
) -> list[tuple[PlannedChange, PlannedKChange | None]]:
    """The plan of each player in ``ids``: rated on the list at ``starts[i].rating``, every
    rated game in ``sums[i]`` (None: no rated game), no K override, no adjustment."""
    count = len(ids)
    own = np.fromiter((s.rating for s in starts), dtype=np.int64, count=count)
    rated_games = np.fromiter((s.rated_games for s in starts), dtype=np.int64, count=count)
    reached = np.fromiter((s.reached_2400 for s in starts), dtype=np.bool_, count=count)
    birth = np.fromiter(
        (NO_BIRTH_YEAR if s.birth_year is None else s.birth_year for s in starts),
        dtype=np.int64,
        count=count,
    )
    games = np.fromiter((0 if t is None else t[0] for t in sums), dtype=np.int64, count=count)
    halves = np.fromiter((0 if t is None else t[1] for t in sums), dtype=np.int64, count=count)
    expected = np.fromiter((0 if t is None else t[2] for t in sums), dtype=np.int64, count=count)
    everyone = np.ones(count, dtype=np.bool_)

    def k_of(
        rating: IntArray,
        rated: BoolArray,
        played_games: IntArray,
        reached_now: BoolArray,
        year: int,
    ) -> tuple[IntArray, IntArray | None]:
        if settings.fixed_k is not None:
            return np.full(count, settings.fixed_k, dtype=np.int64), None
        reasons = k_arrays(
            rating=rating,
            rated=rated,
            rated_games=played_games,
            birth_year=birth,
            reached_2400=reached_now,
            period_year=year,
        )
        return _K_OF_REASON[reasons], reasons

    k, k_reasons = k_of(own, everyone, rated_games, reached, month.year)
    played = games > 0
    # FIDE 8.3.3: K x n <= 700.
    k_used = np.where(played & (k * games > PERIOD_CAP), PERIOD_CAP // np.maximum(games, 1), k)
    # K x (score - expected), in hundredths; rounded once, a half away from zero (8.3.4).
    total = k_used * (halves * 50 - expected)
    change = round_ratio_half_away(total, 100)
    new = own + change
    floor = settings.floor
    below = played & (new < floor) if floor is not None else np.zeros(count, dtype=np.bool_)
    after = np.where(played, new, own)
    rated_after = ~below
    games_after = rated_games + games
    reached_after = reached | (played & rated_after & (after >= ELITE_FROM))
    k_next, next_reasons = k_of(after, rated_after, games_after, reached_after, next_month.year)
    k_changed = (k != k_next) if k_reasons is None else (k != k_next) | (k_reasons != next_reasons)
    fixed = KFactor(settings.fixed_k, KReason.FIXED) if settings.fixed_k is not None else None

    def k_factor(values: IntArray, reasons: IntArray | None, i: int) -> KFactor:
        if reasons is None:
            assert fixed is not None
            return fixed
        return _K_FACTORS[int(reasons[i])]

    planned: list[tuple[PlannedChange, PlannedKChange | None]] = []
    columns: Any = zip(
        ids,
        starts,
        played.tolist(),
        below.tolist(),
        after.tolist(),
        change.tolist(),
        total.tolist(),
        k_used.tolist(),
        games.tolist(),
        halves.tolist(),
        expected.tolist(),
        games_after.tolist(),
        reached_after.tolist(),
        k_changed.tolist(),
        strict=True,
    )
    for i, (
        pid,
        start,
        did_play,
        dropped,
        rating,
        diff,
        hundredths,
        used,
        n,
        h,
        e,
        n_after,
        r_after,
        moved,
    ) in enumerate(columns):
        base = k_factor(k, k_reasons, i)
        following = k_factor(k_next, next_reasons, i)
        if did_play:
            change_row = PlannedChange(
                pid,
                start.rating,
                None if dropped else rating,
                diff,
                _exact(hundredths, 100),
                used,
                base.reason,
                n,
                _exact(h, 2),
                _exact(e, 100),
                PeriodEvent.BELOW_FLOOR if dropped else PeriodEvent.RATED,
                n_after,
                r_after,
                [],
                following,
                month,
                0,
            )
        else:
            change_row = PlannedChange(
                pid,
                start.rating,
                start.rating,
                0,
                0,
                base.value,
                base.reason,
                0,
                _ZERO,
                0,
                PeriodEvent.NO_RATED_GAMES,
                start.rated_games,
                start.reached_2400,
                start.pool,
                following,
                month if start.last_active is None else start.last_active,
                0,
            )
        k_row = None
        if moved:
            reason = k_change_reason(
                base,
                following,
                still_junior_age=junior_age(start.birth_year, period_year=next_month.year),
            )
            if reason is not None:
                k_row = PlannedKChange(pid, base, following, reason)
        planned.append((change_row, k_row))
    return planned


_ZERO = Fraction(0)
_K_FACTORS = tuple(KFactor(int(_K_OF_REASON[i]), reason) for i, reason in enumerate(REASONS))
