"""A rapid or blitz player who falls below the floor, and holds a standard rating.

shared/reference/fide-rules.md, section 6: "A player whose rating drops below 1400 is
shown as unrated on the next list and is then treated like any unrated player"; section 5:
"Rapid/blitz: an unrated player who holds a standard rating at the start of the event
uses it and counts as rated". So on the next list the player's K is the one their
standard rating gives (8.3.3: 20 for 1800 with 103 rated games), not a new player's 40.
"""

from __future__ import annotations

import datetime

import pytest

from players.models import PlayerRating
from players.services import player_create
from tests.tournaments.helpers import change_of, close, make_club, make_owner, play

pytestmark = pytest.mark.django_db


def test_below_the_floor_on_rapid_the_next_k_comes_from_the_standard_rating() -> None:
    owner = make_owner()
    club = make_club(owner)
    faller = player_create(
        club=club,
        by=owner,
        name="Fay Faller",
        birth_year=1980,
        ratings=[
            {"list": "standard", "rating": 1800, "rated_games": 103},
            {"list": "rapid", "rating": 1410, "rated_games": 103},
        ],
    )
    opponents = [
        player_create(
            club=club,
            by=owner,
            name=f"Opponent {i}",
            birth_year=1980,
            ratings=[{"list": "rapid", "rating": 1410, "rated_games": 80}],
        )
        for i in range(2)
    ]
    # Two losses at K 20 against equals: 1410 - 20 = 1390, below the floor of 1400.
    play(
        club,
        owner,
        [(faller, opponents[0], "0-1"), (opponents[1], faller, "1-0")],
        date=datetime.date(2025, 5, 10),
        kind="rapid",
    )
    close(club, owner, "2025-05", kind="rapid")

    change = change_of(faller, "2025-05")
    assert change.rating_after is None  # published as unrated
    assert (change.k_next, change.k_next_reason) == (20, "standard")
    state = PlayerRating.objects.get(player=faller, rating_list__slug="rapid")
    assert (state.rating, state.k_factor, state.k_reason) == (None, 20, "standard")


def test_without_a_standard_rating_the_faller_is_a_new_player_again() -> None:
    owner = make_owner()
    club = make_club(owner)
    faller = player_create(
        club=club,
        by=owner,
        name="Fay Faller",
        birth_year=1980,
        ratings=[{"list": "rapid", "rating": 1410, "rated_games": 103}],
    )
    other = player_create(
        club=club,
        by=owner,
        name="Olga",
        birth_year=1980,
        ratings=[{"list": "rapid", "rating": 1410, "rated_games": 80}],
    )
    play(
        club,
        owner,
        [(faller, other, "0-1"), (other, faller, "1-0")],
        date=datetime.date(2025, 5, 10),
        kind="rapid",
    )
    close(club, owner, "2025-05", kind="rapid")
    change = change_of(faller, "2025-05")
    assert change.rating_after is None
    assert (change.k_next, change.k_next_reason) == (40, "new_player")
