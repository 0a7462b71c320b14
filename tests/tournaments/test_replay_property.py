"""Property: reopen + correct + replay publishes exactly what a fresh close of the
corrected data publishes."""

from __future__ import annotations

import datetime
import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from players.models import Club, KFactorChange, Player, PlayerRating, RatingChange
from players.services import club_create, player_create
from tests.tournaments.helpers import make_owner, period_of
from tournaments.models import Game
from tournaments.services import (
    game_update,
    games_create_bulk,
    list_replay,
    period_close,
    period_reopen,
)

RESULTS = ["1-0", "0-1", "1/2-1/2", "+-"]
# Past months (games after tomorrow are refused), crossing a new year.
MONTHS = [datetime.date(2025, 11, 1), datetime.date(2025, 12, 1), datetime.date(2026, 1, 1)]
_serial = itertools.count()

player_st = st.tuples(
    st.one_of(st.none(), st.integers(1390, 2450)),  # entered rating (None: unrated)
    st.integers(0, 40),  # rated games so far
    st.sampled_from([None, 1990, 2007, 2009]),  # birth year (2007 turns 19 in 2026)
)


@st.composite
def leagues(draw: Any) -> dict[str, Any]:
    players = draw(st.lists(player_st, min_size=3, max_size=6))
    n = len(players)
    pair = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1])
    months = [
        draw(st.lists(st.tuples(pair, st.sampled_from(RESULTS)), min_size=1, max_size=8))
        for _ in MONTHS
    ]
    month_index = draw(st.integers(0, len(MONTHS) - 1))
    game_index = draw(st.integers(0, len(months[month_index]) - 1))
    new_result = draw(st.sampled_from(RESULTS))
    return {"players": players, "months": months, "fix": (month_index, game_index, new_result)}


def _build(owner: Any, league: dict[str, Any], *, corrected: bool) -> tuple[Club, list[Player]]:
    serial = next(_serial)
    club = club_create(name=f"League {serial}", slug=f"league-{serial}", by=owner)
    people = [
        player_create(
            club=club,
            by=owner,
            name=f"P{i}",
            birth_year=birth,
            ratings=[{"list": "standard", "rating": rating, "rated_games": games}],
        )
        for i, (rating, games, birth) in enumerate(league["players"])
    ]
    fix_month, fix_game, fix_result = league["fix"]
    for m, (month, games) in enumerate(zip(MONTHS, league["months"], strict=True)):
        items = []
        for g, ((w, b), result) in enumerate(games):
            if corrected and (m, g) == (fix_month, fix_game):
                result = fix_result
            items.append(
                {
                    "list": "standard",
                    "date": month + datetime.timedelta(days=g),
                    "white": people[w],
                    "black": people[b],
                    "result": result,
                }
            )
        games_create_bulk(club=club, by=owner, games=items)
    for month in MONTHS:
        period_close(period=period_of(club, f"{month:%Y-%m}"), by=owner)
    return club, people


def _published(club: Club) -> dict[str, Any]:
    changes = sorted(
        RatingChange.objects.filter(rating_list__club=club, current=True).values_list(
            "player__name",
            "period__month",
            "rating_before",
            "rating_after",
            "change",
            "change_unrounded",
            "k_factor",
            "k_reason",
            "games",
            "score",
            "expected",
            "event",
            "rated_games_after",
            "reached_2400_after",
            "pool_after",
            "k_next",
            "k_next_reason",
        ),
        key=repr,
    )
    k_changes = sorted(
        KFactorChange.objects.filter(rating_list__club=club, current=True).values_list(
            "player__name", "effective_month", "old_k", "new_k", "reason"
        ),
        key=repr,
    )
    ratings = sorted(
        PlayerRating.objects.filter(rating_list__club=club).values_list(
            "player__name",
            "rating_list__kind",
            "rating",
            "rated_games",
            "reached_2400",
            "k_factor",
            "k_reason",
            "pool",
        ),
        key=repr,
    )
    return {"changes": changes, "k_changes": k_changes, "ratings": ratings}


@pytest.mark.django_db
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(league=leagues())
@example(
    # An unrated player's pool after an edited game: PostgreSQL returns the edited row
    # last, and the stored pool must not depend on that.
    league={
        "players": [(None, 0, None), (1800, 40, None), (1900, 40, None)],
        "months": [
            [((0, 1), "1-0"), ((0, 2), "0-1")],
            [((1, 2), "1-0")],
            [((1, 2), "0-1")],
        ],
        "fix": (0, 0, "1/2-1/2"),
    }
)
@example(
    # A correction that leaves a player no rated game: the K row entered when they joined,
    # which the first close had moved back to their first month, goes back to the month
    # it was entered with (as in a fresh close), not to the month after the replay.
    league={
        "players": [
            (2294, 12, 2009),
            (None, 21, None),
            (1417, 0, 1990),
            (None, 10, 1990),
            (None, 27, 2009),
            (1623, 0, 2009),
        ],
        "months": [
            [((2, 5), "1/2-1/2"), ((1, 4), "1/2-1/2"), ((0, 3), "+-")],
            [((2, 4), "1-0"), ((3, 5), "1-0")],
            [((2, 1), "+-")],
        ],
        "fix": (1, 0, "+-"),
    }
)
def test_replay_equals_fresh_close(league: dict[str, Any]) -> None:
    owner = make_owner(f"owner-{next(_serial)}")
    club, _ = _build(owner, league, corrected=False)
    fix_month, fix_game, fix_result = league["fix"]
    month = MONTHS[fix_month]
    period_reopen(period=period_of(club, f"{month:%Y-%m}"), by=owner)
    game = Game.objects.filter(club=club, period__month=month).order_by("date", "id")[fix_game]
    game_update(game=game, by=owner, result=fix_result)
    list_replay(rating_list=game.rating_list, by=owner)

    fresh, _ = _build(owner, league, corrected=True)
    assert _published(club) == _published(fresh)
