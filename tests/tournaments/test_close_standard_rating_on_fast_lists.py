"""Rules the close applies across lists and over time: a standard rating on a rapid
list, inactivity, K overrides in force by month. Through the tracker: players, games,
close."""

from __future__ import annotations

import datetime

import pytest

from players.models import Club, Membership, Player, RatingChange, RatingList, add_months
from players.selectors import parse_month
from players.services import player_create
from tests.tournaments.helpers import close, make_club, make_owner, make_player, period_of, play

pytestmark = pytest.mark.django_db
SEP = datetime.date(2026, 9, 5)
OCT = datetime.date(2026, 10, 5)


def row_of(player: object, month: str, kind: str = "standard") -> RatingChange:
    return RatingChange.objects.get(
        player=player, period__month=parse_month(month), rating_list__kind=kind, current=True
    )


# -- rapid and blitz: a standard rating counts --------------------------------------------------


def test_unrated_on_rapid_with_a_standard_rating_is_rated_from_it() -> None:
    owner = make_owner()
    club = make_club(owner)
    newcomer = player_create(
        club=club,
        by=owner,
        name="Newcomer",
        birth_year=1980,
        ratings=[
            {"list": "standard", "rating": 1850, "rated_games": 50},
            {"list": "rapid", "rating": None, "rated_games": 0},
        ],
    )
    rapid = make_player(club, owner, "Rapid", 1800, kind="rapid")
    standard_opponent = make_player(club, owner, "Standard", 1850)
    # September on the standard list: 1850 v 1850 won, K 20 x 0.5 = +10 -> 1860 published.
    play(club, owner, [(newcomer, standard_opponent, "1-0")], date=SEP)
    close(club, owner, "2026-09")
    assert row_of(newcomer, "2026-09").rating_after == 1860

    play(club, owner, [(newcomer, rapid, "1-0")], date=OCT, kind="rapid")
    close(club, owner, "2026-10", kind="rapid")
    # The standard list in force (1860) counts: 1860 v 1800, D 60 -> PD .58.
    # Newcomer, K 40 (no rapid games yet): 40 x 0.42 = 16.8 -> +17.
    row = row_of(newcomer, "2026-10", "rapid")
    assert (row.rating_before, row.change, row.rating_after) == (None, 17, 1877)
    assert (row.event, row.games, row.k_factor) == ("first_rating", 1, 40)
    assert row.pool_after == []
    # The opponent's game is rated: K 20 x (0 - 0.42) = -8.4 -> -8.
    opponent = row_of(rapid, "2026-10", "rapid")
    assert (opponent.event, opponent.games, opponent.rating_after) == ("rated", 1, 1792)


def test_unrated_on_rapid_without_a_standard_rating_still_pools() -> None:
    owner = make_owner()
    club = make_club(owner)
    newcomer = make_player(club, owner, "Newcomer", None, rated_games=0, kind="rapid")
    rapid = make_player(club, owner, "Rapid", 1800, kind="rapid")
    play(club, owner, [(newcomer, rapid, "1-0")], date=OCT, kind="rapid")
    close(club, owner, "2026-10", kind="rapid")
    assert row_of(newcomer, "2026-10", "rapid").event == "not_yet_rated"
    assert row_of(rapid, "2026-10", "rapid").event == "no_rated_games"


def test_player_page_figures_add_up_for_a_standard_rating_on_rapid() -> None:
    from ratings_site.pages.games import player_games
    from ratings_site.pages.player import player_lists

    owner = make_owner()
    club = make_club(owner)
    newcomer = player_create(
        club=club,
        by=owner,
        name="Newcomer",
        birth_year=1980,
        ratings=[
            {"list": "standard", "rating": 1850, "rated_games": 50},
            {"list": "rapid", "rating": None, "rated_games": 0},
        ],
    )
    rapid = make_player(club, owner, "Rapid", 1800, kind="rapid")
    play(club, owner, [(newcomer, rapid, "1-0")], date=OCT, kind="rapid")
    close(club, owner, "2026-10", kind="rapid")
    lists = player_lists(player=newcomer)
    games = player_games(player=newcomer, lists=lists.lists, history=lists.history)
    (period,) = games.periods.values()
    assert not period.toward_first_rating
    assert period.games[0].own_rating == 1850
    assert period.engine_change == period.change.change == 17


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


