"""The club archive through the API: an owner starts the export job and downloads the
zip; nobody else may start it or read its file; the file restores (import_club)."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import pytest

from players.models import Club, Player
from tests.api.conftest import World, assert_error_shape, client_for
from tests.queue import run_queued_jobs
from tournaments.services.club_archive import FORMAT_VERSION, MANIFEST, club_import

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("queued_jobs")]

EXPORT = "/api/v1/clubs/north/export/"


def finished_export(world: World) -> dict[str, Any]:
    owner = client_for(world.north.users["owner"])
    started = owner.post(EXPORT + "?wait=0")
    assert started.status_code == 202, started.content[:300]
    assert run_queued_jobs() > 0
    done: dict[str, Any] = owner.get(f"/api/v1/jobs/{started.json()['id']}/").json()
    assert done["status"] == "succeeded", done
    return done


def test_the_owner_downloads_an_archive_that_restores(world: World) -> None:
    done = finished_export(world)
    result = done["result"]
    assert result["format_version"] == FORMAT_VERSION
    assert result["tables"]["players.player"] == Player.objects.filter(club__slug="north").count()
    download = client_for(world.north.users["owner"]).get(result["download"])
    assert download.status_code == 200
    assert download["Content-Type"] == "application/zip"
    assert result["file"] in download["Content-Disposition"]
    data = download.content
    assert len(data) == result["bytes"]
    manifest = json.loads(zipfile.ZipFile(io.BytesIO(data)).read(MANIFEST))
    assert manifest["club"]["slug"] == "north"
    report = club_import(file=io.BytesIO(data), slug="north-copy", name="North copy")
    assert report.tables == result["tables"]
    copy = Club.objects.get(slug="north-copy")
    assert copy.players.count() == result["tables"]["players.player"]


@pytest.mark.parametrize("role", ["officer", "arbiter", "viewer"])
def test_only_owners_start_it(world: World, role: str) -> None:
    response = client_for(world.north.users[role]).post(EXPORT)
    assert response.status_code == 403
    assert_error_shape(response.json())


@pytest.mark.parametrize("role", ["officer", "viewer"])
def test_only_owners_read_its_file(world: World, role: str) -> None:
    done = finished_export(world)
    member = client_for(world.north.users[role])
    # The job itself (its counts) is the club's members' to see; the file is not.
    assert member.get(f"/api/v1/jobs/{done['id']}/").status_code == 200
    response = member.get(done["result"]["download"])
    assert response.status_code == 403
    assert_error_shape(response.json())
    outsider = client_for(world.south.users["owner"])
    assert outsider.get(done["result"]["download"]).status_code == 404
