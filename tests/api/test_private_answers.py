"""``Cache-Control: private`` on every answer that depends on who asks: pages for a
signed-in user, private downloads, API answers to a session or a token; public answers to
anonymous visitors stay as they were."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from players.services import api_token_create
from tests.api.conftest import World

pytestmark = pytest.mark.django_db


def private(response: Any) -> bool:
    directives = {d.strip() for d in response.get("Cache-Control", "").split(",")}
    return "private" in directives and "public" not in directives


def test_answers_to_a_signed_in_user_are_private(world: World) -> None:
    north = world.north
    owner = north.users["owner"]
    site = Client()
    site.force_login(owner)
    pages = [
        "/accounts/",
        f"/clubs/{north.slug}/",
        f"/clubs/{north.slug}/lists/standard/export.csv",
        f"/clubs/{north.slug}/tournaments/{north.tournament.pk}/export.pgn",
        f"/clubs/{world.south.slug}/",  # public, but the page may show the user's roles
    ]
    for url in pages:
        response = site.get(url)
        assert response.status_code == 200, url
        assert private(response), (url, response.get("Cache-Control"))
        assert "Cookie" in response.get("Vary", ""), url

    _, raw = api_token_create(user=owner, name="script")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    for url in ("/api/v1/clubs/", f"/api/v1/clubs/{north.slug}/players/"):
        response = api.get(url)
        assert response.status_code == 200, url
        assert private(response), url
        assert "Authorization" in response.get("Vary", ""), url


def test_public_answers_to_anonymous_visitors_are_not_marked_private(world: World) -> None:
    for url in (f"/clubs/{world.south.slug}/", f"/api/v1/clubs/{world.south.slug}/"):
        response = Client().get(url)
        assert response.status_code == 200, url
        assert not private(response), url