# -- K overrides by month ---------------------------------------------------------------------


def test_replay_uses_the_k_override_in_force_in_each_month() -> None:
    from players.models import KFactorChange, PlayerRating
    from players.services import k_override_set
    from tournaments.services import list_replay, period_reopen

    owner = make_owner()
    club = make_club(owner)
    a = make_player(club, owner, "A", 1800)
    b = make_player(club, owner, "B", 1700)
    for month in (1, 2):
        play(club, owner, [(a, b, "1-0")], date=datetime.date(2026, month, 10))
        close(club, owner, f"2026-0{month}")
    rating = PlayerRating.objects.get(player=a, rating_list__kind="standard")
    k_override_set(player_rating=rating, k=30, note="federation profile", by=owner)
    play(club, owner, [(a, b, "1-0")], date=datetime.date(2026, 3, 10))
    close(club, owner, "2026-03")
    assert (row_of(a, "2026-03").k_factor, row_of(a, "2026-03").k_reason) == (30, "manual")

    period_reopen(period=period_of(club, "2026-01"), by=owner)
    run = list_replay(rating_list=RatingList.objects.get(club=club, kind="standard"), by=owner)
    # The run says where its time went, step by step, as a close's run does.
    assert set(run.summary["seconds"]) == {"retire", "read", "compute", "write", "report"}
    assert all(seconds >= 0 for seconds in run.summary["seconds"].values())
    used = {m: (row_of(a, m).k_factor, row_of(a, m).k_reason) for m in ("2026-01", "2026-02")}
    assert used == {"2026-01": (20, "standard"), "2026-02": (20, "standard")}
    march = row_of(a, "2026-03")
    assert (march.k_factor, march.k_reason) == (30, "manual")
    # February's list announces the K of March; the officer's row is the only record of it.
    assert (row_of(a, "2026-02").k_next, row_of(a, "2026-02").k_next_reason) == (30, "manual")
    manual = KFactorChange.objects.filter(player=a, new_reason="manual", current=True)
    assert [(c.effective_month, c.new_k) for c in manual] == [(datetime.date(2026, 3, 1), 30)]
    # The replayed January and February are what a fresh close gives: 1800 v 1700 won,
    # D 100 -> PD .64, K 20 x 0.36 = 7.2 -> +7, then 1807 v 1693 (D 114 -> .65) +7.
    assert [row_of(a, m).rating_after for m in ("2026-01", "2026-02")] == [1807, 1814]


def test_a_lifted_override_ends_in_its_month() -> None:
    from players.models import PlayerRating
    from players.services import k_override_set
    from tournaments.services import list_replay, period_reopen

    owner = make_owner()
    club = make_club(owner)
    a = make_player(club, owner, "A", 1800)
    b = make_player(club, owner, "B", 1700)
    rating = PlayerRating.objects.get(player=a, rating_list__kind="standard")
    for month in (1, 2, 3):
        if month == 2:  # from February
            k_override_set(player_rating=rating, k=30, note="federation profile", by=owner)
        if month == 3:  # lifted from March
            k_override_set(player_rating=rating, k=None, by=owner)
        play(club, owner, [(a, b, "1-0")], date=datetime.date(2026, month, 10))
        close(club, owner, f"2026-0{month}")
    expected = {"2026-01": (20, "standard"), "2026-02": (30, "manual"), "2026-03": (20, "standard")}
    used = {m: (row_of(a, m).k_factor, row_of(a, m).k_reason) for m in expected}
    assert used == expected
    period_reopen(period=period_of(club, "2026-01"), by=owner)
    run = list_replay(rating_list=RatingList.objects.get(club=club, kind="standard"), by=owner)
    # The run says where its time went, step by step, as a close's run does.
    assert set(run.summary["seconds"]) == {"retire", "read", "compute", "write", "report"}
    assert all(seconds >= 0 for seconds in run.summary["seconds"].values())
    used = {m: (row_of(a, m).k_factor, row_of(a, m).k_reason) for m in expected}
    assert used == expected
