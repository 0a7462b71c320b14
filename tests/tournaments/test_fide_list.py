"""FIDE's rating list: both formats (TXT with header offsets, XML streamed), zipped or not,
the service's updates, disagreements, added federation and seeded ratings; the command,
the API and the admin page. Files are small ones written for the tests."""

from __future__ import annotations

import datetime
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from players.errors import ValidationFailed
from players.models import Job, Player, PlayerRating, Role
from players.services import membership_set, player_create, rating_list_create
from tests.queue import run_queued_jobs
from tests.tournaments.fide_files import Row, txt, xml, zipped
from tests.tournaments.helpers import close, make_club, make_owner, make_player, play
from tournaments.interchange.fide_list import FideListError, read_fide_list
from tournaments.services import fide_list_seed
from tournaments.services.fide_list import fide_list_import

ROWS = [
    Row(1503014, "Carlsen, Magnus", "NOR", "M", "GM", "", 2837, 2820, 2886, 1990),
    Row(1700020, "Lindqvist, Maja", "SWE", "F", "", "WIM", 2215, None, 2190, 2003, "w"),
    Row(1500010, "Berg, Ola", "NOR", "M", "FM", "", 2290, 2250, None, 1994, "i"),
    Row(1500029, "Dahl, Per", "NOR", "M", "", "", 1980, None, None, 1971),
    Row(4100018, "Nakamura, Hikaru", "USA", "M", "GM", "", 2780, 2750, 2900, 1987),
]
FORMATS = {
    "txt": lambda: txt(ROWS),
    "xml": lambda: xml(ROWS),
    "txt.zip": lambda: zipped("players_list_foa.txt", txt(ROWS)),
    "xml.zip": lambda: zipped("players_list_xml_foa.xml", xml(ROWS)),
}
NOVEMBER = datetime.date(2026, 11, 1)


# -- the reader (pure) -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", FORMATS)
def test_every_format_reads_the_same_records(kind: str) -> None:
    done: list[int] = []
    records = list(
        read_fide_list(io.BytesIO(FORMATS[kind]()), wanted={1503014, 1700020}, progress=done.append)
    )

    assert [(r.fide_id, r.name, r.federation, r.sex, r.title, r.women_title) for r in records] == [
        (1503014, "Carlsen, Magnus", "NOR", "M", "GM", ""),
        (1700020, "Lindqvist, Maja", "SWE", "F", "", "WIM"),
    ]
    assert [(r.standard, r.rapid, r.blitz, r.birth_year, r.flag) for r in records] == [
        (2837, 2820, 2886, 1990, ""),
        (2215, None, 2190, 2003, "w"),
    ]
    assert done[-1] == len(ROWS)


@pytest.mark.parametrize("kind", FORMATS)
def test_a_federation_is_read_whole(kind: str) -> None:
    records = read_fide_list(io.BytesIO(FORMATS[kind]()), wanted=set(), federation="NOR")
    assert sorted(r.fide_id for r in records) == [1500010, 1500029, 1503014]


def test_the_offsets_come_from_the_header() -> None:
    # The same list with every column moved two places right: read by its header.
    shifted = b"\n".join(b"  " + line for line in txt(ROWS).splitlines()) + b"\n"
    records = list(read_fide_list(io.BytesIO(shifted), wanted={1500010}))
    assert [(r.name, r.standard, r.birth_year) for r in records] == [("Berg, Ola", 2290, 1994)]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"Name;Fed\n1;2\n", "not FIDE's TXT list header"),
        (b"<playerslist><player><fideid>1</fideid>", "not well-formed XML"),
        (
            b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><playerslist>&a;</playerslist>',
            "DOCTYPE",
        ),
        (b"PK\x03\x04broken", "damaged ZIP"),
    ],
)
def test_what_is_not_fides_list_is_refused(data: bytes, message: str) -> None:
    with pytest.raises(FideListError, match=message):
        list(read_fide_list(io.BytesIO(data), wanted={1}))


