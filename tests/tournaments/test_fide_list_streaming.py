"""FIDE's list through the API, the admin and ``--queue``: the upload goes into the job's
row and back out a slice at a time, never whole in memory, and the upload limit is the
FIDE_LIST_MAX_UPLOAD_MB setting on both the API and the admin.

Memory is measured with tracemalloc (Python's own allocations, which is where a file read
whole lands: ``bytes`` from the database, ``BytesIO``, ``upload.read()``): the bound is a
quarter of the file, and a file read whole once is the whole file."""

from __future__ import annotations

import hashlib
import io
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile, TemporaryUploadedFile
from django.core.files.uploadhandler import TemporaryFileUploadHandler
from django.core.management import call_command
from django.db import connection
from django.test import Client, RequestFactory, override_settings
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from players.jobs import files as jobs_module
from players.jobs import job_payload, job_start
from players.models import Club, Job, Player, Role
from players.services import membership_set, player_create
from tests.queue import run_queued_jobs
from tests.tournaments.fide_files import TXT_HEADER, Row, txt_line
from tests.tournaments.helpers import make_club, make_owner
from tournaments.admin.fide_list import FideListForm

pytestmark = pytest.mark.django_db

SLICE = 256 * 1024
LIST_BYTES = 16 * 1024 * 1024
CARLSEN = Row(1503014, "Carlsen, Magnus", "NOR", "M", "GM", "", 2837, 2820, 2886, 1990)


def big_list() -> bytes:
    """FIDE's TXT list of about LIST_BYTES: other federations' players, then Carlsen."""
    filler = txt_line(Row(0, "Filler, Player", "ZZZ", "M", "", "", 1500, None, None, 1980))
    width = TXT_HEADER.index("Name")  # the ID column
    line = filler[width:]
    count = LIST_BYTES // (len(filler) + 1)
    body = "\n".join(f"{10_000_000 + index:<{width}}{line}" for index in range(count))
    return f"{TXT_HEADER}\n{body}\n{txt_line(CARLSEN)}\n".encode()


@pytest.fixture
def world() -> tuple[Any, Club, Player]:
    owner = make_owner()
    club = make_club(owner, "fide")
    magnus = player_create(club=club, by=owner, name="Magnus Carlsen", fide_id=1503014)
    return owner, club, magnus


@pytest.fixture
def small_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jobs_module, "PAYLOAD_CHUNK_BYTES", SLICE)


def peak_bytes(work: Callable[[], Any]) -> int:
    """The most memory Python held at once (above what it held before) while ``work`` ran."""
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def digest(stream: io.IOBase | Any) -> str:
    sha = hashlib.sha256()
    while chunk := stream.read(SLICE):
        sha.update(chunk)
    return sha.hexdigest()


# -- the upload limit ---------------------------------------------------------------------------


def _api_post(user: Any, club: Club, upload: Any, query: str = "") -> Any:
    client = APIClient()
    client.force_authenticate(user)
    return client.post(
        f"/api/v1/clubs/{club.slug}/fide-list/{query}", {"file": upload}, format="multipart"
    )


@override_settings(FIDE_LIST_MAX_UPLOAD_MB=1)
def test_the_api_refuses_a_list_above_the_upload_setting(world: tuple[Any, Club, Player]) -> None:
    owner, club, _ = world
    response = _api_post(owner, club, SimpleUploadedFile("big.txt", b"x" * (1024 * 1024 + 1)))

    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"file": ["The file is larger than 1 MB."]}
    assert not Job.objects.exists()


@override_settings(FIDE_LIST_MAX_UPLOAD_MB=1)
def test_the_admin_form_refuses_a_list_above_the_upload_setting(
    world: tuple[Any, Club, Player],
) -> None:
    owner, club, _ = world
    request = RequestFactory().post("/")
    request.user = owner
    form = FideListForm(
        {"club": club.pk},
        {"file": SimpleUploadedFile("big.txt", b"x" * (1024 * 1024 + 1))},
        request=request,
    )

    assert not form.is_valid()
    assert form.errors == {"file": ["The file is larger than 1 MB."]}


@override_settings(FIDE_LIST_MAX_UPLOAD_MB=1)
def test_the_admin_page_shows_the_refusal_on_the_file_and_starts_nothing(
    world: tuple[Any, Club, Player],
) -> None:
    owner, club, _ = world
    officer = make_owner("fide-officer")
    officer.is_staff = True
    officer.save()
    membership_set(club=club, user=officer, role=Role.OFFICER, by=owner)
    client = Client()
    client.force_login(officer)

    response = client.post(
        "/admin/tournaments/tournament/fide-list/",
        {"club": club.pk, "file": SimpleUploadedFile("big.txt", b"x" * (1024 * 1024 + 1))},
    )

    assert response.status_code == 200
    assert response.context["form"].errors == {"file": ["The file is larger than 1 MB."]}
    assert not Job.objects.exists()


# -- into the job's row -------------------------------------------------------------------------


class WholeReadRefused(TemporaryUploadedFile):
    """An upload that fails the request when it is read whole (``read()`` without a size)."""

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            raise AssertionError("the upload was read whole")
        data: bytes = self.file.read(size)
        return data


