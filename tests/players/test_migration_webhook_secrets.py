"""Players migration 0034 (webhook_standard_signatures): a webhook registered before the
Standard Webhooks headers keeps its key (the bytes of its old secret), now shown in the
``whsec_`` + base64 form, and keeps sending the old X-Ratings-Signature-256 header, which
its receiver's old check still verifies, until its owner switches it off."""

from __future__ import annotations

import base64
import secrets
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from players.models import Membership, Role, Webhook
from players.webhooks import webhook_ping, webhook_update
from tests.receiver import receiver
from tests.tournaments.helpers import make_owner

# Migrates a database backwards and forwards.
pytestmark = pytest.mark.slow

BEFORE = [("players", "0033_rating_references_checked_per_statement")]


def _migrate(targets: list[tuple[str, str]]) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection)


@pytest.mark.django_db(transaction=True)
def test_an_existing_webhook_keeps_its_key_and_its_old_header_until_switched_off(
    settings: Any,
) -> None:
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    settings.WEBHOOKS_ALLOWED_PORTS = "*"
    # As the code before 0034 made them.
    old_secret = f"whsec_{secrets.token_urlsafe(32)}"
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    with receiver() as hooks:
        try:
            old = _migrate(BEFORE)
            state = old.loader.project_state(BEFORE).apps
            club = state.get_model("players", "Club").objects.create(slug="old", name="Old")
            state.get_model("players", "Webhook").objects.create(
                club=club, url=hooks.url, events=["period.closed"], secret=old_secret
            )
        finally:
            _migrate(leaves)
        hook = Webhook.objects.select_related("club").get()
        assert hook.legacy_signature
        # The new form is what the docs tell a receiver holding the old secret to compute.
        assert hook.secret == "whsec_" + base64.b64encode(old_secret.encode()).decode()
        owner = _owner_of(hook)
        webhook_ping(webhook=hook, by=owner)  # no transaction: sent at once
        (request,) = hooks.requests
        assert request.legacy_signed_by(old_secret.encode())  # the receiver's old check
        assert request.signed_by(hook.secret)  # and the new one: the same key
        webhook_update(webhook=hook, by=owner, legacy_signature=False)
        webhook_ping(webhook=hook, by=owner)
        assert "X-Ratings-Signature-256" not in hooks.requests[1].headers
        assert hooks.requests[1].signed_by(hook.secret)


@pytest.mark.django_db(transaction=True)
def test_the_migration_goes_back_to_the_old_secret() -> None:
    old_secret = f"whsec_{secrets.token_urlsafe(32)}"
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        old = _migrate(BEFORE)
        state = old.loader.project_state(BEFORE).apps
        club = state.get_model("players", "Club").objects.create(slug="old", name="Old")
        hooks = state.get_model("players", "Webhook").objects
        hooks.create(club=club, url="https://93.184.215.14/", events=[], secret=old_secret)
        _migrate(leaves)
        old = _migrate(BEFORE)
        back = old.loader.project_state(BEFORE).apps.get_model("players", "Webhook")
        assert back.objects.get().secret == old_secret
    finally:
        _migrate(leaves)


def _owner_of(hook: Webhook) -> Any:
    owner = make_owner("old-owner")
    Membership.objects.create(club=hook.club, user=owner, role=Role.OWNER)
    return owner
