"""Exports: lists (CSV, TXT), a player's history (CSV), a tournament (TRF); commands and URLs."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from players.models import Player, RatingChange, RatingPeriod
from tests.tournaments.import_world import ImportWorld, build_import_world, read
from tournaments.exports import tournament_pgn, tournament_record, tournament_trf
from tournaments.interchange import parse_pgn, parse_trf
from tournaments.models import Game, Tournament
from tournaments.services import period_close
from tournaments.services.imports import import_pgn, import_trf

pytestmark = pytest.mark.django_db


@pytest.fixture
def world() -> ImportWorld:
    """The Swiss imported and its period (2026-11) closed: a published standard list."""
    world = build_import_world()
    import_trf(
        club=world.club, rating_list="standard", data=read("swiss_9_rounds.trf"), by=world.arbiter
    )
    period_close(period=RatingPeriod.objects.get(), by=world.users["officer"])
    return world


def game_set(club_id: int) -> set[tuple[Any, ...]]:
    return {
        (g.round, g.date, g.white.name, g.black.name, g.result, g.rated)
        for g in Game.objects.filter(club_id=club_id).select_related("white", "black")
    }


def client_for(user: Any) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


# -- round trip ---------------------------------------------------------------------------------


def test_an_exported_trf_imports_into_a_fresh_club_as_the_same_games(world: ImportWorld) -> None:
    text = tournament_trf(tournament=Tournament.objects.get(club=world.club))
    fresh = build_import_world("fresh")

    report = import_trf(
        club=fresh.club, rating_list="standard", data=text.encode(), by=fresh.arbiter
    )

    assert report.errors == []
    assert report.games_created == 48
    assert game_set(fresh.club.pk) == game_set(world.club.pk)
    copy = Tournament.objects.get(club=fresh.club)
    original = Tournament.objects.get(club=world.club)
    fields = ("name", "start_date", "end_date", "rounds", "city")
    assert [getattr(copy, f) for f in fields] == [getattr(original, f) for f in fields]
    identity = ("name", "fide_id", "birth_date", "birth_year", "sex", "title", "federation")
    assert set(Player.objects.filter(club=fresh.club).values_list(*identity)) == set(
        Player.objects.filter(club=world.club).values_list(*identity)
    )


def test_the_export_is_a_valid_trf_with_each_game_once(world: ImportWorld) -> None:
    record = tournament_record(tournament=Tournament.objects.get())
    parsed = parse_trf(tournament_trf(tournament=Tournament.objects.get()))
    assert len(parsed.games) == len(record.games) == 48
    # Start numbers by rating: the GM first.
    assert parsed.players[0].name == "Petrov, Ivan"
    # Byes are kept from the import and written as they were: the same points as the file.
    original = parse_trf(read("swiss_9_rounds.trf"))
    assert {(b.player.name, b.round, b.kind) for b in parsed.byes} == {
        (b.player.name, b.round, b.kind) for b in original.byes
    }
    assert {(p.name, p.points) for p in parsed.players} == {
        (p.name, p.points) for p in original.players
    }
    assert {"H", "F", "U", "Z"} <= {bye.kind.value for bye in parsed.byes}


def test_an_exported_pgn_reads_back_as_the_same_games(world: ImportWorld) -> None:
    tournament = Tournament.objects.get(club=world.club)
    text = tournament_pgn(tournament=tournament)
    parsed = parse_pgn(text)
    stored = Game.objects.filter(tournament=tournament)
    assert len(parsed.games) == stored.count()
    fresh = build_import_world("fresh")
    report = import_pgn(
        club=fresh.club, rating_list="standard", data=text.encode(), by=fresh.arbiter
    )
    assert report.errors == []
    # Forfeits, the double forfeit and the games ended before a move come back as they
    # were (the Termination tag marks them; tests/tournaments/test_round_trips.py).
    assert game_set(fresh.club.pk) == game_set(world.club.pk)
    forfeits = stored.filter(result__in=["+-", "-+", "--"]).count()
    assert text.count('[Termination "forfeit"]') == forfeits


# -- lists and history ------------------------------------------------------------------------


def test_list_csv_and_txt_from_the_published_list(world: ImportWorld) -> None:
    out = io.StringIO()
    call_command("export_list", "--club", "riverton", "--list", "standard", stdout=out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    published = RatingChange.objects.filter(current=True, rating_after__isnull=False)
    assert len(rows) == published.count() > 0
    assert [int(row["rating"]) for row in rows] == sorted(
        (c.rating_after for c in published), reverse=True
    )
    top = rows[0]
    assert (top["name"], top["title"], top["federation"]) == (
        "Ivan Petrov",
        "GM",
        "RUS",
    )  # the list shows Given Surname by default

    txt = io.StringIO()
    call_command(
        "export_list", "--club", "riverton", "--format", "txt", "--period", "2026-11", stdout=txt
    )
    lines = txt.getvalue().splitlines()
    assert lines[0].startswith("ID")
    assert "Rtng" in lines[0]
    assert len(lines) == len(rows) + 1
    assert "Petrov, Ivan" in lines[1]


def test_export_list_refuses_unknown_club_or_unpublished_period(world: ImportWorld) -> None:
    with pytest.raises(CommandError, match="no club"):
        call_command("export_list", "--club", "nowhere")
    with pytest.raises(CommandError, match="No published standard list for 2026-10"):
        call_command("export_list", "--club", "riverton", "--period", "2026-10")
    with pytest.raises(CommandError, match="no published period"):
        call_command("export_list", "--club", "riverton", "--list", "rapid")


def test_export_trf_command_writes_a_file(world: ImportWorld, tmp_path: Path) -> None:
    target = tmp_path / "out.trf"
    tournament = Tournament.objects.get()
    call_command("export_trf", "--tournament", str(tournament.pk), "--output", str(target))
    assert target.read_bytes().startswith(b"012 Riverton Autumn Open 2026\r\n")
    with pytest.raises(CommandError, match="no tournament"):
        call_command("export_trf", "--tournament", "999999")


def test_download_urls_for_a_member(world: ImportWorld) -> None:
    client = client_for(world.users["viewer"])
    player = Player.objects.get(name="Petrov, Ivan")
    tournament = Tournament.objects.get()

    listed = client.get("/clubs/riverton/lists/standard/export.csv")
    text = client.get("/clubs/riverton/lists/standard/export.txt?period=2026-11")
    history = client.get(f"/clubs/riverton/players/{player.pk}/history.csv")
    trf = client.get(f"/clubs/riverton/tournaments/{tournament.pk}/export.trf")

    assert listed.status_code == 200
    assert listed["Content-Type"].startswith("text/csv")
    assert 'filename="riverton-standard-2026-11.csv"' in listed["Content-Disposition"]
    assert text.status_code == 200
    assert text.content.decode().startswith("ID")
    assert history.status_code == 200
    rows = list(csv.DictReader(io.StringIO(history.content.decode())))
    assert [(row["period"], row["list"]) for row in rows] == [("2026-11", "standard")]
    change = RatingChange.objects.get(player=player, current=True)
    assert int(rows[0]["rating_after"]) == change.rating_after
    assert trf.status_code == 200
    assert trf.content.decode().startswith("012 Riverton Autumn Open 2026")
    pgn = client.get(f"/clubs/riverton/tournaments/{tournament.pk}/export.pgn")
    assert pgn.status_code == 200
    assert pgn["Content-Type"].startswith("application/x-chess-pgn")
    assert pgn.content.decode().startswith('[Event "Riverton Autumn Open 2026"]')


def test_private_club_downloads_need_membership(world: ImportWorld) -> None:
    player = Player.objects.get(name="Petrov, Ivan")
    other = build_import_world("elsewhere")
    urls = [
        "/clubs/riverton/lists/standard/export.csv",
        "/clubs/riverton/lists/standard/export.txt",
        f"/clubs/riverton/players/{player.pk}/history.csv",
        f"/clubs/riverton/tournaments/{Tournament.objects.get(club=world.club).pk}/export.trf",
        f"/clubs/riverton/tournaments/{Tournament.objects.get(club=world.club).pk}/export.pgn",
    ]
    for user in (None, other.users["owner"]):
        client = client_for(user)
        assert [client.get(url).status_code for url in urls] == [404] * 5
    # Another club's player or tournament through this club's URL: 404 as well.
    outsider_view = client_for(other.users["owner"])
    assert outsider_view.get(f"/clubs/elsewhere/players/{player.pk}/history.csv").status_code == 404


def test_public_club_downloads_are_open(world: ImportWorld) -> None:
    world.club.public = True
    world.club.save()
    assert Client().get("/clubs/riverton/lists/standard/export.csv").status_code == 200


def test_bad_or_missing_periods_and_lists(world: ImportWorld) -> None:
    client = client_for(world.users["viewer"])
    assert client.get("/clubs/riverton/lists/standard/export.csv?period=2026-10").status_code == 404
    assert client.get("/clubs/riverton/lists/standard/export.csv?period=soon").status_code == 400
    assert client.get("/clubs/riverton/lists/bullet/export.csv").status_code == 404
    assert client.get("/clubs/riverton/lists/rapid/export.csv").status_code == 404
