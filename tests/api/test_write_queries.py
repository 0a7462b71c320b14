"""A game written through the API with a token reads each thing once: the token (not the
user's other tokens), the club with the user's role in it (the view's role check and the
service's share it), the period it goes to (locked, not first looked up), and the club's
slug not at all (the service has the club). During a round every game is such a request."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from players.models import ApiToken, Membership, Role
from players.selectors import club_get_visible, require_role
from players.services import api_token_create
from tests.api.conftest import World, make_user

pytestmark = pytest.mark.django_db


def _selects(queries: CaptureQueriesContext, table: str) -> list[str]:
    # The reads of ``table``'s rows (their first column is the table's), not subqueries.
    return [q["sql"] for q in queries.captured_queries if q["sql"].startswith(f'SELECT "{table}".')]


def _statements(queries: CaptureQueriesContext) -> list[str]:
    # Savepoints are the test's transaction, not the request's work.
    return [q["sql"] for q in queries.captured_queries if "SAVEPOINT" not in q["sql"]]


def _token_client(user: Any) -> APIClient:
    _, raw = api_token_create(user=user, name="a script")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
    return api


def _game(world: World, day: str) -> dict[str, Any]:
    p1, p2 = world.north.players[0], world.north.players[1]
    return {"list": "standard", "date": day, "white": p1.pk, "black": p2.pk, "result": "1-0"}


def _check_reads_once(queries: CaptureQueriesContext) -> None:
    assert len(_selects(queries, "players_apitoken")) == 1
    assert len(_selects(queries, "players_club")) == 1
    assert _selects(queries, "players_membership") == []


def test_a_game_entered_reads_token_club_role_and_period_once(world: World) -> None:
    api = _token_client(world.north.users["arbiter"])
    base = f"/api/v1/clubs/{world.north.slug}/games/"
    with CaptureQueriesContext(connection) as queries:
        response = api.post(base, _game(world, "2026-02-20"), format="json")
    assert response.status_code == 201, response.content
    _check_reads_once(queries)
    # The open February period: locked once, then the later closed periods looked for.
    assert len(_selects(queries, "tournaments_ratingperiod")) == 2
    # The token and its first "last used" stamp, the club, the list, the players, the
    # lock, the later closed periods, the game, its audit row; the answer is the game the
    # service made, not read back.
    assert len(_statements(queries)) == 9
    _answer_is_the_stored_game(api, base, response.json())


def _answer_is_the_stored_game(api: APIClient, base: str, answer: dict[str, Any]) -> None:
    stored = api.get(f"{base}{answer['id']}/")
    assert stored.status_code == 200
    assert answer == stored.json()


def test_a_game_corrected_and_deleted_reads_token_club_role_and_period_once(
    world: World,
) -> None:
    api = _token_client(world.north.users["arbiter"])
    url = f"/api/v1/clubs/{world.north.slug}/games/{world.north.open_game.pk}/"
    change = {"result": "1/2-1/2", "date": "2026-02-28", "white": world.north.players[1].pk}
    with CaptureQueriesContext(connection) as queries:
        response = api.patch(url, change, format="json")
    assert response.status_code == 200, response.content
    _check_reads_once(queries)
    assert response.json()["result"] == "1/2-1/2"
    _answer_is_the_stored_game(api, f"/api/v1/clubs/{world.north.slug}/games/", response.json())
    with CaptureQueriesContext(connection) as queries:
        response = api.delete(url)
    assert response.status_code == 204, response.content
    _check_reads_once(queries)
    assert len(_selects(queries, "tournaments_ratingperiod")) == 2


def test_the_first_game_of_a_month_still_makes_its_period(world: World) -> None:
    api = _token_client(world.north.users["arbiter"])
    response = api.post(
        f"/api/v1/clubs/{world.north.slug}/games/", _game(world, "2026-03-02"), format="json"
    )
    assert response.status_code == 201, response.content
    assert response.json()["period"] == "2026-03"


def test_a_role_read_with_the_club_serves_only_the_user_it_was_read_for(world: World) -> None:
    """The club carries its reader's role; another user's check still reads their own."""
    club = club_get_visible(user=world.north.users["owner"], slug=world.north.slug)
    assert require_role(world.north.users["owner"], club, Role.OWNER) == Role.OWNER
    with pytest.raises(Exception, match="No such club"):
        require_role(world.stranger, club, Role.VIEWER)
    with pytest.raises(Exception, match="needs the rating officer role"):
        require_role(world.north.users["arbiter"], club, Role.OFFICER)


def test_a_role_changed_after_the_club_was_read_is_seen_by_the_next_request(
    world: World,
) -> None:
    arbiter = world.north.users["arbiter"]
    api = _token_client(arbiter)
    base = f"/api/v1/clubs/{world.north.slug}/games/"
    assert api.post(base, _game(world, "2026-02-21"), format="json").status_code == 201
    Membership.objects.filter(user=arbiter, club=world.north.club).update(role=Role.VIEWER)
    refused = api.post(base, _game(world, "2026-02-22"), format="json")
    assert refused.status_code == 403
    assert "arbiter role" in refused.json()["error"]["message"]


def test_the_token_check_leaves_the_users_other_tokens_alone_until_a_new_one_is_made(
    world: World,
) -> None:
    user = make_user("wendy")
    old, _ = api_token_create(user=user, name="old script")
    ApiToken.objects.filter(pk=old.pk).update(expiry=timezone.now() - datetime.timedelta(days=1))
    api = _token_client(user)  # a new token: the expired one goes
    assert not ApiToken.objects.filter(pk=old.pk).exists()
    expired, _ = api_token_create(user=user, name="another")
    ApiToken.objects.filter(pk=expired.pk).update(
        expiry=timezone.now() - datetime.timedelta(days=1)
    )
    with CaptureQueriesContext(connection) as queries:
        assert api.get("/api/v1/clubs/").status_code == 200
    assert len(_selects(queries, "players_apitoken")) == 1
    assert ApiToken.objects.filter(pk=expired.pk).exists()  # not looked at by the check


def test_the_members_home_lists_only_tokens_that_work(world: World) -> None:
    user = make_user("xena")
    api_token_create(user=user, name="works")
    dead, _ = api_token_create(user=user, name="expired yesterday")
    ApiToken.objects.filter(pk=dead.pk).update(expiry=timezone.now() - datetime.timedelta(days=1))
    client = Client()
    client.force_login(user)
    page = client.get("/accounts/").content.decode()
    assert "works" in page
    assert "expired yesterday" not in page


def test_an_expired_token_is_refused_deleted_and_announced(world: World) -> None:
    from knox.signals import token_expired

    user = make_user("yuri")
    token, raw = api_token_create(user=user, name="old")
    ApiToken.objects.filter(pk=token.pk).update(expiry=timezone.now() - datetime.timedelta(days=1))
    heard: list[dict[str, Any]] = []

    def listener(**kwargs: Any) -> None:
        heard.append(kwargs)

    token_expired.connect(listener)
    try:
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Token {raw}")
        assert api.get("/api/v1/clubs/").status_code == 401
    finally:
        token_expired.disconnect(listener)
    assert not ApiToken.objects.filter(pk=token.pk).exists()
    assert [(h["username"], h["source"]) for h in heard] == [("yuri", "auth_token")]
