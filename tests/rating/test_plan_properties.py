"""Properties of a period's plan, without a database: the plan is a function of its
inputs (planning leaves them as they were, in any game order), the arrays give the loop's
plan, and a replay (re-planning from a corrected month on, from the states the months
before left) publishes exactly what planning the corrected months afresh publishes."""

from __future__ import annotations

import copy
import dataclasses
import datetime
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from players.rating import ExpectedMethod, ListKind, list_kinds
from players.rating.fide_rules import BY_DATE
from players.rating.months import add_months
from players.rating.period import (
    ListSettings,
    PeriodGames,
    PeriodInputs,
    PeriodPlan,
    PlayerStart,
)
from players.rating.period_sums import table_sums
from players.rating.systems import elo
from players.rating.systems.elo_arrays import finish

FIRST = datetime.date(2026, 10, 1)
RESULTS = ["1-0", "0-1", "1/2-1/2", "+-", "-+", "--"]

player_st = st.tuples(
    st.one_of(st.none(), st.integers(1350, 2700), st.sampled_from([1400, 2400, 2650])),
    st.integers(0, 40),
    st.sampled_from([None, 1990, 2008, 2010]),
)


def settings_for(kind: ListKind, method: ExpectedMethod, cap: bool) -> ListSettings:
    return ListSettings(
        system="fide",
        kind=kind,
        method=method,
        apply_400_rule=cap,
        fixed_k=None,
        floor=1400,
        adjust_march_2024=False,
    )


@st.composite
def leagues(draw: Any) -> dict[str, Any]:
    players = draw(st.lists(player_st, min_size=2, max_size=7))
    n = len(players)
    pair = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1])
    game = st.tuples(pair, st.sampled_from(RESULTS), st.booleans(), st.booleans())
    months = [draw(st.lists(game, min_size=0, max_size=10)) for _ in range(3)]
    return {
        "players": players,
        "months": months,
        "settings": settings_for(
            draw(st.sampled_from(list(list_kinds()))),
            draw(st.sampled_from(list(ExpectedMethod))),
            draw(st.booleans()),
        ),
    }


def month_inputs(
    league: dict[str, Any],
    index: int,
    starts: dict[int, PlayerStart],
    earlier: dict[datetime.date, dict[int, int | None]],
) -> PeriodInputs:
    """Month ``index``'s inputs. A game flagged "in the tournament" belongs to one that
    began the month before (from the second month on): scored with that month's list."""
    month = add_months(FIRST, index)
    games = league["months"][index]
    tournament = 1 if index else None
    tournaments = (
        {1: (add_months(month, -1) + datetime.timedelta(days=27), month)} if tournament else {}
    )
    return PeriodInputs(
        settings=league["settings"],
        month=month,
        starts=starts,
        start_ratings={pid: start.rating for pid, start in starts.items()},
        games=PeriodGames(
            white=[w for (w, _), _, _, _ in games],
            black=[b for (_, b), _, _, _ in games],
            result=[result for _, result, _, _ in games],
            rated=[rated for _, _, rated, _ in games],
            tournament=[tournament if in_event else None for _, _, _, in_event in games],
        ),
        tournaments=tournaments,
        ratings_at={add_months(month, -1): earlier[add_months(month, -1)]} if index else {},
    )


def starts_after(plan: PeriodPlan, starts: Mapping[int, PlayerStart]) -> dict[int, PlayerStart]:
    """The next period's starting states, as a close leaves them (what the close's read step
    reads back from the plan's RatingChange rows; K overrides carried as they stand)."""
    return {
        change.player_id: PlayerStart(
            rating=change.rating_after,
            rated_games=change.rated_games_after,
            reached_2400=change.reached_2400_after,
            pool=change.pool_after,
            birth_year=starts[change.player_id].birth_year,
            k_override=starts[change.player_id].k_override_next,
            k_override_next=starts[change.player_id].k_override_next,
            last_active=change.last_active_month,
        )
        for change in plan.changes
    }


