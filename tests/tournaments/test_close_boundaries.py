"""Every rule boundary of the close, on both sides, with figures worked out by hand from
the FIDE rules (../shared/reference/fide-rules.md), through players, games and
``period_close``.

Comparing two paths of our own code (arrays and loop, replay and fresh close) cannot find
a rule written wrong in both; these figures can. Each comment shows the arithmetic: PD
from table 8.1.2 (section 1), K from 8.3.3 (a player entered at 2400 or more has reached
2400: K 10; 50 rated games, born 1980: K 20; fewer than 30 games: K 40), change = K x
sum(score - PD), rounded once, a half away from zero.

``route``: the close adds up most games in arrays (``players.rating.bulk``) and scores
the rest game by game (``players.rating.change``). "arrays" plays the games outside any
tournament; "loop" plays them in a tournament begun the month before, in which nobody's
rating changed since, so the same figures must come out of the per-game path.
"""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest
from django.contrib.auth.models import AbstractBaseUser

from players.models import Club, Player
from players.services import rating_list_update
from tests.tournaments.helpers import (
    change_of,
    close,
    make_club,
    make_owner,
    make_player,
    play,
    standard,
)
from tournaments.services import tournament_create

pytestmark = pytest.mark.django_db
OCT = datetime.date(2026, 10, 5)
ROUTES = ["arrays", "loop"]


def play_by(
    route: str,
    club: Club,
    by: AbstractBaseUser,
    games: list[tuple[Player, Player, str]],
    *,
    kind: str = "standard",
) -> None:
    """Play ``games`` on 5 October, outside a tournament or in one begun in September."""
    tournament = None
    if route == "loop":
        tournament = tournament_create(
            club=club,
            by=by,
            name="September Open",
            rating_list=kind,
            start_date=datetime.date(2026, 9, 28),
            end_date=datetime.date(2026, 10, 10),
        )
    play(club, by, games, date=OCT, tournament=tournament, kind=kind)


def assert_change(player: Player, before: int, unrounded: str, change: int) -> None:
    row = change_of(player, "2026-10")
    assert row.event == "rated"
    assert row.change_unrounded == Decimal(unrounded)
    assert (row.rating_before, row.change, row.rating_after) == (before, change, before + change)


# -- the 400-point rule (8.3.1) ----------------------------------------------------------


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(
    "gap",
    [
        # 399 apart: the real difference counts; 392..411 is PD .92 in table 8.1.2.
        399,
        # 400 apart: exactly the cap, still .92.
        400,
        # 401 apart: counted as 400, .92 (the table would give .92 for 401 too).
        401,
        # 412 apart: counted as 400, .92; without the cap 412 is .93 (412..432), which
        # gives -18.6 -> -19 and +19.
        412,
        # 800 apart: counted as 400, .92; without the cap above 735 is 1.00: -20 and +20.
        800,
    ],
)
def test_400_point_rule_for_both_players_below_2650(route: str, gap: int) -> None:
    # The higher-rated player (K 20) loses: 20 x (0 - .92) = -18.4 -> -18.
    # The lower-rated player (K 20) wins: PD 1 - .92 = .08; 20 x (1 - .08) = +18.4 -> +18.
    owner = make_owner()
    club = make_club(owner)
    higher = make_player(club, owner, "Higher", 1500 + gap)
    lower = make_player(club, owner, "Lower", 1500)
    play_by(route, club, owner, [(higher, lower, "0-1")])
    close(club, owner, "2026-10")
    assert_change(higher, 1500 + gap, "-18.4", -18)
    assert_change(lower, 1500, "18.4", 18)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(
    ("kind", "higher_rating", "lower_rating", "higher_unrounded", "higher_change"),
    [
        # Standard, 2650 v 2000 (650 apart): 2650 uses the full difference, D 650 is .99
        # (620..735). K 10 x (0 - .99) = -9.9 -> -10.
        ("standard", 2650, 2000, "-9.9", -10),
        # Standard, 2649 v 1999 (650 apart): below 2650, capped: D 400 is .92.
        # K 10 x (0 - .92) = -9.2 -> -9.
        ("standard", 2649, 1999, "-9.2", -9),
        # Rapid and blitz cap everyone, 2650 too. 2650 v 2100 (550 apart, under the 600
        # rule): D 400 is .92, -9.2 -> -9 (uncapped 550 would be .97: -9.7 -> -10).
        ("rapid", 2650, 2100, "-9.2", -9),
        ("blitz", 2650, 2100, "-9.2", -9),
    ],
)
def test_the_2650_rule_is_decided_by_each_players_own_rating(
    route: str,
    kind: str,
    higher_rating: int,
    lower_rating: int,
    higher_unrounded: str,
    higher_change: int,
) -> None:
    # The lower-rated player is below 2650 and capped in every row: -400 is PD .08, and
    # the win gives K 20 x (1 - .08) = +18.4 -> +18.
    owner = make_owner()
    club = make_club(owner)
    higher = make_player(club, owner, "Higher", higher_rating, kind=kind)
    lower = make_player(club, owner, "Lower", lower_rating, kind=kind)
    play_by(route, club, owner, [(higher, lower, "0-1")], kind=kind)
    close(club, owner, "2026-10", kind)
    assert_change(higher, higher_rating, higher_unrounded, higher_change)
    assert_change(lower, lower_rating, "18.4", 18)