# -- the service --------------------------------------------------------------------------------


@pytest.fixture
def club_world(db: None):  # type: ignore[no-untyped-def]
    owner = make_owner()
    club = make_club(owner, "fide")
    magnus = player_create(club=club, by=owner, name="Magnus Carlsen", fide_id=1503014)
    maja = player_create(
        club=club, by=owner, name="Maja Lindkvist", fide_id=1700020, birth_year=2002
    )
    ola = player_create(club=club, by=owner, name="Ola Berg", fide_id=1500010, federation="SWE")
    gone = player_create(club=club, by=owner, name="Old Member", fide_id=999999)
    return owner, club, {"magnus": magnus, "maja": maja, "ola": ola, "gone": gone}


@pytest.mark.parametrize("kind", FORMATS)
def test_fills_in_details_and_keeps_fide_ratings(club_world, kind: str) -> None:  # type: ignore[no-untyped-def]
    owner, club, players = club_world

    report = fide_list_import(
        club=club, stream=io.BytesIO(FORMATS[kind]()), by=owner, month=NOVEMBER
    )

    magnus = Player.objects.get(pk=players["magnus"].pk)
    assert (magnus.title, magnus.federation, magnus.sex, magnus.birth_year) == (
        "GM",
        "NOR",
        "M",
        1990,
    )
    assert (magnus.fide_standard, magnus.fide_rapid, magnus.fide_blitz) == (2837, 2820, 2886)
    assert magnus.fide_list_month == NOVEMBER
    maja = Player.objects.get(pk=players["maja"].pk)
    assert (maja.title, maja.women_title, maja.sex) == ("WIM", "WIM", "F")
    ola = Player.objects.get(pk=players["ola"].pk)
    assert (ola.federation, ola.title) == ("NOR", "FM")
    assert (report.club_fide_ids, report.found, report.month) == (4, 3, "2026-11")
    assert report.not_in_list == [
        {"player": players["gone"].pk, "name": "Old Member", "fide_id": 999999}
    ]
    # Maja's surname and birth year differ from FIDE's; Magnus is the same name in another order.
    assert report.disagreements == [
        {
            "player": players["maja"].pk,
            "name": "Maja Lindkvist",
            "fide_name": "Lindqvist, Maja",
            "birth_year": 2002,
            "fide_birth_year": 2003,
            "what": "name and birth year",
        }
    ]
    assert maja.birth_year == 2003  # updated, and reported above


def test_dry_run_stores_nothing(club_world) -> None:  # type: ignore[no-untyped-def]
    owner, club, players = club_world
    report = fide_list_import(
        club=club, stream=io.BytesIO(txt(ROWS)), by=owner, dry_run=True, add_federation="NOR"
    )

    assert report.dry_run
    assert len(report.updated) == 3
    assert [entry["player"] for entry in report.added] == [None]
    assert Player.objects.get(pk=players["magnus"].pk).fide_standard is None
    assert Player.objects.filter(club=club).count() == 4


def test_add_federation_and_seed_ratings(club_world) -> None:  # type: ignore[no-untyped-def]
    owner, club, players = club_world
    report = fide_list_import(
        club=club,
        stream=io.BytesIO(txt(ROWS)),
        by=owner,
        add_federation="nor",
        seed_ratings=True,
        month=NOVEMBER,
    )

    per = Player.objects.get(club=club, fide_id=1500029)
    assert (per.name, per.federation, per.birth_year, per.fide_standard) == (
        "Dahl, Per",
        "NOR",
        1971,
        1980,
    )
    assert report.added == [{"player": per.pk, "name": "Dahl, Per", "fide_id": 1500029}]
    ratings = {
        r.rating_list.kind: r
        for r in PlayerRating.objects.filter(player=per).select_related("rating_list")
    }
    assert ratings["standard"].rating == ratings["standard"].entry_rating == 1980
    assert ratings["standard"].entry_note == "FIDE rating list of 2026-11"
    assert ratings["rapid"].rating is None
    magnus = {
        r.rating_list.kind: r
        for r in PlayerRating.objects.filter(player=players["magnus"]).select_related("rating_list")
    }
    assert {kind: r.rating for kind, r in magnus.items()} == {
        "standard": 2837,
        "rapid": 2820,
        "blitz": 2886,
    }
    assert magnus["blitz"].entry_note == "FIDE rating list of 2026-11"
    assert magnus["standard"].k_factor == 10  # 2837 has reached 2400: K 10, not a newcomer's 40
    assert {
        "name": "Magnus Carlsen",
        "list": "blitz",
        "rating": 2886,
        "player": players["magnus"].pk,
    } in report.seeded


