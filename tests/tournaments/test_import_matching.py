"""Matching a file's players to the club's by the name key, FIDE ID and birth data.

Every form of a name the issue names (``Aronsen, Viktor``, ``Viktor Aronsen``, ``ARONSEN
Viktor``, ``Arönsen, Viktor``) finds the club's one record, in TRF, PGN and CSV; a match
that is only possible is listed and follows the caller's ``match`` choice (service,
command, API, admin).
"""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from players.errors import ValidationFailed
from players.models import Player
from players.services import player_create
from tests.tournaments.import_world import ImportWorld, build_import_world
from tournaments.models import Game
from tournaments.services.imports import import_csv, import_pgn, import_trf

pytestmark = pytest.mark.django_db

FORMS = ["Aronsen, Viktor", "Viktor Aronsen", "ARONSEN Viktor", "Arönsen, Viktor"]


@pytest.fixture
def world() -> ImportWorld:
    return build_import_world()


def trf_with(name: str, birth: str = "1990/00/00") -> bytes:
    """A one-round TRF: ``name`` (born ``birth``) beats Berg, Ola."""
    lines = [
        "012 Matching Cup",
        "042 2026/10/03",
        "052 2026/10/03",
        f"{'132':<91}26/10/03",
        f"001    1 m    {name:<33} 2000 NOR             {birth:<10}  1.0    1     2 w 1",
        f"001    2 m    {'Berg, Ola':<33} 2100 NOR             {'1994/08/17':<10}  0.0    2     1 b 0",
    ]
    return ("\r\n".join(lines) + "\r\n").encode()


def csv_with(white: str, black: str = "Berg, Ola") -> bytes:
    return f'date,white,black,result\n2026-10-05,"{white}","{black}",1-0\n'.encode()


def pgn_with(white: str) -> bytes:
    return (
        f'[Event "Matching Open"]\n[Date "2026.10.05"]\n[Round "1"]\n[White "{white}"]\n'
        '[Black "Berg, Ola"]\n[Result "1-0"]\n\n1-0\n'
    ).encode()


@pytest.mark.parametrize("club_form", FORMS)
@pytest.mark.parametrize("file_form", FORMS)
def test_trf_finds_the_one_record_whatever_the_form(
    world: ImportWorld, club_form: str, file_form: str
) -> None:
    owner = world.users["owner"]
    viktor = player_create(club=world.club, by=owner, name=club_form, birth_year=1990)

    report = import_trf(
        club=world.club, rating_list="standard", data=trf_with(file_form), by=world.arbiter
    )

    assert report.errors == []
    matched = {entry.player_id: entry.matched_by for entry in report.players_matched}
    assert matched == {viktor.pk: "name_birth"}
    assert [entry.name for entry in report.players_created] == ["Berg, Ola"]
    assert Player.objects.filter(name_key="aronsen viktor").count() == 1


def test_the_issues_dry_run_no_longer_says_would_be_created(world: ImportWorld) -> None:
    # The club keeps "Viktor Aronsen" with his birth year; the TRF writes "Aronsen, Viktor".
    owner = world.users["owner"]
    viktor = player_create(club=world.club, by=owner, name="Viktor Aronsen", birth_year=1990)

    report = import_trf(
        club=world.club,
        rating_list="standard",
        data=trf_with("Aronsen, Viktor"),
        by=world.arbiter,
        dry_run=True,
    )

    assert [e.player_id for e in report.players_matched] == [viktor.pk]
    assert "Aronsen, Viktor" not in [e.name for e in report.players_created]


def test_another_birth_year_is_another_person(world: ImportWorld) -> None:
    player_create(club=world.club, by=world.users["owner"], name="Viktor Aronsen", birth_year=1971)

    report = import_trf(
        club=world.club, rating_list="standard", data=trf_with("Aronsen, Viktor"), by=world.arbiter
    )

    assert report.players_matched == []
    assert report.possible_matches == []
    assert Player.objects.filter(name_key="aronsen viktor").count() == 2


def test_another_fide_id_is_another_person(world: ImportWorld) -> None:
    player_create(club=world.club, by=world.users["owner"], name="Viktor Aronsen", fide_id=99)
    data = csv_with("Aronsen, Viktor").replace(b"result\n", b"result,white_fide_id\n")
    data = data.replace(b"1-0\n", b"1-0,12345\n")

    report = import_csv(club=world.club, rating_list="standard", data=data, by=world.arbiter)

    assert report.errors == []
    assert report.players_matched == []
    assert Player.objects.filter(name_key="aronsen viktor").count() == 2


@pytest.mark.parametrize("file_form", FORMS)
def test_possible_match_is_listed_in_the_dry_run_and_taken_by_default(
    world: ImportWorld, file_form: str
) -> None:
    # No birth data on the club's side: only a possible match.
    viktor = player_create(club=world.club, by=world.users["owner"], name="Viktor Aronsen")

    dry = import_csv(
        club=world.club,
        rating_list="standard",
        data=csv_with(file_form),
        by=world.arbiter,
        dry_run=True,
    )
    assert [(p.name, p.player_id, p.taken) for p in dry.possible_matches] == [
        (file_form, viktor.pk, True)
    ]
    assert "1 possible matches" in dry.summary()

    report = import_csv(
        club=world.club, rating_list="standard", data=csv_with(file_form), by=world.arbiter
    )
    assert report.stored
    assert [(e.player_id, e.matched_by) for e in report.players_matched] == [(viktor.pk, "name")]
    assert Player.objects.filter(name_key="aronsen viktor").count() == 1


