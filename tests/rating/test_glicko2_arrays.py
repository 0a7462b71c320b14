"""Glicko-2's plan over arrays (players.rating.systems.glicko2_arrays) against the scalar
reference (glicko2.plan_period, one player at a time through the paper's steps): the same
records, every published figure (r, RD, volatility) and every unrounded one the close
writes (the change, E), on random periods."""

from __future__ import annotations

import dataclasses
import datetime
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from players.rating import ExpectedMethod, ListKind
from players.rating.glicko2 import Glicko2Settings
from players.rating.period import (
    GAME_RESULTS,
    ListSettings,
    PeriodGames,
    PeriodInputs,
    PeriodPlan,
    PlayerStart,
    UnknownPlayers,
)
from players.rating.rounding import round_half_away_places
from players.rating.systems import glicko2, glicko2_arrays, system_for

OCT = datetime.date(2026, 10, 1)
AUG = datetime.date(2026, 8, 1)
RESULTS = list(GAME_RESULTS)


def _settings(glicko: Glicko2Settings | None, system: str = "glicko2") -> ListSettings:
    return ListSettings(
        system=system,
        kind=ListKind.STANDARD,
        method=ExpectedMethod.FIDE_TABLE,
        apply_400_rule=False,
        fixed_k=None,
        floor=None,
        adjust_march_2024=False,
        glicko=glicko,
    )


def _inputs(
    starts: dict[int, PlayerStart],
    games: list[tuple[int, int, str, bool]],
    glicko: Glicko2Settings | None,
) -> PeriodInputs:
    return PeriodInputs(
        settings=_settings(glicko),
        month=OCT,
        starts=starts,
        start_ratings={pid: s.rating for pid, s in starts.items()},
        games=PeriodGames(
            white=[g[0] for g in games],
            black=[g[1] for g in games],
            result=[g[2] for g in games],
            rated=[g[3] for g in games],
            tournament=[None] * len(games),
        ),
        tournaments={},
        ratings_at={},
    )


def _published(plan: PeriodPlan) -> list[tuple[Any, ...]]:
    """What the list publishes of each player: r, RD and volatility after the period."""
    return [
        (c.player_id, c.rating_after, c.uncertainty.rd_after, c.uncertainty.volatility_after)
        for c in plan.changes
        if c.uncertainty is not None
    ]


def assert_same_plan(inputs: PeriodInputs) -> None:
    scalar, arrays = glicko2.plan_period(inputs), glicko2_arrays.plan_period(inputs)
    # The published figures first (the test's point), then every field, type included:
    # the close writes the unrounded change and E to four places, and the state as JSON.
    assert _published(arrays) == _published(scalar)
    assert arrays == scalar
    for mine, theirs in zip(arrays.changes, scalar.changes, strict=True):
        assert [type(v) for v in mine] == [type(v) for v in theirs]


# -- random periods --------------------------------------------------------------------------

rating_st = st.one_of(st.none(), st.integers(0, 4000), st.integers(1200, 2200))
rd_st = st.one_of(st.none(), st.floats(1.0, 500.0).map(lambda x: round(x, 2)))
volatility_st = st.one_of(st.none(), st.floats(0.001, 0.3).map(lambda x: round(x, 6)))
start_st = st.builds(
    PlayerStart,
    rating_st,
    st.integers(0, 200),
    st.booleans(),
    st.just([]),
    st.none(),
    st.none(),
    st.none(),
    st.sampled_from([None, AUG]),
    rd_st,
    volatility_st,
)
glicko_st = st.one_of(
    st.none(),
    st.builds(
        Glicko2Settings,
        tau=st.sampled_from([0.2, 0.3, 0.5, 0.8, 1.2]),
        rd_start=st.sampled_from([350.0, 300.0, 200.0]),
        rd_min=st.sampled_from([0.0, 30.0, 60.0]),
        rd_max=st.sampled_from([float("inf"), 350.0, 500.0]),
        volatility_start=st.sampled_from([0.06, 0.09]),
    ),
)


@st.composite
def periods(draw: st.DrawFn) -> PeriodInputs:
    # Ids close together (a direct table) or far apart (a binary search).
    spread = draw(st.sampled_from([50, 10**10]))
    ids = draw(st.lists(st.integers(1, spread), min_size=2, max_size=25, unique=True))
    starts = {pid: draw(start_st) for pid in ids}
    pair = st.tuples(st.sampled_from(ids), st.sampled_from(ids)).filter(lambda p: p[0] != p[1])
    games = [
        (white, black, draw(st.sampled_from(RESULTS)), draw(st.booleans()))
        for white, black in draw(st.lists(pair, max_size=60))
    ]
    return _inputs(starts, games, draw(glicko_st))


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(periods())
def test_the_arrays_plan_every_period_as_the_scalar_reference(inputs: PeriodInputs) -> None:
    assert_same_plan(inputs)


