"""The live list and a player's live figure through the API: the close's preview, scoped
like the published list, filtered and ordered, as JSON and CSV, fresh after every game
write."""

from __future__ import annotations

import csv
import datetime
import io

import pytest

from players.models import RatingChange
from tests.api.conftest import World, client_for
from tournaments.models import Game
from tournaments.services import game_create, period_close, period_preview

pytestmark = pytest.mark.django_db
LIVE = "/api/v1/clubs/{club}/lists/standard/live/"


def _preview_rated(cw) -> dict[int, int]:  # type: ignore[no-untyped-def]
    """Player -> the rating the period's close would publish (rated players only)."""
    period = Game.objects.get(pk=cw.open_game.pk).period
    changes = period_preview(period=period).changes
    return {c.player_id: c.rating_after for c in changes if c.rating_after is not None}


def _live_rated(rows: list[dict]) -> dict[int, int]:
    return {r["player"]: r["live_rating"] for r in rows if r["live_rating"] is not None}


def test_the_live_list_is_the_preview_ranked_with_a_notice(world: World) -> None:
    cw = world.south
    body = client_for(None).get(LIVE.format(club=cw.slug)).json()
    assert body["period"] == "2026-02"
    assert body["published"] == "2026-03-01"
    assert "2026-02" in body["notice"]
    assert "not published" in body["notice"]
    rows = body["results"]
    assert _live_rated(rows) == _preview_rated(cw)
    ratings = [r["live_rating"] for r in rows if r["live_rating"] is not None]
    assert ratings == sorted(ratings, reverse=True)
    first = rows[0]
    assert set(first) >= {"rank", "player", "name", "rating", "live_rating", "live_change", "games"}
    assert first["rank"] == 1
    for row in rows:
        if row["rating"] is not None and row["live_rating"] is not None:
            assert row["live_rating"] - row["rating"] == row["live_change"]


def test_a_private_clubs_live_list_is_for_its_members(world: World) -> None:
    url = LIVE.format(club=world.north.slug)
    assert client_for(None).get(url).status_code == 404
    assert client_for(world.stranger).get(url).status_code == 404
    assert client_for(world.north.users["viewer"]).get(url).status_code == 200
    assert (
        client_for(world.north.users["viewer"]).get(url.replace("live/", "live.csv")).status_code
        == 200
    )


def test_filters_and_ordering(world: World) -> None:
    cw = world.south
    url = LIVE.format(club=cw.slug)
    named = client_for(None).get(url, {"name": "player 2"}).json()["results"]
    assert [r["player"] for r in named] == [cw.players[1].pk]
    by_name = client_for(None).get(url, {"ordering": "-name"}).json()["results"]
    assert [r["name"] for r in by_name] == sorted((r["name"] for r in by_name), reverse=True)
    played = client_for(None).get(url, {"played": "true"}).json()["results"]
    assert played
    assert all(r["games"] > 0 for r in played)


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"ordering": "k_factor"}, "ordering"),
        ({"played": "yes"}, "played"),
        ({"active": "1"}, "active"),
    ],
)
def test_bad_filters_are_a_400_naming_the_field(world: World, query: dict, field: str) -> None:
    response = client_for(None).get(LIVE.format(club=world.south.slug), query)
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]


def test_the_csv_has_every_row(world: World) -> None:
    cw = world.south
    response = client_for(None).get(f"/api/v1/clubs/{cw.slug}/lists/standard/live.csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    json_rows = client_for(None).get(LIVE.format(club=cw.slug)).json()["results"]
    assert [int(r["player"]) for r in rows] == [r["player"] for r in json_rows]
    assert {r["period"] for r in rows} == {"2026-02"}


def test_a_game_entered_makes_the_next_answer_fresh(world: World) -> None:
    cw = world.south
    url = LIVE.format(club=cw.slug)
    before = client_for(None).get(url).json()
    p1, p2 = cw.players[0], cw.players[1]
    game_create(
        club=cw.club,
        by=cw.users["arbiter"],
        list="standard",
        date=datetime.date(2026, 2, 20),
        white=p1.pk,
        black=p2.pk,
        result="0-1",
    )
    after = client_for(None).get(url).json()
    assert after["games_count"] == before["games_count"] + 1
    assert _live_rated(after["results"]) == _preview_rated(cw)
    assert _live_rated(after["results"]) != _live_rated(before["results"])


def test_the_player_live_figure_and_each_games_contribution(world: World) -> None:
    cw = world.south
    p1 = cw.players[0]
    body = client_for(None).get(f"/api/v1/clubs/{cw.slug}/players/{p1.pk}/live/").json()
    assert body["period"] == "2026-02"
    assert body["list"] == "standard"
    assert body["live"]["player"] == p1.pk
    assert len(body["games"]) == 2
    assert all(g["change"] is not None for g in body["games"])
    assert body["total"] == body["live"]["live_change"]
    assert round(sum(g["change"] for g in body["games"])) == body["live"]["live_change"]
    assert "2026-02" in body["notice"]


def test_the_player_live_figure_on_an_unknown_list_is_a_400(world: World) -> None:
    cw = world.south
    response = client_for(None).get(
        f"/api/v1/clubs/{cw.slug}/players/{cw.players[0].pk}/live/?list=nope"
    )
    assert response.status_code == 400
    assert "list" in response.json()["error"]["fields"]


def test_live_ratings_equal_what_the_close_publishes(world: World) -> None:
    cw = world.south
    live = client_for(None).get(LIVE.format(club=cw.slug), {"page_size": 500}).json()["results"]
    period = Game.objects.get(pk=cw.open_game.pk).period
    period_close(period=period, by=cw.users["officer"], early=True)
    published = dict(
        RatingChange.objects.filter(period=period, current=True).values_list(
            "player_id", "rating_after"
        )
    )
    assert {r["player"]: r["live_rating"] for r in live} == {
        r["player"]: published[r["player"]] for r in live
    }
    after = client_for(None).get(LIVE.format(club=cw.slug)).json()
    assert after["period"] is None
    assert after["results"] == []
