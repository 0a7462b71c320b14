"""Glicko-2's period plan for every player at once, in numpy arrays: what
``glicko2.plan_period`` (the scalar reference, one player at a time through
``players.rating.glicko2.rate_period``) computes, to the last bit.

A federation-sized month has 200,000 players and two million game sides; the scalar loop
took 16-24 s of a 22-26 s close. Here the steps of the paper run over arrays:

- steps 2-4 per game side (E, and the sums behind v and Delta), added up per player with
  ``np.bincount``, which adds each player's sides in the order the loop does (the games'
  order, white's side before black's), so every float sum is the loop's;
- step 5, the volatility, by the Illinois algorithm for all players at once: each round
  evaluates f for the players whose bracket is still wider than ``EPSILON`` (a convergence
  mask); after a fixed budget of rounds the few left (none in practice) are finished by
  the scalar ``new_volatility`` from the same values;
- steps 6-8 and the published rounding as array operations.

Exact, not close: numpy's own exp, log and power are SIMD kernels that differ from the C
library's in the last bit for some inputs (about one exp in twenty on this project's
machines), and a last bit can decide a published digit (the sign of f near its root picks
the Illinois branch). So exp, log and ``x ** 2`` go through ``math`` (the C library, as
the scalar code calls it), one call per value from a ``map``; everything else is + - * /
and sqrt, which IEEE 754 rounds the same everywhere. A property test
(tests/rating/test_glicko2_arrays.py) holds the two paths equal on random periods.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from itertools import islice, repeat
from operator import attrgetter
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from players.rating.glicko2 import (
    BASE_RATING,
    DEFAULT_RATING,
    EPSILON,
    RD_DECIMALS,
    SCALE,
    VOLATILITY_DECIMALS,
    Glicko2Game,
    Glicko2Rating,
    Glicko2Settings,
    new_volatility,
    rate_period,
)
from players.rating.period import (
    GAME_RESULTS,
    PeriodEvent,
    PeriodInputs,
    PeriodPlan,
    PlannedChange,
    PlayerStart,
    Uncertainty,
    UnknownPlayers,
)
from players.rating.rounding import HALF_TOLERANCE, round_half_away, round_half_away_places
from players.rating.systems.glicko2 import HIGHEST_RATING, LOWEST_RATING

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
Index = NDArray[np.intp]
BoolArray = NDArray[np.bool_]
Progress = Callable[[int], None]

# Rounds of the Illinois iteration (and of the search for its lower bracket) done in
# arrays; the paper's example converges in five, a federation's month in under ten.
ROUNDS = 60
# A scaled RD or volatility this near a half is rounded by the scalar rule (which reads
# the half off the decimal a person sees); below ``_EXACT_BELOW`` the float product's
# error is far under it.
_NEAR_HALF = 1e-6
_EXACT_BELOW = 2.0**26

_RESULT_CODES = {result: code for code, result in enumerate(GAME_RESULTS)}
_HALVES = {"1": 2, "1/2": 1, "0": 0}
# By result code: white's and black's score in halves, and whether it was played.
_WHITE_HALVES = np.array([_HALVES[w] for w, _, _ in GAME_RESULTS.values()], dtype=np.int64)
_BLACK_HALVES = np.array([_HALVES[b] for _, b, _ in GAME_RESULTS.values()], dtype=np.int64)
_PLAYED = np.array([played for _, _, played in GAME_RESULTS.values()], dtype=np.bool_)


def _libm(function: Callable[[float], float], values: FloatArray) -> FloatArray:
    """``function`` (math.exp, math.log) on each value: the C library's result, bit for bit
    what the scalar code gets."""
    return np.fromiter(map(function, values.tolist()), dtype=np.float64, count=len(values))


def _squared(values: FloatArray) -> FloatArray:
    """``x ** 2`` as Python computes it for a float: the C library's pow(x, 2.0), which is
    not always x * x (its last bit differs for about one value in a thousand)."""
    return np.fromiter(
        map(math.pow, values.tolist(), repeat(2.0)), dtype=np.float64, count=len(values)
    )


class _Starts(NamedTuple):
    """Each player's r, RD and volatility at the period's start (the arrays), and RD and
    volatility as given (the records keep the very values the scalar plan keeps)."""

    rating: FloatArray
    rd: FloatArray
    volatility: FloatArray
    rd_given: list[float]
    volatility_given: list[float]


def _starts(starts: Sequence[PlayerStart], settings: Glicko2Settings) -> _Starts:
    """``glicko2.start_of`` for every player: the paper's new player where unset."""
    rd_start, volatility_start = settings.rd_start, settings.volatility_start
    rd_given = [rd_start if rd is None else rd for rd in map(_RD, starts)]
    volatility_given = [
        volatility_start if sigma is None else sigma for sigma in map(_VOLATILITY, starts)
    ]
    return _Starts(
        rating=np.array(
            [DEFAULT_RATING if r is None else r for r in map(_RATING, starts)], dtype=np.float64
        ),
        rd=np.array(rd_given, dtype=np.float64),
        volatility=np.array(volatility_given, dtype=np.float64),
        rd_given=rd_given,
        volatility_given=volatility_given,
    )