def _random_period(seed: int, players: int, games: int) -> PeriodInputs:
    rnd = random.Random(seed)
    ids = rnd.sample(range(1, players * 3), players)
    starts = {
        pid: PlayerStart(
            rnd.choice([None, rnd.randint(900, 2700), rnd.randint(900, 2700)]),
            rnd.randint(0, 60),
            rnd.random() < 0.05,
            [],
            None,
            None,
            None,
            rnd.choice([None, AUG]),
            rnd.choice([None, round(rnd.uniform(40, 350), 2)]),
            rnd.choice([None, round(rnd.uniform(0.04, 0.1), 6)]),
        )
        for pid in ids
    }
    pairs = [tuple(rnd.sample(ids, 2)) for _ in range(games)]
    period = [(w, b, rnd.choice(RESULTS), rnd.random() < 0.95) for w, b in pairs]
    return _inputs(starts, period, Glicko2Settings(tau=rnd.choice([0.3, 0.5, 1.2])))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_club_sized_month_as_the_scalar_reference(seed: int) -> None:
    # 600 players, 3,000 games: thousands of volatility iterations, each of the paper's
    # brackets, players without games, forfeits and unrated games.
    assert_same_plan(_random_period(seed, 600, 3000))


def test_players_past_the_rounds_budget_are_finished_by_the_scalar_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # With one round of the Illinois iteration in arrays, nearly every player is left to
    # the scalar new_volatility, from the same v and Delta: the plan does not change.
    monkeypatch.setattr(glicko2_arrays, "ROUNDS", 1)
    assert_same_plan(_random_period(4, 200, 1000))


def test_the_papers_example_through_the_arrays() -> None:
    starts = {
        1: PlayerStart(1500, 10, False, [], None, None, None, AUG, 200.0, 0.06),
        2: PlayerStart(1400, 10, False, [], None, None, None, AUG, 30.0, 0.06),
        3: PlayerStart(1550, 10, False, [], None, None, None, AUG, 100.0, 0.06),
        4: PlayerStart(1700, 10, False, [], None, None, None, AUG, 300.0, 0.06),
    }
    games = [(1, 2, "1-0", True), (3, 1, "1-0", True), (1, 4, "0-1", True)]
    one = glicko2_arrays.plan_period(_inputs(starts, games, Glicko2Settings(tau=0.5))).changes[0]
    assert one.uncertainty is not None
    # The paper: r' 1464.06, RD' 151.52, sigma' 0.05999 (published: 1464, 151.52, 0.059996).
    assert (one.rating_after, one.uncertainty.rd_after) == (1464, 151.52)
    assert one.uncertainty.volatility_after == 0.059996


def test_progress_counts_every_player_once() -> None:
    for players, expected in ((2500, [1000, 1000, 500]), (2000, [1000, 1000]), (0, [])):
        starts = {
            pid: PlayerStart(1500, 0, False, [], None, None, None, None, 100.0, 0.06)
            for pid in range(1, players + 1)
        }
        calls: list[int] = []
        glicko2_arrays.plan_period(_inputs(starts, [], None), progress=calls.append)
        assert calls == expected


@pytest.mark.parametrize("spread", [1, 10**10])
def test_a_game_of_a_player_without_a_start_names_them(spread: int) -> None:
    starts = {
        pid * spread: PlayerStart(1500, 0, False, [], None, None, None, None, None, None)
        for pid in (1, 2)
    }
    games = [(spread, 2 * spread, "1-0", True), (7, spread, "0-1", True), (spread, 9, "--", False)]
    with pytest.raises(UnknownPlayers) as raised:
        glicko2_arrays.plan_period(_inputs(starts, games, None))
    assert raised.value.player_ids == (7, 9)


def test_every_system_names_the_players_without_a_start() -> None:
    # The Elo family's plan fails deep inside on such a game; the registry says why.
    starts = {1: PlayerStart(1500, 40, False, [], None, None, None)}
    inputs = _inputs(starts, [(1, 5, "1-0", True)], None)
    for name in ("fide", "elo", "glicko2"):
        listed = dataclasses.replace(inputs, settings=_settings(None, system=name))
        with pytest.raises(UnknownPlayers) as raised:
            system_for(name).plan_period(listed)
        assert raised.value.player_ids == (5,)


@pytest.mark.parametrize(
    "value",
    # Halves as a person reads them (151.515 is 151.51499... in binary), values off a half,
    # and the volatility's sixth place.
    [151.515, 151.525, 0.0599995, 0.0600005, 350.0, 42.004999, 0.1234565, 1e-9, 0.0],
)
def test_rounding_rd_and_volatility_reads_the_half_off_the_decimal(value: float) -> None:
    places = 2 if value > 1 else 6
    expected = round_half_away_places(value, places)
    rounded = glicko2_arrays._rounded_places(glicko2_arrays.np.array([value]), places)
    assert rounded.tolist() == [expected]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.floats(0, 2000, allow_subnormal=False), st.sampled_from([2, 6]))
def test_rounding_places_as_the_scalar_rule(value: float, places: int) -> None:
    rounded = glicko2_arrays._rounded_places(glicko2_arrays.np.array([value]), places)
    assert rounded.tolist() == [round_half_away_places(value, places)]
