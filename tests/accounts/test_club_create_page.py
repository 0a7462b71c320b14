"""Creating a club on the site (/accounts/clubs/new/): the API's rules, through the same
service (who may, by CLUB_CREATORS; at most CLUBS_PER_DAY a day; unique names and slugs;
reserved slugs), with the refusals shown on the form's fields and nothing created."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from players.models import Club, Membership, RatingList, Role

pytestmark = pytest.mark.django_db

URL = "/accounts/clubs/new/"


def _user(username: str, **extra: Any) -> Any:
    return get_user_model().objects.create_user(username, password="x" * 12, **extra)


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_signed_in_user_creates_a_club_and_owns_it() -> None:
    user = _user("ann")
    client = _client(user)
    home = client.get("/accounts/").content.decode()
    assert f'href="{URL}"' in home
    assert client.get(URL).status_code == 200

    answer = client.post(URL, {"name": "Lakeside Chess", "slug": "lakeside", "public": "on"})
    assert answer.status_code == 302
    assert answer["Location"] == "/clubs/lakeside/"
    club = Club.objects.get(slug="lakeside")
    assert club.name == "Lakeside Chess"
    assert club.public
    assert Membership.objects.get(club=club, user=user).role == Role.OWNER
    assert set(RatingList.objects.filter(club=club).values_list("kind", flat=True)) == {
        "standard",
        "rapid",
        "blitz",
    }
    assert "Lakeside Chess is created" in client.get("/clubs/lakeside/").content.decode()


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"name": "Other", "slug": "taken"}, "slug"),
        ({"name": "Taken Club", "slug": "other"}, "name"),
        ({"name": "Admin", "slug": "admin"}, "slug"),
        ({"name": "Bad", "slug": "not a slug"}, "slug"),
        ({"name": "", "slug": "empty"}, "name"),
    ],
)
def test_refusals_name_the_field_and_create_nothing(data: dict[str, str], field: str) -> None:
    from players.services import club_create

    first = _user("first")
    club_create(name="Taken Club", slug="taken", by=first)
    before = Club.objects.count()
    answer = _client(_user("ann")).post(URL, data)
    assert answer.status_code == 400
    assert f'id="id_{field}-error"' in answer.content.decode()
    assert Club.objects.count() == before


def test_only_the_accounts_club_creators_allows_see_the_form(settings: Any) -> None:
    settings.CLUB_CREATORS = "staff"
    plain = _client(_user("ann"))
    assert f'href="{URL}"' not in plain.get("/accounts/").content.decode()
    assert plain.get(URL).status_code == 403
    assert plain.post(URL, {"name": "No", "slug": "no"}).status_code == 403
    assert not Club.objects.exists()

    staff = _client(_user("sam", is_staff=True))
    assert staff.post(URL, {"name": "Yes", "slug": "yes"}).status_code == 302


def test_the_daily_limit_holds_on_the_site_too(settings: Any) -> None:
    settings.CLUBS_PER_DAY = 1
    client = _client(_user("ann"))
    assert client.post(URL, {"name": "One", "slug": "one"}).status_code == 302
    answer = client.post(URL, {"name": "Two", "slug": "two"})
    assert answer.status_code == 429
    assert "At most 1 new clubs a day" in answer.content.decode()
    assert not Club.objects.filter(slug="two").exists()


def test_anonymous_visitors_are_sent_to_sign_in() -> None:
    answer = Client().get(URL)
    assert answer.status_code == 302
    assert answer["Location"].startswith("/accounts/login/")
