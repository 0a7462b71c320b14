"""A small club for the page tests, built through the services: players, a tournament, a
few closed months (with a first rating and a drop below the floor)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.test import Client

from players.http.cache import STALE_HEADER, STALE_VALUE
from players.models import Club, Player
from players.services import player_create
from tests.tournaments.helpers import close, make_club, make_owner, make_player, play
from tournaments.models import Tournament
from tournaments.services import tournament_create

MONTHS = ("2026-01", "2026-02", "2026-03")


@dataclass
class ClubData:
    club: Club
    owner: AbstractBaseUser
    players: dict[str, Player] = field(default_factory=dict)
    crowd: list[Player] = field(default_factory=list)
    tournament: Tournament | None = None


def build_club(
    *,
    slug: str = "riverside",
    public: bool = True,
    crowd: int = 6,
    owner: AbstractBaseUser | None = None,
    extra_months: int = 0,
) -> ClubData:
    """Named players for the assertions plus ``crowd`` more, three closed months.

    ``extra_months`` adds months from April on, each with another round of club games.
    January: everyone plays two club games. February: the five-round Winter Open, where
    Nina Novak (unrated) scores against rated players and gets a first rating, and Boris
    Duda (1403) loses twice and drops below the 1400 floor. March: club games again.
    """
    owner = owner or make_owner(f"owner-{slug}")
    club = make_club(owner, slug)
    club.name = f"{slug.title()} Chess Club"
    club.public = public
    club.save(update_fields=["name", "public"])
    data = ClubData(club, owner)
    named = data.players
    named["magnus"] = player_create(
        club=club,
        by=owner,
        name="Magnus Berg",
        birth_year=1990,
        title="GM",
        federation="NOR",
        ratings=[{"list": "standard", "rating": 2450, "rated_games": 300, "reached_2400": True}],
    )
    named["alice"] = make_player(club, owner, "Alice Chen", 1650, rated_games=12, birth_year=2012)
    named["boris"] = make_player(club, owner, "Boris Duda", 1403, rated_games=80, birth_year=1970)
    named["nina"] = make_player(club, owner, "Nina Novak", None, rated_games=0, birth_year=2000)
    named["omar"] = make_player(club, owner, "Omar Reyes", 1820, rated_games=60, birth_year=1985)
    named["petra"] = player_create(
        club=club,
        by=owner,
        name="Petra Sommer",
        birth_year=1979,
        active=False,
        ratings=[{"list": "standard", "rating": 1900, "rated_games": 150}],
    )
    data.crowd = [
        make_player(club, owner, crowd_name(i), 1500 + (i * 37) % 600, rated_games=40)
        for i in range(crowd)
    ]
    rated = [named["magnus"], named["alice"], named["omar"], named["petra"], *data.crowd]

    def everyone_plays(day: datetime.date, shift: int = 1) -> None:
        games = []
        for index, white in enumerate(rated):
            black = rated[(index + shift) % len(rated)]
            if shift == 1:
                result = ("1-0", "1/2-1/2", "0-1")[index % 3]
            else:
                # Later months: a varied, repeatable mix so the lists move both ways.
                result = ("1-0", "0-1", "1/2-1/2", "1-0", "0-1")[(index * 7 + shift * 3) % 5]
            games.append((white, black, result))
        play(club, owner, games, date=day)

    everyone_plays(datetime.date(2026, 1, 10))
    close(club, owner, "2026-01")

    data.tournament = tournament_create(
        club=club,
        by=owner,
        name="Winter Open",
        rating_list="standard",
        start_date=datetime.date(2026, 2, 6),
        end_date=datetime.date(2026, 2, 8),
        rounds=5,
        city="Riverside",
    )
    nina, boris = named["nina"], named["boris"]
    opponents = [named["omar"], named["alice"], named["petra"], *data.crowd[:2]]
    results = ["1-0", "1/2-1/2", "1-0", "0-1", "1-0"]
    for opponent, result in zip(opponents, results, strict=True):
        play(
            club,
            owner,
            [(nina, opponent, result)],
            date=datetime.date(2026, 2, 6),
            tournament=data.tournament,
        )
    play(
        club,
        owner,
        [(boris, named["alice"], "0-1"), (named["omar"], boris, "1-0")],
        date=datetime.date(2026, 2, 7),
        tournament=data.tournament,
    )
    close(club, owner, "2026-02")

    everyone_plays(datetime.date(2026, 3, 14))
    close(club, owner, "2026-03")
    for extra in range(extra_months):
        month = 4 + extra
        everyone_plays(datetime.date(2026, month, 12), shift=extra + 2)
        close(club, owner, f"2026-{month:02d}")
    return data


FIRST = ["Ada", "Ben", "Clara", "David", "Eva", "Felix", "Greta", "Henrik", "Ines", "Jonas"]
LAST = ["Lind", "Moreau", "Nagy", "Olsen", "Pereira", "Quist", "Rossi", "Silva", "Tanaka", "Ueda"]


def crowd_name(index: int) -> str:
    """Distinct, readable names for up to a hundred extra players (then numbered)."""
    name = f"{FIRST[index % 10]} {LAST[(index // 10 + index) % 10]}"
    return name if index < 100 else f"{name} {index // 100 + 1}"


def refreshed(client: Client, url: str, **extra: Any) -> Any:
    """``url``'s answer once a change has retired its stored one: the first anonymous
    visitor after the change is given the previous answer, marked, and rebuilds it once
    that is delivered (players.http.cache: ``rebuilt_once``); the next visitor
    gets the new one. Asserts both steps."""
    previous = client.get(url, **extra)
    assert previous[STALE_HEADER] == STALE_VALUE, url
    again = client.get(url, **extra)
    assert STALE_HEADER not in again, url
    return again


def counted_calls(monkeypatch: Any, module: Any, name: str) -> list[int]:
    """``module.name`` counted: one item for each call (made as before)."""
    calls: list[int] = []
    function = getattr(module, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return function(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls
