"""Exports: the list CSV's FIDE columns (each player's FIDE rating of the list's kind and
the month of FIDE's list), the list-history CSV of the history export job never a
formula, and a PGN's ratings those in force at the tournament's start."""

from __future__ import annotations

import csv
import datetime
import io

import pytest
from django.test import Client
from rest_framework.test import APIClient

from players.models import RatingList
from players.services import player_create, player_update
from tests.tournaments.fide_files import Row, txt
from tests.tournaments.helpers import close, make_club, make_owner, make_player, play
from tournaments.exports import list_export, tournament_pgn
from tournaments.interchange import parse_pgn
from tournaments.models import Tournament
from tournaments.services import games_create_bulk, tournament_create
from tournaments.services.fide_list import fide_list_import

pytestmark = pytest.mark.django_db

SEPTEMBER = datetime.date(2026, 9, 8)
OCTOBER = datetime.date(2026, 10, 6)
NOVEMBER = datetime.date(2026, 11, 1)


def _csv(text: str) -> dict[str, dict[str, str]]:
    """Name -> the row's cells by column."""
    return {row["name"]: row for row in csv.DictReader(io.StringIO(text))}


def test_the_list_csv_carries_the_fide_rating_of_the_lists_kind_and_its_month() -> None:
    owner = make_owner()
    club = make_club(owner, "fidecsv")
    magnus = player_create(
        club=club,
        by=owner,
        name="Magnus Carlsen",
        fide_id=1503014,
        ratings=[{"list": "standard", "rating": 2000}, {"list": "rapid", "rating": 1950}],
    )
    ola = player_create(
        club=club,
        by=owner,
        name="Ola Berg",
        ratings=[{"list": "standard", "rating": 1800}, {"list": "rapid", "rating": 1750}],
    )
    # FIDE's list of November 2026: standard 2837, rapid 2820, blitz 2886 (Ola not on it).
    fide_list_import(
        club=club,
        stream=io.BytesIO(
            txt([Row(1503014, "Carlsen, Magnus", "NOR", "M", "GM", "", 2837, 2820, 2886)])
        ),
        by=owner,
        month=NOVEMBER,
    )
    for kind in ("standard", "rapid"):
        play(club, owner, [(magnus, ola, "1-0")], date=OCTOBER, kind=kind)
        close(club, owner, "2026-10", kind=kind)

    for kind, fide_rating in (("standard", "2837"), ("rapid", "2820")):
        rating_list = RatingList.objects.get(club=club, kind=kind)
        period = rating_list.periods.get()
        rows = _csv(list_export(rating_list=rating_list, period=period, format="csv"))
        assert (rows["Magnus Carlsen"]["fide_rating"], rows["Magnus Carlsen"]["fide_month"]) == (
            fide_rating,
            "2026-11",
        )
        # Not on FIDE's list: both blank, not 0.
        assert (rows["Ola Berg"]["fide_rating"], rows["Ola Berg"]["fide_month"]) == ("", "")
    # The download URL gives the same file.
    client = Client()
    client.force_login(owner)
    response = client.get(f"/clubs/{club.slug}/lists/rapid/export.csv")
    assert response.status_code == 200
    assert _csv(response.content.decode())["Magnus Carlsen"]["fide_rating"] == "2820"


# Each first character a spreadsheet would start a formula with.
FORMULAS = ['=HYPERLINK("http://x")', "+1+2", "-2+3", "@SUM(A1)"]


def test_the_list_history_csv_download_never_holds_a_formula() -> None:
    owner = make_owner()
    club = make_club(owner, "formulas")
    players = [make_player(club, owner, f"Player {index}", 1800) for index in range(4)]
    play(
        club,
        owner,
        [(players[0], players[1], "1-0"), (players[2], players[3], "1/2-1/2")],
        date=SEPTEMBER,
    )
    close(club, owner, "2026-09")
    # Renamed after the close: the export reads the names as they are now.
    for player, name in zip(players, FORMULAS, strict=True):
        player_update(player=player, by=owner, name=name)
    api = APIClient()
    api.force_authenticate(owner)

    started = api.post(f"/api/v1/clubs/{club.slug}/lists/standard/history-export/?wait=5")
    assert started.status_code == 200, started.content
    download = api.get(started.json()["download"])

    assert download.status_code == 200
    rows = list(csv.DictReader(io.StringIO(download.content.decode())))
    assert sorted(row["name"] for row in rows) == sorted(f"'{name}" for name in FORMULAS)
    assert all(row["name"][0] == "'" for row in rows)


def test_a_pgn_carries_the_rating_in_force_at_the_tournaments_start_not_todays() -> None:
    owner = make_owner()
    club = make_club(owner, "pgnrating")
    viktor = make_player(club, owner, "Viktor Aronsen", 1800)
    ola = make_player(club, owner, "Ola Berg", 1700)
    tournament = tournament_create(
        club=club,
        by=owner,
        name="September Cup",
        rating_list="standard",
        start_date=SEPTEMBER,
        end_date=SEPTEMBER,
        rounds=1,
    )
    games_create_bulk(
        club=club,
        by=owner,
        games=[
            {"date": SEPTEMBER, "white": viktor, "black": ola, "result": "1-0"}
            | {"tournament": tournament, "round": 1}
        ],
    )
    close(club, owner, "2026-09")
    # A later month changes both ratings; the September tournament keeps its start's.
    play(club, owner, [(ola, viktor, "1-0")], date=OCTOBER)
    close(club, owner, "2026-10")

    parsed = parse_pgn(tournament_pgn(tournament=Tournament.objects.get(pk=tournament.pk)).encode())

    (game,) = parsed.games
    # Before September was closed: the ratings entered, 1800 and 1700.
    assert (game.white.rating, game.black.rating) == (1800, 1700)
