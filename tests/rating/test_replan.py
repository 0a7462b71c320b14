"""Replanning the players of the games that changed (players.rating.replan) gives each of
them the whole period's plan, and leaves every other player's plan as it was, in each
system that says it plans players apart: on generated months of FIDE's rules and a club's
Elo (today's and older rule sets, games of a tournament begun the month before, unrated
players, forfeits, unrated games) and of Glicko-2."""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from players.rating import ExpectedMethod, ListKind
from players.rating.fide_rules import BY_DATE
from players.rating.months import add_months
from players.rating.period import ArrayColumn, PeriodGames, PeriodInputs, PeriodPlan, PlayerStart
from players.rating.replan import changed_players, changes_of, game_keys, inputs_for
from players.rating.systems import SYSTEMS, system_for
from tests.rating.test_glicko2_arrays import periods
from tests.rating.test_plan_properties import (
    RESULTS,
    first_starts,
    leagues,
    month_inputs,
    settings_for,
    starts_after,
)

# Months of older rule sets too: FIDE's rules by date change how unrated opponents count.
MONTHS = [
    datetime.date(2026, 10, 1),
    datetime.date(2024, 3, 1),
    datetime.date(2022, 10, 1),
    datetime.date(2015, 5, 1),
    datetime.date(2011, 7, 1),
]


def _plan(inputs: PeriodInputs) -> PeriodPlan:
    return system_for(inputs.settings.system).plan_period(inputs)


def _rows(games: PeriodGames) -> list[tuple[Any, ...]]:
    return list(zip(*games, strict=True))


def _games(rows: list[tuple[Any, ...]]) -> PeriodGames:
    columns: list[list[Any]] = (
        [list(column) for column in zip(*rows, strict=True)] if rows else [[]] * 5
    )
    return PeriodGames(*columns)


@st.composite
def edited(draw: st.DrawFn, inputs: PeriodInputs) -> PeriodInputs:
    """``inputs`` after one to three of: a game entered, a game deleted, a result edited."""
    rows = _rows(inputs.games)
    ids = sorted(inputs.starts)
    for _ in range(draw(st.integers(1, 3))):
        what = draw(st.sampled_from(["enter", "delete", "edit"] if rows else ["enter"]))
        if what == "enter":
            white, black = draw(st.permutations(ids))[:2]
            tournament = draw(st.sampled_from(sorted({r[4] for r in rows} | {None}, key=str)))
            rows.append(
                (white, black, draw(st.sampled_from(RESULTS)), draw(st.booleans()), tournament)
            )
        else:
            at = draw(st.integers(0, len(rows) - 1))
            if what == "delete":
                del rows[at]
            else:
                white, black, _, rated, tournament = rows[at]
                rows[at] = (white, black, draw(st.sampled_from(RESULTS)), rated, tournament)
    return dataclasses.replace(inputs, games=_games(rows))


def assert_replanned_as_the_whole(before: PeriodInputs, after: PeriodInputs) -> None:
    assert system_for(after.settings.system).plans_players_apart
    players = changed_players(game_keys(before.games), game_keys(after.games))
    whole_before = {c.player_id: c for c in _plan(before).changes}
    whole_after = {c.player_id: c for c in _plan(after).changes}
    again = changes_of(_plan(inputs_for(after, players)).changes, players)
    # Each affected player's plan is the whole period's.
    assert dict(again) == {pid: whole_after[pid] for pid in players}
    # Everyone else's did not change.
    for pid, change in whole_after.items():
        if pid not in players:
            assert whole_before[pid] == change, pid


@st.composite
def fide_months(draw: st.DrawFn) -> PeriodInputs:
    league = draw(leagues())
    index = draw(st.integers(0, 2))
    starts = first_starts(league)
    earlier: dict[datetime.date, dict[int, int | None]] = {}
    for month in range(index):
        inputs = month_inputs(league, month, starts, earlier)
        earlier[inputs.month] = dict(inputs.start_ratings)
        starts = starts_after(_plan(inputs), starts)
    inputs = month_inputs(league, index, starts, earlier)
    rules = draw(st.sampled_from([BY_DATE, None]))
    month = draw(st.sampled_from(MONTHS))
    if month != inputs.month:
        # Moved to another month, with its tournament begun the month before it.
        before = add_months(month, -1)
        inputs = dataclasses.replace(
            inputs,
            month=month,
            tournaments={
                t: (before + datetime.timedelta(days=27), month) for t in inputs.tournaments
            },
            ratings_at=(
                {before: next(iter(inputs.ratings_at.values()))} if inputs.ratings_at else {}
            ),
        )
    system = draw(st.sampled_from(["fide", "elo"]))
    return dataclasses.replace(
        inputs,
        settings=dataclasses.replace(
            inputs.settings, system=system, fide_rules=rules if system == "fide" else None
        ),
    )


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_elo_family_months_replanned_for_the_affected_players_as_the_whole(
    data: st.DataObject,
) -> None:
    before = data.draw(fide_months())
    assert_replanned_as_the_whole(before, data.draw(edited(before)))


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_glicko2_months_replanned_for_the_affected_players_as_the_whole(
    data: st.DataObject,
) -> None:
    before = data.draw(periods())
    assert_replanned_as_the_whole(before, data.draw(edited(before)))


