"""The K the close uses on a rapid list for a player unrated there but rated through the
standard rating: the FIDE order of 8.3.3 applied to that rating and to the rated games on
the rapid list (reference section 3; the engine's cases are in
tests/rating/test_k_through_standard.py). Through the tracker: players, games, close.

Figures by hand, FIDE table 8.1.2: D 50 lies in 47..53, so the higher-rated player's PD
is .57 and the lower-rated player's .43.
"""

from __future__ import annotations

import datetime

import pytest

from players.models import (
    FirstRatingPolicy,
    KFactorChange,
    Player,
    PlayerRating,
    RatingChange,
    RatingList,
)
from players.selectors import parse_month
from players.services import k_override_set, player_create
from tests.tournaments.helpers import close, make_club, make_owner, make_player, play

pytestmark = pytest.mark.django_db
OCT = datetime.date(2026, 10, 5)


def unrated_on_rapid(club: object, owner: object, name: str, *, standard: int, **kw: int) -> Player:
    """Rated on the standard list, unrated on rapid with ``rapid_games`` rated games there
    (e.g. a rapid rating that fell below the floor)."""
    return player_create(
        club=club,
        by=owner,
        name=name,
        birth_year=kw["born"],
        ratings=[
            {"list": "standard", "rating": standard, "rated_games": 50},
            {"list": "rapid", "rating": None, "rated_games": kw["rapid_games"]},
        ],
    )


def rapid_row(player: Player) -> RatingChange:
    return RatingChange.objects.get(
        player=player, period__month=parse_month("2026-10"), rating_list__kind="rapid", current=True
    )


def test_thirty_rapid_games_and_a_junior_of_2300_get_k_20_through_the_standard_rating() -> None:
    owner = make_owner()
    club = make_club(owner)
    # Adult, standard 1850, 35 rated rapid games: rule 3 is done (30 or more), so K 20.
    adult = unrated_on_rapid(club, owner, "Adult", standard=1850, born=1980, rapid_games=35)
    # Junior by age in 2026 (2026 - 2010 = 16), standard 2350, 40 rated rapid games: rule 2
    # needs a rating under 2300, rule 3 is done, so K 20.
    junior = unrated_on_rapid(club, owner, "Junior", standard=2350, born=2010, rapid_games=40)
    # Adult, standard 2000, 35 rated rapid games, no game this month.
    idle = unrated_on_rapid(club, owner, "Idle", standard=2000, born=1980, rapid_games=35)
    low = make_player(club, owner, "Low", 1800, kind="rapid")
    high = make_player(club, owner, "High", 2300, kind="rapid")
    play(club, owner, [(adult, low, "1-0"), (junior, high, "1-0")], date=OCT, kind="rapid")
    close(club, owner, "2026-10", kind="rapid")

    # Adult: 1850 v 1800, D 50, PD .57. K 20 x (1 - .57) = 8.6 -> +9 -> 1859.
    # (K 40, the old rule's, would give 17.2 -> +17 -> 1867.)
    row = rapid_row(adult)
    assert (row.k_factor, row.k_reason) == (20, "standard")
    assert (row.rating_before, row.change, row.rating_after) == (None, 9, 1859)
    assert (row.event, row.games, row.rated_games_after) == ("first_rating", 1, 36)
    # Junior: 2350 v 2300, D 50, PD .57. K 20 x (1 - .57) = 8.6 -> +9 -> 2359.
    row = rapid_row(junior)
    assert (row.k_factor, row.k_reason) == (20, "standard")
    assert (row.change, row.rating_after) == (9, 2359)
    # Their opponents, rated on rapid with 50 games, K 20: 20 x (0 - .43) = -8.6 -> -9.
    assert rapid_row(low).rating_after == 1791
    assert rapid_row(high).rating_after == 2291

    # Idle: no game, still unrated on rapid; the K of this period and of the next are both
    # 20 through the standard rating (35 games), so the close records no K change.
    row = rapid_row(idle)
    assert (row.event, row.rating_after, row.k_factor, row.k_next) == (
        "no_rated_games",
        None,
        20,
        20,
    )
    rapid_k = PlayerRating.objects.get(player=idle, rating_list__kind="rapid")
    assert (rapid_k.k_factor, rapid_k.k_reason) == (20, "standard")
    assert not KFactorChange.objects.filter(player=idle, source_period__isnull=False).exists()


