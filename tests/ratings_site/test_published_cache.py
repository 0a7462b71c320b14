"""The cache of public views (players.http.cache): anonymous visitors of a public club get
the stored answer; every change a view shows retires it at once; nobody else is ever
served from it."""

from __future__ import annotations

import datetime
import functools
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.test import Client, RequestFactory
from django.utils import translation

from players.http.cache import published_entry
from players.models import Club
from players.services import club_update, membership_set, player_update
from tests.conftest import built_once_per_module
from tests.pages_data import ClubData, build_club, refreshed
from tests.tournaments.helpers import close, play

pytestmark = pytest.mark.django_db

LIST = "/clubs/riverside/lists/standard/"
RATINGS_API = "/api/v1/clubs/riverside/lists/standard/ratings/"


# Built once for the module (a deepcopy for each test, its changes rolled back).
_built_for_module, data = built_once_per_module("data", functools.partial(build_club, crowd=4))


def _player_url(data: ClubData, name: str) -> str:
    return f"/clubs/riverside/players/{data.players[name].pk}/"


def test_a_warm_hit_costs_no_query(
    client: Client, data: ClubData, django_assert_max_num_queries: Any
) -> None:
    for url in (LIST, _player_url(data, "magnus"), RATINGS_API, "/clubs/riverside/"):
        with django_assert_max_num_queries(100) as cold:
            first = client.get(url)
        assert first.status_code == 200, url
        assert len(cold.captured_queries) > 2, url
        with django_assert_max_num_queries(0):  # the cache (in memory here) alone
            again = client.get(url)
        assert again.status_code == 200
        assert again.content == first.content


def test_a_close_retires_the_cached_list_at_once(client: Client, data: ClubData) -> None:
    magnus, omar = data.players["magnus"], data.players["omar"]
    play(data.club, data.owner, [(omar, magnus, "1-0")], date=datetime.date(2026, 4, 3))
    # Cached after the games were entered: only the close itself can retire these.
    assert "2026-04" not in client.get(LIST).content.decode()
    assert client.get(RATINGS_API).json()["results"][0]["period"] == "2026-03"
    close(data.club, data.owner, "2026-04")
    # The first visitor after the close is shown the previous answer, marked, and rebuilds
    # it once that is delivered; the next one has the new list.
    page = refreshed(client, LIST).content.decode()
    assert "2026-04" in page
    assert refreshed(client, RATINGS_API).json()["results"][0]["period"] == "2026-04"


def test_a_player_edit_retires_the_player_page_and_the_players_api(
    client: Client, data: ClubData
) -> None:
    url = _player_url(data, "alice")
    api = f"/api/v1/clubs/riverside/players/{data.players['alice'].pk}/"
    assert "Alice Chen" in client.get(url).content.decode()
    assert client.get(api).json()["name"] == "Alice Chen"
    player_update(player=data.players["alice"], by=data.owner, name="Alice Chen-Lind")
    assert "Alice Chen-Lind" in refreshed(client, url).content.decode()
    assert refreshed(client, api).json()["name"] == "Alice Chen-Lind"


def test_a_club_made_private_is_never_served_from_its_public_entries(
    client: Client, data: ClubData
) -> None:
    url = _player_url(data, "magnus")
    assert client.get(url).status_code == 200
    assert client.get(RATINGS_API).status_code == 200
    club_update(club=data.club, by=data.owner, public=False)
    anonymous = client.get(url)
    assert anonymous.status_code == 302
    assert "/login/" in anonymous["Location"]
    assert client.get(RATINGS_API).status_code == 404
    stranger = Client()
    stranger.force_login(get_user_model().objects.create_user("stranger"))
    assert stranger.get(url).status_code == 404
    assert stranger.get(RATINGS_API).status_code == 404


def test_signed_in_visitors_get_their_own_page_never_a_cached_one(
    client: Client, data: ClubData
) -> None:
    member = get_user_model().objects.create_user("member")
    membership_set(club=data.club, user=member, role="viewer", by=data.owner)
    signed_in = Client()
    signed_in.force_login(member)
    url = _player_url(data, "magnus")
    # A member's page (their menu, their CSRF token) is not stored for anyone...
    assert "Log out" in signed_in.get(url).content.decode()
    anonymous = client.get(url).content.decode()
    assert "Log out" not in anonymous
    assert "Log in" in anonymous
    # ...and the anonymous visitors' entry is not served to a member.
    assert "Log out" in signed_in.get(url).content.decode()
    assert client.get(url).content.decode() == anonymous


def test_the_key_tells_apart_language_query_and_variant(data: ClubData) -> None:
    factory = RequestFactory()

    def key(path: str, variant: str = "page") -> str:
        entry = published_entry(
            request=factory.get(path), user=AnonymousUser(), slug="riverside", variant=variant
        )
        assert entry is not None
        return entry.key

    plain = key(LIST)
    assert key(LIST + "?sort=name") != plain
    assert key(LIST, variant="api:application/json") != plain
    assert (
        published_entry(
            request=factory.get(LIST), user=AnonymousUser(), slug="lakeside", variant="page"
        ).key
        != plain
    )  # type: ignore[union-attr]
    with translation.override("de"):
        assert key(LIST) != plain
    assert key(LIST) == plain


def test_no_entry_for_a_signed_in_user_or_a_write(data: ClubData) -> None:
    factory = RequestFactory()
    user = get_user_model().objects.create_user("someone")
    for request, who in ((factory.get(LIST), user), (factory.post(LIST), AnonymousUser())):
        assert published_entry(request=request, user=who, slug="riverside", variant="page") is None


def test_a_private_clubs_answer_is_never_stored(data: ClubData) -> None:
    def entry() -> Any:
        return published_entry(
            request=RequestFactory().get(LIST),
            user=AnonymousUser(),
            slug="riverside",
            variant="page",
        )

    club: Club = data.club
    club.public = False
    entry().store(club=club, value="members only")
    assert entry().value is None
    club.public = True
    entry().store(club=club, value="for everyone")
    assert entry().value == "for everyone"


def test_different_query_strings_are_different_entries(client: Client, data: ClubData) -> None:
    by_rank = client.get(LIST).content
    by_name = client.get(LIST + "?sort=name").content
    assert by_rank != by_name
    assert client.get(LIST + "?sort=name").content == by_name
    assert client.get(LIST).content == by_rank
