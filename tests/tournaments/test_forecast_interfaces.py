"""The forecasts' interfaces: the entry list's API (officer writes, every field checked),
the forecast's page, CSV and API, the next game's page and API, who may see them
(anonymous, member, another club's member), bad input naming the field, and the 409
beyond 100 entrants. The figures themselves: test_forecast_close.py."""

from __future__ import annotations

import csv
import datetime
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from players.models import Club, Player, Role
from players.services import club_create, membership_set, player_create, players_add_bulk
from tests.tournaments.helpers import make_player
from tournaments.models import Tournament, TournamentEntry
from tournaments.services import tournament_create, tournament_entries_set
from tournaments.services.imports import import_trf

pytestmark = pytest.mark.django_db


@dataclass
class Side:
    club: Club
    owner: Any
    officer: Any
    arbiter: Any
    players: list[Player]
    tournament: Tournament


def _side(slug: str, *, public: bool) -> Side:
    users = get_user_model().objects
    owner = users.create_user(f"{slug}-owner")
    officer = users.create_user(f"{slug}-officer")
    arbiter = users.create_user(f"{slug}-arbiter")
    club = club_create(name=slug.title(), slug=slug, public=public, by=owner)
    membership_set(club=club, user=officer, role=Role.OFFICER, by=owner)
    membership_set(club=club, user=arbiter, role=Role.ARBITER, by=owner)
    players = [
        make_player(club, owner, f"{slug.title()} {rating}", rating)
        for rating in (2150, 1900, 1720, 1480)
    ]
    players.append(player_create(club=club, by=owner, name=f"{slug.title()} Newcomer"))
    tournament = tournament_create(
        club=club,
        by=owner,
        name=f"{slug.title()} Open",
        rating_list="standard",
        start_date=datetime.date(2026, 11, 7),
        end_date=datetime.date(2026, 11, 8),
    )
    return Side(club, owner, officer, arbiter, players, tournament)


@pytest.fixture
def sides() -> tuple[Side, Side]:
    return _side("north", public=False), _side("south", public=True)


def _api(user: Any = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def _entries_url(side: Side) -> str:
    return f"/api/v1/clubs/{side.club.slug}/tournaments/{side.tournament.pk}/entries/"


def _forecast_url(side: Side) -> str:
    return f"/api/v1/clubs/{side.club.slug}/tournaments/{side.tournament.pk}/forecast/"


def _entered(side: Side) -> Side:
    tournament_entries_set(
        tournament=side.tournament, by=side.owner, player_ids=[p.pk for p in side.players]
    )
    return side


# -- the entry list's API ------------------------------------------------------------------


def test_the_officer_replaces_the_entry_list(sides: tuple[Side, Side]) -> None:
    north, _ = sides
    ids = [p.pk for p in north.players[:3]]
    answer = _api(north.officer).put(_entries_url(north), {"players": ids}, format="json")
    assert answer.status_code == 200, answer.content
    assert sorted(e["player"] for e in answer.json()["entries"]) == sorted(ids)
    again = _api(north.officer).put(_entries_url(north), {"players": ids[1:]}, format="json")
    assert again.status_code == 200
    kept = TournamentEntry.objects.filter(tournament=north.tournament)
    assert sorted(kept.values_list("player_id", flat=True)) == sorted(ids[1:])
    read = _api(north.arbiter).get(_entries_url(north))
    assert len(read.json()["entries"]) == 2


def test_entry_list_writes_need_the_officer(sides: tuple[Side, Side]) -> None:
    north, south = sides
    body = {"players": [north.players[0].pk]}
    assert _api().put(_entries_url(north), body, format="json").status_code == 401
    assert _api(north.arbiter).put(_entries_url(north), body, format="json").status_code == 403
    # Another club's officer does not see a private club.
    assert _api(south.officer).put(_entries_url(north), body, format="json").status_code == 404
    assert not TournamentEntry.objects.exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "players"),
        ({"players": "1"}, "players"),
        ({"players": ["x"]}, "players"),
        ({"players": [0]}, "players"),
        ({"players": [2**70]}, "players"),
    ],
)
def test_bad_entry_lists_name_the_field(sides: tuple[Side, Side], body: Any, field: str) -> None:
    north, _ = sides
    answer = _api(north.officer).put(_entries_url(north), body, format="json")
    assert answer.status_code == 400
    assert any(name.startswith(field) for name in answer.json()["error"]["fields"])