def test_match_new_creates_a_second_record_and_says_so(world: ImportWorld) -> None:
    viktor = player_create(club=world.club, by=world.users["owner"], name="Viktor Aronsen")

    report = import_pgn(
        club=world.club,
        rating_list="standard",
        data=pgn_with("ARONSEN Viktor"),
        by=world.arbiter,
        match="new",
    )

    assert report.stored
    assert [(p.player_id, p.taken) for p in report.possible_matches] == [(viktor.pk, False)]
    assert Player.objects.filter(name_key="aronsen viktor").count() == 2


def test_two_forms_in_one_file_are_one_person(world: ImportWorld) -> None:
    data = (
        "date,white,black,result\n"
        '2026-10-05,"Aronsen, Viktor","Berg, Ola",1-0\n'
        '2026-10-06,"Ola Berg","Viktor Arönsen",1-0\n'
    ).encode()

    report = import_csv(club=world.club, rating_list="standard", data=data, by=world.arbiter)

    assert report.errors == []
    assert sorted(e.name for e in report.players_created) == ["Aronsen, Viktor", "Berg, Ola"]


def test_an_unknown_match_choice_is_refused(world: ImportWorld) -> None:
    with pytest.raises(ValidationFailed) as caught:
        import_csv(
            club=world.club,
            rating_list="standard",
            data=csv_with("A"),
            by=world.arbiter,
            match="maybe",
        )
    assert "match" in caught.value.fields


def test_command_match_new_and_the_listing(world: ImportWorld, tmp_path) -> None:  # type: ignore[no-untyped-def]
    player_create(club=world.club, by=world.users["owner"], name="Viktor Aronsen")
    path = tmp_path / "games.csv"
    path.write_bytes(csv_with("Aronsen, Viktor"))
    out = io.StringIO()

    call_command("import_csv", str(path), "--club", "riverton", "--dry-run", stdout=out)
    assert "Possible matches (same name, no birth data on one side): 1; --match=possible" in (
        out.getvalue()
    )
    out = io.StringIO()
    call_command("import_csv", str(path), "--club", "riverton", "--match=new", stdout=out)
    assert "a new player instead" in out.getvalue()
    assert Player.objects.filter(name_key="aronsen viktor").count() == 2


@pytest.mark.parametrize(("command", "make"), [("import_trf", trf_with), ("import_pgn", pgn_with)])
@pytest.mark.parametrize(
    ("match", "records", "became"), [("possible", 1, "used"), ("new", 2, "a new player instead")]
)
def test_trf_and_pgn_commands_follow_the_match_choice(  # type: ignore[no-untyped-def]
    world: ImportWorld, tmp_path, command: str, make, match: str, records: int, became: str
) -> None:
    viktor = player_create(club=world.club, by=world.users["owner"], name="Viktor Aronsen")
    path = tmp_path / f"games.{command.removeprefix('import_')}"
    path.write_bytes(make("Aronsen, Viktor"))
    out = io.StringIO()

    call_command(command, str(path), "--club", "riverton", f"--match={match}", stdout=out)

    output = out.getvalue()
    assert f"Possible matches (same name, no birth data on one side): 1; --match={match}" in output
    assert f"Aronsen, Viktor ~ #{viktor.pk} Viktor Aronsen: {became}" in output
    assert Player.objects.filter(name_key="aronsen viktor").count() == records
    # The game is the club's player's when the match was taken, a new record's otherwise.
    game = Game.objects.get(club=world.club)
    assert (game.white_id == viktor.pk) is (match == "possible")


def test_api_match_field(world: ImportWorld) -> None:
    viktor = player_create(club=world.club, by=world.users["owner"], name="Viktor Aronsen")
    client = APIClient()
    client.force_authenticate(world.arbiter)
    url = "/api/v1/clubs/riverton/imports/"

    def post(**fields: str):  # type: ignore[no-untyped-def]
        upload = io.BytesIO(csv_with("ARONSEN Viktor"))
        upload.name = "games.csv"
        return client.post(url, {"file": upload, "format": "csv", **fields}, format="multipart")

    dry = post(dry_run="true")
    assert dry.status_code == 200
    assert dry.json()["possible_matches"] == [
        {
            "line": 2,
            "name": "ARONSEN Viktor",
            "player_id": viktor.pk,
            "player_name": "Viktor Aronsen",
            "taken": True,
        }
    ]
    assert post(match="sometimes").json()["error"]["fields"].keys() == {"match"}
    stored = post(match="new")
    assert stored.status_code == 201
    assert stored.json()["match"] == "new"
    assert Player.objects.filter(name_key="aronsen viktor").count() == 2


