"""``add_federation`` matches FIDE's players to the club's as the imports do: by FIDE ID,
then by name key and birth year. A club player without a FIDE ID who is the same person
gets the FIDE ID and FIDE's details instead of a second record; one who may be (same name
key, no birth year on one side) is reported and nothing is created for them."""

from __future__ import annotations

import datetime
import io
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from players.models import Club, Player, PlayerRating
from players.services import player_create
from tests.tournaments.fide_files import Row, txt
from tests.tournaments.helpers import make_club, make_owner
from tournaments.services.fide_list import fide_list_import

pytestmark = pytest.mark.django_db

NOVEMBER = datetime.date(2026, 11, 1)
ROWS = [
    Row(1500010, "Berg, Ola", "NOR", "M", "FM", "", 2290, 2250, None, 1994),
    Row(1500029, "Dahl, Per", "NOR", "M", "", "", 1980, None, None, 1971),
    Row(1500037, "Hansen, Ole", "NOR", "M", "", "", 1710, None, None, 1985),
    Row(1500045, "Nilsen, Kari", "NOR", "F", "", "", 1650, None, None, 1962),
    Row(1500053, "Lie, Anne", "NOR", "F", "", "", 1500, None, None, None),
    Row(1700020, "Dahl, Per", "SWE", "M", "", "", 2001, None, None, 1971),
]


@pytest.fixture
def world() -> tuple[Any, Club, dict[str, Player]]:
    owner = make_owner()
    club = make_club(owner, "fide")
    players = {
        "ola": player_create(club=club, by=owner, name="Ola Berg", fide_id=1500010),
        # Same name key and birth year as FIDE's "Dahl, Per" of NOR: the same person.
        "per": player_create(club=club, by=owner, name="Per Dahl", birth_year=1971),
        # Same name key, no birth year here: perhaps the same person.
        "ole": player_create(club=club, by=owner, name="Ole Hansen"),
        # Same name key, another birth year: another person.
        "kari": player_create(club=club, by=owner, name="Kari Nilsen", birth_year=1990),
    }
    return owner, club, players


def test_a_club_player_with_the_same_name_and_birth_year_gets_the_fide_id(
    world: tuple[Any, Club, dict[str, Player]],
) -> None:
    owner, club, players = world

    report = fide_list_import(
        club=club, stream=io.BytesIO(txt(ROWS)), by=owner, add_federation="NOR", month=NOVEMBER
    )

    per = Player.objects.get(pk=players["per"].pk)
    assert (per.name, per.fide_id, per.federation, per.fide_standard, per.fide_list_month) == (
        "Per Dahl",
        1500029,
        "NOR",
        1980,
        NOVEMBER,
    )
    assert Player.objects.filter(club=club, name_key=per.name_key).count() == 1
    assert report.matched == [
        {"player": per.pk, "name": "Per Dahl", "fide_id": 1500029, "fide_name": "Dahl, Per"}
    ]
    assert "1500029" not in str(report.added)


def test_a_possible_match_is_reported_and_not_created(
    world: tuple[Any, Club, dict[str, Player]],
) -> None:
    owner, club, players = world

    report = fide_list_import(
        club=club, stream=io.BytesIO(txt(ROWS)), by=owner, add_federation="NOR"
    )

    ole = Player.objects.get(pk=players["ole"].pk)
    assert ole.fide_id is None
    assert not Player.objects.filter(club=club, fide_id=1500037).exists()
    assert report.possible_matches == [
        {
            "player": ole.pk,
            "name": "Ole Hansen",
            "birth_year": None,
            "fide_id": 1500037,
            "fide_name": "Hansen, Ole",
            "fide_birth_year": 1985,
        }
    ]


def test_another_birth_year_is_another_person_and_is_added(
    world: tuple[Any, Club, dict[str, Player]],
) -> None:
    owner, club, players = world

    report = fide_list_import(
        club=club, stream=io.BytesIO(txt(ROWS)), by=owner, add_federation="NOR"
    )

    # Kari Nilsen born 1990 is not FIDE's Kari Nilsen born 1962; Anne Lie is new.
    assert sorted((entry["name"], entry["fide_id"]) for entry in report.added) == [
        ("Lie, Anne", 1500053),
        ("Nilsen, Kari", 1500045),
    ]
    assert Player.objects.get(pk=players["kari"].pk).fide_id is None
    assert Player.objects.get(club=club, fide_id=1500045).birth_year == 1962
    assert Player.objects.filter(club=club).count() == 6