# -- rapid and blitz: 600 apart with a player above 2600 is not rated ---------------------


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(
    ("kind", "higher_rating", "lower_rating", "rated"),
    [
        # 600 apart, 2601 is above 2600: not rated.
        ("rapid", 2601, 2001, False),
        ("blitz", 2601, 2001, False),
        # 599 apart: rated.
        ("rapid", 2601, 2002, True),
        ("blitz", 2601, 2002, True),
        # 600 apart, but 2600 is not above 2600: rated.
        ("rapid", 2600, 2000, True),
        ("blitz", 2600, 2000, True),
        # The standard list has no such rule: 600 apart with 2601 is rated.
        ("standard", 2601, 2001, True),
    ],
)
def test_600_apart_with_a_player_above_2600(
    route: str, kind: str, higher_rating: int, lower_rating: int, rated: bool
) -> None:
    # When rated, both are capped (below 2650; rapid and blitz cap everyone): D 400 is .92.
    # The higher-rated player (K 10) loses: 10 x (0 - .92) = -9.2 -> -9.
    # The lower-rated player (K 20) wins: 20 x (1 - .08) = +18.4 -> +18.
    owner = make_owner()
    club = make_club(owner)
    higher = make_player(club, owner, "Higher", higher_rating, kind=kind)
    lower = make_player(club, owner, "Lower", lower_rating, kind=kind)
    play_by(route, club, owner, [(higher, lower, "0-1")], kind=kind)
    close(club, owner, "2026-10", kind)
    if rated:
        assert_change(higher, higher_rating, "-9.2", -9)
        assert_change(lower, lower_rating, "18.4", 18)
    else:
        for player, rating in ((higher, higher_rating), (lower, lower_rating)):
            row = change_of(player, "2026-10")
            assert (row.event, row.games, row.change, row.rating_after) == (
                "no_rated_games",
                0,
                0,
                rating,
            )


# -- K x n <= 700 (8.3.3) ------------------------------------------------------------------


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(
    ("rated_games", "games", "k", "unrounded", "change"),
    [
        # K 20 x 35 games = 700, not over 700: K stays 20. 20 x 3.5 = +70.
        (50, 35, 20, "70", 70),
        # K 20 x 36 = 720 > 700: K = floor(700 / 36) = 19. 19 x 3.5 = 66.5 -> +67.
        (50, 36, 19, "66.5", 67),
        # K 40 (10 rated games) x 17 = 680: K stays 40. 40 x 3.5 = +140.
        (10, 17, 40, "140", 140),
        # K 40 x 18 = 720 > 700: K = floor(700 / 18) = 38. 38 x 3.5 = +133.
        (10, 18, 38, "133", 133),
    ],
)
def test_k_times_games_over_700(
    route: str, rated_games: int, games: int, k: int, unrounded: str, change: int
) -> None:
    # Against opponents of the same rating (D 0, PD .50): 7 wins and the rest draws score
    # 7 x .5 = 3.5 over expectation.
    owner = make_owner()
    club = make_club(owner)
    me = make_player(club, owner, "Me", 2000, rated_games=rated_games)
    others = [make_player(club, owner, f"O{i}", 2000) for i in range(5)]
    play_by(
        route,
        club,
        owner,
        [(me, others[i % 5], "1-0" if i < 7 else "1/2-1/2") for i in range(games)],
    )
    close(club, owner, "2026-10")
    row = change_of(me, "2026-10")
    assert (row.k_factor, row.games) == (k, games)
    assert_change(me, 2000, unrounded, change)


