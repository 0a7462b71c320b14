"""Small builders for tracker tests: everything goes through the services."""

from __future__ import annotations

import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser

from players.models import Club, Player, RatingChange, RatingList, RatingPeriod, RatingRun
from players.selectors import parse_month
from players.services import club_create, player_create, rating_list_create
from tournaments.services import games_create_bulk, period_close


def make_owner(username: str = "owner") -> AbstractBaseUser:
    return get_user_model().objects.create_user(username)


def make_club(owner: AbstractBaseUser, slug: str = "club") -> Club:
    return club_create(name=f"Club {slug}", slug=slug, public=False, by=owner)


def make_player(
    club: Club,
    by: AbstractBaseUser,
    name: str,
    rating: int | None = None,
    *,
    rated_games: int = 50,
    birth_year: int | None = 1980,
    reached_2400: bool = False,
    kind: str = "standard",
) -> Player:
    ratings = [
        {"list": kind, "rating": rating, "rated_games": rated_games, "reached_2400": reached_2400}
    ]
    return player_create(club=club, by=by, name=name, birth_year=birth_year, ratings=ratings)


def play(
    club: Club,
    by: AbstractBaseUser,
    games: list[tuple[Player, Player, str]],
    *,
    date: datetime.date,
    tournament: Any = None,
    kind: str = "standard",
) -> None:
    games_create_bulk(
        club=club,
        by=by,
        games=[
            {
                "list": kind,
                "date": date,
                "white": w,
                "black": b,
                "result": r,
                "tournament": tournament,
            }
            for w, b, r in games
        ],
    )


def period_of(club: Club, month: str, kind: str = "standard") -> RatingPeriod:
    return RatingPeriod.objects.get(
        rating_list__club=club, rating_list__slug=kind, month=parse_month(month)
    )


def close(club: Club, by: AbstractBaseUser, month: str, kind: str = "standard") -> RatingRun:
    return period_close(period=period_of(club, month, kind), by=by)


def change_of(player: Player, month: str) -> RatingChange:
    return RatingChange.objects.get(player=player, period__month=parse_month(month), current=True)


def standard(club: Club) -> RatingList:
    return RatingList.objects.get(club=club, kind="standard")


def glicko2_club(owner: AbstractBaseUser) -> tuple[Club, list[Player]]:
    """A club with a Glicko-2 blitz list "online" and four players: Ash, Beech and Chestnut
    with ratings and RDs from Glickman's example, Damson with none."""
    club = club_create(name="Online", slug="online", by=owner)
    rating_list_create(club=club, by=owner, slug="online", kind="blitz", system="glicko2")
    people = [
        player_create(
            club=club, by=owner, name=name, ratings=[{"list": "online", **entry}] if entry else []
        )
        for name, entry in [
            ("Ash", {"rating": 1500, "rd": 200}),
            ("Beech", {"rating": 1400, "rd": 30}),
            ("Chestnut", {"rating": 1550, "rd": 100}),
            ("Damson", {}),
        ]
    ]
    return club, people
