"""A club of two players and their one-round events, for the export tests."""

from __future__ import annotations

import datetime

from tests.tournaments.helpers import make_club, make_owner, make_player
from tournaments.models import Tournament
from tournaments.services import (
    games_create_bulk,
    tournament_create,
)

SEPTEMBER = datetime.date(2026, 9, 5)
OCTOBER = datetime.date(2026, 10, 3)


def event(club, owner, name: str, day: datetime.date, pairs, city: str = "") -> Tournament:  # type: ignore[no-untyped-def]
    tournament = tournament_create(
        club=club,
        by=owner,
        name=name,
        rating_list="standard",
        start_date=day,
        end_date=day,
        rounds=1,
        city=city,
    )
    games_create_bulk(
        club=club,
        by=owner,
        games=[
            {"date": day, "white": w, "black": b, "result": r, "tournament": tournament, "round": 1}
            for w, b, r in pairs
        ],
    )
    return tournament


def two_player_club():  # type: ignore[no-untyped-def]
    """The owner, the club and its two players (Viktor 1800, Ola 1700; Ola written Surname,
    Given)."""
    owner = make_owner()
    club = make_club(owner, "exports")
    viktor = make_player(club, owner, "Viktor Aronsen", 1800)
    ola = make_player(club, owner, "Berg, Ola", 1700)
    return owner, club, viktor, ola
