"""Inactivity through the close: twelve months without a rated game make a player
inactive, one game makes them active again; a player entered with a rating is active from
their first period; the API's flags and the list page's "active" filter agree."""

from __future__ import annotations

import datetime

import pytest

from players.models import Club, Membership, Player, RatingChange, RatingList, add_months
from players.selectors import parse_month
from tests.tournaments.helpers import close, make_club, make_owner, make_player, period_of, play

pytestmark = pytest.mark.django_db


def row_of(player: object, month: str, kind: str = "standard") -> RatingChange:
    return RatingChange.objects.get(
        player=player, period__month=parse_month(month), rating_list__kind=kind, current=True
    )


# -- inactivity ---------------------------------------------------------------------------------


def _flags(club: Club, month: str) -> dict[str, list[str]]:
    """The published list's flags, through the API."""
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(Membership.objects.get(club=club).user)
    response = client.get(
        f"/api/v1/clubs/{club.slug}/lists/standard/ratings/", {"period": month, "page_size": 500}
    )
    assert response.status_code == 200, response.content
    return {row["name"]: row["flags"] for row in response.json()["results"]}


def _active_on_page(club: Club, month: str) -> set[str]:
    from ratings_site.pages.lists import ListFilters, rating_list_page

    page = rating_list_page(
        rating_list=RatingList.objects.get(club=club, kind="standard"),
        period=period_of(club, month),
        filters=ListFilters(active=True),
    )
    return {ranked.row.player.name for ranked in page.rows}


def test_twelve_silent_months_make_a_player_inactive_and_one_game_active_again() -> None:
    owner = make_owner()
    club = make_club(owner)
    quiet = make_player(club, owner, "Quiet", 1800)
    busy = make_player(club, owner, "Busy", 1700)
    other = make_player(club, owner, "Other", 1750)
    rating_list = RatingList.objects.get(club=club, kind="standard")
    jan = datetime.date(2025, 1, 10)
    play(club, owner, [(quiet, busy, "1-0")], date=jan)
    close(club, owner, "2025-01")
    for index in range(1, 13):  # February 2025 to January 2026: Quiet plays nothing
        month = add_months(datetime.date(2025, 1, 1), index)
        play(club, owner, [(busy, other, "1/2-1/2")], date=month.replace(day=10))
        close(club, owner, month.strftime("%Y-%m"))
        if index == 11:
            # December 2025: eleven silent months, still active.
            assert _flags(club, "2025-12")["Quiet"] == []
            assert "Quiet" in _active_on_page(club, "2025-12")
    assert _flags(club, "2026-01")["Quiet"] == ["inactive"]
    assert _flags(club, "2026-01")["Busy"] == []
    assert "Quiet" not in _active_on_page(club, "2026-01")
    assert "Busy" in _active_on_page(club, "2026-01")
    # Still listed, with the rating published before.
    assert row_of(quiet, "2026-01").rating_after == row_of(quiet, "2025-01").rating_after
    assert row_of(quiet, "2026-01").last_active_month == datetime.date(2025, 1, 1)

    play(club, owner, [(quiet, other, "0-1")], date=datetime.date(2026, 2, 10))
    close(club, owner, "2026-02")
    assert _flags(club, "2026-02")["Quiet"] == []
    assert "Quiet" in _active_on_page(club, "2026-02")
    assert rating_list.periods.count() == 14


def test_a_player_entered_with_a_rating_is_active_from_their_first_period() -> None:
    owner = make_owner()
    club = make_club(owner)
    make_player(club, owner, "Entered", 1800)
    a = make_player(club, owner, "A", 1700)
    b = make_player(club, owner, "B", 1750)
    play(club, owner, [(a, b, "1-0")], date=datetime.date(2026, 3, 10))
    close(club, owner, "2026-03")
    assert _flags(club, "2026-03")["Entered"] == []
    entered = RatingChange.objects.get(player__name="Entered", current=True)
    assert entered.last_active_month == datetime.date(2026, 3, 1)


def test_inactive_means_the_same_in_the_api_and_on_the_list_page() -> None:
    # A player the club marked inactive (left the club) is flagged in the API as on the
    # list page and in the TXT export, even with a rated game this month.
    owner = make_owner()
    club = make_club(owner)
    left = make_player(club, owner, "Left", 1800)
    stays = make_player(club, owner, "Stays", 1750)
    play(club, owner, [(left, stays, "1-0")], date=datetime.date(2026, 3, 10))
    close(club, owner, "2026-03")
    Player.objects.filter(pk=left.pk).update(active=False)
    assert _flags(club, "2026-03") == {"Left": ["inactive"], "Stays": []}
    assert _active_on_page(club, "2026-03") == {"Stays"}
