"""The audit trail: an API edit, an admin edit, an import and a management command each
leave rows saying who, when, through what, and the values before and after, the bulk
writes (FIDE list, merge, a tournament's new dates) too; the close's bulk writes leave
none; GET .../audit/ reads them (officers, paginated, one club's rows only), and a merge
as one entry of its own (?model=merge)."""

from __future__ import annotations

import datetime
import io
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client

from players import services as player_services
from players.models import Player
from players.services import player_create
from tests.api.conftest import World, client_for
from tests.tournaments.fide_files import Row, txt
from tests.tournaments.helpers import make_club, make_owner, make_player, play
from tests.tournaments.import_world import build_import_world, read
from tournaments import services as game_services
from tournaments.models import Game, Tournament

pytestmark = pytest.mark.django_db

OCTOBER = datetime.date(2026, 10, 10)


def audit(user: Any, slug: str, **query: Any) -> dict[str, Any]:
    response = client_for(user).get(f"/api/v1/clubs/{slug}/audit/", query)
    assert response.status_code == 200, response.content
    return dict(response.json())


def test_api_edit_is_on_the_record(world: World) -> None:
    north = world.north
    game = north.open_game
    arbiter = north.users["arbiter"]
    response = client_for(arbiter).patch(
        f"/api/v1/clubs/north/games/{game.pk}/", {"result": "1/2-1/2"}, format="json"
    )
    assert response.status_code == 200, response.content
    body = audit(north.users["officer"], "north", model="game", object=game.pk)
    latest, created = body["results"][0], body["results"][-1]
    assert latest["action"] == "changed"
    assert latest["user"] == "north-arbiter"
    assert latest["via"] == "api"
    assert latest["changes"] == {"result": {"before": "0-1", "after": "1/2-1/2"}}
    assert latest["values"]["result"] == "1/2-1/2"
    assert created["action"] == "created"
    assert created["changes"]["result"] == {"before": None, "after": "0-1"}


def test_delete_and_membership_changes_are_recorded(world: World) -> None:
    north = world.north
    owner = north.users["owner"]
    client_for(owner).patch(
        "/api/v1/clubs/north/members/north-viewer/", {"role": "arbiter"}, format="json"
    )
    row = audit(owner, "north", model="membership")["results"][0]
    assert row["changes"] == {"role": {"before": "viewer", "after": "arbiter"}}
    client_for(owner).delete(f"/api/v1/clubs/north/tournaments/{north.tournament.pk}/")
    row = audit(owner, "north", model="tournament", object=north.tournament.pk)["results"][0]
    assert row["action"] == "deleted"
    assert row["values"]["name"] == "North Blitz Cup"
    client_for(owner).patch("/api/v1/clubs/north/lists/standard/", {"floor": 1200}, format="json")
    row = audit(owner, "north", model="list")["results"][0]
    assert row["changes"]["floor"]["after"] == 1200


