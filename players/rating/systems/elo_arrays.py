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
from collections.abc import Iterable, Sequence
from fractions import Fraction
from operator import attrgetter
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from players.rating.bulk import PeriodSumArrays
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
    k_change_reason,
)
from players.rating.period import (
    ListSettings,
    PeriodEvent,
    PlannedChange,
    PlannedKChange,
    PlayerStart,
    records_from_columns,
)
from players.rating.rounding import round_ratio_half_away
from players.rating.types import KChangeReason, KFactor, KReason, PeriodSums

IntArray = NDArray[np.int64]
# Each player's sums (None: no rated game), or all of them as arrays in the players' order.
Sums = Sequence[PeriodSums | None] | PeriodSumArrays
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


class _Columns(NamedTuple):
    """The players' starts and sums as arrays."""

    own: IntArray
    rated_games: IntArray
    reached: BoolArray
    birth: IntArray
    games: IntArray
    halves: IntArray
    expected: IntArray


def _columns(starts: Sequence[PlayerStart], sums: Sums) -> _Columns:
    count = len(starts)

    def column(values: Iterable[Any], dtype: Any = np.int64) -> Any:
        return np.fromiter(values, dtype=dtype, count=count)

    if not isinstance(sums, PeriodSumArrays):
        sums = PeriodSumArrays(
            column(0 if t is None else t[0] for t in sums),
            column(0 if t is None else t[1] for t in sums),
            column(0 if t is None else t[2] for t in sums),
        )
    # Each field read by name in C (attrgetter), not by a generator in Python.
    births = list(map(attrgetter("birth_year"), starts))
    if None in births:
        births = [NO_BIRTH_YEAR if year is None else year for year in births]
    return _Columns(
        own=column(map(attrgetter("rating"), starts)),
        rated_games=column(map(attrgetter("rated_games"), starts)),
        reached=column(map(attrgetter("reached_2400"), starts), np.bool_),
        birth=column(births),
        games=sums.games,
        halves=sums.score_halves,
        expected=sums.expected_hundredths,
    )


class _Figures(NamedTuple):
    """What the period does to each player, as arrays (and K as KFactor lists)."""

    played: BoolArray
    below: BoolArray
    after: IntArray
    change: IntArray
    total: IntArray
    k_used: IntArray
    games_after: IntArray
    reached_after: BoolArray
    k_changed: BoolArray
    k: list[KFactor]
    k_next: list[KFactor]