def _positions(ids: list[int], column: Sequence[int]) -> tuple[Index, list[int]]:
    """Each player id of ``column`` -> its index in ``ids`` (sorted), and the ids of the
    column not among them. A direct table when the ids are dense enough (a list's usually
    are), else a binary search."""
    values = np.array(column, dtype=np.int64)
    id_array = np.array(ids, dtype=np.int64)
    low, high = (ids[0], ids[-1]) if ids else (0, -1)
    if high - low < 4 * len(ids) + 1_000_000:
        table = np.full(high - low + 1, -1, dtype=np.intp)
        table[id_array - low] = np.arange(len(ids), dtype=np.intp)
        inside = (values >= low) & (values <= high)
        found = np.full(len(values), -1, dtype=np.intp)
        found[inside] = table[values[inside] - low]
        missing = found < 0
    else:
        found = np.searchsorted(id_array, values)
        missing = found >= len(ids)
        missing[~missing] = id_array[found[~missing]] != values[~missing]
    return found, values[missing].tolist()


class _Sides(NamedTuple):
    """The period's rated game sides in the scalar loop's order (each counted game's white
    side, then its black side): the player's and the opponent's index, the score."""

    own: Index
    opponent: Index
    score: FloatArray
    halves: IntArray


def _sides(inputs: PeriodInputs, ids: list[int]) -> _Sides:
    columns = inputs.games
    (white, unknown_white), (black, unknown_black) = (
        _positions(ids, columns.white),
        _positions(ids, columns.black),
    )
    if unknown_white or unknown_black:
        raise UnknownPlayers(sorted({*unknown_white, *unknown_black}))
    count = len(white)
    codes = np.fromiter(map(_RESULT_CODES.__getitem__, columns.result), dtype=np.intp, count=count)
    counted = _PLAYED[codes] & np.array(columns.rated, dtype=np.bool_).reshape(count)
    chosen = np.flatnonzero(counted)
    codes = codes[chosen]
    own = np.column_stack((white[chosen], black[chosen])).reshape(-1)
    opponent = np.column_stack((black[chosen], white[chosen])).reshape(-1)
    halves = np.column_stack((_WHITE_HALVES[codes], _BLACK_HALVES[codes])).reshape(-1)
    return _Sides(own, opponent, halves / 2.0, halves)


class _Sums(NamedTuple):
    """Per player: rated games, score in halves, and the sums of steps 3 and 4."""

    games: IntArray
    halves: IntArray
    v_inverse: FloatArray
    improvement: FloatArray
    expected: FloatArray


def _sums(sides: _Sides, mu: FloatArray, phi: FloatArray, players: int) -> _Sums:
    """Steps 2-4's per-game terms (as ``rate_period`` writes them) added up per player."""
    # Step 2's g of each opponent: g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2).
    g = 1.0 / np.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))
    g_j = g[sides.opponent]
    e_j = 1.0 / (1.0 + _libm(math.exp, -g_j * (mu[sides.own] - mu[sides.opponent])))

    def per_player(weights: FloatArray) -> FloatArray:
        # bincount adds in the order of the sides: each player's games in the loop's order.
        # (float even without sides: bincount of nothing gives integer zeros)
        return np.bincount(sides.own, weights=weights, minlength=players).astype(np.float64)

    return _Sums(
        games=np.bincount(sides.own, minlength=players).astype(np.int64),
        halves=np.bincount(sides.own, weights=sides.halves, minlength=players).astype(np.int64),
        v_inverse=per_player(g_j * g_j * e_j * (1.0 - e_j)),
        improvement=per_player(g_j * (sides.score - e_j)),
        expected=per_player(e_j),
    )


