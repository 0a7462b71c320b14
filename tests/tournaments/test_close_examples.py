"""The seeds' and FIDE's worked examples, through the tracker: players, games, close."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest

from players.models import KFactorChange, PlayerRating
from tests.tournaments.helpers import (
    change_of,
    close,
    make_club,
    make_owner,
    make_player,
    play,
)

pytestmark = pytest.mark.django_db
OCT = datetime.date(2026, 10, 5)


def test_seed_002_five_games_plus_20() -> None:
    owner = make_owner()
    club = make_club(owner)
    me = make_player(club, owner, "Me", 1850, rated_games=45)
    opponents = [make_player(club, owner, f"O{r}", r) for r in (1792, 1911, 2010, 2290, 1745)]
    results = ["1-0", "1/2-1/2", "0-1", "1/2-1/2", "1-0"]
    play(club, owner, [(me, o, r) for o, r in zip(opponents, results, strict=True)], date=OCT)
    run = close(club, owner, "2026-10")
    row = change_of(me, "2026-10")
    assert (row.rating_before, row.rating_after, row.change) == (1850, 1870, 20)
    assert row.change_unrounded == Decimal("19.8000")
    assert (row.k_factor, row.k_reason, row.games) == (20, "standard", 5)
    assert (row.score, row.expected, row.event) == (Decimal("3.0"), Decimal("2.0100"), "rated")
    rating = PlayerRating.objects.get(player=me, rating_list__kind="standard")
    assert (rating.rating, rating.rated_games) == (1870, 50)
    assert run.players_changed == 6
    assert "2026-10" in run.report


def test_fide_39_games_at_k20_use_k17() -> None:
    owner = make_owner()
    club = make_club(owner)
    me = make_player(club, owner, "Me", 2000, rated_games=100)
    others = [make_player(club, owner, f"O{i}", 2000) for i in range(13)]
    games = [(me, others[i % 13], "1-0" if i % 3 == 0 else "1/2-1/2") for i in range(39)]
    play(club, owner, games, date=OCT)
    close(club, owner, "2026-10")
    row = change_of(me, "2026-10")
    # 13 wins and 26 draws at equal ratings: K 17 x 6.5 = 110.5 -> 111.
    assert (row.k_factor, row.k_reason, row.games) == (17, "standard", 39)
    assert row.change == 111
    assert row.change_unrounded == Decimal("110.5000")


def test_first_rating_1922() -> None:
    owner = make_owner()
    club = make_club(owner)
    new = make_player(club, owner, "New", None, rated_games=0)
    opponents = [
        make_player(club, owner, f"O{i}", r) for i, r in enumerate((1901, 1901, 1901, 1902, 1902))
    ]
    results = ["1-0", "1-0", "1-0", "0-1", "0-1"]
    play(club, owner, [(new, o, r) for o, r in zip(opponents, results, strict=True)], date=OCT)
    close(club, owner, "2026-10")
    row = change_of(new, "2026-10")
    assert (row.rating_before, row.rating_after, row.event) == (None, 1922, "first_rating")
    assert row.games == 5
    # The rated opponents' games against an unrated player change nothing.
    assert change_of(opponents[0], "2026-10").event == "no_rated_games"
    assert change_of(opponents[0], "2026-10").rating_after == 1901
    rating = PlayerRating.objects.get(player=new, rating_list__kind="standard")
    assert (rating.rating, rating.pool) == (1922, [])


def test_unrated_player_pools_games_across_periods() -> None:
    owner = make_owner()
    club = make_club(owner)
    new = make_player(club, owner, "New", None, rated_games=0)
    opponents = [make_player(club, owner, f"O{i}", 1901 + (i > 2)) for i in range(5)]
    play(club, owner, [(new, o, "1-0") for o in opponents[:3]], date=OCT)
    close(club, owner, "2026-10")
    row = change_of(new, "2026-10")
    assert (row.event, row.rating_after, row.games) == ("not_yet_rated", None, 3)
    assert len(PlayerRating.objects.get(player=new, rating_list__kind="standard").pool) == 1
    play(club, owner, [(new, o, "0-1") for o in opponents[3:]], date=datetime.date(2026, 11, 3))
    close(club, owner, "2026-11")
    assert change_of(new, "2026-11").rating_after == 1922


def test_floor_drop_makes_the_player_unrated() -> None:
    owner = make_owner()
    club = make_club(owner)
    low = make_player(club, owner, "Low", 1405)
    other = make_player(club, owner, "Other", 1405)
    play(club, owner, [(low, other, "0-1")], date=OCT)
    close(club, owner, "2026-10")
    row = change_of(low, "2026-10")
    assert (row.rating_before, row.change, row.rating_after, row.event) == (
        1405,
        -10,
        None,
        "below_floor",
    )
    assert PlayerRating.objects.get(player=low, rating_list__kind="standard").rating is None
    assert change_of(other, "2026-10").rating_after == 1415


def test_reaching_2400_makes_k10_for_good() -> None:
    owner = make_owner()
    club = make_club(owner)
    star = make_player(club, owner, "Star", 2390)
    other = make_player(club, owner, "Other", 2390)
    play(club, owner, [(star, other, "1-0")], date=OCT)
    close(club, owner, "2026-10")
    row = change_of(star, "2026-10")
    assert (row.rating_after, row.reached_2400_after, row.k_next) == (2400, True, 10)
    change = KFactorChange.objects.get(player=star, reason="reached_2400")
    assert (change.old_k, change.new_k, change.period) == (20, 10, "2026-11")
    # Dropping below 2400 keeps K 10.
    play(club, owner, [(star, other, "0-1")], date=datetime.date(2026, 11, 2))
    close(club, owner, "2026-11")
    row = change_of(star, "2026-11")
    assert (row.k_factor, row.k_reason, row.rating_after, row.k_next) == (
        10,
        "reached_2400",
        2395,
        10,
    )


def test_junior_reaching_2300_loses_junior_k_with_that_reason() -> None:
    # A 16-year-old at 2290 wins against 2290 (D = 0, expected 0.50): K 40 x 0.50 = +20,
    # 2310. Still of junior age, so K falls to 20 because the rating reached 2300.
    owner = make_owner()
    club = make_club(owner)
    junior = make_player(club, owner, "Junior", 2290, rated_games=80, birth_year=2010)
    other = make_player(club, owner, "Other", 2290)
    play(club, owner, [(junior, other, "1-0")], date=OCT)
    close(club, owner, "2026-10")
    row = change_of(junior, "2026-10")
    assert (row.k_factor, row.k_reason, row.rating_after) == (40, "junior", 2310)
    assert (row.k_next, row.k_next_reason) == (20, "standard")
    change = KFactorChange.objects.get(
        player=junior, source_period__month=datetime.date(2026, 10, 1)
    )
    assert (change.old_k, change.new_k, change.reason) == (40, 20, "junior_2300")
    assert change.get_reason_display() == "Junior reached 2300"


def test_junior_turning_19_changes_k_at_january() -> None:
    # A year back from today's dates: games after tomorrow are refused.
    owner = make_owner()
    club = make_club(owner)
    junior = make_player(club, owner, "Junior", 1800, rated_games=80, birth_year=2007)
    other = make_player(club, owner, "Other", 1800)
    play(club, owner, [(junior, other, "1-0")], date=datetime.date(2025, 12, 5))
    close(club, owner, "2025-12")
    row = change_of(junior, "2025-12")
    assert (row.k_factor, row.k_reason, row.change) == (40, "junior", 20)
    assert (row.k_next, row.k_next_reason) == (20, "standard")
    change = KFactorChange.objects.get(player=junior, reason="turned_19")
    assert (change.old_k, change.new_k, change.period) == (40, 20, "2026-01")
    play(club, owner, [(junior, other, "1-0")], date=datetime.date(2026, 1, 5))
    close(club, owner, "2026-01")
    row = change_of(junior, "2026-01")
    # 1820 v 1780: D = 40, expected 0.56; K 20 x 0.44 = 8.8 -> 9.
    assert (row.k_factor, row.k_reason, row.change) == (20, "standard", 9)


def test_forfeits_and_not_rated_games_are_recorded_not_rated() -> None:
    owner = make_owner()
    club = make_club(owner)
    a = make_player(club, owner, "A", 1800)
    b = make_player(club, owner, "B", 1800)
    play(club, owner, [(a, b, "+-"), (a, b, "--")], date=OCT)
    from tournaments.services import game_create

    game_create(
        club=club, by=owner, list="standard", date=OCT, white=a, black=b, result="1-0", rated=False
    )
    close(club, owner, "2026-10")
    row = change_of(a, "2026-10")
    assert (row.event, row.games, row.rating_after) == ("no_rated_games", 0, 1800)


def test_tournament_spanning_month_end_uses_ratings_at_its_start() -> None:
    from tournaments.services import tournament_create

    owner = make_owner()
    club = make_club(owner)
    a = make_player(club, owner, "A", 1800)
    b = make_player(club, owner, "B", 1800)
    c = make_player(club, owner, "C", 1800)
    play(club, owner, [(a, c, "1-0")], date=OCT)  # A 1800 -> 1810 in October
    event = tournament_create(
        club=club,
        by=owner,
        name="Autumn Open",
        rating_list="standard",
        start_date=datetime.date(2026, 10, 30),
        end_date=datetime.date(2026, 11, 2),
    )
    play(club, owner, [(a, b, "1-0")], date=datetime.date(2026, 10, 31), tournament=event)
    close(club, owner, "2026-10")
    assert change_of(a, "2026-10").rating_after == 1810
    close(club, owner, "2026-11")
    row = change_of(a, "2026-11")
    # Scored 1800 v 1800 (the list in force on 30 October), added to 1810.
    assert (row.rating_before, row.change, row.rating_after) == (1810, 10, 1820)
    assert change_of(b, "2026-11").change == -10


def test_club_elo_preset_rates_newcomers_from_their_first_game() -> None:
    from players.services import rating_list_update
    from tests.tournaments.helpers import standard

    owner = make_owner()
    club = make_club(owner)
    rating_list_update(rating_list=standard(club), by=owner, preset="Club Elo")
    new = make_player(club, owner, "New", None, rated_games=0)
    old = make_player(club, owner, "Old", 1500)
    play(club, owner, [(new, old, "1-0")], date=OCT)
    close(club, owner, "2026-10")
    # Formula, fixed K 20, the newcomer counts as 1500: 20 x (1 - 0.5) = +10.
    row = change_of(new, "2026-10")
    assert (row.rating_before, row.rating_after, row.event, row.k_factor, row.k_reason) == (
        None,
        1510,
        "first_rating",
        20,
        "fixed",
    )
    assert change_of(old, "2026-10").rating_after == 1490
