"""The first visitor after a change is shown the previous answer too (players.http.cache:
``rebuilt_once``'s ``previous_first``): the request that claims a retired published entry answers
with the entry's previous answer, marked, and rebuilds the entry once the server has
delivered that answer (``after_response``). On the first of the month the first visitor
of each closed club's pages waited for their rebuild, and the requests queued behind the
web workers doing it were the pages' p99 during the storm."""

from __future__ import annotations

import datetime
import threading
import urllib.request
from typing import Any

import pytest
from django.test import Client

from players.http.cache import STALE_HEADER, STALE_VALUE
from tests.pages_data import ClubData, build_club, counted_calls
from tests.tournaments.helpers import close, play

HOME = "/clubs/riverside/"
LIST = "/clubs/riverside/lists/standard/"
LIVE = "/clubs/riverside/lists/standard/live/"
RATINGS_API = "/api/v1/clubs/riverside/lists/standard/ratings/"
RATINGS_CSV = "/api/v1/clubs/riverside/lists/standard/ratings.csv"
DOWNLOAD = "/clubs/riverside/lists/standard/export.csv"


@pytest.fixture
def cache_on(settings: Any) -> None:
    settings.PUBLISHED_CACHE_SECONDS = 600


def _counting(monkeypatch: pytest.MonkeyPatch, wait: Any = None) -> list[bool]:
    """Count the club home's renderings; ``wait()``'s answer is recorded for each."""
    from ratings_site.pages import views

    renders: list[bool] = []
    home = views.club_home_data

    def counted(**kwargs: Any) -> Any:
        renders.append(wait() if wait is not None else True)
        return home(**kwargs)

    monkeypatch.setattr(views, "club_home_data", counted)
    return renders


def _april_closed(data: ClubData) -> None:
    magnus, omar = data.players["magnus"], data.players["omar"]
    play(data.club, data.owner, [(omar, magnus, "1-0")], date=datetime.date(2026, 4, 3))
    close(data.club, data.owner, "2026-04")


@pytest.mark.django_db
def test_the_first_visitor_after_a_close_is_shown_the_previous_page_and_rebuilds_it_after(
    cache_on: None, monkeypatch: pytest.MonkeyPatch, django_assert_max_num_queries: Any
) -> None:
    data = build_club(crowd=2)
    before = Client().get(HOME)
    _april_closed(data)
    renders = _counting(monkeypatch)
    first = Client().get(HOME)
    assert first.status_code == 200
    assert first[STALE_HEADER] == STALE_VALUE
    assert first.content == before.content
    # The test client, like a WSGI server, closes the response once it has it: the page
    # was rebuilt there, once.
    assert renders == [True]
    with django_assert_max_num_queries(0):
        second = Client().get(HOME)
    assert STALE_HEADER not in second
    assert b"2026-04" in second.content
    assert renders == [True]


@pytest.mark.django_db(transaction=True)
def test_a_real_server_delivers_the_previous_page_before_it_rebuilds(
    cache_on: None, monkeypatch: pytest.MonkeyPatch, live_server: Any
) -> None:
    data = build_club(crowd=2)
    urllib.request.urlopen(live_server.url + HOME).read()  # noqa: S310
    _april_closed(data)
    delivered = threading.Event()
    # The rebuild waits for the test to have the answer: a server that rebuilt before it
    # answered would wait in vain (and record False).
    renders = _counting(monkeypatch, wait=lambda: delivered.wait(timeout=10))
    with urllib.request.urlopen(live_server.url + HOME) as answer:  # noqa: S310
        assert answer.headers[STALE_HEADER] == STALE_VALUE
        assert b"2026-04" not in answer.read()
    delivered.set()
    for _ in range(200):
        with urllib.request.urlopen(live_server.url + HOME) as again:  # noqa: S310
            if again.headers[STALE_HEADER] is None:
                assert b"2026-04" in again.read()
                break
        threading.Event().wait(0.05)
    else:
        raise AssertionError("the page was never rebuilt")
    # Every rendering waited for the answer to be delivered first (another request of the
    # page may have rebuilt it once more, after the first rebuild stored it).
    assert renders
    assert all(renders)


