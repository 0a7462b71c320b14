"""Issue 35's figures through the close, its preview and the live list: a tournament from
2024-02-25 to 2024-03-03 keeps the rules of its start for every player in it (section 10
of shared/reference/fide-rules.md), the floor of 1000 included, not the March list's 1400.

- A newcomer scoring 1 of 5 against 1500s: 2014's formula, Ra 1500, p .20, dp -240 ->
  1260, at least the floor of 1000 (under March's floor of 1400: no rating).
- Rated players at 1420 (three losses to 1420s, K 20: -30) and 1405 (one loss to a 1405:
  -10) go to 1390 and 1395 (under March's floor: they drop off the list).
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from players.models import RatingList
from players.rating.period import PeriodEvent
from tests.tournaments.helpers import (
    change_of,
    close,
    make_club,
    make_owner,
    make_player,
    period_of,
    play,
)
from tournaments.services import period_preview, tournament_create
from tournaments.services.live import live_list

pytestmark = pytest.mark.django_db
D = datetime.date


def _club(began: D) -> tuple[Any, Any, dict[str, Any]]:
    owner = make_owner()
    club = make_club(owner)
    people = {
        "new": make_player(club, owner, "Nova", None, rated_games=0),
        "a": make_player(club, owner, "Alder", 1420),
        "b": make_player(club, owner, "Birch", 1405),
        "b2": make_player(club, owner, "Beech", 1405),
    }
    for i in range(5):
        people[f"o{i}"] = make_player(club, owner, f"Oak {i}", 1500)
    for i in range(3):
        people[f"c{i}"] = make_player(club, owner, f"Cedar {i}", 1420)
    event = tournament_create(
        club=club,
        by=owner,
        name="Leap Open",
        rating_list="standard",
        start_date=began,
        end_date=D(2024, 3, 3),
        rounds=5,
    )
    games = [(people["new"], people[f"o{i}"], "1-0" if i == 0 else "0-1") for i in range(5)]
    games += [(people["a"], people[f"c{i}"], "0-1") for i in range(3)]
    games.append((people["b"], people["b2"], "0-1"))
    play(club, owner, games, date=D(2024, 3, 2), tournament=event)
    return owner, club, people


def test_a_tournament_begun_in_february_keeps_the_floor_of_1000() -> None:
    owner, club, people = _club(D(2024, 2, 25))
    period = period_of(club, "2024-03")
    preview = {c.player_id: c.rating_after for c in period_preview(period=period).changes}
    live = live_list(
        rating_list=RatingList.objects.select_related("club").get(club=club, slug="standard")
    )

    close(club, owner, "2024-03")

    figures = {"new": 1260, "a": 1390, "b": 1395}
    for key, rating in figures.items():
        player = people[key]
        assert change_of(player, "2024-03").rating_after == rating, key
        assert preview[player.pk] == rating, key
        row = live.row_of(player.pk)
        assert row is not None
        assert row.live_rating == rating, key
    assert change_of(people["new"], "2024-03").event == PeriodEvent.FIRST_RATING


def test_a_tournament_begun_on_1_march_has_the_floor_of_1400() -> None:
    owner, club, people = _club(D(2024, 3, 1))
    close(club, owner, "2024-03")
    # 2024's formula: Ra (7,500 + 3,600) / 7 = 1585.71, p 2/7 = .29, dp -158 -> 1428.
    assert change_of(people["new"], "2024-03").rating_after == 1428
    assert change_of(people["a"], "2024-03").rating_after is None
    assert change_of(people["b"], "2024-03").event == PeriodEvent.BELOW_FLOOR


def test_the_way_to_a_first_rating_names_the_floor_of_the_start() -> None:
    # Short of a first rating: the live list's sentence says which floor the close applies
    # (that of 25 February, not March's).
    owner = make_owner()
    club = make_club(owner)
    newcomer = make_player(club, owner, "Nova", None, rated_games=0)
    oaks = [make_player(club, owner, f"Oak {i}", 1100) for i in range(5)]
    event = tournament_create(
        club=club,
        by=owner,
        name="Leap Open",
        rating_list="standard",
        start_date=D(2024, 2, 25),
        end_date=D(2024, 3, 3),
        rounds=5,
    )
    games = [(newcomer, o, "1-0" if o == oaks[0] else "0-1") for o in oaks]
    play(club, owner, games, date=D(2024, 3, 2), tournament=event)
    live = live_list(
        rating_list=RatingList.objects.select_related("club").get(club=club, slug="standard")
    )
    row = live.row_of(newcomer.pk)
    assert row is not None
    close(club, owner, "2024-03")
    # 1 of 5 against 1100s: 2014's 1100 - 240 = 860, below the floor of 1000 (2024's
    # formula would give 1142, below 1400).
    assert change_of(newcomer, "2024-03").rating_after is None
    assert "1000" in row.first_rating_missing
    assert "1400" not in row.first_rating_missing
