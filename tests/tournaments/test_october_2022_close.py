"""FIDE's rapid and blitz one-off of 1 October 2022 through the close: the close of
September 2022 of a rapid list under FIDE's rules by date raises a rating more than 100
below the player's standard rating (on the club's standard list of 1 October 2022) to
100 below it, as a recorded adjustment; no other close does."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.test import Client

from players.models import Player, PlayerRating, RatingChange, RatingList, RatingRun
from players.selectors import parse_month
from players.services import player_create, rating_list_update
from tests.tournaments.helpers import close, make_club, make_owner, make_player, play

pytestmark = pytest.mark.django_db
D = datetime.date


def change_of(player: Player, month: str, kind: str = "standard") -> RatingChange:
    return RatingChange.objects.get(
        player=player,
        period__month=parse_month(month),
        period__rating_list__slug=kind,
        current=True,
    )


def _club_with_two_lists() -> tuple[Any, Any, Player, Player]:
    owner = make_owner()
    club = make_club(owner)
    # A: standard 1800, rapid 1500 (more than 100 below); B: standard 1800, rapid 1750.
    a = player_create(
        club=club,
        by=owner,
        name="A",
        birth_year=1980,
        ratings=[
            {"list": "standard", "rating": 1800, "rated_games": 50},
            {"list": "rapid", "rating": 1500, "rated_games": 50},
        ],
    )
    b = player_create(
        club=club,
        by=owner,
        name="B",
        birth_year=1980,
        ratings=[
            {"list": "standard", "rating": 1800, "rated_games": 50},
            {"list": "rapid", "rating": 1750, "rated_games": 50},
        ],
    )
    return owner, club, a, b


def test_the_close_of_september_2022_raises_the_rapid_rating() -> None:
    owner, club, a, b = _club_with_two_lists()
    play(club, owner, [(a, b, "1/2-1/2")], date=D(2022, 9, 10), kind="rapid")
    close(club, owner, "2022-09", kind="rapid")
    # 1500 v 1750 drawn: D -250 -> .19, K 20: +6.2 -> 1506, raised to 1700 (+194).
    raised = change_of(a, "2022-09", kind="rapid")
    assert (raised.rating_after, raised.change, raised.adjustment) == (1700, 6, 194)
    kept = change_of(b, "2022-09", kind="rapid")
    assert (kept.rating_after, kept.adjustment) == (1744, 0)
    assert PlayerRating.objects.get(player=a, rating_list__kind="rapid").rating == 1700
    run = RatingRun.objects.get(kind="close")
    assert "FIDE's one-off of 1 October 2022 raised 1 ratings to 100 below" in run.report
    # The player page and the period report say why the rating is above before + change.
    client = Client()
    client.force_login(owner)
    page = client.get(f"/clubs/{club.slug}/players/{a.pk}/?list=rapid")
    assert "FIDE one-off of 1 October 2022, to 100 below standard: +194" in page.content.decode()
    report = client.get(f"/clubs/{club.slug}/lists/rapid/periods/2022-09/")
    assert "FIDE's one-off of 1 October 2022 (1 rating more than 100 below" in (
        report.content.decode()
    )


def test_august_2022_and_a_pinned_list_raise_nothing() -> None:
    owner, club, a, b = _club_with_two_lists()
    play(club, owner, [(a, b, "1/2-1/2")], date=D(2022, 8, 10), kind="rapid")
    close(club, owner, "2022-08", kind="rapid")
    assert change_of(a, "2022-08", kind="rapid").adjustment == 0
    rapid = RatingList.objects.get(club=club, kind="rapid")
    rating_list_update(rating_list=rapid, by=owner, fide_rules="2025-10")
    play(club, owner, [(a, b, "1/2-1/2")], date=D(2022, 9, 10), kind="rapid")
    close(club, owner, "2022-09", kind="rapid")
    assert change_of(a, "2022-09", kind="rapid").adjustment == 0


def test_the_standard_rating_is_the_one_on_the_list_of_1_october_2022() -> None:
    # The standard list's September close published 1900 for A before the rapid close:
    # the rapid rating is raised to 1800, not 1700.
    owner, club, a, b = _club_with_two_lists()
    c = make_player(club, owner, "C", 1800)
    play(club, owner, [(a, c, "1-0")], date=D(2022, 9, 5))
    close(club, owner, "2022-09")
    standard_after = change_of(a, "2022-09").rating_after
    assert standard_after == 1810  # 1800 v 1800 won: 20 x 0.5 = +10
    play(club, owner, [(a, b, "1/2-1/2")], date=D(2022, 9, 10), kind="rapid")
    close(club, owner, "2022-09", kind="rapid")
    assert change_of(a, "2022-09", kind="rapid").rating_after == standard_after - 100
