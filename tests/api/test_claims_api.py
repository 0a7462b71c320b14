"""Claims through the API: who sees which claims, the refusals (4xx naming the field,
nothing written), and a decision linking the record. The roles of every operation are in
test_authorization_matrix.py; this covers what the matrix cannot (the claimant's own)."""

from __future__ import annotations

import pytest

from players.models import Player
from tests.api.conftest import World, assert_error_shape, client_for, db_snapshot

pytestmark = pytest.mark.django_db


def test_lists_are_scoped_officers_see_their_clubs_members_their_own(world: World) -> None:
    north, south = world.north, world.south
    officer = client_for(north.users["officer"])
    shown = officer.get(f"/api/v1/clubs/{north.slug}/claims/").json()["results"]
    assert [row["id"] for row in shown] == [north.extra["claim"].pk]
    assert shown[0]["username"] == "north-claimant"
    assert shown[0]["status"] == "pending"
    # Another club's claims through that club: the club is private (404) or public (403).
    assert officer.get(f"/api/v1/clubs/{south.slug}/claims/").status_code == 403
    assert (
        client_for(south.users["owner"]).get(f"/api/v1/clubs/{north.slug}/claims/").status_code
        == 404
    )
    # The claimant sees theirs, here and across clubs, and nobody else's.
    claimant = client_for(north.extra["claimant"])
    mine = claimant.get("/api/v1/claims/").json()["results"]
    assert [row["id"] for row in mine] == [north.extra["claim"].pk]
    detail = claimant.get(f"/api/v1/clubs/{north.slug}/claims/{north.extra['claim'].pk}/")
    assert detail.status_code == 200
    assert client_for(north.users["viewer"]).get("/api/v1/claims/").json()["results"] == []
    other = client_for(south.extra["claimant"])
    assert (
        other.get(f"/api/v1/clubs/{north.slug}/claims/{north.extra['claim'].pk}/").status_code
        == 404
    )
    anonymous = client_for(None).get("/api/v1/claims/")
    assert anonymous.status_code == 401
    assert_error_shape(anonymous.json())


def test_claim_then_approve_links_the_record(world: World) -> None:
    north = world.north
    viewer = client_for(north.users["viewer"])
    created = viewer.post(
        f"/api/v1/clubs/{north.slug}/claims/", {"player": north.spare_player.pk}, format="json"
    )
    assert created.status_code == 201, created.content
    claim = created.json()
    assert (claim["player"], claim["username"], claim["status"]) == (
        north.spare_player.pk,
        "north-viewer",
        "pending",
    )
    decided = client_for(north.users["officer"]).post(
        f"/api/v1/clubs/{north.slug}/claims/{claim['id']}/decision/",
        {"decision": "approve", "note": "Welcome"},
        format="json",
    )
    assert decided.status_code == 200, decided.content
    assert decided.json()["status"] == "approved"
    assert decided.json()["decided_by"] == "north-officer"
    assert Player.objects.get(pk=north.spare_player.pk).user_id == north.users["viewer"].pk
    mine = viewer.get("/api/v1/claims/").json()["results"]
    assert [(row["id"], row["status"], row["note"]) for row in mine] == [
        (claim["id"], "approved", "Welcome")
    ]


@pytest.mark.parametrize("kind", ["linked", "second_record", "waiting", "decided"])
def test_refusals_name_the_field_and_write_nothing(world: World, kind: str) -> None:
    north = world.north
    url = f"/api/v1/clubs/{north.slug}/claims/"
    officer = client_for(north.users["officer"])
    if kind == "linked":
        officer.patch(
            f"/api/v1/clubs/{north.slug}/players/{north.spare_player.pk}/",
            {"user": "north-arbiter"},
            format="json",
        )
        user, body, field = north.users["viewer"], {"player": north.spare_player.pk}, "player"
    elif kind == "second_record":
        officer.patch(
            f"/api/v1/clubs/{north.slug}/players/{north.players[0].pk}/",
            {"user": "north-viewer"},
            format="json",
        )
        user, body, field = north.users["viewer"], {"player": north.spare_player.pk}, "player"
    elif kind == "waiting":
        user, body, field = north.extra["claimant"], {"player": north.spare_player.pk}, "player"
    else:
        officer.post(
            f"{url}{north.extra['claim'].pk}/decision/", {"decision": "decline"}, format="json"
        )
        user, body, field = north.users["officer"], {"decision": "approve"}, "status"
        url = f"{url}{north.extra['claim'].pk}/decision/"
    before = db_snapshot()
    response = client_for(user).post(url, body, format="json")
    assert response.status_code == 409, response.content
    assert_error_shape(response.json())
    assert list(response.json()["error"]["fields"]) == [field]
    assert db_snapshot() == before


def test_another_clubs_officer_cannot_decide(world: World) -> None:
    north, south = world.north, world.south
    claim = south.extra["claim"]
    before = db_snapshot()
    # Through their own club: no such claim there. Through south: not their role.
    through_own = client_for(north.users["officer"]).post(
        f"/api/v1/clubs/{north.slug}/claims/{claim.pk}/decision/",
        {"decision": "approve"},
        format="json",
    )
    assert through_own.status_code == 404
    through_south = client_for(north.users["officer"]).post(
        f"/api/v1/clubs/{south.slug}/claims/{claim.pk}/decision/",
        {"decision": "approve"},
        format="json",
    )
    assert through_south.status_code == 403
    anonymous = client_for(None).post(
        f"/api/v1/clubs/{south.slug}/claims/", {"player": south.spare_player.pk}, format="json"
    )
    assert anonymous.status_code == 401
    bad = client_for(south.users["officer"]).post(
        f"/api/v1/clubs/{south.slug}/claims/{claim.pk}/decision/",
        {"decision": "maybe"},
        format="json",
    )
    assert bad.status_code == 400
    assert list(bad.json()["error"]["fields"]) == ["decision"]
    assert db_snapshot() == before


def test_the_audit_trail_shows_the_claim_and_its_decision(world: World) -> None:
    north = world.north
    claim = north.extra["claim"]
    officer = client_for(north.users["officer"])
    officer.post(
        f"/api/v1/clubs/{north.slug}/claims/{claim.pk}/decision/",
        {"decision": "decline", "note": "Born 1950, not you"},
        format="json",
    )
    rows = officer.get(f"/api/v1/clubs/{north.slug}/audit/?model=claim&object={claim.pk}")
    assert rows.status_code == 200
    entries = rows.json()["results"]
    assert [(e["action"], e["values"]["status"]) for e in entries] == [
        ("changed", "declined"),
        ("created", "pending"),
    ]
    assert entries[0]["user"] == "north-officer"
    assert entries[0]["via"] == "api"
    assert entries[0]["changes"]["note"]["after"] == "Born 1950, not you"
    # Another club's claims are not in this club's trail.
    south = client_for(world.south.users["owner"])
    other = south.get(f"/api/v1/clubs/{world.south.slug}/audit/?model=claim&object={claim.pk}")
    assert other.json()["results"] == []
