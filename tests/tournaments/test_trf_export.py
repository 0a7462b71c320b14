"""Exports: the TRF's rating in force at the tournament's start and its Surname, Given
names; no control character in any exported text; CSV cells never a formula; names in
the list's chosen order."""

from __future__ import annotations

import csv
import datetime
import io
from decimal import Decimal

import pytest
from django.test import Client
from rest_framework.test import APIClient

from players.errors import ConflictError
from players.models import RatingList
from players.services import player_create, player_update, rating_list_update
from tests.tournaments.helpers import close, make_club, make_owner, make_player
from tests.tournaments.import_world import build_import_world, read
from tournaments.exports import list_export, tournament_trf
from tournaments.interchange import parse_trf
from tournaments.models import Tournament, TournamentBye
from tournaments.services import (
    games_create_bulk,
    player_merge,
    tournament_create,
    tournament_update,
)
from tournaments.services.imports import import_trf

pytestmark = pytest.mark.django_db

SEPTEMBER = datetime.date(2026, 9, 5)
OCTOBER = datetime.date(2026, 10, 3)


def event(club, owner, name: str, day: datetime.date, pairs, city: str = "") -> Tournament:  # type: ignore[no-untyped-def]
    tournament = tournament_create(
        club=club,
        by=owner,
        name=name,
        rating_list="standard",
        start_date=day,
        end_date=day,
        rounds=1,
        city=city,
    )
    games_create_bulk(
        club=club,
        by=owner,
        games=[
            {"date": day, "white": w, "black": b, "result": r, "tournament": tournament, "round": 1}
            for w, b, r in pairs
        ],
    )
    return tournament


@pytest.fixture
def club_world():  # type: ignore[no-untyped-def]
    owner = make_owner()
    club = make_club(owner, "exports")
    viktor = make_player(club, owner, "Viktor Aronsen", 1800)
    ola = make_player(club, owner, "Berg, Ola", 1700)
    return owner, club, viktor, ola


def trf_ratings(text: str) -> dict[str, int | None]:
    return {player.name: player.rating for player in parse_trf(text.encode()).players}


def test_trf_writes_the_rating_in_force_at_the_start_not_todays(club_world) -> None:  # type: ignore[no-untyped-def]
    owner, club, viktor, ola = club_world
    september = event(club, owner, "September Cup", SEPTEMBER, [(viktor, ola, "0-1")])
    close(club, owner, "2026-09")
    viktor.refresh_from_db()
    today = {r.player_id: r.rating for r in viktor.ratings.all()} | {
        r.player_id: r.rating for r in ola.ratings.all()
    }
    assert today[viktor.pk] != 1800  # the close moved them

    # Written a year later, the September file still carries September's ratings.
    assert trf_ratings(tournament_trf(tournament=september)) == {
        "Aronsen, Viktor": 1800,
        "Berg, Ola": 1700,
    }
    october = event(club, owner, "October Cup", OCTOBER, [(viktor, ola, "1-0")])
    assert trf_ratings(tournament_trf(tournament=october)) == {
        "Aronsen, Viktor": today[viktor.pk],
        "Berg, Ola": today[ola.pk],
    }


def test_trf_names_are_surname_first_whatever_the_list_shows(club_world) -> None:  # type: ignore[no-untyped-def]
    owner, club, viktor, ola = club_world
    player_update(player=ola, by=owner, name="Ola Berg")
    september = event(club, owner, "September Cup", SEPTEMBER, [(viktor, ola, "1-0")])

    names = [
        player.name for player in parse_trf(tournament_trf(tournament=september).encode()).players
    ]

    assert sorted(names) == ["Aronsen, Viktor", "Berg, Ola"]


def test_no_line_break_reaches_a_trf(club_world) -> None:  # type: ignore[no-untyped-def]
    owner, club, viktor, ola = club_world
    player_update(player=viktor, by=owner, name="Viktor\r\nAronsen")
    september = event(
        club,
        owner,
        "Autumn\r\nOpen\n001 forged",
        SEPTEMBER,
        [(viktor, ola, "1-0")],
        city="Oslo\x0b\u2028N",
    )

    text = tournament_trf(tournament=september)

    lines = text.split("\r\n")
    assert lines[-1] == ""
    assert all("\n" not in line and "\r" not in line for line in lines)
    assert [line[:3] for line in lines[:-1]].count("001") == 2
    parsed = parse_trf(text.encode())
    assert parsed.name == "Autumn Open 001 forged"
    assert parsed.city == "Oslo N"
    assert sorted(player.name for player in parsed.players) == ["Aronsen, Viktor", "Berg, Ola"]


@pytest.fixture
def published(club_world):  # type: ignore[no-untyped-def]
    owner, club, viktor, ola = club_world
    player_update(player=viktor, by=owner, name='=HYPERLINK("http://x")\nViktor')
    player_update(player=ola, by=owner, name="Ola Berg", federation="NOR")
    event(club, owner, "September Cup", SEPTEMBER, [(viktor, ola, "1-0")])
    close(club, owner, "2026-09")
    return owner, club


def test_list_csv_and_txt_carry_no_control_character_and_no_formula(published) -> None:  # type: ignore[no-untyped-def]
    _owner, club = published
    rating_list = RatingList.objects.get(club=club, kind="standard")
    period = rating_list.periods.get()

    rows = list(
        csv.reader(io.StringIO(list_export(rating_list=rating_list, period=period, format="csv")))
    )
    names = [row[2] for row in rows[1:]]
    assert '\'=HYPERLINK("http://x") Viktor' in names
    txt = list_export(rating_list=rating_list, period=period, format="txt")
    assert len(txt.splitlines()) == 3  # header and two players, nothing split


