"""New usernames that look like an existing one (a Cyrillic "a" in "admin", a Greek iota
for its "i", "rn" for "m") are refused on the invitation's page, in the admin's user add
and change forms and by createsuperuser; different names pass."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client

from players.services import club_create, invitation_create
from players.services.usernames import username_skeleton

pytestmark = pytest.mark.django_db

PASSWORD = "chosen-by-the-invitee-77"
CYRILLIC_A = "\u0430"
GREEK_IOTA = "\u03b9"


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


# -- the admin's user forms and createsuperuser -------------------------------------------


def superuser_client() -> Client:
    root = get_user_model().objects.create_superuser("root", "root@example.org", PASSWORD)
    client = Client()
    client.force_login(root)
    return client


def test_the_admins_user_add_form_refuses_a_look_alike() -> None:
    get_user_model().objects.create_user("admin", password=PASSWORD)
    client = superuser_client()
    form = {"username": f"{CYRILLIC_A}dmin", "password1": PASSWORD, "password2": PASSWORD}
    form["usable_password"] = "true"

    response = client.post("/admin/auth/user/add/", form)

    assert response.status_code == 200  # the form again, with the error
    assert response.context["adminform"].form.errors["username"] == [
        "This username is too like an existing one; choose another."
    ]
    assert not get_user_model().objects.filter(username=f"{CYRILLIC_A}dmin").exists()
    form["username"] = "nina"
    assert client.post("/admin/auth/user/add/", form).status_code == 302


def test_the_admins_user_change_form_refuses_a_look_alike_and_keeps_a_name() -> None:
    get_user_model().objects.create_user("admin", password=PASSWORD)
    nina = get_user_model().objects.create_user("nina", password=PASSWORD)
    client = superuser_client()
    url = f"/admin/auth/user/{nina.pk}/change/"
    page = client.get(url).context["adminform"].form
    form = {
        name: value
        for name, value in page.initial.items()
        if value is not None and name not in {"groups", "user_permissions", "password"}
    }
    form |= {"date_joined_0": "2026-01-01", "date_joined_1": "00:00:00", "is_active": "on"}

    refused = client.post(url, {**form, "username": f"adm{GREEK_IOTA}n"})
    kept = client.post(url, {**form, "username": "nina", "first_name": "Nina"})

    assert refused.context["adminform"].form.errors["username"] == [
        "This username is too like an existing one; choose another."
    ]
    assert kept.status_code == 302, kept.context["adminform"].form.errors
    nina.refresh_from_db()
    assert (nina.username, nina.first_name) == ("nina", "Nina")


def test_createsuperuser_refuses_a_look_alike() -> None:
    get_user_model().objects.create_user("admin", password=PASSWORD)

    with pytest.raises(CommandError, match="too like an existing one"):
        call_command(
            "createsuperuser",
            "--noinput",
            username=f"{CYRILLIC_A}dmin",
            email="x@example.org",
            stdout=io.StringIO(),
        )
    call_command(
        "createsuperuser", "--noinput", username="root", email="x@example.org", stdout=io.StringIO()
    )

    assert sorted(get_user_model().objects.values_list("username", flat=True)) == [
        "admin",
        "root",
    ]