def test_every_system_that_plans_players_apart_is_generated_here() -> None:
    # A system added to the registry with the flag needs its months generated above.
    assert {name for name, system in SYSTEMS.items() if system.plans_players_apart} == {
        "fide",
        "elo",
        "glicko2",
    }


def test_a_game_between_two_rated_players_is_planned_again_for_those_two_only() -> None:
    inputs = data_month()
    before = inputs.games
    after = dataclasses.replace(inputs, games=_games([*_rows(before), (1, 2, "0-1", True, None)]))
    assert changed_players(game_keys(before), game_keys(after.games)) == {1, 2}
    assert_replanned_as_the_whole(inputs, after)
    # Only their games, and the starts of those who played them.
    subset = inputs_for(after, {1, 2})
    assert sorted(_rows(subset.games)) == [
        (0, 1, "1-0", True, None),
        (1, 2, "0-1", True, None),
        (2, 3, "1/2-1/2", True, None),
    ]
    assert sorted(subset.starts) == [0, 1, 2, 3]


def test_an_edited_result_changes_its_two_players_and_a_deleted_game_its_two() -> None:
    inputs = data_month()
    rows = _rows(inputs.games)
    edited_rows = [rows[0], (2, 3, "1-0", True, None), rows[2]]
    assert changed_players(game_keys(inputs.games), game_keys(_games(edited_rows))) == {2, 3}
    assert changed_players(game_keys(inputs.games), game_keys(_games(rows[1:]))) == {0, 1}
    # The same game twice is two games: one of them deleted is a change.
    twice = _games([*rows, rows[0]])
    assert changed_players(game_keys(twice), game_keys(inputs.games)) == {0, 1}


def data_month() -> PeriodInputs:
    def start(rating: int | None) -> PlayerStart:
        return PlayerStart(rating, 30 if rating else 0, False, [], None, None)

    starts = {0: start(1800), 1: start(1900), 2: start(2000), 3: start(None), 4: start(1700)}
    return PeriodInputs(
        settings=settings_for(ListKind.STANDARD, ExpectedMethod.FIDE_TABLE, cap=True),
        month=datetime.date(2026, 10, 1),
        starts=starts,
        start_ratings={pid: s.rating for pid, s in starts.items()},
        games=_games(
            [(0, 1, "1-0", True, None), (2, 3, "1/2-1/2", True, None), (3, 4, "0-1", True, None)]
        ),
        tournaments={},
        ratings_at={},
    )


game_st = st.tuples(
    st.integers(1, 6),
    st.integers(1, 6),
    st.sampled_from(RESULTS),
    st.booleans(),
    st.sampled_from([None, 3, 10**12]),
)


@settings(max_examples=100, deadline=None)
@given(old=st.lists(game_st, max_size=12), new=st.lists(game_st, max_size=12))
def test_the_arrays_find_the_players_the_lists_do(
    old: list[tuple[Any, ...]], new: list[tuple[Any, ...]]
) -> None:
    # The close's read hands PostgreSQL's games over as arrays (results and tournaments as
    # codes); the multisets compare them in numpy, a list of Python values with a Counter.
    import numpy as np

    codes = {result: code for code, result in enumerate(RESULTS)}

    def arrays(rows: list[tuple[Any, ...]]) -> PeriodGames:
        white, black, result, rated, tournament = (
            (list(c) for c in zip(*rows, strict=True)) if rows else ([],) * 5
        )
        return PeriodGames(
            ArrayColumn(np.array(white, dtype=np.int64)),
            ArrayColumn(np.array(black, dtype=np.int64)),
            ArrayColumn(np.array([codes[r] for r in result], dtype=np.intp)),
            ArrayColumn(np.array(rated, dtype=np.bool_)),
            ArrayColumn(np.array([t or 0 for t in tournament], dtype=np.int64)),
        )

    expected = changed_players(game_keys(_games(old)), game_keys(_games(new)))
    assert changed_players(game_keys(arrays(old)), game_keys(arrays(new))) == expected
