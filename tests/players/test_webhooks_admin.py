"""Webhooks in the admin: the club's owners only, each their own club's, saved through the
services (the URL's checks included), the secret shown once."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from players.models import Role, Webhook
from players.services import club_create, membership_set
from players.webhooks import webhook_create
from tests.players.admin_world import make_user

pytestmark = pytest.mark.django_db
CHANGELIST = "/admin/players/webhook/"


@pytest.fixture
def clubs() -> dict[str, Any]:
    owner, officer, stranger = make_user("owner"), make_user("officer"), make_user("stranger")
    north = club_create(name="North", slug="north", by=owner)
    south = club_create(name="South", slug="south", by=stranger)
    membership_set(club=north, user=officer, role=Role.OFFICER, by=owner)
    theirs = webhook_create(
        club=south, by=stranger, url="https://93.184.215.14/south", events=["period.closed"]
    )
    return {"owner": owner, "officer": officer, "north": north, "theirs": theirs}


def client_of(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_an_owner_adds_one_and_sees_the_secret_once(clubs: dict[str, Any]) -> None:
    owner = client_of(clubs["owner"])
    answer = owner.post(
        CHANGELIST + "add/",
        {
            "club": clubs["north"].pk,
            "url": "https://93.184.215.14/north",
            "events": ["period.closed", "list.published"],
            "active": "on",
            "deliveries-TOTAL_FORMS": "0",
            "deliveries-INITIAL_FORMS": "0",
        },
        follow=True,
    )
    assert answer.status_code == 200
    hook = Webhook.objects.get(club=clubs["north"])
    assert hook.secret in answer.content.decode()
    assert hook.events == ["period.closed", "list.published"]
    listed = owner.get(CHANGELIST).content.decode()
    assert "93.184.215.14/north" in listed
    assert "93.184.215.14/south" not in listed
    assert owner.get(f"{CHANGELIST}{clubs['theirs'].pk}/change/").status_code == 404


def test_a_refused_url_is_a_form_error(clubs: dict[str, Any]) -> None:
    answer = client_of(clubs["owner"]).post(
        CHANGELIST + "add/",
        {
            "club": clubs["north"].pk,
            "url": "http://127.0.0.1/hook",
            "events": ["period.closed"],
            "deliveries-TOTAL_FORMS": "0",
            "deliveries-INITIAL_FORMS": "0",
        },
    )
    assert answer.status_code == 200
    assert "loopback" in answer.content.decode()
    assert not Webhook.objects.filter(club=clubs["north"]).exists()


def test_an_officer_sees_no_webhooks(clubs: dict[str, Any]) -> None:
    officer = client_of(clubs["officer"])
    assert officer.get(CHANGELIST).status_code == 403
    assert officer.get(CHANGELIST + "add/").status_code == 403
