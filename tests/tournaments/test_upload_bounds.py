"""Every upload's reading is bounded: ZIP declarations (members, unpacked size, ratio), TXT
lines, XML elements for FIDE's list; line lengths for the TRF, PGN and CSV imports. What the
file declares is refused at the door (the API and the admin: 400 on ``file``, no job); what
only reading shows fails the job on ``file``. Each test is a small bomb under limits made
small by settings, and the message names the limit."""

from __future__ import annotations

import io
import struct
import zipfile
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import RequestFactory, override_settings
from rest_framework.test import APIClient

from players.models import Club, Job, Player
from players.services import player_create
from tests.tournaments.fide_files import TXT_HEADER, Row, txt, xml, zipped
from tests.tournaments.helpers import make_club, make_owner
from tournaments.admin.fide_list import FideListForm
from tournaments.interchange import InterchangeError, parse_games_csv, parse_pgn
from tournaments.interchange.bounds import KB, MB, LineLengths, ZipLimits, zip_problem
from tournaments.interchange.fide_list import FideLimits, FideListError, read_fide_list

CARLSEN = Row(1503014, "Carlsen, Magnus", "NOR", "M", "GM", "", 2837, 2820, 2886, 1990)
SMALL = FideLimits(
    zip=ZipLimits(max_unpacked=64 * KB, max_ratio=20, max_members=4),
    max_line=1 * KB,
    max_element=2 * KB,
)


def read(data: bytes, limits: FideLimits = SMALL) -> list[int]:
    return [r.fide_id for r in read_fide_list(io.BytesIO(data), wanted={1503014}, limits=limits)]


def refusal(data: bytes, limits: FideLimits = SMALL) -> str:
    with pytest.raises(FideListError) as refused:
        read(data, limits)
    return str(refused.value)


def many_members(count: int) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for index in range(count):
            archive.writestr(f"m{index}.txt", b"")
    return out.getvalue()


# -- the reader ----------------------------------------------------------------------------


def test_the_limits_let_fides_own_files_through() -> None:
    assert read(txt([CARLSEN])) == [1503014]
    assert read(xml([CARLSEN])) == [1503014]
    assert read(zipped("players_list_foa.txt", txt([CARLSEN]))) == [1503014]


def test_a_txt_without_a_line_break_is_refused_at_the_line_limit() -> None:
    assert refusal(b"x" * (64 * KB)) == "line 1 is longer than 1 KB (the limit of a line)"
    later = f"{TXT_HEADER}\n1503014 {'x' * 2 * KB}\n".encode()
    assert refusal(later) == "line 2 is longer than 1 KB (the limit of a line)"


def test_an_xml_prolog_of_spaces_is_refused_at_the_element_limit() -> None:
    prolog = b'<?xml version="1.0"?>' + b" " * (8 * KB) + b"<playerslist></playerslist>"
    assert refusal(prolog) == (
        "not FIDE's XML list: the prolog before the root element is larger than 2 KB "
        "(the limit of an element)"
    )


def test_an_xml_player_without_its_end_is_refused_at_the_element_limit() -> None:
    unclosed = b"<playerslist><player><fideid>1503014</fideid><name>" + b"a" * (8 * KB)
    assert refusal(unclosed) == (
        "not FIDE's XML list: an element without its </player> is larger than 2 KB "
        "(the limit of an element)"
    )


def test_a_large_or_deeply_nested_player_is_refused_at_the_element_limit() -> None:
    deep = b"<a>" * 1000 + b"</a>" * 1000
    data = b"<playerslist><player><fideid>1503014</fideid>" + deep + b"</player></playerslist>"
    assert refusal(data) == (
        "not FIDE's XML list: a <player> element is larger than 2 KB (the limit of an element)"
    )
    # Within the limit the same nesting is read (ElementTree does not recurse).
    assert read(data, FideLimits(max_element=16 * KB)) == [1503014]


def test_a_zip_is_refused_by_what_it_declares() -> None:
    assert refusal(many_members(5)) == "the ZIP file holds 5 files; the limit is 4 files"
    long_names = io.BytesIO()
    with zipfile.ZipFile(long_names, "w") as archive:
        archive.writestr("a" * 5000 + ".txt", b"")
    assert refusal(long_names.getvalue()) == (
        "the ZIP file's directory is 5050 bytes; the limit is 4 KB (4 files)"
    )
    big = zipped("players_list_foa.txt", txt([CARLSEN]) + b"\n" * (100 * KB))
    assert refusal(big) == (
        "the ZIP file's players_list_foa.txt unpacks to 0.10 MB; the limit is 0.06 MB"
    )
    loose = FideLimits(zip=ZipLimits(max_unpacked=1 << 30, max_ratio=20, max_members=4))
    message = refusal(big, loose)
    assert message.startswith("the ZIP file's players_list_foa.txt unpacks to ")
    assert message.endswith(" times its packed size; the limit is 20 times")


