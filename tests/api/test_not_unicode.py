"""What the service does with text that is not valid Unicode (docs/reference/security.md), one
place each: the JSON parser refuses lone surrogates naming the field, the decoder refuses
bytes that are not UTF-8, the renderer never fails on a surrogate, the token throttle
counts any username, the token check refuses a token that cannot be one, and the admin's
version pages do not save. The sweeps that find such input anywhere:
tests/api/test_bad_text.py, test_bad_form_text.py, test_bad_paths.py.
"""

from __future__ import annotations

import io
import json
from types import SimpleNamespace
from typing import Any

import pytest
from django.test import Client
from rest_framework import renderers as drf_renderers
from rest_framework.exceptions import ValidationError

from players.http.parsers import JSONParser
from players.http.renderers import JSONRenderer
from players.http.throttles import UsernameRateThrottle
from players.models import Invitation, Player
from tests.api.conftest import PASSWORD, World, assert_error_shape, client_for, db_snapshot


def post_json(world: World, path: str, raw: bytes, user: Any = "owner") -> Any:
    who = world.north.users[user] if user else None
    return client_for(who).generic(
        "POST", f"/api/v1/clubs/{world.north.slug}{path}", raw, content_type="application/json"
    )


def refused(response: Any, field: str) -> str:
    assert response.status_code == 400, response.content[:300]
    body = response.json()
    assert_error_shape(body)
    assert set(body["error"]["fields"]) == {field}, body
    message: str = body["error"]["message"]
    return message


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "field"),
    [
        # A choice field's "not a valid choice" echoed the value: a 500 before.
        ('{"name": "X", "sex": "\\ud800"}', "sex"),
        ('{"name": "X", "title": "GM\\udbff"}', "title"),
        ('{"name": "X", "ratings": [{"list": "\\udfff", "rating": 1500}]}', "ratings[0].list"),
        ('{"name": "X", "\\ud800": 1}', "non_field_errors (a field's name)"),
        ('"\\ud800"', "non_field_errors"),
    ],
)
def test_a_lone_surrogate_is_a_400_naming_its_field(world: World, body: str, field: str) -> None:
    before = db_snapshot()
    message = refused(post_json(world, "/players/", body.encode()), field)
    assert "Not valid Unicode: a lone surrogate" in message
    assert db_snapshot() == before


@pytest.mark.django_db
def test_a_lone_surrogate_in_a_bulk_create_names_the_game(world: World) -> None:
    north = world.north
    game = {"list": "blitz", "date": "2026-04-05", "result": "1-0"}
    game |= {"white": north.players[0].pk, "black": north.players[1].pk}
    body = json.dumps([game, {**game, "result": "\ud800"}]).encode()
    refused(post_json(world, "/games/", body, user="arbiter"), "[1].result")


@pytest.mark.django_db
def test_a_surrogate_pair_is_one_character_and_welcome(world: World) -> None:
    """A well-formed pair (an emoji spelled in JSON escapes) is valid Unicode."""
    response = post_json(world, "/players/", b'{"name": "Knight \\ud83d\\ude00"}')
    assert response.status_code == 201, response.content[:300]
    assert Player.objects.get(pk=response.json()["id"]).name == "Knight \U0001f600"


@pytest.mark.django_db
@pytest.mark.parametrize("raw", [b"\xff\xfe", b"\xed\xa0\x80", b"\xc0\xaf"])
def test_bytes_that_are_not_utf8_are_a_400_naming_the_problem(world: World, raw: bytes) -> None:
    before = db_snapshot()
    response = post_json(world, "/players/", b'{"name": "' + raw + b'"}')
    assert response.status_code == 400
    body = response.json()
    assert_error_shape(body)
    assert body["error"]["code"] == "parse_error"
    assert "'utf-8' codec can't decode byte" in body["error"]["message"]
    assert db_snapshot() == before


@pytest.mark.django_db
def test_the_token_endpoint_refuses_a_lone_surrogate_username(world: World) -> None:
    """Its username throttle read the body first and failed to encode it: a 500 before."""
    response = client_for(None).generic(
        "POST",
        "/api/v1/auth/token/",
        b'{"username": "north-owner\\ud800", "password": "x"}',
        content_type="application/json",
    )
    refused(response, "username")