class _Step5(NamedTuple):
    """Step 5's inputs for the players with games (``players.rating.glicko2``'s names)."""

    a: FloatArray
    phi2: FloatArray
    v: FloatArray
    delta: FloatArray
    tau: float

    def f(self, x: FloatArray, at: Index) -> FloatArray:
        """The paper's f at ``x`` for the players ``at``, in ``new_volatility``'s order
        of operations."""
        phi2, v, delta = self.phi2[at], self.v[at], self.delta[at]
        ex = _libm(math.exp, x)
        return ex * (delta * delta - phi2 - v - ex) / (2.0 * _squared(phi2 + v + ex)) - (
            x - self.a[at]
        ) / (self.tau * self.tau)


def _bracket(step: _Step5, left: BoolArray) -> FloatArray:
    """The paper's B: ln(Delta^2 - phi^2 - v) after a surprise, else the first a - k tau
    (k = 1, 2, ...) where f is no longer negative. A player still searching after ROUNDS
    is marked in ``left``."""
    a, phi2, v, delta, tau = step.a, step.phi2, step.v, step.delta, step.tau
    big_b = np.empty_like(a)
    surprise = np.flatnonzero(delta * delta > phi2 + v)
    big_b[surprise] = _libm(
        math.log, delta[surprise] * delta[surprise] - phi2[surprise] - v[surprise]
    )
    searching = np.flatnonzero(~(delta * delta > phi2 + v))
    k = np.ones(len(a), dtype=np.int64)
    for _ in range(ROUNDS):
        if not len(searching):
            break
        x = a[searching] - k[searching] * tau
        found = ~(step.f(x, searching) < 0)
        big_b[searching[found]] = x[found]
        searching = searching[~found]
        k[searching] += 1
    left[searching] = True
    return big_b


def _volatilities(step: _Step5) -> tuple[FloatArray, BoolArray]:
    """Step 5 for every player at once: sigma' = exp(A / 2) at the Illinois algorithm's
    root A, and the players left to the scalar ``new_volatility`` (a bracket search or an
    iteration past ROUNDS, or f_B = f_A, where the scalar division fails)."""
    left = np.zeros(len(step.a), dtype=np.bool_)
    big_a = step.a.copy()
    big_b = _bracket(step, left)
    every = np.flatnonzero(~left)
    f_a, f_b = np.zeros_like(big_a), np.zeros_like(big_a)
    f_a[every] = step.f(big_a[every], every)
    f_b[every] = step.f(big_b[every], every)
    active = every[np.abs(big_b[every] - big_a[every]) > EPSILON]
    for _ in range(ROUNDS):
        same = f_b[active] == f_a[active]
        left[active[same]] = True
        active = active[~same]
        if not len(active):
            break
        a_i, b_i, fa_i, fb_i = big_a[active], big_b[active], f_a[active], f_b[active]
        c = a_i + (a_i - b_i) * fa_i / (fb_i - fa_i)
        f_c = step.f(c, active)
        crossed = f_c * fb_i <= 0
        big_a[active] = np.where(crossed, b_i, a_i)
        f_a[active] = np.where(crossed, fb_i, fa_i / 2.0)
        big_b[active], f_b[active] = c, f_c
        active = active[np.abs(c - big_a[active]) > EPSILON]
    left[active] = True
    return _libm(math.exp, big_a / 2.0), left