def test_seeding_starts_a_matched_player_at_the_fide_rating(
    world: tuple[Any, Club, dict[str, Player]],
) -> None:
    owner, club, players = world

    report = fide_list_import(
        club=club,
        stream=io.BytesIO(txt(ROWS)),
        by=owner,
        add_federation="NOR",
        seed_ratings=True,
        month=NOVEMBER,
    )

    standard = PlayerRating.objects.get(player=players["per"], rating_list__kind="standard")
    assert (standard.rating, standard.entry_note) == (1980, "FIDE rating list of 2026-11")
    assert {
        "player": players["per"].pk,
        "name": "Per Dahl",
        "list": "standard",
        "rating": 1980,
    } in (report.seeded)


def test_a_dry_run_reports_the_match_and_stores_nothing(
    world: tuple[Any, Club, dict[str, Player]],
) -> None:
    owner, club, players = world

    report = fide_list_import(
        club=club, stream=io.BytesIO(txt(ROWS)), by=owner, add_federation="NOR", dry_run=True
    )

    assert [entry["player"] for entry in report.matched] == [players["per"].pk]
    assert Player.objects.get(pk=players["per"].pk).fide_id is None
    assert Player.objects.filter(club=club).count() == 4


def test_two_fide_players_matching_one_club_player_are_neither_linked_nor_added(
    world: tuple[Any, Club, dict[str, Player]],
) -> None:
    owner, club, _ = world
    twins = [
        Row(1500061, "Moe, Jon", "NOR", "M", "", "", 1800, None, None, 1980),
        Row(1500070, "Moe, Jon", "NOR", "M", "", "", 1700, None, None, 1980),
    ]
    jon = player_create(club=club, by=owner, name="Jon Moe", birth_year=1980)

    report = fide_list_import(
        club=club, stream=io.BytesIO(txt(twins)), by=owner, add_federation="NOR"
    )

    assert Player.objects.get(pk=jon.pk).fide_id is None
    assert not Player.objects.filter(club=club, fide_id__in=[1500061, 1500070]).exists()
    assert (report.matched, report.added) == ([], [])
    assert sorted(entry["fide_id"] for entry in report.possible_matches) == [1500061, 1500070]


def test_the_command_prints_the_matches(
    world: tuple[Any, Club, dict[str, Player]], tmp_path: Any
) -> None:
    _owner, club, players = world
    path = tmp_path / "players_list_foa.txt"
    path.write_bytes(txt(ROWS))
    out = io.StringIO()

    call_command(
        "import_fide_list",
        str(path),
        "--club",
        club.slug,
        "--add-federation",
        "NOR",
        stdout=out,
        stderr=io.StringIO(),
    )

    text = out.getvalue()
    per, ole = players["per"].pk, players["ole"].pk
    assert f"  matched #{per} Per Dahl: FIDE ID 1500029 (Dahl, Per)\n" in text
    assert (
        f"  possible match, not added: Hansen, Ole (FIDE ID 1500037) / #{ole} Ole Hansen "
        "(born - / FIDE 1985)\n"
    ) in text
    assert "1 matched by name and birth year; 1 possible matches not added" in text


def test_the_api_and_the_admin_report_the_matches(
    world: tuple[Any, Club, dict[str, Player]],
) -> None:
    owner, club, players = world
    upload = io.BytesIO(txt(ROWS))
    upload.name = "players_list_foa.txt"
    api = APIClient()
    api.force_authenticate(owner)

    body = api.post(
        f"/api/v1/clubs/{club.slug}/fide-list/",
        {"file": upload, "add_federation": "NOR", "dry_run": "true"},
        format="multipart",
    ).json()

    assert [entry["player"] for entry in body["matched"]] == [players["per"].pk]
    assert [entry["player"] for entry in body["possible_matches"]] == [players["ole"].pk]
    owner.is_staff = True
    owner.save()
    admin = Client()
    admin.force_login(owner)
    page = admin.post(
        "/admin/tournaments/tournament/fide-list/",
        {
            "club": club.pk,
            "file": SimpleUploadedFile("players_list_foa.txt", txt(ROWS)),
            "add_federation": "NOR",
        },
        follow=True,
    ).content.decode()
    assert 'id="fide-matched"' in page
    assert f"#{players['per'].pk} Per Dahl: Dahl, Per (1500029)" in page
    assert 'id="fide-possible-matches"' in page
