"""The site's shared plumbing: home page, API schema and docs are served without internet."""

from __future__ import annotations

import pytest
from django.test import Client


@pytest.mark.django_db
def test_home_page_renders(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert b"Club ratings" in response.content


@pytest.mark.django_db
def test_api_docs_use_bundled_assets(client: Client) -> None:
    response = client.get("/api/docs/")
    assert response.status_code == 200
    body = response.content.decode()
    assert "drf_spectacular_sidecar" in body or "/static/" in body
    assert "cdn" not in body.lower()


@pytest.mark.django_db
def test_schema_is_served(client: Client) -> None:
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    assert response.json()["info"]["title"] == "Club ratings API"


@pytest.mark.django_db
def test_schema_generates_without_warnings() -> None:
    from django.core.management import call_command

    call_command("spectacular", "--validate", "--fail-on-warn", "--file", "/dev/null")


@pytest.mark.django_db
def test_favicon_is_served_and_linked(client: Client) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 302
    assert response["Location"].endswith("/favicon.svg")
    assert 'rel="icon"' in client.get("/calculator/").content.decode()