def test_the_username_throttle_counts_a_lone_surrogate() -> None:
    """Whatever parser gave the username, the throttle's key is made (a 500 before)."""
    throttle = UsernameRateThrottle()
    request = SimpleNamespace(data={"username": "Eve\ud800"})
    key = throttle.get_cache_key(request, None)
    assert key is not None
    # Case and spaces are still one username's count.
    assert key == throttle.get_cache_key(SimpleNamespace(data={"username": " eve\ud800"}), None)
    assert key != throttle.get_cache_key(SimpleNamespace(data={"username": "eve"}), None)


def test_the_renderer_writes_a_lone_surrogate_as_the_replacement_character() -> None:
    data = {"error": {"message": '"\ud800" is not a valid choice.', "\udfff": ["x"]}}
    with pytest.raises(UnicodeEncodeError):  # DRF's: the answer became a 500
        drf_renderers.JSONRenderer().render(data)
    rendered = JSONRenderer().render(data)
    assert json.loads(rendered.decode("utf-8")) == {
        "error": {"message": '"\ufffd" is not a valid choice.', "\ufffd": ["x"]}
    }


@pytest.mark.parametrize(
    "data",
    [
        {"name": "Émile Łukasz 😀", "line": "a\u2028b\u2029c", "n": 1.5, "list": [None, True]},
        [{"x": "<script>"}],
        "plain",
    ],
)
def test_the_renderer_renders_good_data_as_drf_does(data: Any) -> None:
    for accepted in ("application/json", "application/json; indent=4"):
        ours = JSONRenderer().render(data, accepted, {})
        assert ours == drf_renderers.JSONRenderer().render(data, accepted, {})


@pytest.mark.django_db
@pytest.mark.parametrize("token", [b"\xff\xfe", b"a\x00b", b"\xed\xa0\x80"])
def test_a_token_that_cannot_be_one_is_a_401(world: World, token: bytes) -> None:
    """Bytes that are not UTF-8 were a 500 in knox's decoder; a NUL one on PostgreSQL."""
    response = client_for(None).get(
        f"/api/v1/clubs/{world.south.slug}/players/",
        HTTP_AUTHORIZATION="Token " + token.decode("latin-1"),
    )
    assert response.status_code == 401, response.content[:300]
    assert_error_shape(response.json())
    assert response.json()["error"]["code"] == "authentication_failed"


@pytest.mark.django_db
def test_a_good_token_still_signs_in(world: World) -> None:
    response = client_for(None).post(
        "/api/v1/auth/token/", {"username": "north-owner", "password": PASSWORD}, format="json"
    )
    assert response.status_code == 200, response.content[:300]
    token = response.json()["token"]
    answer = client_for(None).get(
        f"/api/v1/clubs/{world.north.slug}/members/", HTTP_AUTHORIZATION=f"Token {token}"
    )
    assert answer.status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("model", ["invitation", "player"])
def test_a_post_to_an_admin_version_page_saves_nothing(world: World, model: str) -> None:
    """Reverting is off (SIMPLE_HISTORY_REVERT_DISABLED), yet a POST to a version's page
    saved it (an invitation's was a 500); the page itself still shows."""
    owner = world.north.users["owner"]
    owner.is_staff = True
    owner.save(update_fields=["is_staff"])
    row: Any = (
        world.north.extra["invitation"]
        if model == "invitation"
        else Player.objects.filter(club=world.north.club).order_by("pk").first()
    )
    assert isinstance(row, Invitation | Player)
    # By the row's own id: a historical row's pk is its history_id.
    version = type(row).history.filter(id=row.pk).order_by("history_id").first()
    assert version is not None
    client = Client(raise_request_exception=False)
    client.force_login(owner)
    url = f"/admin/players/{model}/{row.pk}/history/{version.history_id}/"
    assert client.get(url).status_code == 200
    before = db_snapshot()
    response = client.post(url, {"name": "Reverted", "email": "x@example.org", "role": "owner"})
    assert response.status_code == 403
    assert db_snapshot() == before


def test_the_parser_tells_an_escaped_surrogate_from_a_backslash() -> None:
    parser = JSONParser()
    # A backslash followed by "ud800" is six characters of good text.
    assert parser.parse(io.BytesIO(b'["a\\\\ud800"]'), "application/json", {}) == ["a\\ud800"]
    for body, encoding in [(b'["a\\ud800"]', "utf-8"), ('["a\\udfff"]'.encode("utf-16"), "utf-16")]:
        with pytest.raises(ValidationError):
            parser.parse(io.BytesIO(body), "application/json", {"encoding": encoding})