def test_admin_edit_is_on_the_record(world: World) -> None:
    north = world.north
    owner = north.users["owner"]
    owner.is_staff = True
    owner.save()
    client = Client()
    client.force_login(owner)
    player = north.players[0]
    data = {
        "name": "Renamed In Admin",
        "birth_year": player.birth_year,
        "sex": "",
        "federation": "",
        "title": "",
        "fide_id": "",
        "active": "on",
        "member": "",
    }
    for prefix in ("ratings", "rating_changes", "k_changes"):
        data.update({f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"})
    response = client.post(f"/admin/players/player/{player.pk}/change/", data)
    assert response.status_code == 302, response.content[:300]
    row = audit(owner, "north", model="player", object=player.pk)["results"][0]
    assert (row["via"], row["user"]) == ("admin", "north-owner")
    assert row["changes"] == {"name": {"before": player.name, "after": "Renamed In Admin"}}
    # Staff read the same trail in the admin's history page.
    history = client.get(f"/admin/players/player/{player.pk}/history/")
    assert history.status_code == 200
    page = history.content.decode()
    # The record's latest row: the channel, who, the field from old to new value.
    latest = page.split('id="change-history"')[1].split("</tr>")[1]
    assert "<td>admin</td>" in latest
    assert "north-owner" in latest
    assert "&rarr;&nbsp;&nbsp;Renamed In Admin" in latest
    other = Client()
    other.force_login(world.south.users["owner"])
    world.south.users["owner"].is_staff = True
    world.south.users["owner"].save()
    assert other.get(f"/admin/players/player/{player.pk}/history/").status_code in (403, 404)


def test_import_is_on_the_record(world: World) -> None:
    imports = build_import_world()
    response = client_for(imports.arbiter).post(
        "/api/v1/clubs/riverton/imports/",
        {
            "format": "trf",
            "list": "standard",
            "file": SimpleUploadedFile("swiss.trf", read("swiss_9_rounds.trf")),
        },
        format="multipart",
    )
    assert response.status_code == 201, response.content
    club = imports.club
    games = Game.history.filter(club_id=club.pk)
    assert games.count() == Game.objects.filter(club=club).count() == 48
    assert set(games.values_list("via", "history_type", "history_user")) == {
        ("import", "+", imports.arbiter.pk)
    }
    created = response.json()["players_created"]
    players = Player.history.filter(club_id=club.pk)
    assert players.count() == len(created) == 12
    assert set(players.values_list("via", "history_user")) == {("import", imports.arbiter.pk)}
    tournament = Tournament.history.get(club_id=club.pk)
    assert (tournament.via, tournament.history_user_id) == ("import", imports.arbiter.pk)
    # Read back through the API as the club's officer would.
    game = Game.objects.filter(club=club).first()
    assert game is not None
    row = audit(imports.users["officer"], "riverton", model="game", object=game.pk)["results"][0]
    assert (row["action"], row["via"], row["user"]) == (
        "created",
        "import",
        imports.arbiter.username,
    )


def test_the_close_writes_no_audit_rows(world: World) -> None:
    north = world.north
    from players.models import RatingPeriod

    before = {model: model.history.count() for model in (Game, Player, Tournament)}
    period = RatingPeriod.objects.get(
        rating_list__club=north.club, rating_list__kind="standard", month__month=2
    )
    game_services.period_close(period=period, by=north.users["officer"])
    assert {model: model.history.count() for model in (Game, Player, Tournament)} == before


def test_audit_is_paginated_and_filtered_by_object(world: World) -> None:
    north = world.north
    body = audit(north.users["officer"], "north", model="game", page_size=2)
    assert len(body["results"]) == 2
    assert body["count"] == Game.history.filter(club_id=north.club.pk).count()
    one = audit(north.users["officer"], "north", model="game", object=north.closed_game.pk)
    assert {row["object"] for row in one["results"]} == {north.closed_game.pk}
    # Another club's object through this club: nothing.
    foreign = audit(north.users["officer"], "north", model="game", object=world.south.open_game.pk)
    assert foreign["count"] == 0


FIDE_ROWS = [
    Row(1503014, "Carlsen, Magnus", "NOR", "M", "GM", "", 2837, 2820, 2886, 1990),
    Row(1500010, "Berg, Ola", "NOR", "M", "FM", "", 2290, 2250, None, 1994),
]


def test_fide_list_import_records_the_players_it_changed() -> None:
    owner = make_owner("fide-owner")
    club = make_club(owner, "fide")
    magnus = player_create(club=club, by=owner, name="Magnus Carlsen", fide_id=1503014)
    gone = player_create(club=club, by=owner, name="Old Member", fide_id=999999)

    def post() -> int:
        upload = io.BytesIO(txt(FIDE_ROWS))
        upload.name = "players_list_foa.txt"
        response = client_for(owner).post(
            "/api/v1/clubs/fide/fide-list/",
            {"file": upload, "month": "2026-11"},
            format="multipart",
        )
        return int(response.status_code)

    assert post() == 200
    row = audit(owner, "fide", model="player", object=magnus.pk)["results"][0]
    assert (row["action"], row["via"], row["user"]) == ("changed", "api", "fide-owner")
    assert row["changes"]["title"] == {"before": "", "after": "GM"}
    assert row["changes"]["fide_standard"] == {"before": None, "after": 2837}
    assert row["values"]["fide_list_month"] == "2026-11-01"
    # A player the list does not have is not changed, so not recorded.
    assert list(Player.history.filter(id=gone.pk).values_list("history_type", flat=True)) == ["+"]
    # The same list again changes nobody: no rows.
    before = Player.history.filter(club_id=club.pk).count()
    assert post() == 200
    assert Player.history.filter(club_id=club.pk).count() == before


def test_merge_records_the_moved_games_and_the_deleted_duplicate() -> None:
    owner = make_owner("merge-owner")
    club = make_club(owner, "merge")
    kept = make_player(club, owner, "Viktor Aronsen", 1800)
    twin = make_player(club, owner, "Aronsen, Viktor", None, rated_games=0)
    other = make_player(club, owner, "Ola Berg", 1700)
    play(club, owner, [(twin, other, "1-0"), (other, twin, "0-1")], date=OCTOBER)
    moved_ids = set(Game.objects.filter(club=club).values_list("id", flat=True))
    play(club, owner, [(kept, other, "1/2-1/2")], date=OCTOBER)
    untouched = Game.objects.get(club=club, result="1/2-1/2")

    response = client_for(owner).post(
        f"/api/v1/clubs/merge/players/{kept.pk}/merge/", {"duplicate": twin.pk}, format="json"
    )

    assert response.status_code == 200, response.content
    for game in Game.objects.filter(pk__in=moved_ids):
        row = audit(owner, "merge", model="game", object=game.pk)["results"][0]
        assert (row["action"], row["via"], row["user"]) == ("changed", "api", "merge-owner")
        side = "white_id" if game.white_id == kept.pk else "black_id"
        assert row["changes"] == {side: {"before": twin.pk, "after": kept.pk}}
    # The game that did not move keeps its one row.
    assert Game.history.filter(id=untouched.pk).count() == 1
    row = audit(owner, "merge", model="player", object=twin.pk)["results"][0]
    assert (row["action"], row["via"], row["user"]) == ("deleted", "api", "merge-owner")


def test_a_new_clubs_lists_are_recorded_as_created() -> None:
    owner = make_owner("lists-owner")
    response = client_for(owner).post(
        "/api/v1/clubs/", {"name": "Lists Club", "slug": "lists"}, format="json"
    )
    assert response.status_code == 201, response.content
    created = audit(owner, "lists", model="list")["results"]
    assert sorted(row["values"]["slug"] for row in created) == ["blitz", "rapid", "standard"]
    assert {(row["action"], row["via"], row["user"]) for row in created} == {
        ("created", "api", "lists-owner")
    }
    # The first edit then shows what it changed (the floor, and the list is off its
    # preset), not every field from nothing.
    client_for(owner).patch("/api/v1/clubs/lists/lists/standard/", {"floor": 1200}, format="json")
    row = audit(owner, "lists", model="list")["results"][0]
    assert (row["action"], row["values"]["slug"]) == ("changed", "standard")
    assert row["changes"].keys() == {"floor", "preset"}
    assert row["changes"]["floor"] == {"before": 1400, "after": 1200}


def test_a_tournaments_new_dates_record_the_games_they_move() -> None:
    owner = make_owner("dates-owner")
    club = make_club(owner, "dates")
    a, b = make_player(club, owner, "Ada Berg", 1800), make_player(club, owner, "Bo Dahl", 1700)
    cup = game_services.tournament_create(
        club=club,
        by=owner,
        name="Autumn Cup",
        rating_list="standard",
        start_date=OCTOBER,
        end_date=OCTOBER,
    )
    play(club, owner, [(a, b, "1-0"), (b, a, "0-1")], date=OCTOBER, tournament=cup)
    october = Game.objects.get(club=club, result="1-0").period_id

    response = client_for(owner).patch(
        f"/api/v1/clubs/dates/tournaments/{cup.pk}/", {"end_date": "2026-11-02"}, format="json"
    )

    assert response.status_code == 200, response.content
    for game in Game.objects.filter(club=club):
        row = audit(owner, "dates", model="game", object=game.pk)["results"][0]
        assert (row["action"], row["via"], row["user"]) == ("changed", "api", "dates-owner")
        assert row["changes"] == {"period_id": {"before": october, "after": game.period_id}}


def test_a_command_is_on_the_record_as_command(tmp_path: Path) -> None:
    owner = make_owner("command-owner")
    club = make_club(owner, "command")
    magnus = player_create(club=club, by=owner, name="Magnus Carlsen", fide_id=1503014)
    path = tmp_path / "players_list_foa.txt"
    path.write_bytes(txt(FIDE_ROWS))

    call_command(
        "import_fide_list",
        str(path),
        "--club",
        "command",
        "--month",
        "2026-11",
        "--add-federation",
        "NOR",
        "--user",
        "command-owner",
        verbosity=0,
        stdout=io.StringIO(),
    )

    row = audit(owner, "command", model="player", object=magnus.pk)["results"][0]
    assert (row["action"], row["via"], row["user"]) == ("changed", "command", "command-owner")
    assert row["changes"]["fide_rapid"] == {"before": None, "after": 2820}
    # The federation's player the command added: created, then given FIDE's ratings.
    ola = Player.objects.get(club=club, fide_id=1500010)
    rows = audit(owner, "command", model="player", object=ola.pk)["results"]
    assert [(r["action"], r["via"], r["user"]) for r in rows] == [
        ("changed", "command", "command-owner"),
        ("created", "command", "command-owner"),
    ]
    assert rows[0]["values"]["fide_standard"] == 2290


def test_a_merge_is_one_entry_of_the_clubs_audit_trail() -> None:
    owner = make_owner("merges-owner")
    club = make_club(owner, "merges")
    kept = make_player(club, owner, "Viktor Aronsen", 1800)
    twin = make_player(club, owner, "Aronsen, Viktor", None, rated_games=0, birth_year=None)
    other = make_player(club, owner, "Ola Berg", 1700)
    play(club, owner, [(twin, other, "1-0"), (other, twin, "0-1")], date=OCTOBER)
    url = f"/api/v1/clubs/merges/players/{kept.pk}/merge/"
    # A dry run stores nothing, so it is no entry.
    dry = client_for(owner).post(url + "?dry_run=1", {"duplicate": twin.pk}, format="json")
    assert dry.status_code == 200, dry.content
    assert audit(owner, "merges", model="merge")["results"] == []

    response = client_for(owner).post(url, {"duplicate": twin.pk}, format="json")

    assert response.status_code == 200, response.content
    body = audit(owner, "merges", model="merge")
    assert body["count"] == 1
    (row,) = body["results"]
    assert (row["model"], row["action"], row["object"]) == ("merge", "merged", kept.pk)
    assert (row["user"], row["via"]) == ("merges-owner", "api")
    assert row["when"]
    assert row["changes"] == {}
    values = row["values"]
    assert (values["kept"], values["kept_name"]) == (kept.pk, "Viktor Aronsen")
    assert (values["duplicate"], values["duplicate_name"]) == (twin.pk, "Aronsen, Viktor")
    assert (values["games_moved"], values["byes_moved"], values["history_moved"]) == (2, 0, 0)
    assert values["needs_replay"] == {}
    # ?object= finds it by either player, the deleted one too; a third player has none.
    for player in (kept.pk, twin.pk):
        found = audit(owner, "merges", model="merge", object=player)["results"]
        assert [r["id"] for r in found] == [row["id"]]
    assert audit(owner, "merges", model="merge", object=other.pk)["results"] == []


def test_merge_entries_are_for_the_clubs_officers_only() -> None:
    owners = {slug: make_owner(f"{slug}-boss") for slug in ("east", "west")}
    for slug, owner in owners.items():
        club = make_club(owner, slug)
        kept = make_player(club, owner, f"{slug.title()} Person", 1800)
        twin = make_player(club, owner, f"Person, {slug.title()}", None)
        game_services.player_merge(kept=kept, duplicate=twin, by=owner)
    east = Player.objects.get(name="East Person").club
    viewer = make_owner("east-viewer")
    player_services.membership_set(club=east, user=viewer, role="viewer", by=owners["east"])

    rows = audit(owners["east"], "east", model="merge")["results"]

    assert [r["values"]["duplicate_name"] for r in rows] == ["Person, East"]
    assert (rows[0]["user"], rows[0]["via"]) == ("east-boss", "command")
    query = {"model": "merge"}
    assert client_for(viewer).get("/api/v1/clubs/east/audit/", query).status_code == 403
    # Another club's owner: the private club answers as if it did not exist.
    assert client_for(owners["west"]).get("/api/v1/clubs/east/audit/", query).status_code == 404
    assert client_for(None).get("/api/v1/clubs/east/audit/", query).status_code == 404
