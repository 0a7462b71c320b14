"""The tournament page's rating changes are the close's: each game scored with the FIDE
rules in force at the tournament's start (fide_rules, a list by date), from January 2022
to February 2024 the 400-point cap in one game per event (8.3.1 then), and with the K
and the own rating the close used.

Figures by hand from table 8.1.2 (../shared/reference/fide-rules.md), the higher-rated
player's PD: D 100 -> .64 (99-106), 400 -> .92 (392-411), 500 -> .96 (485-517),
550 -> .97 (518-559), 660 -> .99 (620-735); the lower-rated player has 1 - PD. K (8.3.3):
10 once 2400 was reached, 40 until 30 rated games, else 20.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from players.models import Club, Player
from ratings_site.pages.tournaments import PlayerRow, tournament_view
from tests.tournaments.helpers import change_of, close, make_club, make_owner, make_player, play
from tournaments.models import Tournament
from tournaments.services import tournament_create

pytestmark = pytest.mark.django_db
D = datetime.date


def _event(
    club: Club, owner: Any, start: datetime.date, end: datetime.date, name: str = "Open"
) -> Tournament:
    return tournament_create(
        club=club, by=owner, name=name, rating_list="standard", start_date=start, end_date=end
    )


def _rows(tournament: Tournament) -> dict[str, PlayerRow]:
    found = Tournament.objects.select_related("rating_list").get(pk=tournament.pk)
    return {row.player.name: row for row in tournament_view(tournament=found).rows}


@pytest.mark.parametrize(
    ("start", "a_change"),
    [
        # 2023: the 2650 exception is not in force yet (from October 2025), so 660 counts
        # 400: PD .92. A has reached 2400 (K 10): 10 x (1 - .92) = +0.8 -> +1.
        (D(2023, 5, 2), 1),
        # Under the rules of October 2025 A (2650+) uses the real 660: PD .99,
        # 10 x .01 = +0.1 -> 0.
        (D(2025, 11, 2), 0),
    ],
)
def test_changes_under_the_rules_of_the_tournaments_start(
    start: datetime.date, a_change: int
) -> None:
    owner = make_owner()
    club = make_club(owner)
    a = make_player(club, owner, "A", 2660, reached_2400=True)
    b = make_player(club, owner, "B", 2000)
    played = start + datetime.timedelta(days=1)
    event = _event(club, owner, start, played)
    play(club, owner, [(a, b, "1-0")], date=played, tournament=event)
    close(club, owner, f"{played:%Y-%m}")
    rows = _rows(event)
    # B (K 20) is below 2650 under any rules: -660 counts -400, 20 x (0 - .08) = -1.6.
    assert (rows["A"].change, rows["B"].change) == (a_change, -2)
    # The event is all the period held: the page's figures are the published ones.
    month = f"{played:%Y-%m}"
    assert [rows[p.name].change for p in (a, b)] == [change_of(p, month).change for p in (a, b)]


MAY_2023 = (D(2023, 5, 2), D(2023, 5, 3))


def _cap_world(
    outside: bool, start: datetime.date = MAY_2023[0], played: datetime.date = MAY_2023[1]
) -> tuple[Tournament, dict[str, Player], str]:
    # A (2000, K 20) beats B (1500), C (1450) and E (1400) in one tournament: 500, 550
    # and 600 apart; with ``outside``, F (1400) too, outside tournaments, that month.
    owner = make_owner()
    club = make_club(owner)
    a = make_player(club, owner, "A", 2000)
    players = {"A": a}
    for name, rating in (("B", 1500), ("C", 1450), ("E", 1400), ("F", 1400)):
        players[name] = make_player(club, owner, name, rating)
    event = _event(club, owner, start, played)
    play(club, owner, [(a, players[n], "1-0") for n in "BCE"], date=played, tournament=event)
    if outside:
        play(club, owner, [(a, players["F"], "1-0")], date=played.replace(day=20))
    month = f"{played:%Y-%m}"
    close(club, owner, month)
    return event, players, month


@pytest.mark.parametrize(
    ("start", "played", "a_change"),
    [
        # A keeps the cap for the largest difference only (600: .92); 500 and 550 count
        # in full (.96, .97): 20 x (.04 + .03 + .08) = +3.0.
        (*MAY_2023, 3),
        # Begun in February 2024, rated in March: the rules of its start, the same +3.
        (D(2024, 2, 27), D(2024, 3, 3), 3),
        # From March 2024 the cap counts in every game: 20 x 3 x .08 = +4.8 -> +5.
        (D(2024, 3, 2), D(2024, 3, 3), 5),
    ],
)
def test_the_cap_in_one_game_per_tournament(
    start: datetime.date, played: datetime.date, a_change: int
) -> None:
    event, players, month = _cap_world(outside=False, start=start, played=played)
    rows = _rows(event)
    # B, C and E keep the cap: 20 x (0 - .08) = -1.6 -> -2 each.
    assert [rows[n].change for n in "ABCE"] == [a_change, -2, -2, -2]
    assert [rows[n].change for n in "ABCE"] == [change_of(players[n], month).change for n in "ABCE"]


def test_only_the_events_games_with_the_period_holding_more() -> None:
    event, players, month = _cap_world(outside=True)
    rows = _rows(event)
    # The game against F is an event of its own (the month's games outside tournaments)
    # and keeps its cap: the close publishes 20 x (.15 + .08) = +4.6 -> +5 for A, the
    # tournament's part stays +3.
    assert change_of(players["A"], month).change == 5
    assert rows["A"].change == 3
    assert "F" not in rows


def test_a_tournament_begun_before_its_period_with_its_starts_ratings() -> None:
    # Begun 30 May 2025, ended 1 June: its games are June's (the end month's), scored
    # with the list before May (8.2.4). A (1600, 29 rated games) beats D (1500) outside
    # tournaments in May: K 40, 100 apart, 40 x (1 - .64) = +14.4 -> 1614, and the 30th
    # game: K 20 in June. In the tournament A beats B (1500) and C (1500), still 1600 vs
    # 1500 for the difference: 2 x 20 x .36 = +14.4 -> +14; B and C -7 each.
    owner = make_owner()
    club = make_club(owner)
    a = make_player(club, owner, "A", 1600, rated_games=29)
    b, c, d = (make_player(club, owner, name, 1500) for name in "BCD")
    event = _event(club, owner, D(2025, 5, 30), D(2025, 6, 1))
    play(club, owner, [(a, d, "1-0")], date=D(2025, 5, 20))
    play(club, owner, [(a, b, "1-0"), (a, c, "1-0")], date=D(2025, 6, 1), tournament=event)
    close(club, owner, "2025-05")
    rows = _rows(event)
    assert rows["A"].change is None
    assert rows["A"].change_note == "period not closed yet"
    close(club, owner, "2025-06")
    rows = _rows(event)
    assert change_of(a, "2025-05").change == 14
    assert [rows[n].change for n in "ABC"] == [14, -7, -7]
    assert [rows[p.name].change for p in (a, b, c)] == [
        change_of(p, "2025-06").change for p in (a, b, c)
    ]
    # Shown: the rating in force when the tournament began, before the May close.
    assert rows["A"].rating == 1600
