"""New usernames that look like an existing one (a Cyrillic "a" in "admin", a Greek iota
for its "i", "rn" for "m") are refused on the invitation's page; different names pass."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from players.services import club_create, invitation_create
from players.services.usernames import username_skeleton

pytestmark = pytest.mark.django_db

PASSWORD = "chosen-by-the-invitee-77"
CYRILLIC_A = "\u0430"
GREEK_IOTA = "\u03b9"


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def invitation_path() -> str:
    owner = get_user_model().objects.create_user("admin", password=PASSWORD)
    club = club_create(name="Hilltop", slug="hilltop", by=owner)
    _, secret = invitation_create(
        club=club,
        by=owner,
        role="viewer",
        email="nina@example.org",
        accept_url=lambda secret: secret,
    )
    return f"/accounts/invitations/{secret}/"


@pytest.mark.parametrize(
    "username",
    [f"{CYRILLIC_A}dmin", f"adm{GREEK_IOTA}n", "ADMIN", "adrnin"],
    ids=["cyrillic-a", "greek-iota", "capitals", "rn-for-m"],
)
def test_a_look_alike_of_an_existing_username_is_refused(username: str) -> None:
    path = invitation_path()
    response = Client().post(
        path, {"username": username, "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 400, response.status_code
    # Django's form refuses a name differing only in case itself, in its own words.
    page = response.content.decode()
    assert "too like an existing" in page or "already exists" in page
    assert list(get_user_model().objects.values_list("username", flat=True)) == ["admin"]


def test_a_different_username_passes() -> None:
    path = invitation_path()
    response = Client().post(
        path, {"username": "nina", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 302
    assert get_user_model().objects.filter(username="nina").exists()


def test_skeletons() -> None:
    assert username_skeleton(f"{CYRILLIC_A}dmin") == username_skeleton("admin")
    assert username_skeleton("j0hn") == username_skeleton("john")
    assert username_skeleton("mike") != username_skeleton("mlke")