def _rounded_places(values: FloatArray, places: int) -> FloatArray:
    """``round_half_away_places`` for every value: rounded in floats where the scaled value
    is clearly off a half; by the scalar rule (exact, on the decimal shown) where it is
    within ``_NEAR_HALF`` of one."""
    power = 10.0**places
    size = np.abs(values * power)
    whole = np.floor(size)
    fraction = size - whole
    near = ~(size < _EXACT_BELOW) | (np.abs(fraction - 0.5) < _NEAR_HALF)
    rounded = whole + (fraction > 0.5)
    result: FloatArray = np.where(values < 0, -rounded, rounded) / power
    for i in np.flatnonzero(near).tolist():
        result[i] = round_half_away_places(float(values[i]), places)
    return result


def _rounded_ratings(values: FloatArray) -> FloatArray:
    """``published``'s r for every value: ``round_half_away`` (a float within
    HALF_TOLERANCE of a half counts as it), kept inside the lists' range."""
    if not np.isfinite(values).all():
        round_half_away(float(values[~np.isfinite(values)][0]))  # raises, as the scalar rule
    size = np.abs(values)
    whole = np.floor(size)
    whole = whole + (size - whole >= 0.5 - HALF_TOLERANCE)
    signed = np.where(values >= 0, whole, -whole)
    return np.minimum(np.maximum(signed, LOWEST_RATING), HIGHEST_RATING)


class _After(NamedTuple):
    """Each player's r, RD (the list's bounds applied) and volatility after the period,
    unrounded (``rate_period``'s ``after``)."""

    rating: FloatArray
    rd: FloatArray
    volatility: FloatArray


def _after(begin: _Starts, sums: _Sums, settings: Glicko2Settings) -> tuple[_After, Index]:
    """Steps 3-8 for every player; the players whose sums the arrays do not finish (v
    undefined: the scalar division fails) are returned to be planned by ``rate_period``."""
    mu, phi, sigma = (begin.rating - BASE_RATING) / SCALE, begin.rd / SCALE, begin.volatility
    rating = begin.rating.copy()
    # Without games only RD grows: phi' = sqrt(phi^2 + sigma^2).
    rd = SCALE * np.sqrt(phi * phi + sigma * sigma)
    volatility = sigma.copy()
    played = np.flatnonzero(sums.games > 0)
    v_inverse, improvement = sums.v_inverse[played], sums.improvement[played]
    finite = (v_inverse > 0) & np.isfinite(v_inverse) & np.isfinite(improvement)
    scalar, played = played[~finite], played[finite]
    v = 1.0 / v_inverse[finite]
    improvement = improvement[finite]
    delta = v * improvement
    mu_p, phi_p, sigma_p = mu[played], phi[played], sigma[played]
    step = _Step5(
        a=_libm(math.log, sigma_p * sigma_p), phi2=phi_p * phi_p, v=v, delta=delta, tau=settings.tau
    )
    sigma_new, left = _volatilities(step)
    for i in np.flatnonzero(left).tolist():
        sigma_new[i] = new_volatility(
            float(sigma_p[i]), float(phi_p[i]), float(v[i]), float(delta[i]), settings.tau
        )
    # Step 6: the pre-period RD, then step 7's new phi and mu; step 8 back to the scale.
    phi_star = np.sqrt(phi_p * phi_p + sigma_new * sigma_new)
    phi_new = 1.0 / np.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu_p + phi_new * phi_new * improvement
    rating[played] = SCALE * mu_new + BASE_RATING
    rd[played] = SCALE * phi_new
    volatility[played] = sigma_new
    rd = np.minimum(np.maximum(rd, settings.rd_min), settings.rd_max)
    return _After(rating, rd, volatility), scalar


def _by_the_scalar_path(
    players: Index, begin: _Starts, sides: _Sides, after: _After, settings: Glicko2Settings
) -> None:
    """``rate_period`` for ``players`` (its errors are the scalar plan's), into ``after``."""
    for i in players.tolist():
        games = [
            Glicko2Game(float(begin.rating[j]), begin.rd_given[j], float(score))
            for j, score in zip(
                sides.opponent[sides.own == i].tolist(),
                sides.score[sides.own == i].tolist(),
                strict=True,
            )
        ]
        before = Glicko2Rating(float(begin.rating[i]), begin.rd_given[i], begin.volatility_given[i])
        result = rate_period(before, games, settings).after
        after.rating[i], after.rd[i], after.volatility[i] = (
            result.rating,
            result.rd,
            result.volatility,
        )