def test_700_rule_and_one_rounding_cover_games_scored_with_two_lists() -> None:
    # October: Me (K 20) beats an equal player, 20 x .5 = +10: 2000 -> 2010.
    # November: 18 games in a tournament begun on 30 October, scored with the list of
    # 1 October (Me 2000 v 2000), and 18 games outside it, scored with the list of
    # 1 November (Me 2010 v 2010): D 0, PD .50 everywhere; one win and 17 draws in each.
    # 36 games: K 20 x 36 = 720 > 700, so K = floor(700 / 36) = 19 for the whole period,
    # and 19 x (.5 + .5) = 19.0 -> +19.
    # (K capped per group, 18 games each: 20 x .5 + 20 x .5 = 20. Rounded per group:
    # 9.5 -> 10 twice = 20.)
    owner = make_owner()
    club = make_club(owner)
    me = make_player(club, owner, "Me", 2000)
    october = make_player(club, owner, "October", 2000)
    early = [make_player(club, owner, f"T{i}", 2000) for i in range(6)]
    late = [make_player(club, owner, f"P{i}", 2010) for i in range(6)]
    play(club, owner, [(me, october, "1-0")], date=OCT)
    close(club, owner, "2026-10")
    assert change_of(me, "2026-10").rating_after == 2010
    event = tournament_create(
        club=club,
        by=owner,
        name="Halloween Open",
        rating_list="standard",
        start_date=datetime.date(2026, 10, 30),
        end_date=datetime.date(2026, 11, 8),
    )
    draws = ["1-0"] + ["1/2-1/2"] * 17
    nov = datetime.date(2026, 11, 3)
    play(
        club,
        owner,
        [(me, early[i % 6], r) for i, r in enumerate(draws)],
        date=nov,
        tournament=event,
    )
    play(club, owner, [(me, late[i % 6], r) for i, r in enumerate(draws)], date=nov)
    close(club, owner, "2026-11")
    row = change_of(me, "2026-11")
    assert (row.k_factor, row.games) == (19, 36)
    assert row.change_unrounded == Decimal("19")
    assert (row.rating_before, row.change, row.rating_after) == (2010, 19, 2029)


# -- the floor (section 6) and the first rating's minimum and maximum (8.2) ----------------


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(
    ("rating", "after", "event"),
    [
        # 1410 loses to 1410: 20 x (0 - .50) = -10 -> 1400, at the floor: stays listed.
        (1410, 1400, "rated"),
        # 1409 loses to 1409: -10 -> 1399, below 1400: unrated from now on.
        (1409, None, "below_floor"),
    ],
)
def test_floor_of_1400(route: str, rating: int, after: int | None, event: str) -> None:
    owner = make_owner()
    club = make_club(owner)
    me = make_player(club, owner, "Me", rating)
    other = make_player(club, owner, "Other", rating)
    play_by(route, club, owner, [(me, other, "0-1")])
    close(club, owner, "2026-10")
    row = change_of(me, "2026-10")
    assert (row.rating_before, row.change, row.rating_after, row.event) == (
        rating,
        -10,
        after,
        event,
    )


@pytest.mark.parametrize(
    ("opponents", "results", "first"),
    [
        # 5 games, 1/2 point (a draw, four losses) against 1562 x 5 = 7810:
        # Ra = (7810 + 2 x 1800) / 7 = 11410 / 7 = 1630; p = (0.5 + 1) / 7 = .214 -> 21%,
        # dp(.21) = -dp(.79) = -230. Ru = 1630 - 230 = 1400: at the minimum, published.
        ((1562, 1562, 1562, 1562, 1562), ("1/2-1/2", "0-1", "0-1", "0-1", "0-1"), 1400),
        # Against 1561 x 3 + 1560 x 2 = 7803: Ra = 11403 / 7 = 1629, Ru = 1629 - 230 =
        # 1399: below 1400, not published; the player stays unrated.
        ((1561, 1561, 1561, 1560, 1560), ("1/2-1/2", "0-1", "0-1", "0-1", "0-1"), None),
        # 4 1/2 points (four wins, a draw) against 2038 x 5 = 10190: Ra = 13790 / 7 = 1970;
        # p = 5.5 / 7 = .786 -> 79%, dp 230. Ru = 2200: at the maximum, published as is.
        ((2038, 2038, 2038, 2038, 2038), ("1-0", "1-0", "1-0", "1-0", "1/2-1/2"), 2200),
        # Against 2039 x 3 + 2040 x 2 = 10197: Ra = 13797 / 7 = 1971, Ru = 2201: over
        # the maximum, published as 2200.
        ((2039, 2039, 2039, 2040, 2040), ("1-0", "1-0", "1-0", "1-0", "1/2-1/2"), 2200),
    ],
)
def test_first_rating_minimum_and_maximum(
    opponents: tuple[int, ...], results: tuple[str, ...], first: int | None
) -> None:
    owner = make_owner()
    club = make_club(owner)
    new = make_player(club, owner, "New", None, rated_games=0)
    rated = [make_player(club, owner, f"O{i}", r) for i, r in enumerate(opponents)]
    play(club, owner, [(new, o, r) for o, r in zip(rated, results, strict=True)], date=OCT)
    close(club, owner, "2026-10")
    row = change_of(new, "2026-10")
    if first is None:
        assert (row.event, row.rating_after, row.games) == ("not_yet_rated", None, 5)
    else:
        assert (row.event, row.rating_after, row.games) == ("first_rating", first, 5)


