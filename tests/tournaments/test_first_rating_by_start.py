"""A first rating from one tournament that began before 1 March 2024 and ended after it.

shared/reference/fide-rules.md, section 10: "FIDE applies a rule change to tournaments that
**start** on or after its date; an event spanning a month end keeps the rules of its
start." The first-rating rows of that table: until 2024-02-29, "at 50%: Ra; above 50%:
Ra + 20 per half point above 50%" (no 1800 pair); from 2024-03-01 (section 5) two draws
against 1800 are added and Ru = Ra + dp(p).

Five games against 1600s, 4 points:
- 2014's formula: Ra 1600, 1.5 points (3 half points) above 50% -> 1600 + 60 = 1660;
- 2024's: Ra = (5 x 1600 + 2 x 1800) / 7 = 1657.14, p = 5/7 = .71, dp 158 -> 1815.
"""

from __future__ import annotations

import datetime

import pytest

from players.models import Player
from players.services import player_create
from tests.tournaments.helpers import change_of, close, make_club, make_owner, play
from tournaments.services import tournament_create

pytestmark = pytest.mark.django_db


def _first_rating(start: datetime.date) -> int | None:
    owner = make_owner()
    club = make_club(owner)
    newcomer = player_create(club=club, by=owner, name="Nova", birth_year=1990)
    rated: list[Player] = [
        player_create(
            club=club,
            by=owner,
            name=f"Rated {i}",
            birth_year=1980,
            ratings=[{"list": "standard", "rating": 1600, "rated_games": 60}],
        )
        for i in range(5)
    ]
    event = tournament_create(
        club=club,
        by=owner,
        name="Leap Open",
        rating_list="standard",
        start_date=start,
        end_date=datetime.date(2024, 3, 3),
        rounds=5,
    )
    results = ["1-0", "1-0", "1-0", "1-0", "0-1"]
    for opponent, result in zip(rated, results, strict=True):
        play(
            club,
            owner,
            [(newcomer, opponent, result)],
            date=datetime.date(2024, 3, 2),
            tournament=event,
        )
    close(club, owner, "2024-03")
    return change_of(newcomer, "2024-03").rating_after


def test_a_tournament_begun_in_february_2024_keeps_the_2014_formula() -> None:
    assert _first_rating(datetime.date(2024, 2, 26)) == 1660


def test_a_tournament_begun_on_1_march_2024_uses_the_2024_formula() -> None:
    assert _first_rating(datetime.date(2024, 3, 1)) == 1815
