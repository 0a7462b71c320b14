"""The close adds up most games in arrays (players.rating.period_sums) and loops over the rest:
the plan must be exactly the one the loop alone computes, on data that mixes every case
(unrated players, forfeits, games marked not rated, a tournament begun the month before,
2650+ players on standard and 2600+ players 600 apart on rapid)."""

from __future__ import annotations

import dataclasses
import datetime
import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from players.errors import ConflictError
from players.rating.systems import elo
from players.services import player_create, rating_list_update
from tests.tournaments.helpers import make_club, make_owner, period_of
from tournaments.services import games_create_bulk, period_close, period_preview, tournament_create
from tournaments.services.close import compute_plan
from tournaments.services.close.read import read_inputs

RESULTS = ["1-0", "0-1", "1/2-1/2", "+-", "-+", "--"]
OCT, NOV = datetime.date(2026, 10, 1), datetime.date(2026, 11, 1)
_serial = itertools.count()

player_st = st.tuples(
    st.one_of(st.none(), st.integers(1400, 2900), st.sampled_from([2600, 2649, 2650, 2700])),
    st.integers(0, 40),
    st.sampled_from([None, 1990, 2010]),
)


@st.composite
def months(draw: Any) -> dict[str, Any]:
    players = draw(st.lists(player_st, min_size=3, max_size=5))
    n = len(players)
    pair = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1])
    game = st.tuples(pair, st.sampled_from(RESULTS), st.sampled_from([True, True, True, False]))
    return {
        "players": players,
        "kind": draw(st.sampled_from(["standard", "rapid"])),
        "cap": draw(st.booleans()),
        "october": draw(st.lists(game, min_size=1, max_size=6)),
        # in the tournament begun on 30 October: (day offset 0 = 31 Oct, 1..2 = Nov)
        "tournament": draw(st.lists(st.tuples(game, st.integers(0, 2)), min_size=1, max_size=6)),
        "november": draw(st.lists(game, min_size=1, max_size=12)),
    }


@pytest.mark.django_db
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=months())
@example(
    # B gains in October; in November the tournament begun on 30 October scores A v B
    # with B's October rating, the rest with November's.
    data={
        "players": [(1800, 40, None), (1800, 40, None), (1700, 40, None)],
        "kind": "standard",
        "cap": True,
        "october": [((1, 2), "1-0", True)],
        "tournament": [(((0, 1), "1/2-1/2", True), 1)],
        "november": [((0, 1), "1-0", True), ((2, 0), "1/2-1/2", True)],
    }
)
def test_bulk_plan_equals_loop_plan(data: dict[str, Any]) -> None:
    owner = make_owner(f"bulk-{next(_serial)}")
    club = make_club(owner, slug=f"bulk-{next(_serial)}")
    kind = data["kind"]
    rating_list = club.rating_lists.get(kind=kind)
    if not data["cap"]:
        rating_list_update(rating_list=rating_list, by=owner, apply_400_rule=False)
    people = [
        player_create(
            club=club,
            by=owner,
            name=f"P{i}",
            birth_year=birth,
            ratings=[{"list": kind, "rating": rating, "rated_games": games}],
        )
        for i, (rating, games, birth) in enumerate(data["players"])
    ]
    event = tournament_create(
        club=club,
        by=owner,
        name="Month-end open",
        rating_list=kind,
        start_date=datetime.date(2026, 10, 30),
        end_date=datetime.date(2026, 11, 2),
    )

    def items(games: list[Any], day: datetime.date, tournament: Any = None) -> list[Any]:
        return [
            {
                "list": kind,
                "date": day,
                "white": people[w],
                "black": people[b],
                "result": result,
                "rated": rated,
                "tournament": tournament,
            }
            for (w, b), result, rated in games
        ]

    games_create_bulk(club=club, by=owner, games=items(data["october"], OCT))
    for game, offset in data["tournament"]:
        day = datetime.date(2026, 10, 31) + datetime.timedelta(days=offset)
        games_create_bulk(club=club, by=owner, games=items([game], day, event))
    games_create_bulk(club=club, by=owner, games=items(data["november"], NOV))
    period_close(period=period_of(club, "2026-10", kind), by=owner)

    november = period_of(club, "2026-11", kind)
    bulk = period_preview(period=november)
    # The same inputs through the loop alone (no arrays).
    loop = elo.plan_period(read_inputs(rating_list=november.rating_list, period=november))
    assert bulk.changes == loop.changes
    assert bulk.k_changes == loop.k_changes
    assert bulk.games_count == loop.games_count


@pytest.mark.django_db
def test_a_game_of_a_player_off_the_list_is_an_error() -> None:
    # The arrays must not silently score a game against the wrong player.
    owner = make_owner()
    club = make_club(owner)
    a = player_create(club=club, by=owner, name="A", ratings=[{"list": "standard", "rating": 1800}])
    b = player_create(club=club, by=owner, name="B", ratings=[{"list": "standard", "rating": 1700}])
    games_create_bulk(
        club=club,
        by=owner,
        games=[{"list": "standard", "date": NOV, "white": a, "black": b, "result": "1-0"}],
    )
    period = period_of(club, "2026-11")
    inputs = read_inputs(rating_list=period.rating_list, period=period)
    without_b = dataclasses.replace(
        inputs,
        starts={pid: s for pid, s in inputs.starts.items() if pid != b.pk},
        start_ratings={pid: r for pid, r in inputs.start_ratings.items() if pid != b.pk},
    )
    with pytest.raises(ConflictError, match=r"B \(id \d+\)"):
        compute_plan(without_b)