def test_a_zip_that_declares_less_than_it_holds_is_cut_at_its_declaration() -> None:
    """zipfile stops a member at its declared size: the declaration bounds the reading, and
    a member that is then short of its checksum is damaged."""
    data = bytearray(zipped("players_list_foa.txt", txt([CARLSEN]) + b"\n" * 1000))
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
        info = archive.infolist()[0]
    struct.pack_into("<I", data, info.header_offset + 22, 200)  # the local header's size
    struct.pack_into("<I", data, data.rfind(b"PK\x01\x02") + 24, 200)  # the directory's
    assert refusal(bytes(data)).startswith("a damaged ZIP file: Bad CRC-32")


def test_zip_problem_reads_no_member_and_puts_the_stream_back() -> None:
    stream = io.BytesIO(many_members(2))
    assert zip_problem(stream, SMALL.zip) == ""
    assert stream.tell() == 0


def test_line_lengths_across_chunks() -> None:
    lines = LineLengths(10)
    assert lines.feed(b"12345") == 0
    assert lines.feed(b"67890\nabc") == 0  # line 1 is 10 bytes: at the limit
    assert lines.feed(b"defghij") == 0  # line 2: 10
    assert lines.feed(b"k\nshort\n") == 2
    assert lines.message() == "longer than 10 bytes (the limit of a line)"


# -- the door and the job ------------------------------------------------------------------

ZIP_BOMB = zipped("players_list_foa.txt", b"x" * (256 * KB))  # 256 KB in about 300 bytes


@pytest.fixture
def club_owner() -> tuple[Any, Club]:
    owner = make_owner()
    club = make_club(owner, "bounds")
    player_create(club=club, by=owner, name="Magnus Carlsen", fide_id=1503014)
    return owner, club


def api_post(owner: Any, url: str, data: bytes, name: str, **fields: str) -> Any:
    client = APIClient()
    client.force_authenticate(owner)
    upload = SimpleUploadedFile(name, data)
    return client.post(url, {"file": upload, **fields}, format="multipart")


@pytest.mark.django_db
def test_the_api_refuses_a_zip_bomb_at_the_door(club_owner: tuple[Any, Club]) -> None:
    owner, club = club_owner
    url = f"/api/v1/clubs/{club.slug}/fide-list/"

    response = api_post(owner, url, ZIP_BOMB, "players_list_foa.zip")

    assert response.status_code == 400
    (message,) = response.json()["error"]["fields"]["file"]
    assert message.startswith("Not FIDE's rating list: the ZIP file's players_list_foa.txt")
    assert message.endswith("times its packed size; the limit is 100 times.")
    bigger = zipped("players_list_foa.txt", b"x" * (2 * MB))
    with override_settings(FIDE_LIST_MAX_ZIP_RATIO=10_000, FIDE_LIST_MAX_UNZIPPED_MB=1):
        response = api_post(owner, url, bigger, "players_list_foa.zip")
    assert response.json()["error"]["fields"]["file"] == [
        "Not FIDE's rating list: the ZIP file's players_list_foa.txt unpacks to 2 MB; "
        "the limit is 1 MB."
    ]
    assert not Job.objects.exists()


@pytest.mark.django_db
@override_settings(FIDE_LIST_MAX_ZIP_MEMBERS=3)
def test_the_admin_form_refuses_a_zip_bomb_at_the_door(club_owner: tuple[Any, Club]) -> None:
    owner, club = club_owner
    request = RequestFactory().post("/")
    request.user = owner
    form = FideListForm(
        {"club": club.pk},
        {"file": SimpleUploadedFile("list.zip", many_members(4))},
        request=request,
    )

    assert not form.is_valid()
    assert form.errors == {
        "file": ["Not FIDE's rating list: the ZIP file holds 4 files; the limit is 3 files."]
    }


@pytest.mark.django_db
@override_settings(FIDE_LIST_MAX_LINE_KB=1, FIDE_LIST_MAX_ELEMENT_KB=1)
@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"x" * (8 * KB), "line 1 is longer than 1 KB (the limit of a line)"),
        (
            b"<playerslist><player><fideid>1</fideid><name>" + b"a" * (8 * KB),
            "not FIDE's XML list: an element without its </player> is larger than 1 KB "
            "(the limit of an element)",
        ),
    ],
)
def test_what_only_reading_shows_fails_the_job_on_file(
    club_owner: tuple[Any, Club], data: bytes, message: str
) -> None:
    owner, club = club_owner
    url = f"/api/v1/clubs/{club.slug}/fide-list/"

    response = api_post(owner, url, data, "players_list_foa.txt")

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"file": [f"Not FIDE's rating list: {message}"]}
    job = Job.objects.get()
    assert job.status == "failed"
    assert job.error["fields"] == {"file": [f"Not FIDE's rating list: {message}"]}
    assert Player.objects.get(fide_id=1503014).fide_standard is None


