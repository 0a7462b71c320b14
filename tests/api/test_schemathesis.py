"""Schemathesis against our own schema, in process (WSGI), with every check it has, on
positive and negative data, signed in and anonymous: no 5xx, every answer as documented
(status, media type, headers, body), schema-valid input accepted and invalid input refused.

The parametrized test sends each operation's generated requests as the owner of the
private fixture club ``north`` (a knox token) or anonymously, with the path's club, ids and
username naming real objects, so the write paths run through the services rather than
stopping at a 404. The stateful test follows the links schemathesis infers (an id a create
answers, read, changed, deleted). Example counts are bounded per operation so the module
runs in about a minute on two cores.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from django.core.cache import cache
from django.db import transaction
from hypothesis import HealthCheck, Phase, settings
from schemathesis.checks import CHECKS as CHECK_REGISTRY
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi import checks as openapi_checks

from players.models import ApiToken as AuthToken
from ratings_site.wsgi import application
from tests.api.conftest import World

# Hundreds of generated requests.
pytestmark = pytest.mark.slow

schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
# Positive and negative data (both modes, schemathesis' default), without query parameters
# the schema does not name: the server ignores an unknown parameter, as DRF does (a named
# parameter's bad value is refused).
schema.config.generation.update(modes=list(GenerationMode), allow_extra_parameters=False)

# Every check schemathesis has, the OpenAPI ones registered as their module loads
# (positive and negative data are its default generation modes).
assert openapi_checks.response_schema_conformance in CHECK_REGISTRY.get_all()
CHECKS = CHECK_REGISTRY.get_all()
# Operations whose valid-looking input the server may still refuse with a 400 naming the
# field, for what no schema can say: a wrong password, a file's content, a name or id that
# is not in the club, a URL to a private address, a rule bound by another field's value,
# a website's origin whose host is not one, a page address that is not this site's.
# For them an answer of 400 to positive data is not a finding; every other check holds.
CHECKED_BEYOND_THE_SCHEMA = {
    "auth_token",
    "audit_list",
    "claims_create",
    "claims_decide",
    "clubs_update",
    "fide_list_import",
    "imports_create",
    "games_list",
    "games_create",
    "games_update",
    "invitations_create",
    "lists_create",
    "lists_update",
    "members_set",
    "members_update",
    "oembed",
    "players_list",
    "players_create",
    "players_update",
    "players_history",
    "players_k_history",
    "players_forecast",
    "players_live",
    "players_merge",
    "tournaments_create",
    "tournaments_entries_set",
    "tournaments_update",
    "webhooks_create",
    "webhooks_update",
}


def excluded_for(case: Any) -> list[Any]:
    if case.operation.definition.raw.get("operationId") in CHECKED_BEYOND_THE_SCHEMA:
        return [openapi_checks.positive_data_acceptance]
    return []


# Scenarios per identity: each is up to six calls (the machine has two cores for the suite).
STATEFUL_EXAMPLES = 25


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
        elif "/claims/" in path:
            params["id"] = north.extra["claim"].pk
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


@pytest.fixture(params=["owner", "anonymous"])
def identity(request: pytest.FixtureRequest, world: World) -> dict[str, str]:
    """Signed in as the owner of ``north``, or anonymous (its answers are 404s: the club
    is private; the public ``south`` is read anonymously in the stateful test)."""
    if request.param == "anonymous":
        return {}
    _, token = AuthToken.objects.create(world.north.users["owner"])
    return {"Authorization": f"Token {token}"}


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
    case: Any, world: World, identity: dict[str, str], keep_test_connection: None
) -> None:
    real_path_parameters(case, world)
    case.call_and_validate(headers=identity, checks=CHECKS, excluded_checks=excluded_for(case))


@pytest.mark.parametrize("signed_in", [True, False], ids=["owner", "anonymous"])
def test_stateful_links_conform(world: World, keep_test_connection: None, signed_in: bool) -> None:
    """Sequences of calls along the links schemathesis infers from the schema (an id a
    create answers is the path of a read, an update, a delete), with every check."""
    headers: dict[str, str] = {}
    if signed_in:
        _, token = AuthToken.objects.create(world.north.users["owner"])
        headers = {"Authorization": f"Token {token}"}

    class Workflow(schema.as_state_machine()):  # type: ignore[misc]
        # Each scenario starts from the same rows and an empty cache (throttle counts):
        # the rules Hypothesis may draw depend on what earlier calls answered, and state
        # left by the scenario before made the same choices draw differently
        # (FlakyStrategyDefinition, seen when another test file ran first in the process).
        def setup(self) -> None:
            cache.clear()
            self._savepoint = transaction.savepoint()

        def teardown(self) -> None:
            transaction.savepoint_rollback(self._savepoint)
            super().teardown()

        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            return {"headers": headers}

        def validate_response(self, response: Any, case: Any, **kwargs: Any) -> None:
            # Every check (the machine's default) but as the parametrized test excludes.
            kwargs.pop("additional_checks", None)
            case.validate_response(
                response,
                excluded_checks=excluded_for(case),
                headers=headers,
                transport_kwargs=kwargs,
            )

    Workflow.run(
        settings=settings(
            max_examples=STATEFUL_EXAMPLES,
            stateful_step_count=6,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
    )