def test_a_player_with_published_history_is_not_seeded(club_world) -> None:  # type: ignore[no-untyped-def]
    owner, club, players = club_world
    other = make_player(club, owner, "Rated Opponent", 1800)
    play(club, owner, [(players["magnus"], other, "1-0")], date=datetime.date(2026, 10, 5))
    close(club, owner, "2026-10")  # Magnus is published there, still unrated (one game)

    report = fide_list_import(club=club, stream=io.BytesIO(txt(ROWS)), by=owner, seed_ratings=True)

    standard = PlayerRating.objects.get(player=players["magnus"], rating_list__kind="standard")
    assert standard.rating is None
    assert any("standard list already have published periods" in w for w in report.warnings)


def test_bad_federation_and_file_name_the_field(club_world) -> None:  # type: ignore[no-untyped-def]
    owner, club, _players = club_world
    with pytest.raises(ValidationFailed) as caught:
        fide_list_import(club=club, stream=io.BytesIO(txt(ROWS)), by=owner, add_federation="NO")
    assert caught.value.fields.keys() == {"add_federation"}
    with pytest.raises(ValidationFailed) as caught:
        fide_list_import(club=club, stream=io.BytesIO(b"hello\nworld\n"), by=owner)
    assert caught.value.fields.keys() == {"file"}


# -- interfaces ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_command(club_world, tmp_path) -> None:  # type: ignore[no-untyped-def]
    _owner, club, players = club_world
    path = tmp_path / "players_list_foa.zip"
    path.write_bytes(zipped("players_list_foa.txt", txt(ROWS)))
    out = io.StringIO()

    call_command(
        "import_fide_list",
        str(path),
        "--club",
        club.slug,
        "--dry-run",
        "--month",
        "2026-11",
        stdout=out,
        stderr=io.StringIO(),
    )
    assert "Dry run: FIDE list of 2026-11: 3 of 4 club FIDE IDs found" in out.getvalue()
    assert Player.objects.get(pk=players["magnus"].pk).fide_standard is None
    out = io.StringIO()
    call_command(
        "import_fide_list", str(path), "--club", club.slug, stdout=out, stderr=io.StringIO()
    )
    assert "disagrees (name and birth year)" in out.getvalue()
    assert Player.objects.get(pk=players["magnus"].pk).fide_standard == 2837


def test_api(club_world) -> None:  # type: ignore[no-untyped-def]
    owner, club, players = club_world
    arbiter = make_owner("fide-arbiter")
    membership_set(club=club, user=arbiter, role=Role.ARBITER, by=owner)
    url = f"/api/v1/clubs/{club.slug}/fide-list/"

    def post(user, data: bytes, **fields: str):  # type: ignore[no-untyped-def]
        client = APIClient()
        client.force_authenticate(user)
        upload = io.BytesIO(data)
        upload.name = "players_list_xml_foa.zip"
        return client.post(url, {"file": upload, **fields}, format="multipart")

    zipped_xml = zipped("players_list_xml_foa.xml", xml(ROWS))
    assert post(arbiter, zipped_xml).status_code == 403
    refused = post(owner, b"not a list\n")
    assert refused.status_code == 400
    assert refused.json()["error"]["fields"].keys() == {"file"}
    assert post(owner, zipped_xml, month="2026-13").json()["error"]["fields"].keys() == {"month"}
    response = post(owner, zipped_xml, month="2026-11", seed_ratings="true")
    assert response.status_code == 200
    body = response.json()
    assert (body["found"], body["month"], body["dry_run"]) == (3, "2026-11", False)
    assert len(body["seeded"]) == 7  # Magnus 3 lists, Maja 2 (no rapid), Ola 2 (no blitz)
    assert Player.objects.get(pk=players["ola"].pk).fide_rapid == 2250


