"""FIDE 8.3.1's one upgrade per tournament (January 2022 to February 2024) through the
close, on both sides of each date, by each tournament's start.

Player A (2000, K 20) beats B (1500), C (1450) and E (1400) in one tournament. Table
8.1.2: D 400 -> .92, 500 -> .96, 550 -> .97. One upgrade (the 600 game counts 400): 20 x
(3 - 2.85) = +3; the cap in every game: 20 x (3 - 2.76) = +4.8 -> +5. The engine's tests
(tests/rating/test_cap_once_per_event.py) hold the rule's details.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from players.models import Player, RatingList, RatingRun
from players.services import rating_list_update
from tests.tournaments.helpers import change_of, close, make_club, make_owner, make_player, play
from tournaments.services import tournament_create

pytestmark = pytest.mark.django_db
D = datetime.date
ONE_UPGRADE, EVERY_GAME = 3, 5


def _month(club: Any, owner: Any, start: datetime.date, played: datetime.date) -> int:
    """A's change for a tournament begun on ``start``, played and closed in ``played``'s
    month."""
    a = make_player(club, owner, f"A{start}", 2000)
    opponents = [make_player(club, owner, f"O{start}{r}", r) for r in (1500, 1450, 1400)]
    event = tournament_create(
        club=club,
        by=owner,
        name=f"Open {start}",
        rating_list="standard",
        start_date=start,
        end_date=played,
    )
    play(club, owner, [(a, o, "1-0") for o in opponents], date=played, tournament=event)
    label = f"{played:%Y-%m}"
    close(club, owner, label)
    change = change_of(a, label).change
    assert change is not None
    return change


@pytest.mark.parametrize(
    ("start", "played", "change", "rules"),
    [
        (D(2021, 12, 30), D(2021, 12, 31), EVERY_GAME, "FIDE 2017-07"),
        (D(2022, 1, 1), D(2022, 1, 2), ONE_UPGRADE, "FIDE 2022-01"),
        (D(2024, 2, 28), D(2024, 2, 29), ONE_UPGRADE, "FIDE 2022-10"),
        (D(2024, 3, 1), D(2024, 3, 2), EVERY_GAME, "FIDE 2024-03"),
    ],
)
def test_one_upgrade_per_tournament_by_date(
    start: datetime.date, played: datetime.date, change: int, rules: str
) -> None:
    owner = make_owner()
    club = make_club(owner)
    RatingList.objects.filter(club=club).update(adjust_march_2024=False)
    assert _month(club, owner, start, played) == change
    assert RatingRun.objects.get(kind="close").summary["rules"] == rules


def test_a_tournament_begun_in_february_2024_keeps_the_rule_in_march() -> None:
    owner = make_owner()
    club = make_club(owner)
    RatingList.objects.filter(club=club).update(adjust_march_2024=False)
    # Nothing else was played in February: the March close may follow.
    assert _month(club, owner, D(2024, 2, 27), D(2024, 3, 3)) == ONE_UPGRADE


def test_a_list_pinned_to_todays_rules_caps_every_game_in_2023() -> None:
    owner = make_owner()
    club = make_club(owner)
    for rating_list in RatingList.objects.filter(club=club):
        rating_list_update(rating_list=rating_list, by=owner, fide_rules="2025-10")
    assert _month(club, owner, D(2023, 5, 2), D(2023, 5, 3)) == EVERY_GAME


@pytest.mark.parametrize(
    ("start", "counted", "change"),
    [(D(2023, 5, 2), [500, 550, 400], ONE_UPGRADE), (D(2024, 3, 2), [400, 400, 400], EVERY_GAME)],
)
def test_the_player_page_scores_each_game_as_the_close_did(
    start: datetime.date, counted: list[int], change: int
) -> None:
    # The page's per-game lines (the 1500, 1450 and 1400 games, in that order) use the
    # rules of the month, the one upgrade included, and add up to the published change.
    from ratings_site.pages.games import player_games
    from ratings_site.pages.player import player_lists

    owner = make_owner()
    club = make_club(owner)
    RatingList.objects.filter(club=club).update(adjust_march_2024=False)
    assert _month(club, owner, start, start + datetime.timedelta(days=1)) == change
    player = Player.objects.get(name=f"A{start}")
    lists = player_lists(player=player)
    games = player_games(player=player, lists=lists.lists, history=lists.history)
    (period,) = games.periods.values()
    assert [detail.line.figure for detail in period.games] == counted  # type: ignore[union-attr]
    assert period.engine_change == period.change.change == change
