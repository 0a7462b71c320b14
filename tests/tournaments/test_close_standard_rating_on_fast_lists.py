"""The close on a rapid or blitz list: a player unrated there but rated on the standard
list is rated from the standard rating in force; without one they pool as on any list;
the player page's figures add up either way."""

from __future__ import annotations

import datetime

import pytest

from players.models import RatingChange
from players.selectors import parse_month
from players.services import player_create
from tests.tournaments.helpers import close, make_club, make_owner, make_player, play

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
