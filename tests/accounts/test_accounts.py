"""Site accounts: the sign-in pages under /accounts/, the member's home and its tokens."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from players.models import ApiToken, Membership, Player, Role
from players.services import api_token_create
from tests.pages_data import build_club

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-enough-password-42"


def make_user(username: str, **extra: Any) -> Any:
    return get_user_model().objects.create_user(username, password=PASSWORD, **extra)


def text(response: Any) -> str:
    html = response.content.decode()
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def api_status(token: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return int(client.get("/api/v1/clubs/").status_code)


def test_private_page_sends_anonymous_to_site_login_with_next(client: Client) -> None:
    private = build_club(slug="hilltop", public=False, crowd=2)
    response = client.get(f"/clubs/{private.club.slug}/")
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next=/clubs/{private.club.slug}/"
    page = client.get(response["Location"])
    assert page.status_code == 200
    # The site's own page (the public pages' layout), not the admin's staff login.
    assert "site-header" in page.content.decode()
    assert "staff account" not in text(page)


def test_non_staff_member_signs_in_and_reaches_private_club(client: Client) -> None:
    private = build_club(slug="hilltop", public=False, crowd=2)
    viewer = make_user("vera")
    Membership.objects.create(user=viewer, club=private.club, role=Role.VIEWER)
    response = client.post(
        "/accounts/login/",
        {"username": "vera", "password": PASSWORD, "next": "/clubs/hilltop/"},
    )
    assert response.status_code == 302
    assert response["Location"] == "/clubs/hilltop/"
    assert client.get("/clubs/hilltop/").status_code == 200


def test_login_refuses_wrong_password_and_foreign_next(client: Client) -> None:
    make_user("vera")
    wrong = client.post("/accounts/login/", {"username": "vera", "password": "nope"})
    assert wrong.status_code == 200
    assert "correct username and password" in text(wrong)
    right = client.post(
        "/accounts/login/",
        {"username": "vera", "password": PASSWORD, "next": "https://evil.example/"},
    )
    assert right["Location"] == "/accounts/"


def test_logout_is_a_post(client: Client) -> None:
    client.force_login(make_user("vera"))
    assert client.get("/accounts/logout/").status_code == 405
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/accounts/")["Location"].startswith("/accounts/login/")


def test_member_home_shows_clubs_roles_and_player_records(client: Client) -> None:
    data = build_club(slug="riverside")
    other = build_club(slug="hilltop", public=False, crowd=2)
    vera = make_user("vera")
    Membership.objects.create(user=vera, club=data.club, role=Role.ARBITER)
    player = Player.objects.filter(club=data.club, ratings__rating__isnull=False).first()
    assert player is not None
    Player.objects.filter(pk=player.pk).update(user=vera)
    rating = player.ratings.exclude(rating=None).first()
    client.force_login(vera)
    page = text(client.get("/accounts/"))
    assert "Riverside Chess Club Arbiter" in page
    assert other.club.name not in page
    assert player.name in page
    assert str(rating.rating) in page


def test_token_create_shows_it_once_and_it_works(client: Client) -> None:
    vera = make_user("vera")
    client.force_login(vera)
    response = client.post("/accounts/tokens/", {"name": "my script"})
    assert response.status_code == 200
    raw = re.search(r'class="secret">([^<]+)<', response.content.decode()).group(1)  # type: ignore[union-attr]
    token = ApiToken.objects.get(user=vera)
    assert token.name == "my script"
    assert token.last_used is None
    assert api_status(raw) == 200
    token.refresh_from_db()
    assert token.last_used is not None
    later = text(client.get("/accounts/"))
    assert "my script" in later
    assert raw not in later  # shown once only
    assert "never" not in later.split("my script")[1].split("Revoke")[0]


def test_token_create_needs_a_name(client: Client) -> None:
    client.force_login(make_user("vera"))
    response = client.post("/accounts/tokens/", {"name": "  "})
    assert response.status_code == 400
    assert ApiToken.objects.count() == 0


def test_token_revoke_own_only(client: Client) -> None:
    vera, max_ = make_user("vera"), make_user("max")
    mine, raw = api_token_create(user=vera, name="mine")
    theirs, their_raw = api_token_create(user=max_, name="theirs")
    client.force_login(vera)
    response = client.post(f"/accounts/tokens/{theirs.digest}/revoke/", follow=True)
    assert "No such token" in text(response)
    assert api_status(their_raw) == 200
    client.post(f"/accounts/tokens/{mine.digest}/revoke/")
    assert not ApiToken.objects.filter(pk=mine.pk).exists()
    assert api_status(raw) == 401


def test_password_change_revokes_every_token(client: Client) -> None:
    vera = make_user("vera")
    _, raw = api_token_create(user=vera, name="one")
    client.force_login(vera)
    response = client.post(
        "/accounts/password/change/",
        {
            "old_password": PASSWORD,
            "new_password1": "another-long-password-77",
            "new_password2": "another-long-password-77",
        },
    )
    assert response["Location"] == "/accounts/password/change/done/"
    assert api_status(raw) == 401
    assert ApiToken.objects.filter(user=vera).count() == 0


def test_password_reset_by_email_revokes_tokens(client: Client) -> None:
    vera = make_user("vera", email="vera@example.org")
    _, raw = api_token_create(user=vera, name="one")
    client.post("/accounts/password/reset/", {"email": "vera@example.org"})
    (message,) = mail.outbox
    link = re.search(r"https?://[^/]+(/accounts/password/reset/\S+)", message.body).group(1)  # type: ignore[union-attr]
    form = client.get(link, follow=True)
    assert form.status_code == 200
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": "another-long-password-77", "new_password2": "another-long-password-77"},
    )
    assert done["Location"] == "/accounts/password/reset/done/"
    assert api_status(raw) == 401
    signed_in = client.post(
        "/accounts/login/", {"username": "vera", "password": "another-long-password-77"}
    )
    assert signed_in["Location"] == "/accounts/"


def test_changepassword_command_revokes_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    vera = make_user("vera")
    _, raw = api_token_create(user=vera, name="one")
    monkeypatch.setattr("getpass.getpass", lambda prompt="": "another-long-password-77")
    call_command("changepassword", "vera")
    assert api_status(raw) == 401


def test_admin_stays_for_staff(client: Client) -> None:
    client.force_login(make_user("vera"))
    response = client.get("/admin/")
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")