def test_players_of_another_club_or_twice_are_refused(sides: tuple[Side, Side]) -> None:
    north, south = sides
    officer = _api(north.officer)
    foreign = officer.put(_entries_url(north), {"players": [south.players[0].pk]}, format="json")
    assert foreign.status_code == 400
    assert "players" in foreign.json()["error"]["fields"]
    twice = [north.players[0].pk, north.players[0].pk]
    assert officer.put(_entries_url(north), {"players": twice}, format="json").status_code == 400
    assert not TournamentEntry.objects.exists()


def test_an_unknown_tournament_is_404(sides: tuple[Side, Side]) -> None:
    north, south = sides
    url = f"/api/v1/clubs/{north.club.slug}/tournaments/{south.tournament.pk}/entries/"
    assert _api(north.officer).get(url).status_code == 404


# -- the tournament's forecast -------------------------------------------------------------


def test_the_forecast_api_by_who_may_see_the_club(sides: tuple[Side, Side]) -> None:
    north, south = (_entered(side) for side in sides)
    assert _api().get(_forecast_url(north)).status_code == 404  # private: hidden
    assert _api(south.officer).get(_forecast_url(north)).status_code == 404
    member = _api(north.arbiter).get(_forecast_url(north))
    assert member.status_code == 200
    body = member.json()
    assert body["period"] == "2026-11"
    assert body["rules"].startswith("FIDE")
    top = body["entrants"][0]
    assert top["rating"] == 2150
    assert len(top["scores"]) == 9  # 0, 1/2, ... 4
    assert top["scores"][-1]["score"] == 4
    assert top["scores"][0]["change"] < 0 < top["scores"][-1]["change"]
    newcomer = body["entrants"][-1]
    assert newcomer["rating"] is None
    assert newcomer["expected"] is None
    assert _api().get(_forecast_url(south)).status_code == 200  # public: anyone


def test_the_forecast_follows_the_entry_list(sides: tuple[Side, Side]) -> None:
    _, south = sides
    first = _api().get(_forecast_url(south)).json()
    assert first["entrants"] == []
    _entered(south)
    assert len(_api().get(_forecast_url(south)).json()["entrants"]) == 5


def test_more_than_100_entrants_is_a_conflict(sides: tuple[Side, Side]) -> None:
    _, south = sides
    crowd = players_add_bulk(
        club=south.club,
        by=south.owner,
        players=[{"name": f"Crowd {i}", "ratings": []} for i in range(101)],
    )
    tournament_entries_set(
        tournament=south.tournament, by=south.owner, player_ids=[p.pk for p in crowd]
    )
    answer = _api().get(_forecast_url(south))
    assert answer.status_code == 409
    assert "100" in answer.json()["error"]["message"]
    page = Client().get(f"/clubs/south/tournaments/{south.tournament.pk}/forecast/")
    assert page.status_code == 409


def test_the_forecast_page_and_its_csv(sides: tuple[Side, Side]) -> None:
    _, south = (_entered(side) for side in sides)
    client = Client()
    base = f"/clubs/south/tournaments/{south.tournament.pk}/"
    page = client.get(base + "forecast/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="forecast"' in html
    assert "South 2150" in html
    assert "forecast.csv" in html
    assert 'id="forecast-link"' in client.get(base).content.decode()
    download = client.get(base + "forecast.csv")
    assert download.status_code == 200
    assert download["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(download.content.decode())))
    assert len(rows) == 5 * 9
    top = [r for r in rows if r["name"] == "South 2150"]
    assert [r["score"] for r in top] == ["0", "0.5", "1", "1.5", "2", "2.5", "3", "3.5", "4"]
    assert int(top[-1]["change"]) > 0


def test_private_forecast_pages_need_a_member(sides: tuple[Side, Side]) -> None:
    north, south = (_entered(side) for side in sides)
    url = f"/clubs/north/tournaments/{north.tournament.pk}/forecast/"
    assert Client().get(url).status_code == 302  # to sign in
    stranger = Client()
    stranger.force_login(south.officer)
    assert stranger.get(url).status_code == 404
    assert stranger.get(url.replace("forecast/", "forecast.csv")).status_code == 404
    member = Client()
    member.force_login(north.arbiter)
    assert member.get(url).status_code == 200
    assert member.get(url.replace("forecast/", "forecast.csv")).status_code == 200
    other = f"/clubs/north/tournaments/{south.tournament.pk}/forecast/"
    assert member.get(other).status_code == 404


# -- the next game -------------------------------------------------------------------------


def _next_url(side: Side, player: Player, query: str) -> str:
    return f"/api/v1/clubs/{side.club.slug}/players/{player.pk}/forecast/?{query}"


def test_the_next_game_api(sides: tuple[Side, Side]) -> None:
    _, south = sides
    me, opponent = south.players[1], south.players[0]
    answer = _api().get(_next_url(south, me, f"opponent={opponent.pk}"))
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["opponent"] == opponent.pk
    assert body["opponent_rating"] == 2150
    scores = body["player"]["scores"]
    assert [s["score"] for s in scores] == [0, 0.5, 1]
    assert scores[0]["change"] < scores[1]["change"] < scores[2]["change"]
    assert 0 < body["player"]["expected"] < 0.5


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("", "opponent"),
        ("opponent=abc", "opponent"),
        ("opponent=0", "opponent"),
        ("opponent=SELF", "opponent"),
        ("opponent=FOREIGN", "opponent"),
        ("opponent=OTHER&list=bullet", "list"),
    ],
)
def test_bad_next_game_input_names_the_field(
    sides: tuple[Side, Side], query: str, field: str
) -> None:
    north, south = sides
    me = south.players[0]
    query = (
        query.replace("SELF", str(me.pk))
        .replace("FOREIGN", str(north.players[0].pk))
        .replace("OTHER", str(south.players[1].pk))
    )
    answer = _api().get(_next_url(south, me, query))
    assert answer.status_code == 400
    assert field in answer.json()["error"]["fields"]
    page = Client().get(f"/clubs/south/players/{me.pk}/next-game/?{query}")
    assert page.status_code == 400 if query else 200