@pytest.mark.usefixtures("queued_jobs")
def test_api_runs_as_a_job_that_a_worker_finishes(club_world) -> None:  # type: ignore[no-untyped-def]
    owner, club, players = club_world
    client = APIClient()
    client.force_authenticate(owner)
    url = f"/api/v1/clubs/{club.slug}/fide-list/"

    def post(query: str, **fields: str):  # type: ignore[no-untyped-def]
        upload = io.BytesIO(txt(ROWS))
        upload.name = "players_list_foa.txt"
        return client.post(url + query, {"file": upload, **fields}, format="multipart")

    bad = post("?wait=abc", month="2026-11")
    assert bad.status_code == 400
    assert bad.json()["error"]["fields"].keys() == {"wait"}
    assert post("?wait=0", month="2026-13").json()["error"]["fields"].keys() == {"month"}
    assert not Job.objects.exists()

    accepted = post("?wait=0", month="2026-11")
    assert accepted.status_code == 202
    job = Job.objects.get()
    assert (job.kind, job.status) == ("fide_list", "queued")
    assert accepted["Location"] == f"/api/v1/jobs/{job.pk}/"
    assert Player.objects.get(pk=players["magnus"].pk).fide_standard is None

    assert run_queued_jobs() == 1
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    assert (job.result["found"], job.result["month"]) == (3, "2026-11")
    assert Player.objects.get(pk=players["magnus"].pk).fide_standard == 2837
    followed = client.get(f"/api/v1/jobs/{job.pk}/").json()
    assert followed["result"]["found"] == 3


@pytest.mark.usefixtures("queued_jobs")
def test_command_queue_reads_the_list_through_a_worker(club_world, tmp_path) -> None:  # type: ignore[no-untyped-def]
    _owner, club, players = club_world
    path = tmp_path / "players_list_foa.txt"
    path.write_bytes(txt(ROWS))
    out = io.StringIO()
    call_command(
        "import_fide_list",
        str(path),
        "--club",
        club.slug,
        "--month",
        "2026-11",
        "--queue",
        stdout=out,
        stderr=io.StringIO(),
    )
    job = Job.objects.get()
    assert f"Queued job {job.pk} (fide_list)" in out.getvalue()
    assert Player.objects.get(pk=players["ola"].pk).fide_rapid is None

    assert run_queued_jobs() == 1
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    assert job.result["month"] == "2026-11"
    assert Player.objects.get(pk=players["ola"].pk).fide_rapid == 2250


def test_admin_page(club_world) -> None:  # type: ignore[no-untyped-def]
    owner, club, players = club_world
    officer = make_owner("fide-officer")
    officer.is_staff = True
    officer.save()
    membership_set(club=club, user=officer, role=Role.OFFICER, by=owner)
    client = Client()
    client.force_login(officer)
    assert (
        "/admin/tournaments/tournament/fide-list/"
        in client.get("/admin/players/player/").content.decode()
    )

    response = client.post(
        "/admin/tournaments/tournament/fide-list/",
        {
            "club": club.pk,
            "file": SimpleUploadedFile("players_list_foa.txt", txt(ROWS)),
            "month": "2026-11",
        },
        follow=True,  # the upload starts a job; its page shows the report
    )

    html = response.content.decode()
    assert response.redirect_chain[0][0].startswith("/admin/players/job/")
    assert 'id="fide-list-report"' in html
    assert 'id="fide-disagreements"' in html
    assert Player.objects.get(pk=players["magnus"].pk).fide_blitz == 2886


