"""Linking a member to their player record: PATCH players/{id}/ {"user"}, the admin, and
where it shows (the member's home, the player page, the API's player)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from players.models import Player
from tests.api.conftest import World, client_for

pytestmark = pytest.mark.django_db


def player_url(world: World, player: Player | None = None) -> str:
    player = player or world.north.players[0]
    return f"/api/v1/clubs/{player.club.slug}/players/{player.pk}/"


def patch(user: Any, url: str, body: Any) -> Any:
    return client_for(user).patch(url, body, format="json")


def test_officer_links_and_unlinks(world: World) -> None:
    north = world.north
    viewer = north.users["viewer"]
    response = patch(north.users["officer"], player_url(world), {"user": viewer.username})
    assert response.status_code == 200, response.content
    assert response.json()["user"] == viewer.username
    assert Player.objects.get(pk=north.players[0].pk).user == viewer
    response = patch(north.users["officer"], player_url(world), {"user": None})
    assert response.json()["user"] is None
    assert Player.objects.get(pk=north.players[0].pk).user is None


def test_arbiter_may_edit_the_player_but_not_link(world: World) -> None:
    north = world.north
    response = patch(north.users["arbiter"], player_url(world), {"user": "north-viewer"})
    assert response.status_code == 403
    assert Player.objects.get(pk=north.players[0].pk).user is None


@pytest.mark.parametrize(
    ("username", "reason"),
    [("south-viewer", "not a member"), ("nobody", "not a member"), ("north-arbiter", "another")],
)
def test_link_only_to_a_member_not_linked_elsewhere(
    world: World, username: str, reason: str
) -> None:
    north = world.north
    Player.objects.filter(pk=north.players[1].pk).update(user=north.users["arbiter"])
    response = patch(north.users["owner"], player_url(world), {"user": username})
    assert response.status_code == 400
    assert reason in response.json()["error"]["fields"]["user"][0]
    assert Player.objects.get(pk=north.players[0].pk).user is None


def test_username_is_shown_to_members_only(world: World) -> None:
    south = world.south  # public: anyone reads its players
    Player.objects.filter(pk=south.players[0].pk).update(user=south.users["viewer"])
    url = player_url(world, south.players[0])
    assert client_for(None).get(url).json()["user"] is None
    assert client_for(world.stranger).get(url).json()["user"] is None
    assert client_for(south.users["arbiter"]).get(url).json()["user"] == "south-viewer"
    listing = client_for(south.users["arbiter"]).get(f"/api/v1/clubs/{south.slug}/players/")
    linked = [row for row in listing.json()["results"] if row["user"]]
    assert [row["id"] for row in linked] == [south.players[0].pk]


def test_member_home_and_player_page_show_the_link(world: World, client: Client) -> None:
    north = world.north
    viewer = north.users["viewer"]
    patch(north.users["officer"], player_url(world), {"user": viewer.username})
    client.force_login(viewer)
    home = client.get("/accounts/").content.decode()
    assert north.players[0].name in home
    assert "2100" in home  # the player's standard rating
    page = client.get(f"/clubs/north/players/{north.players[0].pk}/").content.decode()
    assert "This is your player record." in page
    client.force_login(north.users["arbiter"])
    page = client.get(f"/clubs/north/players/{north.players[0].pk}/").content.decode()
    assert "Member account: north-viewer" in page


def test_admin_links_by_username(world: World, client: Client) -> None:
    north = world.north
    officer = north.users["officer"]
    officer.is_staff = True
    officer.save()
    client.force_login(officer)
    player = north.players[0]
    url = f"/admin/players/player/{player.pk}/change/"
    form = client.get(url)
    assert 'name="member"' in form.content.decode()
    data = {
        "name": player.name,
        "birth_year": player.birth_year,
        "sex": "",
        "federation": "",
        "title": "",
        "fide_id": "",
        "active": "on",
        "member": "north-viewer",
    }
    for prefix in ("ratings", "rating_changes", "k_changes"):
        data.update({f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"})
    response = client.post(url, data)
    assert response.status_code in (200, 302), response.content[:500]
    assert Player.objects.get(pk=player.pk).user == north.users["viewer"]
