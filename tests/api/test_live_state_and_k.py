"""The live answers carry what the close would publish: the system's state after the
period (Glicko-2's RD and volatility) and the K the close records, in the list and in the
player's answer; and a K override on a list that has never closed takes effect from the
next period to close, as the API says."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from players.models import PlayerRating, RatingChange, RatingList
from players.rating.months import add_months
from players.services import club_create, k_override_set, player_create, rating_list_create
from tests.api.conftest import client_for
from tests.tournaments.helpers import close, make_club, make_owner, make_player, period_of, play
from tournaments.services.live import live_list

pytestmark = pytest.mark.django_db
OCT = datetime.date(2026, 10, 5)


def _live_rows(club: str, slug: str, by: Any) -> dict[int, dict[str, Any]]:
    url = f"/api/v1/clubs/{club}/lists/{slug}/live/"
    rows = client_for(by).get(url, {"page_size": 100}).json()["results"]
    return {row["player"]: row for row in rows}


def _player_live(club: str, player: int, slug: str, by: Any) -> dict[str, Any]:
    url = f"/api/v1/clubs/{club}/players/{player}/live/"
    live: dict[str, Any] = client_for(by).get(url, {"list": slug}).json()["live"]
    return live


def _published(club: Any, month: str, slug: str) -> dict[int, tuple[Any, ...]]:
    return {
        row[0]: row[1:]
        for row in RatingChange.objects.filter(
            period=period_of(club, month, slug), current=True
        ).values_list("player_id", "state_after", "k_factor")
    }


def test_a_glicko2_live_state_is_the_state_the_close_publishes() -> None:
    owner = make_owner()
    club = club_create(name="Online", slug="online", by=owner)
    rating_list_create(club=club, by=owner, slug="online", kind="blitz", system="glicko2")
    ash, beech, chestnut = (
        player_create(
            club=club, by=owner, name=name, ratings=[{"list": "online", "rating": r, "rd": rd}]
        )
        for name, r, rd in [("Ash", 1500, 200), ("Beech", 1400, 30), ("Chestnut", 1550, 100)]
    )
    play(club, owner, [(ash, beech, "1-0"), (chestnut, ash, "1-0")], date=OCT, kind="online")
    rows = _live_rows("online", "online", owner)
    answer = _player_live("online", ash.pk, "online", owner)
    # The state in force stays beside it, as before.
    assert rows[ash.pk]["state"]["rd"] == 200
    assert rows[ash.pk]["live_state"]["rd"] < 200

    close(club, owner, "2026-10", kind="online")

    published = _published(club, "2026-10", "online")
    for player in (ash, beech, chestnut):
        state_after, _ = published[player.pk]
        assert rows[player.pk]["live_state"] == pytest.approx(state_after)
        assert rows[player.pk]["k_factor"] is None
    assert answer["live_state"] == pytest.approx(published[ash.pk][0])


def test_the_live_k_is_the_k_the_close_records() -> None:
    owner = make_owner()
    club = make_club(owner)
    young = make_player(club, owner, "Young", 1890, rated_games=10, birth_year=2012)
    old = make_player(club, owner, "Old", 2105)
    many = [make_player(club, owner, f"Opponent {i}", 1800) for i in range(20)]
    newcomer = make_player(club, owner, "New", None, rated_games=0)
    # Young plays 20 games: K 40, and the 700 rule makes it 35.
    play(club, owner, [(young, o, "1/2-1/2") for o in many], date=OCT)
    play(club, owner, [(old, newcomer, "1-0")], date=OCT)
    rows = _live_rows("club", "standard", owner)
    answer = _player_live("club", young.pk, "standard", owner)

    close(club, owner, "2026-10")

    published = _published(club, "2026-10", "standard")
    assert rows[young.pk]["k_factor"] == 35
    assert answer["k_factor"] == 35
    for player_id, row in rows.items():
        assert row["k_factor"] == published[player_id][1], player_id
    assert rows[newcomer.pk]["k_factor"] is None


def test_a_k_override_on_a_list_never_closed_rates_the_earliest_open_month() -> None:
    owner = make_owner()
    club = make_club(owner)
    today = datetime.date.today().replace(day=1)
    earlier = add_months(today, -2)
    a = make_player(club, owner, "Alder", 2000)
    b = make_player(club, owner, "Birch", 2000)
    play(club, owner, [(a, b, "1-0")], date=earlier.replace(day=3))
    rating_list = RatingList.objects.get(club=club, slug="standard")
    k_override_set(
        player_rating=PlayerRating.objects.get(player=a, rating_list=rating_list),
        k=30,
        note="Coach's request",
        by=owner,
    )
    live = live_list(rating_list=RatingList.objects.select_related("club").get(pk=rating_list.pk))
    row = live.row_of(a.pk)
    assert row is not None
    assert row.k_factor == 30
    assert _live_rows("club", "standard", owner)[a.pk]["k_factor"] == 30

    close(club, owner, earlier.strftime("%Y-%m"))

    change = RatingChange.objects.get(player=a, current=True)
    assert (change.k_factor, change.change) == (30, 15)