@pytest.mark.django_db
@override_settings(IMPORT_MAX_LINE_KB=1)
@pytest.mark.parametrize(
    ("fmt", "data", "line"),
    [
        ("trf", b"012 Open\n042 2026/10/01\n001 " + b"x" * (2 * KB) + b"\n", 3),
        ("pgn", b'[Event "E"]\n[White "A"]\n\n1. e4 ' + b"e5 " * KB + b"1-0\n", 4),
        ("csv", b"date;white;black;result\n" + b"x" * (2 * KB), 2),
    ],
)
def test_an_import_line_over_the_limit_fails_the_job_on_file(
    club_owner: tuple[Any, Club], fmt: str, data: bytes, line: int
) -> None:
    owner, club = club_owner
    url = f"/api/v1/clubs/{club.slug}/imports/"

    response = api_post(owner, url, data, f"bomb.{fmt}", format=fmt, list="standard")

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {
        "file": [f"line {line}: longer than 1 KB (the limit of a line)"]
    }
    assert Job.objects.get().status == "failed"
    assert not club.tournaments.exists()


@pytest.mark.django_db
@override_settings(FIDE_LIST_MAX_FEDERATION_PLAYERS=3)
def test_a_federation_larger_than_the_limit_fails_the_job_on_file(
    club_owner: tuple[Any, Club],
) -> None:
    """add_federation keeps what it reads: a file of millions of one federation's lines is
    refused at the limit, not held."""
    owner, club = club_owner
    url = f"/api/v1/clubs/{club.slug}/fide-list/"
    rows = [Row(10_000_000 + index, f"Player, {index}", "NOR") for index in range(4)]

    refused = api_post(owner, url, txt(rows), "players_list_foa.txt", add_federation="NOR")
    accepted = api_post(owner, url, txt(rows[:3]), "players_list_foa.txt", add_federation="NOR")

    assert refused.json()["error"]["fields"] == {
        "file": ["Not FIDE's rating list: more than 3 players of NOR (the limit of a federation)"]
    }
    assert accepted.status_code == 200, accepted.json()
    assert len(accepted.json()["added"]) == 3


def _pgn_games(count: int) -> bytes:
    return "".join(
        f'[Event "E"]\n[Date "2026.10.01"]\n[White "P{2 * i}"]\n[Black "P{2 * i + 1}"]\n'
        '[Result "1-0"]\n\n1-0\n\n'
        for i in range(count)
    ).encode()


def _csv_games(count: int) -> bytes:
    rows = "".join(f"2026-10-01;P{2 * i};P{2 * i + 1};1-0\n" for i in range(count))
    return ("date;white;black;result\n" + rows).encode()


@pytest.mark.parametrize(
    ("parse", "data", "line"),
    [
        # The sixth game names the 11th and 12th players; the broken game after it
        # (a header tag without its quotes) is never read.
        (parse_pgn, _pgn_games(6) + b'[Event E]\n[White "X"]\n\n1-0\n', 41),
        (parse_games_csv, _csv_games(6) + b"2026-10-01;X;Y;9-9\n", 7),
    ],
)
def test_a_games_file_naming_too_many_players_is_refused_where_it_passes_the_limit(
    parse: Any, data: bytes, line: int
) -> None:
    with pytest.raises(InterchangeError) as refused:
        parse(io.BytesIO(data), max_players=10)
    assert [(e.line, e.message) for e in refused.value.errors] == [
        (
            line,
            "the file names more than 10 players, the limit of one import; split it into smaller files",
        )
    ]
    # At the limit the same games are read.
    assert (
        len(
            parse(
                io.BytesIO(_pgn_games(5) if parse is parse_pgn else _csv_games(5)), max_players=10
            ).games
        )
        == 5
    )


@pytest.mark.django_db
@override_settings(IMPORT_MAX_PLAYERS=10)
@pytest.mark.parametrize(("fmt", "data"), [("pgn", _pgn_games(6)), ("csv", _csv_games(6))])
def test_an_import_naming_more_players_than_the_limit_fails_the_job_on_file(
    club_owner: tuple[Any, Club], fmt: str, data: bytes
) -> None:
    owner, club = club_owner
    url = f"/api/v1/clubs/{club.slug}/imports/"

    response = api_post(owner, url, data, f"many.{fmt}", format=fmt, list="standard")

    assert response.status_code == 400
    [message] = response.json()["error"]["fields"]["file"]
    assert "names more than 10 players, the limit of one import" in message
    assert Job.objects.get().status == "failed"
    assert not club.tournaments.exists()
    assert Player.objects.filter(club=club).count() == 1  # Carlsen, the fixture's