@pytest.mark.django_db
def test_the_api_and_the_downloads_are_answered_before_their_rebuild_too(
    cache_on: None, django_assert_max_num_queries: Any
) -> None:
    data = build_club(crowd=2)
    urls = [RATINGS_API, RATINGS_CSV, DOWNLOAD]
    # Read through: a streamed answer is stored once it was sent whole.
    before = {
        url: (b"".join(answer), answer["Content-Type"])
        for url in urls
        for answer in [Client().get(url)]
    }
    _april_closed(data)
    for url in urls:
        first = Client().get(url)
        assert first.status_code == 200, url
        assert first[STALE_HEADER] == STALE_VALUE, url
        assert b"".join(first) == before[url][0], url
        with django_assert_max_num_queries(0):
            rebuilt = Client().get(url)
        assert STALE_HEADER not in rebuilt, url
        assert rebuilt["Content-Type"] == before[url][1], url
        body = b"".join(rebuilt)
        assert b"2026-04" in body or b"2026-04" in rebuilt.get("Content-Disposition", "").encode()
        # The stored answer is what the club's member is given afresh.
        member = Client()
        member.force_login(data.owner)
        assert b"".join(member.get(url)) == body, url


@pytest.mark.django_db
def test_a_live_page_after_a_game_is_built_before_it_is_answered(cache_on: None) -> None:
    # The previous live list lacks the game just entered: it is never the first answer.
    data = build_club(crowd=2)
    magnus, omar = data.players["magnus"], data.players["omar"]
    play(data.club, data.owner, [(omar, magnus, "1-0")], date=datetime.date(2026, 4, 3))
    before = Client().get(LIVE)
    play(data.club, data.owner, [(magnus, omar, "1-0")], date=datetime.date(2026, 4, 4))
    after = Client().get(LIVE)
    assert STALE_HEADER not in after
    assert after.content != before.content


@pytest.mark.django_db
def test_a_rebuild_that_fails_after_the_answer_is_logged_and_let_go(
    cache_on: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from ratings_site.pages import views

    data = build_club(crowd=2)
    before = Client().get(HOME)
    _april_closed(data)

    def broken(**kwargs: Any) -> Any:
        raise RuntimeError("the database went away")

    monkeypatch.setattr(views, "club_home_data", broken)
    with caplog.at_level("ERROR", logger="players.http.cache"):
        first = Client().get(HOME)
    assert first.status_code == 200  # the visitor had the previous page
    assert first.content == before.content
    assert "rebuilding a cached answer after the response failed" in caplog.text
    monkeypatch.undo()
    # The rebuild was released: the next visitor claims it again, not waits for it.
    second = Client().get(HOME)
    assert second[STALE_HEADER] == STALE_VALUE
    assert b"2026-04" in Client().get(HOME).content


@pytest.mark.django_db
def test_a_club_made_private_is_never_answered_from_before(cache_on: None) -> None:
    from players.services import club_update

    data = build_club(crowd=2)
    assert Client().get(LIST).status_code == 200
    club_update(club=data.club, by=data.owner, public=False)
    answer = Client().get(LIST)
    assert answer.status_code == 302
    assert STALE_HEADER not in answer


@pytest.mark.django_db
def test_after_a_close_the_live_pages_are_answered_as_before_and_rebuilt_after(
    cache_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A close, not a game, retired them: the previous live list is no game behind.
    from ratings_site.pages import views

    data = build_club(crowd=2)
    magnus, omar = data.players["magnus"], data.players["omar"]
    play(data.club, data.owner, [(omar, magnus, "1-0")], date=datetime.date(2026, 4, 3))
    player = f"/clubs/riverside/players/{magnus.pk}/"
    before = {url: Client().get(url).content for url in (LIVE, player)}
    close(data.club, data.owner, "2026-04")
    computed = counted_calls(monkeypatch, views, "live_details")
    for url in (LIVE, player):
        first = Client().get(url)
        assert first[STALE_HEADER] == STALE_VALUE, url
        assert first.content == before[url], url
        again = Client().get(url)
        assert STALE_HEADER not in again, url
        assert again.content != before[url], url
    # The player page's live block was rebuilt once, after the answer that showed the
    # previous one; the page around it the same way.
    assert computed == [1]