def test_api_csv_escapes_formulas_and_line_breaks(published) -> None:  # type: ignore[no-untyped-def]
    owner, club = published
    client = APIClient()
    client.force_authenticate(owner)
    response = client.get(f"/api/v1/clubs/{club.slug}/lists/standard/ratings/?format=csv")

    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert len(rows) == 3
    assert {row[2] for row in rows[1:]} == {"Ola Berg", '\'=HYPERLINK("http://x") Viktor'}


def test_names_follow_the_lists_order_setting(club_world) -> None:  # type: ignore[no-untyped-def]
    owner, club, viktor, ola = club_world
    event(club, owner, "September Cup", SEPTEMBER, [(viktor, ola, "1-0")])
    close(club, owner, "2026-09")
    api = APIClient()
    api.force_authenticate(owner)
    url = f"/api/v1/clubs/{club.slug}/lists/standard/"

    def names() -> set[str]:
        rows = api.get(url + "ratings/").json()["results"]
        return {row["name"] for row in rows}

    assert names() == {"Viktor Aronsen", "Ola Berg"}  # the default: Given Surname
    response = api.patch(url, {"name_order": "surname_given"}, format="json")
    assert response.status_code == 200
    assert response.json()["name_order"] == "surname_given"
    assert response.json()["preset"] == "FIDE standard"  # a display choice keeps the preset
    assert names() == {"Aronsen, Viktor", "Berg, Ola"}
    rating_list = RatingList.objects.get(club=club, kind="standard")
    period = rating_list.periods.get()
    rows = list(
        csv.reader(io.StringIO(list_export(rating_list=rating_list, period=period, format="csv")))
    )
    assert {row[2] for row in rows[1:]} == {"Aronsen, Viktor", "Berg, Ola"}
    client = Client()
    client.force_login(owner)
    page = client.get(f"/clubs/{club.slug}/lists/standard/").content.decode()
    assert "Aronsen, Viktor" in page
    assert api.patch(url, {"name_order": "backwards"}, format="json").status_code == 400
    rating_list_update(rating_list=rating_list, by=owner, name_order="given_surname")
    assert names() == {"Viktor Aronsen", "Ola Berg"}
    # The TXT follows FIDE's list: Surname, Given whatever the setting.
    txt = list_export(rating_list=rating_list, period=period, format="txt")
    assert "Aronsen, Viktor" in txt
    assert "Berg, Ola" in txt


def test_trf_headers_survive_the_round_trip() -> None:
    world = build_import_world("headers")
    import_trf(
        club=world.club,
        rating_list="standard",
        data=read("round_robin_trf26.trf"),
        by=world.arbiter,
    )
    tournament = Tournament.objects.get(club=world.club)
    assert (tournament.federation, tournament.tournament_type, tournament.time_control) == (
        "SWE",
        "Round robin",
        "90 min + 30 sec/move",
    )
    tournament_update(tournament=tournament, by=world.users["owner"], arbiter="Sven Larsson (IA)")

    parsed = parse_trf(tournament_trf(tournament=tournament).encode())

    assert (parsed.federation, parsed.tournament_type, parsed.time_control) == (
        "SWE",
        "Round robin",
        "90 min + 30 sec/move",
    )
    assert parsed.extra_headers["102"] == ("Sven Larsson (IA)",)
    assert parsed.extra_headers["142"] == ("5",)


def _four_player_trf() -> bytes:
    """Round 1: 1-2, 3-4; round 2: 1-3, 2 has a half-point bye, 4 is absent (Z)."""

    def player(no: int, name: str, rounds: str, points: str) -> str:
        return f"001 {no:>4} m    {name:<33} 2000 NOR             {'1990/00/00':<10} {points:>4} {no:>4}  {rounds}"

    lines = [
        "012 Bye Cup",
        "042 2026/10/03",
        "052 2026/10/04",
        f"{'132':<91}26/10/03  26/10/04",
        player(1, "Aronsen, Viktor", "   2 w 1     3 w 1", "2.0"),
        player(2, "Berg, Ola", "   1 b 0  0000 - H", "0.5"),
        player(3, "Dahl, Per", "   4 b 1     1 b 0", "1.0"),
        player(4, "Moe, Kari", "   3 w 0  0000 - Z", "0.0"),
    ]
    return ("\r\n".join(lines) + "\r\n").encode()


def test_merge_moves_byes_and_refuses_two_entries_of_one_round() -> None:
    world = build_import_world("byes")
    report = import_trf(
        club=world.club, rating_list="standard", data=_four_player_trf(), by=world.arbiter
    )
    assert report.errors == []
    ola = TournamentBye.objects.get(kind="H").player
    kari = TournamentBye.objects.get(kind="Z").player
    owner = world.users["owner"]
    # Ola and Kari never met, but both have rounds 1 and 2 of the Bye Cup: not one person.
    with pytest.raises(ConflictError, match="both played round"):
        player_merge(kept=ola, duplicate=kari, by=owner)
    newcomer = player_create(club=world.club, by=owner, name="Ola Berg")

    merged = player_merge(kept=newcomer, duplicate=ola, by=owner)

    assert (merged.byes_moved, merged.games_moved) == (1, 1)
    assert TournamentBye.objects.get(kind="H").player_id == newcomer.pk
    exported = parse_trf(
        tournament_trf(tournament=Tournament.objects.get(club=world.club)).encode()
    )
    assert {(p.name, p.points) for p in exported.players} >= {("Berg, Ola", Decimal("0.5"))}