def test_the_next_game_page(sides: tuple[Side, Side]) -> None:
    north, south = sides
    me, opponent = south.players[2], south.players[3]
    client = Client()
    assert 'id="next-game-link"' in client.get(f"/clubs/south/players/{me.pk}/").content.decode()
    blank = client.get(f"/clubs/south/players/{me.pk}/next-game/")
    assert blank.status_code == 200
    assert 'id="id_opponent"' in blank.content.decode()
    page = client.get(f"/clubs/south/players/{me.pk}/next-game/?opponent={opponent.pk}")
    html = page.content.decode()
    assert page.status_code == 200
    assert 'id="next-game"' in html
    assert "Win" in html
    assert "Loss" in html
    private = f"/clubs/north/players/{north.players[0].pk}/next-game/"
    assert client.get(private).status_code == 302
    assert client.get(f"/clubs/south/players/{north.players[0].pk}/next-game/").status_code == 404
    assert _api().get(_next_url(north, north.players[0], "opponent=1")).status_code == 404


# -- filled from a TRF ---------------------------------------------------------------------


def test_a_trf_import_enters_its_players() -> None:
    side = _side("east", public=True)
    data = (Path(settings.BASE_DIR) / "docs" / "examples" / "northgate-autumn.trf").read_bytes()
    report = import_trf(club=side.club, rating_list="standard", data=data, by=side.owner)
    assert report.stored
    tournament = Tournament.objects.get(pk=report.tournaments[0].id)
    entered = TournamentEntry.objects.filter(tournament=tournament).count()
    assert entered == 6


# -- the admin's inline ----------------------------------------------------------------------


def _management(prefix: str, total: int) -> dict[str, str]:
    return {
        f"{prefix}-TOTAL_FORMS": str(total),
        f"{prefix}-INITIAL_FORMS": "0",
        f"{prefix}-MIN_NUM_FORMS": "0",
        f"{prefix}-MAX_NUM_FORMS": "1000",
    }


def test_the_officer_enters_players_in_the_admin(sides: tuple[Side, Side]) -> None:
    north, _ = sides
    north.officer.is_staff = True
    north.officer.save()
    client = Client()
    client.force_login(north.officer)
    tournament = north.tournament
    url = f"/admin/tournaments/tournament/{tournament.pk}/change/"
    assert client.get(url).status_code == 200
    data = {
        "name": tournament.name,
        "rating_list": tournament.rating_list_id,
        "start_date": tournament.start_date.isoformat(),
        "end_date": tournament.end_date.isoformat(),
        "rounds": "",
        "city": "",
        **_management("games", 0),
        **_management("entries", 2),
        "entries-0-player": north.players[0].pk,
        "entries-1-player": north.players[4].pk,
    }
    answer = client.post(url, data)
    assert answer.status_code == 302, answer.context and answer.context.get("errors")
    entered = TournamentEntry.objects.filter(tournament=tournament)
    assert sorted(entered.values_list("player_id", flat=True)) == sorted(
        [north.players[0].pk, north.players[4].pk]
    )
