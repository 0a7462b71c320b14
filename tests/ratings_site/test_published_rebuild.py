"""The cache of public views after a change: one request rebuilds a retired page while the
others get the previous one (marked as being refreshed) or wait for the rebuilt one; and a
signed-in member gets the stored public page with their own parts rendered into it."""

from __future__ import annotations

import datetime
import threading
import time
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.db import connections
from django.test import Client, RequestFactory

from players.http.cache import STALE_HEADER, published_entry
from players.models import Player, RatingList
from players.selectors import Generation
from players.services import membership_set
from tests.pages_data import build_club, counted_calls, refreshed
from tests.tournaments.helpers import close, play
from tournaments.services.live import live_list

HOME = "/clubs/riverside/"
RATINGS_API = "/api/v1/clubs/riverside/lists/standard/ratings/"


@pytest.fixture
def cache_on(settings: Any) -> None:
    settings.PUBLISHED_CACHE_SECONDS = 600


def _counting(monkeypatch: pytest.MonkeyPatch, delay: float = 0.0) -> list[int]:
    """Count (and slow down) the club home's rendering."""
    from ratings_site.pages import views

    renders: list[int] = []
    home = views.club_home_data

    def counted(**kwargs: Any) -> Any:
        renders.append(1)
        time.sleep(delay)
        return home(**kwargs)

    monkeypatch.setattr(views, "club_home_data", counted)
    return renders


def _entry(path: str = HOME) -> Any:
    return published_entry(
        request=RequestFactory().get(path), user=AnonymousUser(), slug="riverside", variant="page"
    )