def first_starts(league: dict[str, Any]) -> dict[int, PlayerStart]:
    return {
        pid: PlayerStart(
            rating=rating,
            rated_games=games,
            reached_2400=rating is not None and rating >= 2400,
            pool=[],
            birth_year=birth,
            k_override=None,
        )
        for pid, (rating, games, birth) in enumerate(league["players"])
    }


def chain(
    league: dict[str, Any],
    *,
    start_at: int = 0,
    starts: dict[int, PlayerStart] | None = None,
    earlier: dict[datetime.date, dict[int, int | None]] | None = None,
) -> list[PeriodPlan]:
    """Plan the months from ``start_at`` on, each from the states the one before left."""
    starts = first_starts(league) if starts is None else starts
    earlier = dict(earlier or {})
    plans = []
    for index in range(start_at, len(league["months"])):
        inputs = month_inputs(league, index, starts, earlier)
        earlier[inputs.month] = dict(inputs.start_ratings)
        plan = elo.plan_period(inputs, array_sums=table_sums, array_finish=finish)
        plans.append(plan)
        starts = starts_after(plan, starts)
    return plans


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(league=leagues(), data=st.data())
def test_replay_from_a_corrected_month_equals_planning_it_afresh(
    league: dict[str, Any], data: st.DataObject
) -> None:
    before = chain(league)
    # Correct one game of one month: its result.
    fix_month = data.draw(st.integers(0, 2))
    corrected = copy.deepcopy(league)
    if corrected["months"][fix_month]:
        at = data.draw(st.integers(0, len(corrected["months"][fix_month]) - 1))
        pair, _, rated, in_event = corrected["months"][fix_month][at]
        corrected["months"][fix_month][at] = (
            pair,
            data.draw(st.sampled_from(RESULTS)),
            rated,
            in_event,
        )
    fresh = chain(corrected)

    # The replay: the months before the corrected one stand; re-plan from its start state.
    starts = first_starts(league)
    earlier: dict[datetime.date, dict[int, int | None]] = {}
    for index, plan in enumerate(before[:fix_month]):
        earlier[add_months(FIRST, index)] = {pid: s.rating for pid, s in starts.items()}
        starts = starts_after(plan, starts)
    replayed = chain(corrected, start_at=fix_month, starts=starts, earlier=earlier)
    assert before[:fix_month] + replayed == fresh


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(league=leagues(), order=st.randoms(use_true_random=False))
def test_a_plan_depends_on_its_inputs_only(league: dict[str, Any], order: Any) -> None:
    starts = starts_after(chain(league)[0], first_starts(league))
    earlier = {FIRST: {pid: s.rating for pid, s in first_starts(league).items()}}
    inputs = month_inputs(league, 1, starts, earlier)
    kept = copy.deepcopy(inputs)
    plan = elo.plan_period(inputs, array_sums=table_sums, array_finish=finish)
    # Planning leaves the inputs as they were, and planning again gives the same plan.
    assert inputs == kept
    assert elo.plan_period(inputs, array_sums=table_sums, array_finish=finish) == plan
    # The games' order does not matter (the database returns them in no fixed order).
    positions = list(range(len(inputs.games.white)))
    order.shuffle(positions)
    shuffled = PeriodGames(*([column[i] for i in positions] for column in inputs.games))
    assert (
        elo.plan_period(
            dataclasses.replace(kept, games=shuffled), array_sums=table_sums, array_finish=finish
        )
        == plan
    )


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(league=leagues())
def test_the_arrays_give_the_loops_plan(league: dict[str, Any]) -> None:
    for plan_index in range(3):
        starts = first_starts(league)
        earlier: dict[datetime.date, dict[int, int | None]] = {}
        for index in range(plan_index + 1):
            inputs = month_inputs(league, index, starts, earlier)
            earlier[inputs.month] = dict(inputs.start_ratings)
            with_arrays = elo.plan_period(inputs, array_sums=table_sums, array_finish=finish)
            assert elo.plan_period(inputs) == with_arrays
            starts = starts_after(with_arrays, starts)