def test_admin_form_match_choice(world: ImportWorld) -> None:
    player_create(club=world.club, by=world.users["owner"], name="Viktor Aronsen")
    world.arbiter.is_staff = True
    world.arbiter.save()
    client = Client()
    client.force_login(world.arbiter)
    response = client.post(
        "/admin/tournaments/tournament/import/",
        {
            "club": world.club.pk,
            "rating_list": "standard",
            "format": "csv",
            "file": SimpleUploadedFile("games.csv", csv_with("Aronsen, Viktor")),
            "dry_run": "on",
            "match": "new",
        },
        follow=True,  # the upload starts a job; its page shows the report
    )
    html = response.content.decode()
    assert 'id="import-possible-matches"' in html
    assert "would create a new player" in html


def test_a_round_without_a_date_is_reported_at_the_132_line(world: ImportWorld) -> None:
    lines = [
        "012 Two Rounds",
        "042 2026/10/03",
        "052 2026/10/04",
        f"{'132':<91}26/10/03",  # round 2 has no date
        f"001    1 m    {'Aronsen, Viktor':<33} 2000 NOR             {'1990/00/00':<10}  2.0    1"
        "     2 w 1     2 b 1",
        f"001    2 m    {'Berg, Ola':<33} 2100 NOR             {'1994/08/17':<10}  0.0    2"
        "     1 b 0     1 w 0",
    ]
    data = ("\r\n".join(lines) + "\r\n").encode()

    report = import_trf(club=world.club, rating_list="standard", data=data, by=world.arbiter)

    assert report.errors == []
    undated = [w for w in report.warnings if "has no date (132)" in w.message]
    assert [(w.line, w.message) for w in undated] == [
        (4, "round 2 has no date (132); its games are dated 2026-10-03")
    ]


IDENTICAL_CSV = (
    b"date,white,black,result,tournament,round\n"
    b"2026-10-05,Aronsen Viktor,Berg Ola,1-0,Ladder,1\n"
    b"2026-10-05,Dahl Per,Moe Kari,0-1,Ladder,1\n"
    b"2026-10-05,Aronsen Viktor,Berg Ola,1-0,Ladder,1\n"
)


def test_identical_game_lines_are_stored_once_and_listed(world: ImportWorld) -> None:
    report = import_csv(
        club=world.club, rating_list="standard", data=IDENTICAL_CSV, by=world.arbiter
    )

    assert report.games_created == 2
    assert [(m.line, m.other_line) for m in report.identical_games] == [(4, 2)]
    assert "identical to line 2" in report.identical_games[0].message


def test_only_lines_alike_in_every_part_are_identical(world: ImportWorld) -> None:
    # Line 2 and its copies on lines 8 and 9; each line between differs from it in one
    # part (colours, result, round, event, date), so only 8 and 9 name line 2.
    data = (
        b"date,white,black,result,tournament,round\n"
        b"2026-10-05,Aronsen Viktor,Berg Ola,1-0,Ladder,1\n"
        b"2026-10-05,Berg Ola,Aronsen Viktor,1-0,Ladder,1\n"
        b"2026-10-05,Aronsen Viktor,Berg Ola,0-1,Ladder,1\n"
        b"2026-10-05,Aronsen Viktor,Berg Ola,1-0,Ladder,2\n"
        b"2026-10-05,Aronsen Viktor,Berg Ola,1-0,Cup,1\n"
        b"2026-10-06,Aronsen Viktor,Berg Ola,1-0,Ladder,1\n"
        b"2026-10-05,Aronsen Viktor,Berg Ola,1-0,Ladder,1\n"
        b"2026-10-05,ARONSEN viktor,berg ola,1-0,Ladder,1\n"
    )
    report = import_csv(club=world.club, rating_list="standard", data=data, by=world.arbiter)

    assert report.errors == []
    assert [(m.line, m.other_line) for m in report.identical_games] == [(8, 2), (9, 2)]
    assert report.games_created == 6


def test_keep_identical_stores_both(world: ImportWorld) -> None:
    report = import_csv(
        club=world.club,
        rating_list="standard",
        data=IDENTICAL_CSV,
        by=world.arbiter,
        keep_identical=True,
    )

    assert report.games_created == 3
    assert report.identical_games == []


def test_identical_lines_through_the_api_and_the_command(world: ImportWorld, tmp_path) -> None:  # type: ignore[no-untyped-def]
    client = APIClient()
    client.force_authenticate(world.arbiter)
    upload = io.BytesIO(IDENTICAL_CSV)
    upload.name = "games.csv"
    body = client.post(
        "/api/v1/clubs/riverton/imports/",
        {"file": upload, "format": "csv", "dry_run": "true"},
        format="multipart",
    ).json()
    assert [(m["line"], m["other_line"]) for m in body["identical_games"]] == [(4, 2)]
    path = tmp_path / "games.csv"
    path.write_bytes(IDENTICAL_CSV)
    out = io.StringIO()
    call_command("import_csv", str(path), "--club", "riverton", "--keep-identical", stdout=out)
    assert "Games created: 3" in out.getvalue()