def plan_period(inputs: PeriodInputs, *, progress: Progress | None = None) -> PeriodPlan:
    """Every player's new r, RD and volatility for the period: ``glicko2.plan_period``'s
    plan, computed over arrays. A game of a player not among ``inputs.starts`` raises
    UnknownPlayers."""
    settings = inputs.settings.glicko or Glicko2Settings()
    ids = sorted(inputs.starts)
    starts = list(map(inputs.starts.__getitem__, ids))
    begin = _starts(starts, settings)
    sides = _sides(inputs, ids)
    sums = _sums(sides, (begin.rating - BASE_RATING) / SCALE, begin.rd / SCALE, len(ids))
    after, scalar = _after(begin, sums, settings)
    _by_the_scalar_path(scalar, begin, sides, after, settings)
    records = _records(ids, starts, begin, after, sums, month=inputs.month)
    changes: list[PlannedChange] = []
    # Told in steps of 1000 players, as the scalar plan tells it.
    while chunk := list(islice(records, 1000)):
        changes.extend(chunk)
        if progress is not None:
            progress(len(chunk))
    return PeriodPlan(
        month=inputs.month,
        games_count=len(inputs.games.white),
        changes=tuple(changes),
        k_changes=(),
        rules=inputs.settings.rules_name(),
    )


def _records(
    ids: list[int],
    starts: list[PlayerStart],
    begin: _Starts,
    after: _After,
    sums: _Sums,
    *,
    month: datetime.date,
) -> Iterator[PlannedChange]:
    """One PlannedChange per player, as ``glicko2._planned`` builds it: every field a
    column (from the arrays, or one pass over the starts), the records made by ``_make``
    from the columns zipped (200,000 records: a call per field per player was most of the
    plan's time)."""
    before = begin.rating.astype(np.int64)
    rating_after = _rounded_ratings(after.rating).astype(np.int64)
    played = sums.games > 0
    reached = np.fromiter(map(_REACHED, starts), dtype=np.bool_, count=len(starts))
    games_after = np.fromiter(map(_RATED_GAMES, starts), dtype=np.int64, count=len(starts))
    scores = np.array([Fraction(h, 2) for h in range(int(sums.halves.max(initial=0)) + 1)])
    uncertainty = map(
        Uncertainty._make,
        zip(
            begin.rd_given,
            _rounded_places(after.rd, RD_DECIMALS).tolist(),
            begin.volatility_given,
            _rounded_places(after.volatility, VOLATILITY_DECIMALS).tolist(),
            strict=True,
        ),
    )
    last_active = [
        month if did_play or last is None else last
        for did_play, last in zip(played.tolist(), map(_LAST_ACTIVE, starts), strict=True)
    ]
    columns: Any = zip(
        ids,
        before.tolist(),
        rating_after.tolist(),
        (rating_after - before).tolist(),
        (after.rating - begin.rating).tolist(),
        repeat(None),  # k_factor: Glicko-2 has no K
        repeat(""),
        sums.games.tolist(),
        scores[sums.halves].tolist(),
        sums.expected.tolist(),
        _EVENTS[played.astype(np.intp)].tolist(),
        (games_after + sums.games).tolist(),
        (reached | (rating_after >= 2400)).tolist(),
        ([] for _ in ids),  # pool_after: a list of its own for each record
        repeat(None),  # k_next
        last_active,
        repeat(0),  # adjustment
        uncertainty,
        repeat(None),  # state_before, state_after: the uncertainty holds them
        repeat(None),
    )
    return map(PlannedChange._make, columns)


# By whether the player had games (an object array: np.where would make the events str).
_EVENTS = np.array([PeriodEvent.NO_RATED_GAMES, PeriodEvent.RATED], dtype=object)
_RATING = attrgetter("rating")
_RD = attrgetter("rd")
_VOLATILITY = attrgetter("volatility")
_RATED_GAMES = attrgetter("rated_games")
_REACHED = attrgetter("reached_2400")
_LAST_ACTIVE = attrgetter("last_active")