@settings(max_examples=50, deadline=None)
@given(league=leagues(), arrays=st.booleans())
def test_progress_counts_every_player_once(league: dict[str, Any], arrays: bool) -> None:
    inputs = month_inputs(league, 0, first_starts(league), {})
    told: list[int] = []
    paths = {"array_sums": table_sums, "array_finish": finish} if arrays else {}
    elo.plan_period(inputs, progress=told.append, **paths)
    assert sum(told) == len(inputs.starts)
    assert all(0 < count <= 1000 for count in told[1:])


@pytest.mark.parametrize("count", [1000, 1999])
def test_progress_of_thousands_of_players_in_steps_of_at_most_1000(count: int) -> None:
    # The leagues above have a few players; the scalar path reports every 1000th player
    # and then the rest: 1000 -> [1000], 1999 -> [1000, 999].
    starts = {pid: PlayerStart(1500, 50, False, [], 1980, None) for pid in range(1, count + 1)}
    inputs = PeriodInputs(
        settings=settings_for(ListKind.STANDARD, ExpectedMethod.FIDE_TABLE, True),
        month=FIRST,
        starts=starts,
        start_ratings=dict.fromkeys(starts, 1500),
        games=PeriodGames([], [], [], [], []),
        tournaments={},
        ratings_at={},
    )
    told: list[int] = []
    plan = elo.plan_period(inputs, progress=told.append)
    assert sum(told) == count
    assert all(0 < step <= 1000 for step in told)
    # Without a progress callback (a preview, a test) the same plan.
    assert elo.plan_period(inputs) == plan


@settings(max_examples=20, deadline=None)
@given(league=leagues())
def test_the_registered_systems_report_progress(league: dict[str, Any]) -> None:
    """The close reaches the plan through the registry (``system_for``): its progress must
    get through too, or a job's progress bar stands still through a federation close."""
    from players.rating.systems import system_for

    inputs = month_inputs(league, 0, first_starts(league), {})
    for system in ("fide", "elo"):
        told: list[int] = []
        system_for(system).plan_period(inputs, progress=told.append)
        assert sum(told) == len(inputs.starts), system


def _shifted(inputs: PeriodInputs, months: int) -> PeriodInputs:
    """The same month ``months`` earlier, rated by FIDE's rules by date."""

    def shift(day: datetime.date) -> datetime.date:
        return add_months(day.replace(day=1), months).replace(day=day.day)

    return dataclasses.replace(
        inputs,
        month=shift(inputs.month),
        settings=dataclasses.replace(inputs.settings, fide_rules=BY_DATE),
        tournaments={t: (shift(a), shift(b)) for t, (a, b) in inputs.tournaments.items()},
        ratings_at={shift(m): r for m, r in inputs.ratings_at.items()},
    )


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(league=leagues(), back=st.sampled_from([-12, -25, -40, -100, -112]))
def test_the_arrays_give_the_loops_plan_under_older_rules(
    league: dict[str, Any], back: int
) -> None:
    # 2025-10 back to 2017-06: the 2650 exception, the 600/2600 rule, the 1000 floor and
    # the 2014 first rating, the junior limit and the 700 rule by date; a tournament begun
    # the month before keeps that month's rules.
    starts = first_starts(league)
    earlier: dict[datetime.date, dict[int, int | None]] = {}
    for index in range(3):
        inputs = month_inputs(league, index, starts, earlier)
        earlier[inputs.month] = dict(inputs.start_ratings)
        dated = _shifted(inputs, back)
        with_arrays = elo.plan_period(dated, array_sums=table_sums, array_finish=finish)
        assert elo.plan_period(dated) == with_arrays
        assert with_arrays.rules.startswith("FIDE ")
        starts = starts_after(with_arrays, starts)
