"""The club's two cache generations (players.selectors.generations): a game retires the
live views alone and leaves the published ones cached; what publishes (a close, reopen,
replay, a player's or list's edit) retires both."""

from __future__ import annotations

import datetime
import functools
from collections.abc import Callable
from typing import Any

import pytest
from django.core.cache import cache
from django.http import HttpResponse
from django.test import Client

from players.models import RatingList
from players.names import NameOrder
from players.selectors import Generation, club_generation
from players.services import player_update, rating_list_update
from ratings_site.pages import views
from tests.conftest import built_once_per_module
from tests.pages_data import ClubData, build_club
from tests.tournaments.helpers import close, period_of, play
from tournaments.models import Game
from tournaments.services import (
    game_create,
    game_delete,
    list_replay,
    live,
    period_reopen,
    tournament_create,
)

pytestmark = pytest.mark.django_db

CLUB = "/clubs/riverside"
API = "/api/v1/clubs/riverside"
PUBLISHED = (
    f"{CLUB}/",
    f"{CLUB}/lists/standard/",
    f"{CLUB}/lists/standard/periods/2026-03/",
    f"{CLUB}/lists/standard/export.csv",
    f"{API}/lists/standard/ratings/",
    f"{API}/lists/standard/ratings.csv",
    f"{API}/players/",
)
LIVE_PAGE = f"{CLUB}/lists/standard/live/"
LIVE_API = f"{API}/lists/standard/live/"
APRIL = datetime.date(2026, 4, 3)


# Built once for the module (a deepcopy for each test, its changes rolled back).
_built_for_module, data = built_once_per_module("data", functools.partial(build_club, crowd=4))


def _body(response: HttpResponse) -> bytes:
    assert response.status_code == 200
    # ratings.csv streams; the others are whole.
    if response.streaming:
        return b"".join(response.streaming_content)  # type: ignore[arg-type]
    return response.content


def _warm(client: Client, urls: tuple[str, ...]) -> dict[str, bytes]:
    return {url: _body(client.get(url)) for url in urls}


def _enter_game(data: ClubData) -> None:
    magnus, omar = data.players["magnus"], data.players["omar"]
    play(data.club, data.owner, [(omar, magnus, "1-0")], date=APRIL)


def test_a_game_leaves_the_published_answers_cached_and_shows_in_the_live_list_at_once(
    client: Client, data: ClubData, django_assert_num_queries: Any
) -> None:
    first = _warm(client, PUBLISHED)
    assert client.get(LIVE_API).json()["games_count"] == 0
    assert "Omar Reyes" not in client.get(LIVE_PAGE).content.decode()

    _enter_game(data)

    for url in PUBLISHED:
        with django_assert_num_queries(0):  # served from the cache, as it was
            assert _body(client.get(url)) == first[url], url
    assert client.get(LIVE_API).json()["games_count"] == 1
    assert "Omar Reyes" in client.get(LIVE_PAGE).content.decode()


def test_a_game_edited_or_deleted_retires_the_live_answers_alone(
    client: Client, data: ClubData, django_assert_num_queries: Any
) -> None:
    magnus, omar = data.players["magnus"], data.players["omar"]
    game = game_create(
        club=data.club,
        by=data.owner,
        list="standard",
        date=APRIL,
        white=omar.pk,
        black=magnus.pk,
        result="1-0",
    )
    first = _warm(client, PUBLISHED)
    assert client.get(LIVE_API).json()["games_count"] == 1
    game_delete(game=Game.objects.get(pk=game.pk), by=data.owner)
    for url in PUBLISHED:
        with django_assert_num_queries(0):
            assert _body(client.get(url)) == first[url], url
    assert client.get(LIVE_API).json()["games_count"] == 0


