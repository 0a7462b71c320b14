"""Adding someone to a club takes their acceptance: an owner's "add member" invites, and the
answer is the same whether or not an account has the username (same status, same shape,
the same queries). The invitee accepts on their home page or by the mailed link; a
member's role still changes at once; the site's superuser still adds members directly."""

from __future__ import annotations

import re
import threading
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from players.models import Club, Invitation, Membership, Role
from players.services import club_create, invitation_create, membership_set
from players.services.invitations import MAIL_THREAD

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-enough-password-42"


@pytest.fixture
def owner() -> Any:
    return get_user_model().objects.create_user("olga", password=PASSWORD)


@pytest.fixture
def club(owner: Any) -> Club:
    return club_create(name="Hilltop Chess", slug="hilltop", by=owner)


def add_member(owner: Any, club: Club, username: str, role: str = "arbiter") -> Any:
    client = APIClient()
    client.force_authenticate(owner)
    return client.post(
        f"/api/v1/clubs/{club.slug}/members/", {"username": username, "role": role}, format="json"
    )


def mails_sent() -> None:
    for thread in threading.enumerate():
        if thread.name == MAIL_THREAD:
            thread.join(timeout=10)


def test_adding_an_account_invites_it_and_it_joins_when_it_accepts(
    owner: Any, club: Club, django_capture_on_commit_callbacks: Any
) -> None:
    max_ = get_user_model().objects.create_user("max", email="max@example.org", password=PASSWORD)

    with django_capture_on_commit_callbacks(execute=True):
        response = add_member(owner, club, "max")
    mails_sent()

    assert response.status_code == 202
    assert not Membership.objects.filter(user=max_).exists()
    invitation = Invitation.objects.get()
    assert (invitation.user, invitation.username, invitation.role) == (max_, "max", "arbiter")
    (message,) = mail.outbox
    assert message.to == ["max@example.org"]
    assert "Hilltop Chess" in message.body

    home = Client()
    home.force_login(max_)
    page = home.get("/accounts/").content.decode()
    assert 'id="my-invitations"' in page
    accept = f"/accounts/invitations/mine/{invitation.pk}/accept/"
    assert accept in page
    assert home.post(accept)["Location"] == "/clubs/hilltop/"
    assert Membership.objects.get(user=max_, club=club).role == Role.ARBITER
    assert home.post(accept).status_code == 404  # once


def test_the_answer_is_the_same_whether_or_not_the_account_exists(
    owner: Any, club: Club, django_capture_on_commit_callbacks: Any
) -> None:
    get_user_model().objects.create_user("max", password=PASSWORD)
    answers = {}
    queries = {}
    for name in ("max", "nobody-has-this"):
        with (
            django_capture_on_commit_callbacks(execute=True),
            CaptureQueriesContext(connection) as captured,
        ):
            response = add_member(owner, club, name)
        answers[name] = response
        queries[name] = len(captured)
    mails_sent()

    known, unknown = answers["max"], answers["nobody-has-this"]
    assert known.status_code == unknown.status_code == 202
    assert known.json().keys() == unknown.json().keys()
    assert known.json()["detail"] == unknown.json()["detail"]
    assert unknown.json()["username"] == "nobody-has-this"
    # The same work either way: nothing a stopwatch could tell apart by the database.
    assert queries["max"] == queries["nobody-has-this"]
    assert not mail.outbox  # max has no address; nobody has no account
    assert Invitation.objects.count() == 2
    assert not Membership.objects.filter(user__username="max").exists()


def test_the_invitations_list_shows_both_alike(owner: Any, club: Club) -> None:
    get_user_model().objects.create_user("max", password=PASSWORD)
    add_member(owner, club, "max")
    add_member(owner, club, "nobody-has-this")
    client = APIClient()
    client.force_authenticate(owner)

    rows = client.get(f"/api/v1/clubs/{club.slug}/invitations/").json()["results"]

    assert {row["username"]: row["status"] for row in rows} == {
        "max": "open",
        "nobody-has-this": "open",
    }


def test_a_link_for_a_username_looks_the_same_and_makes_no_account(
    owner: Any, club: Club, client: Client
) -> None:
    """By the link: a name no account has gets no sign-up form (that would tell the owner
    it is free), and only the named account can accept."""
    get_user_model().objects.create_user("max", password=PASSWORD)
    pages = []
    for name in ("max", "nobody-has-this"):
        _, url = invitation_create(
            club=club, by=owner, role="viewer", username=name, accept_url=lambda s: s
        )
        page = client.get(f"/accounts/invitations/{url}/").content.decode()
        page = page.replace(url, "SECRET")
        pages.append(re.sub(r"csrfmiddlewaretoken\" value=\"[^\"]+", "", page))
        refused = client.post(
            f"/accounts/invitations/{url}/",
            {"username": name, "password1": PASSWORD, "password2": PASSWORD},
        )
        assert refused.status_code == 403
    assert pages[0] == pages[1]
    assert "register-form" not in pages[0]
    assert not get_user_model().objects.filter(username="nobody-has-this").exists()
    eve = get_user_model().objects.create_user("eve", password=PASSWORD)
    client.force_login(eve)
    assert client.post(f"/accounts/invitations/{url}/").status_code == 403


def test_a_members_role_still_changes_at_once(owner: Any, club: Club) -> None:
    max_ = get_user_model().objects.create_user("max", password=PASSWORD)
    membership_set(club=club, user=max_, role=Role.VIEWER, by=owner)

    response = add_member(owner, club, "max", role="officer")

    assert response.status_code == 200
    assert response.json()["role"] == "officer"
    assert not Invitation.objects.exists()


def test_another_accounts_invitation_is_not_on_my_home_nor_mine_to_accept(
    owner: Any, club: Club
) -> None:
    get_user_model().objects.create_user("max", password=PASSWORD)
    eve = get_user_model().objects.create_user("eve", password=PASSWORD)
    add_member(owner, club, "max")
    invitation = Invitation.objects.get()
    client = Client()
    client.force_login(eve)

    assert 'id="my-invitations"' not in client.get("/accounts/").content.decode()
    assert client.post(f"/accounts/invitations/mine/{invitation.pk}/accept/").status_code == 404
    assert not Membership.objects.filter(user=eve).exists()
