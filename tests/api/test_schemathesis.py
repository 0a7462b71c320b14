"""Schemathesis against our own schema, in process (WSGI): for every operation, generated
requests (valid and invalid) must never answer 5xx, and every answer must match the schema
(documented status code, content type and body).

Requests are sent as the owner of the private fixture club ``north`` with a knox token,
and the path's club, ids and username name real objects, so the write paths run through
the services rather than stopping at a 404. The example count is kept small so the whole
module runs in well under a minute.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from players.models import ApiToken as AuthToken
from ratings_site.wsgi import application
from tests.api.conftest import World

schema = schemathesis.openapi.from_wsgi("/api/schema/", application)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@pytest.fixture
def owner_headers(world: World) -> dict[str, str]:
    _, token = AuthToken.objects.create(world.north.users["owner"])
    return {"Authorization": f"Token {token}"}


def real_path_parameters(case: Any, world: World) -> None:
    north = world.north
    params = case.path_parameters or {}
    if "club" in params:
        params["club"] = north.slug
    if "id" in params:
        path = case.operation.path
        if "/deliveries/{id}" in path:
            params["id"] = str(north.extra["delivery"].pk)
        elif "/webhooks/" in path:
            params["id"] = north.extra["webhook"].pk
        elif "/games/" in path:
            params["id"] = north.open_game.pk
        elif "/tournaments/" in path:
            params["id"] = north.tournament.pk
        else:
            params["id"] = north.players[0].pk
    if "webhook" in params:
        params["webhook"] = north.extra["webhook"].pk
    if "username" in params:
        params["username"] = north.users["viewer"].username
    if "period" in params:
        params["period"] = "2026-02"


@schema.parametrize()
@settings(
    max_examples=8,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_api_conforms_to_its_schema(
    case: Any, world: World, owner_headers: dict[str, str], keep_test_connection: None
) -> None:
    real_path_parameters(case, world)
    case.call_and_validate(headers=owner_headers, checks=CHECKS)
