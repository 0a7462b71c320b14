"""Invitations: by email or username, through the API and the admin; the link works once,
for seven days, until revoked; a new person chooses a username and password, an existing
user accepts."""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from players.models import Club, Invitation, Membership, Role
from players.services import club_create, invitation_create, membership_set

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-enough-password-42"
NEW_PASSWORD = "chosen-by-the-invitee-77"


@pytest.fixture
def owner() -> Any:
    return get_user_model().objects.create_user("olga", password=PASSWORD, is_staff=True)


@pytest.fixture
def club(owner: Any) -> Club:
    return club_create(name="Hilltop Chess", slug="hilltop", public=False, by=owner)


def api_as(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def invite(owner: Any, club: Club, **body: Any) -> dict[str, Any]:
    with_commit = api_as(owner).post(f"/api/v1/clubs/{club.slug}/invitations/", body)
    assert with_commit.status_code == 201, with_commit.content
    return dict(with_commit.json())


def path_of(url: str) -> str:
    return re.sub(r"^https?://[^/]+", "", url)


def test_invite_by_email_mails_the_link_and_answers_it(
    owner: Any, club: Club, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        body = invite(owner, club, email="nina@example.org", role="arbiter")
    assert body["status"] == "open"
    assert body["role"] == "arbiter"
    assert body["created_by"] == "olga"
    assert re.fullmatch(r"http://testserver/accounts/invitations/[\w-]{40,}/", body["url"])
    (message,) = mail.outbox
    assert message.to == ["nina@example.org"]
    assert body["url"] in message.body
    assert "Hilltop Chess" in message.subject
    # Only the secret's hash is stored; the list never shows the link.
    stored = Invitation.objects.get()
    assert body["url"].rstrip("/").rsplit("/", 1)[1] not in stored.digest
    listing = api_as(owner).get(f"/api/v1/clubs/{club.slug}/invitations/").json()
    assert listing["count"] == 1
    assert "url" not in listing["results"][0]


def test_new_person_chooses_username_and_password_and_is_signed_in(
    owner: Any, club: Club, client: Client
) -> None:
    url = path_of(invite(owner, club, email="nina@example.org", role="viewer")["url"])
    page = client.get(url)
    assert page.status_code == 200
    assert "Hilltop Chess" in page.content.decode()
    response = client.post(
        url, {"username": "nina", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD}
    )
    assert response.status_code == 302
    # Signed in at once: to the club, not to the login page.
    assert response["Location"] == "/clubs/hilltop/"
    nina = get_user_model().objects.get(username="nina")
    assert nina.email == "nina@example.org"
    assert Membership.objects.get(user=nina, club=club).role == Role.VIEWER
    assert int(client.session["_auth_user_id"]) == nina.pk
    club_page = client.get("/clubs/hilltop/")
    assert club_page.status_code == 200
    assert "you are signed in" in club_page.content.decode()
    home = client.get("/accounts/")
    assert home.status_code == 200
    assert "Hilltop Chess" in home.content.decode()
    # The password chosen works for the next sign-in too.
    client.logout()
    login = client.post(
        "/accounts/login/",
        {"username": "nina", "password": NEW_PASSWORD, "next": "/clubs/hilltop/"},
    )
    assert login["Location"] == "/clubs/hilltop/"


def test_link_works_once(owner: Any, club: Club, client: Client) -> None:
    url = path_of(invite(owner, club, email="nina@example.org", role="viewer")["url"])
    client.post(url, {"username": "nina", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD})
    again = Client().post(
        url, {"username": "eve", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD}
    )
    assert again.status_code == 404
    assert not get_user_model().objects.filter(username="eve").exists()
    assert Invitation.objects.get().status == "accepted"


def test_weak_password_is_refused_and_nothing_stored(
    owner: Any, club: Club, client: Client
) -> None:
    url = path_of(invite(owner, club, email="nina@example.org", role="viewer")["url"])
    response = client.post(url, {"username": "nina", "password1": "123", "password2": "123"})
    assert response.status_code == 400
    assert not get_user_model().objects.filter(username="nina").exists()
    assert Invitation.objects.get().status == "open"


def test_existing_user_accepts_and_keeps_a_higher_role(
    owner: Any, club: Club, client: Client
) -> None:
    max_ = get_user_model().objects.create_user("max", password=PASSWORD)
    url = path_of(invite(owner, club, username="max", role="officer")["url"])
    # Anonymous: only a login link (the invitation names an account).
    anonymous = client.get(url).content.decode()
    assert "register-form" not in anonymous
    assert f"/accounts/login/?next={url}" in anonymous.replace("%2F", "/")
    client.force_login(max_)
    assert client.post(url)["Location"] == "/clubs/hilltop/"
    assert Membership.objects.get(user=max_, club=club).role == Role.OFFICER
    # An invitation by email with a lower role, accepted by him, does not demote him.
    lower = path_of(invite(owner, club, email="max@example.org", role="viewer")["url"])
    assert client.post(lower)["Location"] == "/clubs/hilltop/"
    assert Membership.objects.get(user=max_, club=club).role == Role.OFFICER
    assert Invitation.objects.filter(accepted_by=max_).count() == 2


def test_invitation_for_another_account_is_refused(owner: Any, club: Club, client: Client) -> None:
    get_user_model().objects.create_user("max", password=PASSWORD)
    eve = get_user_model().objects.create_user("eve", password=PASSWORD)
    url = path_of(invite(owner, club, username="max", role="viewer")["url"])
    client.force_login(eve)
    assert client.post(url).status_code == 403
    assert not Membership.objects.filter(user=eve).exists()
    assert Invitation.objects.get().status == "open"


def test_expired_link_does_not_work(owner: Any, club: Club, client: Client) -> None:
    url = path_of(invite(owner, club, email="nina@example.org", role="viewer")["url"])
    invitation = Invitation.objects.get()
    valid_for = invitation.expires - invitation.created
    assert abs(valid_for - datetime.timedelta(days=7)) < datetime.timedelta(seconds=5)
    Invitation.objects.update(expires=timezone.now() - datetime.timedelta(seconds=1))
    assert client.get(url).status_code == 404
    response = client.post(
        url, {"username": "nina", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD}
    )
    assert response.status_code == 404
    assert not get_user_model().objects.filter(username="nina").exists()


def test_revoked_link_does_not_work_and_revoking_twice_is_409(
    owner: Any, club: Club, client: Client
) -> None:
    body = invite(owner, club, email="nina@example.org", role="viewer")
    detail = f"/api/v1/clubs/{club.slug}/invitations/{body['id']}/"
    assert api_as(owner).delete(detail).status_code == 204
    assert api_as(owner).get(detail).json()["status"] == "revoked"
    assert client.get(path_of(body["url"])).status_code == 404
    again = api_as(owner).delete(detail)
    assert again.status_code == 409
    assert again.json()["error"]["fields"] == {"status": ["revoked"]}


def test_unknown_link_is_404(client: Client) -> None:
    assert client.get("/accounts/invitations/not-a-real-secret/").status_code == 404


def test_admin_invites_and_revokes(owner: Any, club: Club, client: Client) -> None:
    client.force_login(owner)
    response = client.post(
        "/admin/players/invitation/add/",
        {"club": club.pk, "email": "nina@example.org", "username": "", "role": "viewer"},
        follow=True,
    )
    assert response.status_code == 200
    invitation = Invitation.objects.get()
    assert invitation.created_by == owner
    link = re.search(r"(/accounts/invitations/[\w-]+/)", response.content.decode())
    assert link is not None
    assert client.get(link.group(1)).status_code == 200
    client.post(
        "/admin/players/invitation/",
        {"action": "revoke", "_selected_action": [invitation.pk]},
    )
    invitation.refresh_from_db()
    assert invitation.status == "revoked"


def test_admin_shows_invitations_to_owners_only(owner: Any, club: Club, client: Client) -> None:
    invitation_create(
        club=club, by=owner, role=Role.VIEWER, email="x@example.org", accept_url=lambda s: s
    )
    officer = get_user_model().objects.create_user("ollie", password=PASSWORD, is_staff=True)
    membership_set(club=club, user=officer, role=Role.OFFICER, by=owner)
    client.force_login(officer)
    assert client.get("/admin/players/invitation/").status_code == 403
