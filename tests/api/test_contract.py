"""The contract both ways: the schema declares the parameters, bounds and media types the
server implements, and the server refuses what the schema does not allow, in the API's
error shape (DEBUG on too)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client, override_settings

from players.selectors.records import MONTH_PATTERN
from tests.api.conftest import World, assert_error_shape, client_for

PERIODS = "/api/v1/clubs/north/lists/standard/periods/"


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    body = Client().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    return body.json()  # type: ignore[no-any-return]


def parameters(schema: dict[str, Any], path: str, method: str = "get") -> dict[str, Any]:
    operation = schema["paths"][path][method]
    return {p["name"]: p["schema"] for p in operation.get("parameters", [])}


def refused(response: Any, field: str) -> None:
    assert response.status_code == 400, response.content
    body = response.json()
    assert_error_shape(body)
    assert field in body["error"]["fields"], body


def test_history_declares_its_pages(schema: dict[str, Any]) -> None:
    params = parameters(schema, "/api/v1/clubs/{club}/players/{id}/history/")
    assert params["page"] == {"type": "integer", "minimum": 1}
    assert params["page_size"] == {"type": "integer", "minimum": 1, "maximum": 500}
    assert params["id"]["minimum"] == 1


def test_live_list_declares_its_filters_and_pages(schema: dict[str, Any]) -> None:
    params = parameters(schema, "/api/v1/clubs/{club}/lists/{list}/live/")
    assert {"name", "federation", "title", "active", "played", "ordering", "page"} <= set(params)
    assert "-live_rating" in params["ordering"]["enum"]


def test_limits_are_declared(schema: dict[str, Any]) -> None:
    close = parameters(schema, "/api/v1/clubs/{club}/lists/{list}/periods/{period}/close/", "post")
    assert (close["wait"]["minimum"], close["wait"]["maximum"]) == (0, 30)
    assert close["period"]["pattern"] == MONTH_PATTERN
    games = schema["components"]["schemas"]["CalculateInRequest"]["properties"]["games"]
    assert games["minItems"] == 1
    bulk = schema["components"]["schemas"]["GameCreateRequest"]["oneOf"][1]
    assert bulk["minItems"] == 1


def test_download_is_binary_in_the_media_types_served(schema: dict[str, Any]) -> None:
    content = schema["paths"]["/api/v1/jobs/{id}/download/"]["get"]["responses"]["200"]["content"]
    assert set(content) == {"application/zip", "text/csv"}
    assert all(c["schema"] == {"type": "string", "format": "binary"} for c in content.values())


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["bogus", "", "month,bogus", "-rating"])
def test_unknown_ordering_is_refused(world: World, value: str) -> None:
    refused(client_for(world.north.users["viewer"]).get(PERIODS, {"ordering": value}), "ordering")


@pytest.mark.django_db
def test_periods_ordering_is_honoured(world: World) -> None:
    client = client_for(world.north.users["viewer"])
    up = [p["period"] for p in client.get(PERIODS, {"ordering": "month"}).json()["results"]]
    down = [p["period"] for p in client.get(PERIODS, {"ordering": "-month"}).json()["results"]]
    assert len(up) > 1
    assert up == sorted(up)
    assert down == up[::-1]


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["ten", "", "0", "501", "1.5", "٣"])
def test_bad_page_size_is_refused(world: World, value: str) -> None:
    refused(client_for(world.north.users["viewer"]).get(PERIODS, {"page_size": value}), "page_size")


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["", "-1", "31", "x"])
def test_bad_wait_is_refused_and_starts_nothing(world: World, value: str) -> None:
    from players.models import Job

    before = Job.objects.count()
    officer = client_for(world.north.users["officer"])
    url = "/api/v1/clubs/north/lists/standard/history-export/"
    refused(officer.post(f"{url}?wait={value}"), "wait")
    assert Job.objects.count() == before


@pytest.mark.django_db
def test_an_empty_bulk_of_games_is_refused(world: World) -> None:
    arbiter = client_for(world.north.users["owner"])
    response = arbiter.post("/api/v1/clubs/north/games/", [], format="json")
    assert response.status_code == 400, response.content
    assert_error_shape(response.json())


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [True, False])
@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/clubs/north/players/abc/",
        "/api/v1/clubs/north/players/-1/history/",
        "/api/v1/jobs/not-a-uuid/download/",
        "/api/v1/nothing/",
        "/api/elsewhere",
    ],
)
def test_api_urls_no_route_answers_are_json_404(world: World, debug: bool, path: str) -> None:
    with override_settings(DEBUG=debug):
        response = Client().get(path)
    assert response.status_code == 404, response.content[:200]
    assert response["Content-Type"] == "application/json"
    assert_error_shape(response.json())


@pytest.mark.django_db
def test_an_api_path_lacking_its_slash_is_still_redirected(world: World) -> None:
    response = Client().get("/api/v1/clubs/north/players")
    assert response.status_code == 301
    assert response["Location"] == "/api/v1/clubs/north/players/"


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["2026-13", "0000-01", "2026-1", " 2026-01"])
def test_a_month_outside_the_pattern_is_refused(world: World, value: str) -> None:
    viewer = client_for(world.north.users["viewer"])
    refused(viewer.get("/api/v1/clubs/north/games/", {"period": value}), "period")