def test_under_thirty_rapid_games_stay_on_k_40_through_the_standard_rating() -> None:
    owner = make_owner()
    club = make_club(owner)
    # 29 rated rapid games: rule 3 still applies, K 40.
    adult = unrated_on_rapid(club, owner, "Adult", standard=1850, born=1980, rapid_games=29)
    low = make_player(club, owner, "Low", 1800, kind="rapid")
    play(club, owner, [(adult, low, "1-0")], date=OCT, kind="rapid")
    close(club, owner, "2026-10", kind="rapid")
    # 1850 v 1800, D 50, PD .57: K 40 x (1 - .57) = 17.2 -> +17 -> 1867.
    row = rapid_row(adult)
    assert (row.k_factor, row.k_reason) == (40, "new_player")
    assert (row.change, row.rating_after) == (17, 1867)


def test_entering_the_player_gives_the_k_the_close_will_use() -> None:
    owner = make_owner()
    club = make_club(owner)
    adult = unrated_on_rapid(club, owner, "Adult", standard=1850, born=1980, rapid_games=35)
    junior = unrated_on_rapid(club, owner, "Junior", standard=2350, born=2010, rapid_games=40)
    for player in (adult, junior):
        rapid = PlayerRating.objects.get(player=player, rating_list__kind="rapid")
        assert (rapid.k_factor, rapid.k_reason) == (20, "standard")


def test_lifting_an_override_gives_back_the_k_through_the_standard_rating() -> None:
    owner = make_owner()
    club = make_club(owner)
    adult = unrated_on_rapid(club, owner, "Adult", standard=1850, born=1980, rapid_games=35)
    rapid = PlayerRating.objects.get(player=adult, rating_list__kind="rapid")
    k_override_set(player_rating=rapid, k=30, note="federation profile", by=owner)
    lifted = k_override_set(player_rating=rapid, k=None, by=owner)
    # 35 rated rapid games, counted as rated at 1850: rule 4, K 20.
    assert (lifted.k_factor, lifted.k_reason) == (20, "standard")


def test_a_fixed_starting_rating_is_not_a_standard_rating() -> None:
    owner = make_owner()
    club = make_club(owner)
    # A club's rapid list on FIDE K but with a fixed starting rating of 1500.
    RatingList.objects.filter(club=club, kind="rapid").update(
        first_rating_policy=FirstRatingPolicy.FIXED, starting_rating=1500
    )
    through_standard = unrated_on_rapid(
        club, owner, "Standard", standard=1850, born=1980, rapid_games=35
    )
    # No standard rating: counts at 1500 on this list, still an unrated player for K.
    fixed_only = make_player(club, owner, "Fixed", None, rated_games=35, kind="rapid")
    low = make_player(club, owner, "Low", 1800, kind="rapid")
    even = make_player(club, owner, "Even", 1500, kind="rapid")
    play(
        club,
        owner,
        [(through_standard, low, "1-0"), (fixed_only, even, "1-0")],
        date=OCT,
        kind="rapid",
    )
    close(club, owner, "2026-10", kind="rapid")
    # 1850 v 1800, D 50, PD .57: K 20 (35 games, rated through the standard rating)
    # x (1 - .57) = 8.6 -> +9 -> 1859.
    row = rapid_row(through_standard)
    assert (row.k_factor, row.change, row.rating_after) == (20, 9, 1859)
    # 1500 v 1500, D 0, PD .50: K 40 (unrated: rule 3) x (1 - .50) = 20 -> 1520.
    row = rapid_row(fixed_only)
    assert (row.k_factor, row.k_reason, row.change, row.rating_after) == (
        40,
        "new_player",
        20,
        1520,
    )