def test_the_player_page_shows_a_new_game_without_rebuilding_its_published_part(
    client: Client, data: ClubData, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"{CLUB}/players/{data.players['omar'].pk}/"
    before = client.get(url).content.decode()
    assert "list: live" not in before
    built: list[int] = []
    original = views.player_lists

    def counted(**kwargs: Any) -> Any:
        built.append(1)
        return original(**kwargs)

    monkeypatch.setattr(views, "player_lists", counted)
    _enter_game(data)
    after = client.get(url).content.decode()
    assert built == []  # the published page came from the cache ...
    assert "list: live" in after  # ... with the live figures of the new game in it
    assert _without_live(after) == _without_live(before)
    assert client.get(url).content.decode() == after  # and the live part is kept too


def _without_live(page: str) -> str:
    head, _, rest = page.partition("<!--live-figures-->")
    return head + rest.partition("<!--/live-figures-->")[2]


def test_a_signed_in_member_sees_the_new_game_on_the_cached_player_page(
    client: Client, data: ClubData
) -> None:
    url = f"{CLUB}/players/{data.players['omar'].pk}/"
    assert "list: live" not in client.get(url).content.decode()  # stored for everyone
    client.force_login(data.owner)
    _enter_game(data)
    assert "list: live" in client.get(url).content.decode()


def test_a_game_retires_the_pages_that_show_games(client: Client, data: ClubData) -> None:
    magnus, omar = data.players["magnus"], data.players["omar"]
    april_open = tournament_create(
        club=data.club,
        by=data.owner,
        name="April Open",
        rating_list="standard",
        start_date=APRIL,
        end_date=APRIL,
        rounds=1,
    )
    tournament = f"{CLUB}/tournaments/{april_open.pk}/"
    index = f"{CLUB}/tournaments/"
    h2h = f"{CLUB}/players/{omar.pk}/vs/{magnus.pk}/"
    before = _warm(client, (tournament, index, h2h))
    play(data.club, data.owner, [(omar, magnus, "1-0")], date=APRIL, tournament=april_open)
    for url in (tournament, index, h2h):
        assert _body(client.get(url)) != before[url], url


def _reopen(data: ClubData) -> None:
    period_reopen(period=period_of(data.club, "2026-03"), by=data.owner)


def _replay(data: ClubData) -> None:
    _reopen(data)
    list_replay(rating_list=RatingList.objects.get(club=data.club, slug="standard"), by=data.owner)


def _close(data: ClubData) -> None:
    _enter_game(data)
    close(data.club, data.owner, "2026-04")


def _player_edit(data: ClubData) -> None:
    player_update(player=data.players["alice"], by=data.owner, name="Alice Chen-Lind")


def _list_edit(data: ClubData) -> None:
    rating_list = RatingList.objects.get(club=data.club, slug="standard")
    rating_list_update(
        rating_list=rating_list, by=data.owner, name_order=NameOrder.SURNAME_FIRST.value
    )


@pytest.mark.parametrize(
    "publish",
    [_close, _reopen, _replay, _player_edit, _list_edit],
    ids=["close", "reopen", "replay", "player edit", "list edit"],
)
def test_what_publishes_retires_the_published_and_the_live_answers(
    client: Client,
    data: ClubData,
    publish: Callable[[ClubData], None],
    django_assert_max_num_queries: Any,
) -> None:
    urls = (*PUBLISHED, f"{CLUB}/players/{data.players['alice'].pk}/", LIVE_PAGE, LIVE_API)
    _warm(client, urls)
    for url in urls:
        with django_assert_max_num_queries(0):
            client.get(url)
    publish(data)
    for url in urls:
        with django_assert_max_num_queries(1000) as rebuilt:
            response = client.get(url)  # a reopened March is no longer published: 404
            b"".join(response.streaming_content) if response.streaming else response.content  # type: ignore[arg-type]
        assert rebuilt.captured_queries, f"{url} was served from the cache after publishing"


def test_a_request_waits_for_the_live_figures_another_is_computing(
    data: ClubData, monkeypatch: pytest.MonkeyPatch
) -> None:
    """During a round the live list, its API and the player pages' live blocks all ask for
    the same figures after each game: one request computes them."""
    rating_list = RatingList.objects.select_related("club").get(club=data.club, slug="standard")
    generation = club_generation(data.club.slug, Generation.LIVE)
    key = f"live:{live._CACHE_SHAPE}:{data.club.slug}:{rating_list.pk}:{generation}"
    cache.add(f"{key}:computing", 1)  # another request is computing them
    theirs = live.LiveList(list_id=rating_list.pk, games_count=7)

    def computed_meanwhile(seconds: float) -> None:
        cache.set(key, live._packed(theirs))

    def computed_twice(rating_list: RatingList, published: str | None = None) -> None:
        raise AssertionError("computed a second time")

    monkeypatch.setattr(live.time, "sleep", computed_meanwhile)
    monkeypatch.setattr(live, "_computed", computed_twice)
    assert live.live_list(rating_list=rating_list) == theirs
