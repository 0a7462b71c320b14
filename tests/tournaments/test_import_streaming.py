"""Imports read their file as a stream: from an open file, in chunks, with the same report,
errors and warnings as from the file's bytes; and a job's stored file is read in slices."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from rest_framework.test import APIClient

from players.jobs import files as jobs_module
from players.jobs import job_payload
from players.models import Job, Player
from tests.tournaments.import_world import ImportWorld, build_import_world, counts, read
from tournaments.admin.imports import ImportForm
from tournaments.interchange import (
    InterchangeError,
    count_lines,
    parse_games_csv,
    parse_pgn,
    parse_trf,
)
from tournaments.interchange import source as source_module
from tournaments.models import Game
from tournaments.services.imports import import_csv, import_file

pytestmark = pytest.mark.django_db


@pytest.fixture
def world() -> ImportWorld:
    return build_import_world()


def _big_csv(
    rows: int,
    bad_row: int | None = None,
    bad_text: str = "2026-13-40",
    *,
    tournament: bool = True,
) -> bytes:
    """A CSV of ``rows`` different games between 200 players; row ``bad_row`` (1-based,
    on line bad_row + 1) has ``bad_text`` as its date."""
    lines = ["date,white,black,result,round" + (",tournament" if tournament else "")]
    for index in range(rows):
        white, round_no = index % 200, index // 200 + 1
        day = bad_text if index + 1 == bad_row else f"2026-10-{1 + round_no % 28:02d}"
        lines.append(
            f"{day},Player {white},Player {(white + round_no) % 200},1-0,{round_no}"
            + (",Ladder" if tournament else "")
        )
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize(
    ("parse", "name"),
    [
        (parse_trf, "swiss_9_rounds.trf"),
        (parse_pgn, "games_good.pgn"),
        (parse_games_csv, "games_good.csv"),
    ],
)
def test_a_parser_reads_an_open_file_as_it_reads_the_bytes(
    parse: Any, name: str, tmp_path: Path
) -> None:
    data = read(name)
    path = tmp_path / name
    path.write_bytes(data)
    with path.open("rb") as file:
        from_file = parse(file)
        # The parser leaves the caller's file open (an upload's owner deletes it).
        assert not file.closed

    assert from_file == parse(data)


def test_a_file_whose_encoding_changes_after_the_first_chunk_is_read_as_windows_1252(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Small chunks: the first non-UTF-8 byte is several chunks into the file.
    monkeypatch.setattr(source_module, "CHUNK_BYTES", 64)
    text = read("swiss_9_rounds.trf").decode()
    assert "Müller" not in text
    lines = text.splitlines()
    lines.insert(8, "### comment by the arbiter: Müller")
    data = "\n".join(lines).encode("cp1252") + b"\n"

    parsed = parse_trf(io.BytesIO(data))

    assert [(w.line, w.message) for w in parsed.warnings][:1] == [
        (9, "the file is not UTF-8; read it as Windows-1252 (Western European)")
    ]

    def pairings(games: Any) -> list[tuple[Any, ...]]:
        return [(g.round, g.white.start_no, g.black.start_no, g.result) for g in games]

    assert pairings(parsed.games) == pairings(parse_trf(read("swiss_9_rounds.trf")).games)


def test_a_csv_not_in_utf8_far_into_the_file_is_refused_at_its_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(source_module, "CHUNK_BYTES", 1000)
    data = _big_csv(3000, bad_row=2500, bad_text="Müller").replace(
        "Müller".encode(), "Müller".encode("cp1252")
    )

    with pytest.raises(InterchangeError) as raised:
        parse_games_csv(io.BytesIO(data))

    assert [(e.line, e.message) for e in raised.value.errors] == [
        (2501, "the file is not UTF-8 text; save it as UTF-8 (CSV UTF-8)")
    ]


def test_an_error_deep_in_a_big_file_names_its_line_and_stores_nothing(
    world: ImportWorld, tmp_path: Path
) -> None:
    path = tmp_path / "ladder.csv"
    path.write_bytes(_big_csv(20_000, bad_row=17_345))
    before = counts()

    with path.open("rb") as file:
        report = import_csv(club=world.club, rating_list="standard", data=file, by=world.arbiter)

    assert [(e.line, e.message) for e in report.errors] == [
        (17_346, "date '2026-13-40' is not a year-first date like 2026-10-03")
    ]
    assert counts() == before


def test_a_refusal_after_the_players_are_written_stores_nothing(
    world: ImportWorld, tmp_path: Path
) -> None:
    # 20,000 games whose players are all new; a date the games service refuses stops the
    # import at the games, after the players were written: everything is rolled back.
    path = tmp_path / "ladder.csv"
    path.write_bytes(_big_csv(20_000, bad_row=19_999, bad_text="1899-12-31", tournament=False))
    before = counts()

    with path.open("rb") as file:
        report = import_csv(club=world.club, rating_list="standard", data=file, by=world.arbiter)

    assert report.errors
    assert report.errors[0].line == 20_000
    assert "date" in report.errors[0].message
    assert counts() == before
    assert not Player.objects.filter(name="Player 7").exists()


def test_an_import_from_an_open_file_stores_what_the_bytes_store(
    world: ImportWorld, tmp_path: Path
) -> None:
    path = tmp_path / "ladder.csv"
    path.write_bytes(_big_csv(3000))

    with path.open("rb") as file:
        report = import_file(
            format="csv", club=world.club, rating_list="standard", data=file, by=world.arbiter
        )
        again = import_file(
            format="csv",
            club=world.club,
            rating_list="standard",
            data=path.read_bytes(),
            by=world.arbiter,
        )

    assert report.errors == []
    assert report.games_created == 3000 == Game.objects.filter(club=world.club).count()
    assert len(report.players_created) == 200
    # The digest read in chunks is the digest of the bytes: the same file is known.
    assert again.already_imported


def test_count_lines_counts_a_last_line_without_a_line_break() -> None:
    assert count_lines(io.BytesIO(b"a\nb\nc")) == 3
    assert count_lines(io.BytesIO(b"a\nb\n")) == 2
    stream = io.BytesIO(b"x\ny\n")
    stream.seek(2)
    assert count_lines(stream) == 1
    assert stream.tell() == 2


def test_a_jobs_stored_file_is_read_back_slice_by_slice(
    world: ImportWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jobs_module, "PAYLOAD_CHUNK_BYTES", 1000)
    data = _big_csv(500)
    assert len(data) > 10_000
    job = Job.objects.create(
        club=world.club,
        kind="import",
        params={},
        payload=data,
        created_by_id=world.users["owner"].pk,
    )

    with job_payload(job) as file:
        assert file.read() == data


def test_a_queued_import_reads_its_stored_file_in_slices(
    world: ImportWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jobs_module, "PAYLOAD_CHUNK_BYTES", 1000)
    response = _post(world, SimpleUploadedFile("ladder.csv", _big_csv(500)))

    assert response.status_code == 201, response.content
    assert response.json()["games_created"] == 500


def _post(world: ImportWorld, upload: SimpleUploadedFile) -> Any:
    client = APIClient()
    client.force_authenticate(world.arbiter)
    return client.post(
        "/api/v1/clubs/riverton/imports/",
        {"format": "csv", "list": "standard", "file": upload},
        format="multipart",
    )


@override_settings(IMPORT_MAX_UPLOAD_MB=1)
def test_the_api_refuses_a_file_above_the_upload_setting(world: ImportWorld) -> None:
    response = _post(world, SimpleUploadedFile("big.csv", b"x" * (1024 * 1024 + 1)))

    assert response.status_code == 400
    assert response.json()["error"]["fields"]["file"] == ["The file is larger than 1 MB."]
    assert Job.objects.count() == 0


@override_settings(IMPORT_MAX_UPLOAD_MB=1)
def test_the_admin_form_refuses_a_file_above_the_upload_setting(world: ImportWorld) -> None:
    from django.test import RequestFactory

    request = RequestFactory().post("/")
    request.user = world.users["owner"]
    form = ImportForm(
        {"club": world.club.pk, "rating_list": "standard", "format": "csv"},
        {"file": SimpleUploadedFile("big.csv", b"x" * (1024 * 1024 + 1))},
        request=request,
    )

    assert not form.is_valid()
    assert form.errors["file"] == ["The file is larger than 1 MB."]