def _live_entry(path: str) -> Any:
    """A player page's live block's entry (what its rebuild claims)."""
    return published_entry(
        request=RequestFactory().get(path),
        user=AnonymousUser(),
        slug="riverside",
        variant="page-live",
        scope=Generation.LIVE,
    )


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_rebuilds_render_once(
    cache_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    build_club(crowd=2)
    renders = _counting(monkeypatch, delay=0.5)
    answers: list[bytes] = []

    def visit() -> None:
        try:
            answers.append(Client().get(HOME).content)
        finally:
            # The thread's own connection: left open, it kept the test database from
            # being dropped at the session's end.
            connections.close_all()

    visitors = [threading.Thread(target=visit) for _ in range(2)]
    for visitor in visitors:
        visitor.start()
    for visitor in visitors:
        visitor.join()
    assert len(renders) == 1  # the second waited for the first's page
    assert len(answers) == 2
    assert answers[0] == answers[1]
    assert b"Riverside Chess Club" in answers[0]


@pytest.mark.django_db
def test_while_one_request_rebuilds_the_others_get_the_previous_page_marked(
    cache_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = build_club(crowd=2)
    before = Client().get(HOME)
    assert STALE_HEADER not in before
    magnus, omar = data.players["magnus"], data.players["omar"]
    play(data.club, data.owner, [(omar, magnus, "1-0")], date=datetime.date(2026, 4, 3))
    close(data.club, data.owner, "2026-04")  # a new generation: the page is retired
    entry = _entry()
    assert entry.value is None
    assert entry.stale is not None
    assert entry.claim()  # a request is rebuilding it (and vouched the club public)
    entry.vouch_public(data.club)
    renders = _counting(monkeypatch)
    meanwhile = Client().get(HOME)
    assert renders == []
    assert meanwhile.content == before.content
    assert meanwhile[STALE_HEADER] == "stale; refreshing"
    entry.release()  # the rebuild gave up (or ended): the next request rebuilds...
    after = Client().get(HOME)
    assert renders == [1]  # ...once it has answered, with the previous page too
    assert after[STALE_HEADER] == "stale; refreshing"
    assert after.content == before.content
    fresh = Client().get(HOME)
    assert renders == [1]
    assert STALE_HEADER not in fresh
    assert b"2026-04" in fresh.content


@pytest.mark.django_db
def test_while_one_page_of_a_club_is_rebuilt_its_other_retired_pages_are_shown_as_before(
    cache_on: None,
) -> None:
    # A close retires every page of the club at once; rebuilding them all at once took
    # every web worker (the load benchmark through a close). One at a time: the others
    # are shown as before, marked, until the rebuild in hand ends.
    data = build_club(crowd=2)
    list_url = "/clubs/riverside/lists/standard/"
    list_before = Client().get(list_url)
    Client().get(HOME)
    api_before = Client().get(RATINGS_API)
    magnus, omar = data.players["magnus"], data.players["omar"]
    play(data.club, data.owner, [(omar, magnus, "1-0")], date=datetime.date(2026, 4, 3))
    close(data.club, data.owner, "2026-04")
    home = _entry()
    assert home.claim()  # a request rebuilds the club home...
    # ...not yet known public: a request for another page does not take its word; it reads
    # the club itself, answers with its own previous answer, and rebuilds it after.
    not_vouched = Client().get(RATINGS_API)
    assert not_vouched[STALE_HEADER] == "stale; refreshing"
    assert not_vouched.content == api_before.content
    assert b"2026-04" in Client().get(RATINGS_API).content
    home.vouch_public(data.club)  # ...and read the club: public
    meanwhile = Client().get(list_url)
    assert meanwhile[STALE_HEADER] == "stale; refreshing"
    assert meanwhile.content == list_before.content
    home.release()  # the club home is rebuilt: the next request rebuilds the list
    after = refreshed(Client(), list_url)
    assert b"2026-04" in after.content


@pytest.mark.django_db
def test_while_a_published_page_is_rebuilt_the_live_pages_are_shown_as_before(
    cache_on: None,
) -> None:
    # A close retires the live entries with the published ones: the club's one rebuild
    # slot holds for both (their rebuilds ran at once after a federation's close).
    data = build_club(crowd=2)
    live_url = "/clubs/riverside/lists/standard/live/"
    Client().get(HOME)
    live_before = Client().get(live_url)
    magnus, omar = data.players["magnus"], data.players["omar"]
    play(data.club, data.owner, [(omar, magnus, "1-0")], date=datetime.date(2026, 4, 3))
    close(data.club, data.owner, "2026-04")
    home = _entry()
    assert home.claim()
    home.vouch_public(data.club)
    meanwhile = Client().get(live_url)
    assert meanwhile[STALE_HEADER] == "stale; refreshing"
    assert meanwhile.content == live_before.content
    home.release()
    # The close retired it: its next visitor is answered as before and rebuilds it after.
    refreshed(Client(), live_url)


@pytest.mark.django_db
def test_a_player_pages_live_figures_are_rebuilt_once_and_shown_as_before_meanwhile(
    cache_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A game retires the live figures of every player page, not the pages: each request
    # that was served a stored page computed them afresh (every web worker at once after
    # a federation's close). Now one request rebuilds them; the others get the previous.
    from ratings_site.pages import views

    data = build_club(crowd=2)
    magnus, omar = data.players["magnus"], data.players["omar"]
    url = f"/clubs/riverside/players/{magnus.pk}/"
    play(data.club, data.owner, [(omar, magnus, "1-0")], date=datetime.date(2026, 4, 3))
    before = Client().get(url)
    play(data.club, data.owner, [(magnus, omar, "1-0")], date=datetime.date(2026, 4, 4))
    computed = counted_calls(monkeypatch, views, "live_details")
    live = _live_entry(url)
    assert live.value is None
    assert live.stale is not None
    assert live.claim()  # another request rebuilds the live figures...
    live.vouch_public(data.club)  # ...and read the club: public
    meanwhile = Client().get(url)
    assert computed == []
    assert meanwhile.content == before.content  # the page and its previous live figures
    live.release()
    after = Client().get(url)
    assert computed == [1]
    assert after.content != before.content  # the second game is in the live figures
    again = Client().get(url)
    assert computed == [1]
    assert again.content == after.content


@pytest.mark.django_db
def test_after_a_game_the_live_pages_wait_only_until_the_live_figures_are_computed(
    cache_on: None,
) -> None:
    # The live list's page, its API and the player pages' live blocks are all built from
    # one computation of the list's live figures. While it runs they are shown as before;
    # once it is in the cache each is rebuilt from it without waiting for the club's
    # rebuild slot: one after the other, a game took a third of a second to show in the
    # API during a round.
    data = build_club(crowd=2)
    magnus, omar = data.players["magnus"], data.players["omar"]
    play(data.club, data.owner, [(omar, magnus, "1-0")], date=datetime.date(2026, 4, 3))
    live_api = "/api/v1/clubs/riverside/lists/standard/live/"
    before = Client().get(live_api, HTTP_ACCEPT="application/json")
    player_url = f"/clubs/riverside/players/{magnus.pk}/"
    Client().get(player_url)
    play(data.club, data.owner, [(magnus, omar, "1-0")], date=datetime.date(2026, 4, 4))
    rebuilding = _live_entry(player_url)
    assert rebuilding.claim()  # a player page's live block is being rebuilt...
    rebuilding.vouch_public(data.club)  # ...for a public club
    meanwhile = Client().get(live_api, HTTP_ACCEPT="application/json")
    assert meanwhile[STALE_HEADER] == "stale; refreshing"
    assert meanwhile.json()["games_count"] == before.json()["games_count"]
    # That rebuild has computed the live figures (its first step), and goes on.
    live_list(rating_list=RatingList.objects.select_related("club").get(slug="standard"))
    after = Client().get(live_api, HTTP_ACCEPT="application/json")
    assert STALE_HEADER not in after
    assert after.json()["games_count"] == before.json()["games_count"] + 1
    rebuilding.release()


@pytest.mark.django_db
def test_a_club_made_private_is_not_shown_stale_while_rebuilt(
    cache_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from players.services import club_update

    data = build_club(crowd=2)
    assert Client().get(HOME).status_code == 200
    club_update(club=data.club, by=data.owner, public=False)
    entry = _entry()
    assert entry.claim()  # rebuilding, but nobody vouched for the club
    monkeypatch.setattr("players.http.cache.REBUILD_SECONDS", 0.3)
    answer = Client().get(HOME)
    assert answer.status_code == 302  # to the login, never the old public page


@pytest.mark.django_db
def test_api_answers_are_stored_rendered_and_rebuilt_once(
    cache_on: None, monkeypatch: pytest.MonkeyPatch, django_assert_max_num_queries: Any
) -> None:
    from rest_framework.renderers import JSONRenderer

    build_club(crowd=2)
    renders: list[int] = []
    render = JSONRenderer.render

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        renders.append(1)
        return render(self, *args, **kwargs)

    monkeypatch.setattr(JSONRenderer, "render", counted)
    first = Client().get(RATINGS_API)
    assert renders == [1]
    with django_assert_max_num_queries(0):
        again = Client().get(RATINGS_API)
    assert renders == [1]  # a hit is the stored bytes
    assert again.content == first.content
    assert again["Content-Type"] == first["Content-Type"]


@pytest.mark.django_db
def test_a_member_gets_the_stored_page_with_their_own_parts(
    cache_on: None, monkeypatch: pytest.MonkeyPatch, django_assert_max_num_queries: Any
) -> None:
    data = build_club(crowd=2)
    users = get_user_model().objects
    linked = users.create_user("alice-account")
    other = users.create_user("another-member")
    for user in (linked, other):
        membership_set(club=data.club, user=user, role="viewer", by=data.owner)
    alice = data.players["alice"]
    Player.objects.filter(pk=alice.pk).update(user=linked)
    url = f"/clubs/riverside/players/{alice.pk}/"
    anonymous = Client().get(url).content.decode()  # stored for everyone
    assert "Log in" in anonymous
    assert "This is your player record." not in anonymous
    assert "alice-account" not in anonymous
    from ratings_site.pages import views

    monkeypatch.setattr(views, "player_lists", _refused)
    mine, theirs = Client(), Client()
    mine.force_login(linked)
    theirs.force_login(other)
    with django_assert_max_num_queries(8):  # session, user, cache, the member's parts
        own = mine.get(url).content.decode()
    assert "This is your player record." in own
    assert "Log out" in own
    assert "Log in" not in own
    assert 'name="csrfmiddlewaretoken"' in own
    seen = theirs.get(url).content.decode()
    assert "Member account: alice-account" in seen
    assert "This is your player record." not in seen
    # The public part is the stored page's.
    assert (
        own.split("</header>")[1].split("<!--member-link-->")[0]
        == (anonymous.split("</header>")[1].split("<!--member-link-->")[0])
    )


@pytest.mark.django_db
def test_a_member_on_a_cold_cache_stores_the_public_page_for_everyone(
    cache_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = build_club(crowd=2)
    member = get_user_model().objects.create_user("member")
    membership_set(club=data.club, user=member, role="viewer", by=data.owner)
    signed_in = Client()
    signed_in.force_login(member)
    renders = _counting(monkeypatch)
    page = signed_in.get(HOME).content.decode()
    assert "Log out" in page
    anonymous = Client().get(HOME).content.decode()
    assert renders == [1]  # the anonymous visitor got the page the member's visit stored
    assert "Log in" in anonymous
    assert "Log out" not in anonymous
    assert "csrfmiddlewaretoken" not in anonymous


def _refused(**kwargs: Any) -> Any:
    raise AssertionError("a member's hit must not compute the public part")
