"""The OpenAPI schema: valid with no warnings, every operation documents its role and its
errors in the one error shape, and the interactive docs work without the internet."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.test import Client

from tests.api.conftest import World, client_for
from tests.api.test_authorization_matrix import OPERATIONS, RULES, UNSCOPED, url_for


@pytest.mark.slow
def test_spectacular_validates_with_no_warnings(tmp_path: Path) -> None:
    # --fail-on-warn turns any warning into SchemaGenerationError, failing this test.
    out = tmp_path / "schema.yml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    schema = yaml.safe_load(out.read_text())
    paths = {(m.upper(), p) for p, ops in schema["paths"].items() for m in ops}
    assert paths == set(OPERATIONS)


@pytest.fixture(scope="module")
def schema() -> dict:
    body = Client().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert body.status_code == 200
    return body.json()


def test_every_club_operation_documents_role_and_errors(schema: dict) -> None:
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            rule = RULES[(method.upper(), path)]
            responses = operation["responses"]
            error_codes = [code for code in responses if code.startswith("4")]
            assert error_codes, (method, path)
            for code in error_codes:
                ref = responses[code]["content"]["application/json"]["schema"]["$ref"]
                assert ref == "#/components/schemas/Error", (method, path, code)
            if rule.need == UNSCOPED:
                continue
            assert "Role:" in operation.get("description", ""), (method, path)
            assert {"401", "403", "404"} <= set(responses), (method, path)


def test_error_component_is_the_one_error_shape(schema: dict) -> None:
    components = schema["components"]["schemas"]
    assert components["Error"]["required"] == ["error"]
    assert set(components["ErrorDetail"]["properties"]) == {"code", "message", "fields"}


def test_interactive_docs_use_bundled_assets() -> None:
    page = Client().get("/api/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "swagger-ui" in html
    assert "cdn" not in html.lower()
    assert "/static/drf_spectacular_sidecar/" in html


@pytest.mark.django_db
def test_a_browser_gets_json_from_every_read(world: World) -> None:
    """A browser's Accept header still gets JSON (the API draws no HTML pages)."""
    client = client_for(world.north.users["owner"])
    export = client.post("/api/v1/clubs/north/lists/standard/history-export/")
    job = export.json()["download"].split("/")[-3]
    for method, path in OPERATIONS:
        if method != "GET":
            continue
        rule = RULES[(method, path)]
        url = url_for(path, rule, world.north) if "{club}" in path else path.format(id=job)
        # A GET's rule body is its query (the audit's required ?model=).
        query = rule.body(world.north, world.south) if rule.body else None
        response = client.get(url, query, HTTP_ACCEPT="text/html,application/xhtml+xml,*/*;q=0.8")
        assert response.status_code == 200, (path, response.content[:200])
        # A job's download and a .csv are files; every other read is JSON.
        csv = path.endswith(("/download/", ".csv"))
        wanted = "text/csv" if csv else "application/json"
        assert response["Content-Type"].startswith(wanted), path


def test_every_answer_has_one_media_type(schema: dict) -> None:
    """One response in two media types (JSON and CSV) breaks generated clients: a CSV has
    an operation of its own (tests/api/test_generated_client.py). A file served in several
    media types (a job's download: zip or CSV) is bytes in each, one type to a client."""
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for code, response in operation["responses"].items():
                content = response.get("content", {"": {}})
                binary = {"type": "string", "format": "binary"}
                if all(media.get("schema") == binary for media in content.values()):
                    continue
                assert len(content) == 1, (method, path, code)


def test_no_field_is_a_union_of_types(schema: dict) -> None:
    """Client generators cannot express a field that is a string or a number (the
    calculator's ``result`` was): each field has one type."""

    def types_of(node: dict) -> set[str]:
        found: set[str] = set()
        for option in node.get("oneOf", []) + node.get("anyOf", []):
            found |= types_of(option) or {option.get("type", "object")}
        return found

    def walk(node: object, where: str) -> None:
        if isinstance(node, dict):
            # A body may be one object or a list of them (games_create): generators take
            # that; they fail on scalars of two types.
            assert len(types_of(node) & {"string", "number", "integer", "boolean"}) <= 1, where
            for key, value in node.items():
                walk(value, f"{where}.{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{where}[{index}]")

    walk(schema, "schema")


def test_the_calculator_takes_a_result_number_from_older_clients() -> None:
    """The schema offers strings only; JSON numbers still work for clients written
    before."""
    body = {"rating": 1500, "games": [{"opponent_rating": 1500, "result": 0.5}]}
    response = Client().post("/api/v1/calculate/", body, content_type="application/json")
    assert response.status_code == 200, response.content
    assert response.json()["score"] == 0.5
