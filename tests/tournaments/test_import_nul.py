"""A NUL byte in an uploaded text file (a PGN player's name) is refused as bad input, a
400 naming ``file`` and the line, and nothing is stored. It was a server error: the name
could be neither stored (PostgreSQL's text refuses NUL) nor reported (nor its JSON), and
the job was retried until it ended "worker_lost"."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from players.models import Job
from tests.tournaments.import_world import ImportWorld, build_import_world, counts, read

pytestmark = pytest.mark.django_db


@pytest.fixture
def world() -> ImportWorld:
    return build_import_world()


def upload(user: Any, data: bytes, name: str, form: str, **extra: Any) -> Any:
    client = APIClient()
    client.force_authenticate(user)
    fields = {"format": form, "list": "standard", "file": SimpleUploadedFile(name, data)}
    return client.post("/api/v1/clubs/riverton/imports/", {**fields, **extra}, format="multipart")


@pytest.mark.parametrize("dry_run", ["false", "true"])
@pytest.mark.parametrize(
    ("name", "form"),
    [("games_good.pgn", "pgn"), ("swiss_9_rounds.trf", "trf"), ("games_good.csv", "csv")],
)
def test_a_nul_byte_in_an_upload_is_a_400_naming_the_file(
    world: ImportWorld, name: str, form: str, dry_run: str
) -> None:
    good = read(name)
    lines = good.split(b"\n")
    fifth = lines[4]  # a PGN's White tag: a name
    lines[4] = fifth[: len(fifth) // 2] + b"\x00" + fifth[len(fifth) // 2 :]
    before = counts()
    response = upload(world.arbiter, b"\n".join(lines), name, form, dry_run=dry_run)
    assert response.status_code == 400, response.content[:500]
    error = response.json()["error"]
    assert "file" in error["fields"]
    assert any("line 5" in m and "NUL" in m for m in error["fields"]["file"]), error
    assert counts() == before
    assert Job.objects.get().status == "failed"
