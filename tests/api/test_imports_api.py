"""POST /api/v1/clubs/{club}/imports/: multipart upload, report as JSON, errors in the shape."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from tests.tournaments.import_world import ImportWorld, build_import_world, counts, read
from tests.tournaments.test_fide_list_streaming import STRICT
from tournaments.models import Game, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def world() -> ImportWorld:
    return build_import_world()


def client_for(user: Any) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def post(
    user: Any, slug: str = "riverton", *, name: str = "swiss_9_rounds.trf", **fields: Any
) -> Any:
    data: dict[str, Any] = {"format": "trf", "list": "standard"}
    data.update(fields)
    if name:
        data.setdefault("file", SimpleUploadedFile(name, read(name)))
    data = {key: value for key, value in data.items() if value is not None}
    return client_for(user).post(f"/api/v1/clubs/{slug}/imports/", data, format="multipart")


def assert_error_shape(body: dict[str, Any], code: str) -> None:
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "fields"}
    assert body["error"]["code"] == code


def test_arbiter_imports_a_trf_and_gets_the_report(world: ImportWorld) -> None:
    response = post(world.arbiter)

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["stored"] is True
    assert body["games_created"] == 48 == Game.objects.count()
    assert body["tournament"]["name"] == "Riverton Autumn Open 2026"
    assert body["tournament"]["id"] == Tournament.objects.get().pk
    assert len(body["players_created"]) == 12
    assert {entry["reason"] for entry in body["games_not_rated"]} == {
        "forfeit",
        "double forfeit",
        "less than one move",
    }
    assert len(body["byes"]) == 12
    assert body["errors"] == []


def test_dry_run_answers_200_and_stores_nothing(world: ImportWorld) -> None:
    before = counts()
    response = post(world.arbiter, dry_run="true")

    assert response.status_code == 200
    body = response.json()
    assert (body["dry_run"], body["stored"], body["games_created"]) == (True, False, 48)
    assert body["tournament"]["id"] is None
    assert counts() == before


def test_second_upload_says_already_imported(world: ImportWorld) -> None:
    assert post(world.arbiter).status_code == 201
    before = counts()

    response = post(world.arbiter)

    assert response.status_code == 200
    assert response.json()["already_imported"] is True
    assert counts() == before


def test_a_broken_file_is_400_with_the_lines_and_nothing_stored(world: ImportWorld) -> None:
    before = counts()
    response = post(world.arbiter, name="trf_broken.trf")

    assert response.status_code == 400
    body = response.json()
    assert_error_shape(body, "invalid")
    assert [line.split(":")[0] for line in body["error"]["fields"]["file"]] == [
        "line 4",
        "line 8",
        "line 10",
    ]
    assert "line 4: date '2026/13/45' is not YYYY/MM/DD" in body["error"]["message"]
    assert counts() == before


def test_csv_and_pgn_by_format(world: ImportWorld) -> None:
    csv = post(world.arbiter, name="games_good.csv", format="csv", list="blitz")
    pgn = post(world.arbiter, name="games_good.pgn", format="pgn")

    assert (csv.status_code, pgn.status_code) == (201, 201)
    assert csv.json()["games_created"] == 6
    assert pgn.json()["games_created"] == 3


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"format": "xls"}, "format"),
        ({"list": "bullet"}, "list"),
        ({"format": None}, "format"),
        ({"name": ""}, "file"),
        ({"dry_run": "maybe"}, "dry_run"),
    ],
)
def test_bad_input_is_400_in_the_error_shape(
    world: ImportWorld, fields: dict[str, Any], field: str
) -> None:
    before = counts()
    response = post(world.arbiter, **fields)

    assert response.status_code == 400
    body = response.json()
    assert_error_shape(body, "invalid")
    assert field in body["error"]["fields"]
    assert counts() == before


def test_a_file_in_the_wrong_format_is_400(world: ImportWorld) -> None:
    before = counts()
    response = post(world.arbiter, name="games_good.csv", format="trf")
    assert response.status_code == 400
    assert response.json()["error"]["fields"]["file"]
    assert counts() == before


def test_viewer_is_403_other_clubs_user_404_anonymous_401(world: ImportWorld) -> None:
    other = build_import_world("elsewhere")
    before = counts()

    viewer = post(world.users["viewer"])
    outsider = post(other.arbiter)  # an arbiter, but of another club
    anonymous = post(None)

    assert viewer.status_code == 403
    assert_error_shape(viewer.json(), "permission_denied")
    assert outsider.status_code == 404
    assert_error_shape(outsider.json(), "not_found")
    assert anonymous.status_code in (401, 403)
    assert counts() == before


def test_the_schema_documents_the_endpoint(world: ImportWorld) -> None:
    response = APIClient().get("/api/schema/", {"format": "json"})
    operation = response.json()["paths"]["/api/v1/clubs/{club}/imports/"]["post"]
    assert "multipart/form-data" in operation["requestBody"]["content"]
    assert {"200", "201", "400", "403", "404", "409"} <= set(operation["responses"])


def test_the_upload_goes_into_the_job_without_being_read_whole(world: ImportWorld) -> None:
    # The request's file is copied into the job's row a slice at a time (job_start), as
    # FIDE's list is: a 64 MB tournament file is never held whole by the web process.
    with STRICT:
        response = post(world.arbiter)

    assert response.status_code == 201, response.content
    assert response.json()["games_created"] == 48 == Game.objects.count()
