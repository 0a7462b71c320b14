"""The array forms of the Elo family's per-player rules equal the scalar rules over the
whole input range: K by FIDE 8.3.3 (``k_arrays`` vs ``k_factor_for``) and a player's
finished period (``elo_arrays.finish`` vs the scalar ``_plan_player``)."""

from __future__ import annotations

import datetime
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from players.rating import ExpectedMethod, ListKind, PlayerState, k_factor_for
from players.rating.period import (
    ListSettings,
    PeriodGames,
    PeriodInputs,
    PlayerStart,
)
from players.rating.systems import elo
from players.rating.systems.elo_arrays import NO_BIRTH_YEAR, REASONS, finish, k_arrays
from players.rating.systems.elo_games import Sides
from players.rating.types import PeriodSums

YEAR = 2026
MONTH = datetime.date(YEAR, 12, 1)


def scalar_k(
    rating: int | None, games: int, birth: int | None, reached: bool, year: int
) -> tuple[int, str]:
    k = k_factor_for(
        PlayerState(rating, games, birth, reached), period_year=year, list_kind=ListKind.STANDARD
    )
    return k.value, k.reason


def array_k(
    rating: int | None, games: int, birth: int | None, reached: bool, year: int
) -> tuple[int, str]:
    reason = REASONS[
        int(
            k_arrays(
                rating=np.array([rating or 0]),
                rated=np.array([rating is not None]),
                rated_games=np.array([games]),
                birth_year=np.array([NO_BIRTH_YEAR if birth is None else birth]),
                reached_2400=np.array([reached]),
                period_year=year,
            )[0]
        )
    ]
    return {"reached_2400": 10, "junior": 40, "new_player": 40, "standard": 20}[reason], reason


# Every boundary of the rules, on both sides: 2299/2300, 29/30 games, age 18/19 (born
# 2008/2007 in 2026), unrated, reached 2400 or not.
GRID = itertools.product(
    [None, 0, 1000, 2299, 2300, 2399, 2400, 4000],
    [0, 29, 30, 1000],
    [None, 1900, 2007, 2008, 2026],
    [False, True],
)


@pytest.mark.parametrize(("rating", "games", "birth", "reached"), list(GRID))
def test_k_arrays_equal_k_factor_for_at_every_boundary(
    rating: int | None, games: int, birth: int | None, reached: bool
) -> None:
    assert array_k(rating, games, birth, reached, YEAR) == scalar_k(
        rating, games, birth, reached, YEAR
    )


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(
    rating=st.one_of(st.none(), st.integers(0, 4000)),
    games=st.integers(0, 5000),
    birth=st.one_of(st.none(), st.integers(1850, 2200)),
    reached=st.booleans(),
    year=st.integers(1990, 2100),
)
def test_k_arrays_equal_k_factor_for(
    rating: int | None, games: int, birth: int | None, reached: bool, year: int
) -> None:
    assert array_k(rating, games, birth, reached, year) == scalar_k(
        rating, games, birth, reached, year
    )


start_st = st.builds(
    PlayerStart,
    rating=st.integers(0, 4000),
    rated_games=st.integers(0, 200),
    reached_2400=st.booleans(),
    pool=st.just([]),
    birth_year=st.one_of(st.none(), st.integers(1950, 2026)),
    k_override=st.none(),
    k_override_next=st.none(),
    last_active=st.one_of(st.none(), st.just(datetime.date(2025, 1, 1))),
)
# A player's sums over n rated games: score in halves 0..2n, expected hundredths 0..100n.
sums_st = st.one_of(
    st.none(),
    st.integers(1, 60).flatmap(
        lambda n: st.builds(PeriodSums, st.just(n), st.integers(0, 2 * n), st.integers(0, 100 * n))
    ),
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    players=st.lists(st.tuples(start_st, sums_st), min_size=1, max_size=30),
    floor=st.sampled_from([None, 1000, 1400]),
    fixed_k=st.sampled_from([None, 15, 40]),
)
def test_finish_equals_the_scalar_plan(
    players: list[tuple[PlayerStart, PeriodSums | None]], floor: int | None, fixed_k: int | None
) -> None:
    settings_ = ListSettings(
        system="fide",
        kind=ListKind.STANDARD,
        method=ExpectedMethod.FIDE_TABLE,
        apply_400_rule=True,
        fixed_k=fixed_k,
        floor=floor,
        adjust_march_2024=False,
    )
    starts = {pid: start for pid, (start, _) in enumerate(players)}
    sums = {pid: s for pid, (_, s) in enumerate(players) if s is not None}
    inputs = PeriodInputs(
        settings=settings_,
        month=MONTH,
        starts=starts,
        start_ratings={pid: start.rating for pid, start in starts.items()},
        games=PeriodGames(white=[], black=[], result=[], rated=[], tournament=[]),
        tournaments={},
        ratings_at={},
    )
    at = elo._Month.of(inputs)
    sides = Sides()
    scalar = [elo._plan_player(at, pid, starts[pid], inputs, sides, sums) for pid in starts]
    arrays = finish(
        ids=list(starts),
        starts=list(starts.values()),
        sums=[sums.get(pid) for pid in starts],
        settings=settings_,
        month=MONTH,
        next_month=at.next_month,
    )
    assert arrays == scalar