class StrictUploadHandler(TemporaryFileUploadHandler):
    def new_file(self, *args: Any, **kwargs: Any) -> None:
        super().new_file(*args, **kwargs)
        self.file.__class__ = WholeReadRefused


STRICT = override_settings(
    FILE_UPLOAD_HANDLERS=["tests.tournaments.test_fide_list_streaming.StrictUploadHandler"]
)


@pytest.fixture
def strict_uploads() -> Iterator[None]:
    with STRICT:
        yield


@pytest.mark.usefixtures("strict_uploads", "small_slices")
def test_the_api_stores_the_upload_without_reading_it_whole(
    world: tuple[Any, Club, Player],
) -> None:
    owner, club, magnus = world
    data = big_list()
    upload = io.BytesIO(data)
    upload.name = "players_list_foa.txt"

    response = _api_post(owner, club, upload)

    assert response.status_code == 200, response.content
    assert response.json()["found"] == 1
    assert Player.objects.get(pk=magnus.pk).fide_standard == 2837


@pytest.mark.usefixtures("strict_uploads", "small_slices", "queued_jobs")
def test_the_admin_stores_the_upload_without_reading_it_whole(
    world: tuple[Any, Club, Player],
) -> None:
    owner, club, _ = world
    owner.is_staff = True
    owner.save()
    client = Client()
    client.force_login(owner)
    data = big_list()

    response = client.post(
        "/admin/tournaments/tournament/fide-list/",
        {"club": club.pk, "file": SimpleUploadedFile("players_list_foa.txt", data)},
    )

    assert response.status_code == 302, response.content
    with job_payload(Job.objects.get()) as stored:
        assert digest(stored) == hashlib.sha256(data).hexdigest()


@pytest.mark.usefixtures("small_slices")
def test_job_start_stores_a_file_a_slice_at_a_time(
    world: tuple[Any, Club, Player], tmp_path: Path
) -> None:
    owner, club, _ = world
    path = tmp_path / "players_list_foa.txt"
    path.write_bytes(big_list())
    jobs: list[Job] = []

    def start() -> None:
        with path.open("rb") as file:
            jobs.append(job_start(kind="fide_list", club=club, by=owner, params={}, payload=file))

    tasks = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["files"]}}
    with override_settings(TASKS=tasks):
        peak = peak_bytes(start)

    assert peak < LIST_BYTES / 4, peak
    with job_payload(jobs[0]) as stored, path.open("rb") as file:
        assert digest(stored) == digest(file)


@pytest.mark.usefixtures("small_slices", "queued_jobs")
def test_the_commands_queue_stores_the_file_a_slice_at_a_time(
    world: tuple[Any, Club, Player], tmp_path: Path
) -> None:
    _owner, club, _ = world
    path = tmp_path / "players_list_foa.txt"
    path.write_bytes(big_list())

    def queue() -> None:
        call_command(
            "import_fide_list",
            str(path),
            "--club",
            club.slug,
            "--queue",
            stdout=io.StringIO(),
            stderr=io.StringIO(),
        )

    peak = peak_bytes(queue)

    assert peak < LIST_BYTES / 4, peak
    with job_payload(Job.objects.get()) as stored, path.open("rb") as file:
        assert digest(stored) == digest(file)


# -- out of the job's row -----------------------------------------------------------------------


@pytest.mark.usefixtures("small_slices", "queued_jobs")
def test_the_fide_job_reads_its_stored_list_as_a_stream(
    world: tuple[Any, Club, Player],
) -> None:
    owner, club, magnus = world
    job = job_start(
        kind="fide_list", club=club, by=owner, params={"month": "2026-11"}, payload=big_list()
    )

    peak = peak_bytes(run_queued_jobs)

    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    assert (job.result["found"], job.result["month"]) == (1, "2026-11")
    assert Player.objects.get(pk=magnus.pk).fide_blitz == 2886
    assert peak < LIST_BYTES / 4, peak


@pytest.mark.usefixtures("small_slices", "queued_jobs")
def test_the_stored_file_comes_back_in_a_few_queries_whatever_its_size(
    world: tuple[Any, Club, Player],
) -> None:
    # A slice is read without loading the value: on PostgreSQL from a large object, on
    # SQLite through its blob handle. substr() of the column, one query per slice, loaded
    # the whole value for each (the database's memory, which tracemalloc does not see, and
    # the square of the size in time).
    owner, club, _ = world
    data = big_list()
    job = job_start(kind="fide_list", club=club, by=owner, params={}, payload=io.BytesIO(data))

    with CaptureQueriesContext(connection) as queries, job_payload(job) as stored:
        assert digest(stored) == hashlib.sha256(data).hexdigest()

    slices = len(data) // SLICE
    assert slices > 50
    # PostgreSQL: a savepoint, the copy into a large object, one lo_get per slice (each
    # reads its slice alone), the unlink.
    bound = slices + 6 if connection.vendor == "postgresql" else 3
    assert len(queries) <= bound, [q["sql"][:80] for q in queries]