# -- one rounding, a half away from zero (8.3.4) -------------------------------------------


@pytest.mark.parametrize("route", ROUTES)
def test_a_half_rounds_away_from_zero(route: str) -> None:
    # 2500 v 2310, both K 10 (2500 by rating, 2310 reached 2400 before): D 190 is PD .75
    # (189..197). The higher wins: 10 x (1 - .75) = +2.5 -> +3 (half to even: +2). The
    # lower loses: 10 x (0 - .25) = -2.5 -> -3 (half to even: -2).
    owner = make_owner()
    club = make_club(owner)
    higher = make_player(club, owner, "Higher", 2500)
    lower = make_player(club, owner, "Lower", 2310, reached_2400=True)
    play_by(route, club, owner, [(higher, lower, "1-0")])
    close(club, owner, "2026-10")
    assert_change(higher, 2500, "2.5", 3)
    assert_change(lower, 2310, "-2.5", -3)


def test_a_half_rounds_away_from_zero_on_a_formula_list() -> None:
    # Elo formula, fixed K 5: 1500 v 1500 is E = 1 / (1 + 10^0) = .5. The winner:
    # 5 x (1 - .5) = +2.5 -> +3; the loser: 5 x (0 - .5) = -2.5 -> -3.
    owner = make_owner()
    club = make_club(owner)
    rating_list_update(rating_list=standard(club), by=owner, preset="Club Elo", fixed_k=5)
    winner = make_player(club, owner, "Winner", 1500)
    loser = make_player(club, owner, "Loser", 1500)
    play(club, owner, [(winner, loser, "1-0")], date=OCT)
    close(club, owner, "2026-10")
    assert_change(winner, 1500, "2.5", 3)
    assert_change(loser, 1500, "-2.5", -3)


# -- a tournament is scored with the list in force at its start (section 9) -------------------


@pytest.mark.parametrize(
    ("start", "winner_unrounded", "winner_change", "loser_unrounded", "loser_change"),
    [
        # Began 30 October: the list of 1 October, A 1800 v B 1800, D 0, PD .50.
        # A (K 40): 40 x (1 - .50) = +20; B (K 20): 20 x (0 - .50) = -10.
        (datetime.date(2026, 10, 30), "20", 20, "-10", -10),
        # Began 1 November: the list of 1 November, A 1900 v B 1800, D 100, PD .64
        # (99..106). A: 40 x (1 - .64) = +14.4 -> +14; B: 20 x (0 - .36) = -7.2 -> -7.
        (datetime.date(2026, 11, 1), "14.4", 14, "-7.2", -7),
    ],
)
def test_tournament_begun_the_month_before_uses_that_months_list(
    start: datetime.date,
    winner_unrounded: str,
    winner_change: int,
    loser_unrounded: str,
    loser_change: int,
) -> None:
    # October: A (K 40, 10 rated games) beats five players rated 1800: 5 x 40 x (1 - .50)
    # = +100, 1800 -> 1900. A has 15 rated games after it: still K 40 in November.
    owner = make_owner()
    club = make_club(owner)
    a = make_player(club, owner, "A", 1800, rated_games=10)
    b = make_player(club, owner, "B", 1800)
    october = [make_player(club, owner, f"C{i}", 1800) for i in range(5)]
    play(club, owner, [(a, c, "1-0") for c in october], date=OCT)
    close(club, owner, "2026-10")
    assert change_of(a, "2026-10").rating_after == 1900
    event = tournament_create(
        club=club,
        by=owner,
        name="Autumn Open",
        rating_list="standard",
        start_date=start,
        end_date=datetime.date(2026, 11, 2),
    )
    play(club, owner, [(a, b, "1-0")], date=datetime.date(2026, 11, 1), tournament=event)
    close(club, owner, "2026-11")
    row = change_of(a, "2026-11")
    assert row.k_factor == 40
    assert row.change_unrounded == Decimal(winner_unrounded)
    assert (row.rating_before, row.change, row.rating_after) == (
        1900,
        winner_change,
        1900 + winner_change,
    )
    row = change_of(b, "2026-11")
    assert row.change_unrounded == Decimal(loser_unrounded)
    assert (row.rating_before, row.change, row.rating_after) == (
        1800,
        loser_change,
        1800 + loser_change,
    )
