"""Bodies over Django's limits (DATA_UPLOAD_MAX_MEMORY_SIZE: 2.5 MB besides files,
DATA_UPLOAD_MAX_NUMBER_FIELDS: 1,000, DATA_UPLOAD_MAX_NUMBER_FILES: 100) are a 413 in the
API's error shape (the site's pages: its error page), nothing changed; never a 500."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from tests.api.conftest import World, assert_error_shape, client_for, db_snapshot

pytestmark = pytest.mark.django_db

MB = 1 << 20


def players_url(world: World) -> str:
    return f"/api/v1/clubs/{world.north.slug}/players/"


def imports_url(world: World) -> str:
    return f"/api/v1/clubs/{world.north.slug}/imports/"


def assert_too_large(response: Any) -> None:
    assert response.status_code == 413, response.content[:300]
    assert_error_shape(response.json())
    assert response.json()["error"]["code"] == "too_large"


def test_a_json_body_over_the_limit_is_a_413(world: World) -> None:
    before = db_snapshot()
    body = json.dumps({"name": "Big", "notes": "x" * (3 * MB)})
    response = client_for(world.north.users["owner"]).post(
        players_url(world), body, content_type="application/json"
    )
    assert_too_large(response)
    assert db_snapshot() == before


@pytest.mark.parametrize(
    "form",
    [
        pytest.param({f"field{n}": "x" for n in range(1500)}, id="1500-fields"),
        pytest.param(
            {f"file{n}": SimpleUploadedFile(f"f{n}.pgn", b"x") for n in range(150)},
            id="150-files",
        ),
        pytest.param({"format": "x" * (3 * MB)}, id="3MB-text-field"),
    ],
)
def test_a_multipart_body_over_the_limits_is_a_413(world: World, form: dict[str, Any]) -> None:
    before = db_snapshot()
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(world.north.users["owner"])
    for url in (imports_url(world), players_url(world), "/api/v1/auth/token/"):
        response = client.post(url, form, format="multipart")
        assert response.status_code in (413, 415), (url, response.status_code)
        if response.status_code == 413:
            assert_too_large(response)
    assert db_snapshot() == before


def test_the_sites_forms_refuse_too_many_fields_without_a_server_error(world: World) -> None:
    client = Client(raise_request_exception=False)
    for url in ("/accounts/login/", "/admin/login/"):
        response = client.post(url, {f"field{n}": "x" for n in range(1500)})
        assert response.status_code == 413, (url, response.status_code)