def _figures(
    c: _Columns, settings: ListSettings, month: datetime.date, next_month: datetime.date
) -> _Figures:
    count = len(c.own)

    def k_of(
        rating: IntArray, rated: BoolArray, games: IntArray, reached: BoolArray, year: int
    ) -> tuple[IntArray, IntArray]:
        """K values, and an index per player into _K_FACTORS (or -1: the list's fixed K)."""
        if settings.fixed_k is not None:
            return np.full(count, settings.fixed_k, dtype=np.int64), np.full(count, -1)
        reasons = k_arrays(
            rating=rating,
            rated=rated,
            rated_games=games,
            birth_year=c.birth,
            reached_2400=reached,
            period_year=year,
        )
        return _K_OF_REASON[reasons], reasons

    k, k_reasons = k_of(c.own, np.ones(count, dtype=np.bool_), c.rated_games, c.reached, month.year)
    played = c.games > 0
    # FIDE 8.3.3: K x n <= 700.
    k_used = np.where(played & (k * c.games > PERIOD_CAP), PERIOD_CAP // np.maximum(c.games, 1), k)
    # K x (score - expected), in hundredths; rounded once, a half away from zero (8.3.4).
    total = k_used * (c.halves * 50 - c.expected)
    change = round_ratio_half_away(total, 100)
    new = c.own + change
    floor = settings.floor
    below = played & (new < floor) if floor is not None else np.zeros(count, dtype=np.bool_)
    after = np.where(played, new, c.own)
    games_after = c.rated_games + c.games
    reached_after = c.reached | (played & ~below & (after >= ELITE_FROM))
    k_next, next_reasons = k_of(after, ~below, games_after, reached_after, next_month.year)
    factors = np.array([*_K_FACTORS, KFactor(settings.fixed_k or 0, KReason.FIXED)], dtype=object)
    return _Figures(
        played=played,
        below=below,
        after=after,
        change=change,
        total=total,
        k_used=k_used,
        games_after=games_after,
        reached_after=reached_after,
        k_changed=(k != k_next) | (k_reasons != next_reasons),
        k=factors[k_reasons].tolist(),
        k_next=factors[next_reasons].tolist(),
    )


def finish(
    *,
    ids: Sequence[int],
    starts: Sequence[PlayerStart],
    sums: Sums,
    settings: ListSettings,
    month: datetime.date,
    next_month: datetime.date,
) -> list[tuple[PlannedChange, PlannedKChange | None]]:
    """The plan of each player in ``ids``: rated on the list at ``starts[i].rating``, every
    rated game in ``sums[i]`` (None: no rated game; or the sums as arrays, in ids' order),
    no K override, no adjustment.

    The records are built a field at a time, by name (``records_from_columns``): one
    column per field, from the arrays (the players without games set apart by a mask),
    and the records made in C. A loop building 200,000 records, one call with seventeen
    keywords each, was half the array finish."""
    c = _columns(starts, sums)
    f = _figures(c, settings, month, next_month)
    count = len(ids)
    played = f.played
    idle = ~played
    # A player without rated games keeps their start's pool and last active month; the
    # others' pool is emptied (each its own list) and they were active this month.
    pools: list[list[dict[str, Any]]] = [[] for _ in range(count)]
    last_active = [month] * count
    for i in np.flatnonzero(idle).tolist():
        start = starts[i]
        pools[i] = start.pool
        if start.last_active is not None:
            last_active[i] = start.last_active
    # Dropped below the floor: unrated after the period.
    rating_after = f.after.astype(object)
    rating_after[f.below] = None
    # Without games: no change and no score (zeros as the scalar path writes them).
    unrounded, score, expected = (
        _fractions(f.total, 100),
        _fractions(c.halves, 2),
        _fractions(c.expected, 100),
    )
    unrounded[idle], score[idle], expected[idle] = 0, _ZERO, 0
    events = np.array(
        [PeriodEvent.BELOW_FLOOR, PeriodEvent.RATED, PeriodEvent.NO_RATED_GAMES], dtype=object
    )
    changes = records_from_columns(
        PlannedChange,
        count,
        player_id=ids,
        rating_before=c.own.tolist(),
        rating_after=rating_after.tolist(),
        # Without games: no change, K as it was (K x n, the 700 rule, needs games).
        change=f.change.tolist(),
        change_unrounded=unrounded.tolist(),
        k_factor=f.k_used.tolist(),
        k_reason=[k.reason for k in f.k],
        games=c.games.tolist(),
        score=score.tolist(),
        expected=expected.tolist(),
        event=events[np.where(played, np.where(f.below, 0, 1), 2)].tolist(),
        rated_games_after=f.games_after.tolist(),
        reached_2400_after=f.reached_after.tolist(),
        pool_after=pools,
        k_next=f.k_next,
        last_active_month=last_active,
    )
    k_rows: list[PlannedKChange | None] = [None] * count
    # Most players' K stays: nothing to do for them. The others' reason depends only on the
    # two K factors (a few shared objects) and junior age: asked once per combination.
    moved = np.flatnonzero(f.k_changed)
    junior = (next_month.year - c.birth[moved] <= JUNIOR_MAX_AGE).tolist()
    reasons: dict[tuple[int, int, bool], KChangeReason | None] = {}
    for i, young in zip(moved.tolist(), junior, strict=True):
        base, following = f.k[i], f.k_next[i]
        key = (id(base), id(following), young)
        if key not in reasons:
            reasons[key] = k_change_reason(base, following, still_junior_age=young)
        reason = reasons[key]
        if reason is not None:
            k_rows[i] = PlannedKChange(player_id=ids[i], old=base, new=following, reason=reason)
    return list(zip(changes, k_rows, strict=True))


def _fractions(numerators: IntArray, denominator: int) -> NDArray[np.object_]:
    """``numerators / denominator`` as Fractions (an array of objects), one object per
    distinct value shared by every player who has it: three Fractions for each of 200,000
    players were a third of the array finish, and the write turns each distinct one into
    text once. The values lie close together (K times a score, expected hundredths): each
    finds its Fraction in a table over their range, without sorting them (np.unique)."""
    if not len(numerators):
        return np.empty(0, dtype=object)
    low, high = int(numerators.min()), int(numerators.max())
    if high - low > 4 * len(numerators) + 4096:
        distinct, where = np.unique(numerators, return_inverse=True)
        shared = np.array([_exact(n, denominator) for n in distinct.tolist()], dtype=object)
        return shared[where]
    offsets = numerators - low
    present = np.zeros(high - low + 1, dtype=np.bool_)
    present[offsets] = True
    table = np.empty(high - low + 1, dtype=object)
    values = np.flatnonzero(present)
    table[values] = [_exact(n + low, denominator) for n in values.tolist()]
    return table.take(offsets)


_ZERO = Fraction(0)
_K_FACTORS = tuple(KFactor(int(_K_OF_REASON[i]), reason) for i, reason in enumerate(REASONS))
