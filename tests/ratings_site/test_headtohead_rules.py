"""The head-to-head page scores each game as the close does: with the FIDE rules in force
at its tournament's start (fide_rules, a list by date) and, from January 2022 to February
2024, the 400-point cap in one game per tournament (8.3.1 then).

Figures by hand from table 8.1.2 (../shared/reference/fide-rules.md), the higher-rated
player's PD: D 400 -> .92 (392-411), 500 -> .96 (485-517), 550 -> .97 (518-559), 660 -> .99
(620-735); the lower-rated player has 1 - PD.
"""

from __future__ import annotations

import datetime
from fractions import Fraction
from typing import Any

import pytest

from players.models import Club, Player
from ratings_site.pages import headtohead
from ratings_site.pages.headtohead import head_to_head
from tests.tournaments.helpers import change_of, close, make_club, make_owner, make_player, play
from tournaments.models import Tournament
from tournaments.services import tournament_create

pytestmark = pytest.mark.django_db
D = datetime.date


def _event(
    club: Club, owner: Any, name: str, start: datetime.date, end: datetime.date
) -> Tournament:
    return tournament_create(
        club=club,
        by=owner,
        name=name,
        rating_list="standard",
        start_date=start,
        end_date=end,
    )


def _expected(club: Club, player: Player, opponent: Player) -> list[Fraction | float | None]:
    found = head_to_head(club=club, player_id=player.pk, opponent_id=opponent.pk)
    return [row.expected for row in found.rows]


@pytest.mark.parametrize(
    ("start", "expected", "change"),
    [
        # 2023: the 2650 exception is not in force yet (from October 2025), so 660 counts
        # 400: PD .92. A has reached 2400 (K 10): 10 x (1 - .92) = +0.8 -> +1.
        (D(2023, 5, 2), Fraction(92, 100), 1),
        # Under today's rules A (2650+) uses the real 660: PD .99, 10 x .01 = +0.1 -> 0.
        (D(2025, 11, 2), Fraction(99, 100), 0),
    ],
)
def test_each_game_under_the_rules_of_its_tournaments_start(
    start: datetime.date, expected: Fraction, change: int
) -> None:
    owner = make_owner()
    club = make_club(owner)
    a = make_player(club, owner, "A", 2660)
    b = make_player(club, owner, "B", 2000)
    played = start + datetime.timedelta(days=1)
    event = _event(club, owner, "Open", start, played)
    play(club, owner, [(a, b, "1-0")], date=played, tournament=event)
    assert _expected(club, a, b) == [expected]
    # B is below 2650 under any rules: -660 counts -400, 1 - .92.
    assert _expected(club, b, a) == [Fraction(8, 100)]
    close(club, owner, f"{played:%Y-%m}")
    assert change_of(a, f"{played:%Y-%m}").change == change


@pytest.mark.parametrize(
    ("start", "played", "in_event", "b", "c", "e"),
    [
        # One upgrade, for the largest difference (the 600 game): the others count in full.
        (
            D(2023, 5, 2),
            D(2023, 5, 3),
            True,
            Fraction(96, 100),
            Fraction(97, 100),
            Fraction(92, 100),
        ),
        # A month's games outside tournaments are one event.
        (
            D(2023, 5, 2),
            D(2023, 5, 3),
            False,
            Fraction(96, 100),
            Fraction(97, 100),
            Fraction(92, 100),
        ),
        # Begun in February 2024, played in March: the rules of its start.
        (
            D(2024, 2, 27),
            D(2024, 3, 3),
            True,
            Fraction(96, 100),
            Fraction(97, 100),
            Fraction(92, 100),
        ),
        # From March 2024 the cap counts in every game again.
        (
            D(2024, 3, 2),
            D(2024, 3, 3),
            True,
            Fraction(92, 100),
            Fraction(92, 100),
            Fraction(92, 100),
        ),
    ],
)
def test_the_cap_in_one_game_per_tournament(
    start: datetime.date,
    played: datetime.date,
    in_event: bool,
    b: Fraction,
    c: Fraction,
    e: Fraction,
) -> None:
    # A (2000) beats B (1500), C (1450) and E (1400): 500, 550 and 600 apart.
    owner = make_owner()
    club = make_club(owner)
    a = make_player(club, owner, "A", 2000)
    opponents = [
        make_player(club, owner, name, r) for name, r in (("B", 1500), ("C", 1450), ("E", 1400))
    ]
    event = _event(club, owner, "Open", start, played) if in_event else None
    play(club, owner, [(a, o, "1-0") for o in opponents], date=played, tournament=event)
    assert [_expected(club, a, o) for o in opponents] == [[b], [c], [e]]
    # The lower-rated players keep the cap in every game: 1 - .92.
    assert [_expected(club, o, a) for o in opponents] == [[Fraction(8, 100)]] * 3


def test_the_one_upgrade_is_counted_per_tournament(django_assert_max_num_queries: Any) -> None:
    # A (2000) beats E (1400) in one tournament and B (1500) in another, the same month:
    # each is the only game beyond 400 in its event, so each keeps the cap (PD .92).
    owner = make_owner()
    club = make_club(owner)
    a = make_player(club, owner, "A", 2000)
    b = make_player(club, owner, "B", 1500)
    e = make_player(club, owner, "E", 1400)
    first = _event(club, owner, "First", D(2023, 5, 2), D(2023, 5, 3))
    second = _event(club, owner, "Second", D(2023, 5, 9), D(2023, 5, 10))
    play(club, owner, [(a, e, "1-0")], date=D(2023, 5, 3), tournament=first)
    play(club, owner, [(a, b, "1-0")], date=D(2023, 5, 10), tournament=second)
    # The players, their games, A's other games of the event and the ratings in force.
    with django_assert_max_num_queries(6):
        assert _expected(club, a, b) == [Fraction(92, 100)]
    assert _expected(club, a, e) == [Fraction(92, 100)]


def test_a_game_gone_between_the_two_reads_is_shown_unscored(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # May 2023 (the cap once per event) reads the player's event a second time; a game
    # deleted in between is in the first read only. The page shows it without figures
    # instead of failing with a KeyError (a 500).
    owner = make_owner()
    club = make_club(owner)
    a, b = make_player(club, owner, "A", 2000), make_player(club, owner, "B", 1500)
    event = _event(club, owner, "Open", D(2023, 5, 2), D(2023, 5, 4))
    play(club, owner, [(a, b, "1-0"), (b, a, "1/2-1/2")], date=D(2023, 5, 3), tournament=event)
    original = headtohead._games_to_score

    def one_game_gone(*args: Any, **kwargs: Any) -> Any:
        by_period = original(*args, **kwargs)
        return {period: games[1:] for period, games in by_period.items()}

    monkeypatch.setattr(headtohead, "_games_to_score", one_game_gone)
    found = head_to_head(club=club, player_id=a.pk, opponent_id=b.pk)
    assert len(found.rows) == 2
    assert [row.expected is None for row in found.rows] == [True, False]
