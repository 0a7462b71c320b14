"""The claims' admin: a club's officers approve or decline with the actions (through
claim_decide), see only their clubs' claims, and arbiters see none."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser
from django.test import Client
from django.urls import reverse

from players.models import ClaimStatus, Player, PlayerClaim
from players.services import claim_create
from tests.conftest import built_once_per_module
from tests.players.admin_world import World, build_world

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:players_playerclaim_changelist"


# Built once for the module (a deepcopy for each test, its changes rolled back).
_built_for_module, world = built_once_per_module("world", build_world)


def client_for(user: AbstractBaseUser) -> Client:
    client = Client()
    client.force_login(user)
    return client


def act(user: AbstractBaseUser, action: str, claims: list[PlayerClaim]) -> Any:
    return client_for(user).post(
        reverse(CHANGELIST),
        {"action": action, "_selected_action": [c.pk for c in claims]},
        follow=True,
    )


def test_officer_approves_a_claim_and_the_record_is_linked(world: World) -> None:
    claim = PlayerClaim.objects.get(club=world.a.club)
    response = act(world.a.users["officer"], "approve", [claim])
    assert response.status_code == 200
    assert "1 claim(s) approved." in [str(m) for m in response.context["messages"]]
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.APPROVED
    assert claim.decided_by_id == world.a.users["officer"].pk
    assert Player.objects.get(pk=claim.player_id).user_id == world.a.users["claimant"].pk
    # The audit trail's page of the claim shows the decision.
    history = client_for(world.a.users["officer"]).get(
        reverse("admin:players_playerclaim_history", args=[claim.pk])
    )
    assert history.status_code == 200
    assert "approved" in history.content.decode().lower()


def test_officer_declines_and_a_refusal_is_a_message(world: World) -> None:
    claim = PlayerClaim.objects.get(club=world.a.club)
    act(world.a.users["owner"], "decline", [claim])
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.DECLINED
    assert Player.objects.get(pk=claim.player_id).user_id is None
    # Deciding it again: refused, shown as an error message, nothing changed.
    response = act(world.a.users["officer"], "approve", [claim])
    texts = [str(m) for m in response.context["messages"]]
    assert any("decided already" in text for text in texts), texts
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.DECLINED


def test_claims_are_scoped_to_the_officers_clubs(world: World) -> None:
    listing = client_for(world.a.users["officer"]).get(reverse(CHANGELIST))
    assert {c.club_id for c in listing.context["cl"].queryset} == {world.a.club.pk}
    other = PlayerClaim.objects.get(club=world.b.club)
    # B's claim through A's officer's selection: not among their rows, untouched.
    act(world.a.users["officer"], "approve", [other])
    other.refresh_from_db()
    assert other.status == ClaimStatus.PENDING
    assert client_for(world.a.users["arbiter"]).get(reverse(CHANGELIST)).status_code == 403


def test_one_action_on_two_claims_of_one_record_approves_the_first(world: World) -> None:
    first = PlayerClaim.objects.get(club=world.a.club)
    second = claim_create(club=world.a.club, player_id=first.player_id, by=world.a.users["viewer"])
    act(world.a.users["officer"], "approve", [first, second])
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, second.status) == (ClaimStatus.APPROVED, ClaimStatus.DECLINED)