def test_fide_ratings_shown_beside_the_clubs(club_world) -> None:  # type: ignore[no-untyped-def]
    owner, club, players = club_world
    fide_list_import(club=club, stream=io.BytesIO(txt(ROWS)), by=owner, month=NOVEMBER)
    magnus = players["magnus"]
    client = Client()
    client.force_login(owner)

    page = client.get(f"/clubs/{club.slug}/players/{magnus.pk}/").content.decode()
    assert "FIDE (list of 2026-11): standard 2837 · rapid 2820 · blitz 2886" in page
    api = APIClient()
    api.force_authenticate(owner)
    body = api.get(f"/api/v1/clubs/{club.slug}/players/{magnus.pk}/").json()
    assert body["fide"] == {"standard": 2837, "rapid": 2820, "blitz": 2886, "month": "2026-11"}


def test_seeding_leaves_glicko2_lists_alone(club_world) -> None:  # type: ignore[no-untyped-def]
    """FIDE's ratings are Elo ratings: they seed the club's Elo lists only. A Glicko-2 list
    of the same kind keeps its own start (its rating and starting RD): a FIDE rating has
    no RD, and a rating without one is not a Glicko-2 rating."""
    owner, club, _ = club_world
    online = rating_list_create(club=club, by=owner, slug="online", kind="blitz", system="glicko2")
    newcomer = player_create(club=club, by=owner, name="Hikaru Nakamura", fide_id=4100018)
    # A Glicko-2 row with no rating: what the seeding looks for.
    PlayerRating.objects.filter(player=newcomer, rating_list=online).update(rating=None)

    report = fide_list_import(
        club=club,
        stream=io.BytesIO(txt(ROWS)),
        by=owner,
        add_federation="NOR",
        seed_ratings=True,
        month=NOVEMBER,
    )

    unrated = PlayerRating.objects.get(player=newcomer, rating_list=online)
    assert (unrated.rating, unrated.entry_note) == (None, "")
    per = PlayerRating.objects.get(player__fide_id=1500029, rating_list=online)
    assert (per.rating, per.state["rd"], per.entry_note) == (1500, online.glicko_rd_start, "")
    seeded = {(entry["name"], entry["list"]) for entry in report.seeded}
    assert ("Hikaru Nakamura", "blitz") in seeded
    assert not {entry for entry in seeded if entry[1] == "online"}
    # The Elo lists of the kind are seeded as before.
    blitz = PlayerRating.objects.get(player=newcomer, rating_list__slug="blitz")
    assert (blitz.rating, blitz.entry_note) == (2900, "FIDE rating list of 2026-11")


def test_seeding_reads_the_players_in_chunks(club_world, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # A federation's players are more ids than SQLite binds in one statement (32,766):
    # the candidates are read a chunk at a time, and every chunk's players are seeded.
    owner, club, players = club_world
    monkeypatch.setattr(fide_list_seed, "_CHUNK", 1)
    with CaptureQueriesContext(connection) as queries:
        report = fide_list_import(
            club=club, stream=io.BytesIO(txt(ROWS)), by=owner, seed_ratings=True, month=NOVEMBER
        )

    reads = [
        q["sql"]
        for q in queries
        if q["sql"].startswith('SELECT "players_playerrating"') and 'rating" IS NULL' in q["sql"]
    ]
    seeded_players = {entry["player"] for entry in report.seeded}
    assert len(seeded_players) >= 2
    # One read per list and player (chunks of one), not one per list.
    lists = {entry["list"] for entry in report.seeded}
    assert len(reads) >= len(seeded_players) * len(lists)
    assert players["magnus"].pk in seeded_players
