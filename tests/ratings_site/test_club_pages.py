"""The public club pages: clubs, a club's home, the rating list, a player's page."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from players.models import Membership, RatingChange, Role
from ratings_site.pages.lists import LIST_PAGE_SIZE
from tests.pages_data import ClubData, build_club

pytestmark = pytest.mark.django_db


@pytest.fixture
def data() -> ClubData:
    return build_club()


def text(response: Any) -> str:
    """The page's visible text with tags and runs of spaces collapsed."""
    html = response.content.decode()
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def list_rows(response: Any) -> list[list[str]]:
    """The rating list's body rows as lists of cell texts."""
    body = response.content.decode().split('id="rating-list"')[1].split("<tbody>")[1]
    body = body.split("</tbody>")[0]
    rows = []
    for row in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S):
        cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, flags=re.S)
        rows.append([re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", c)).strip() for c in cells])
    return rows


def member(club: Any, username: str, role: Role = Role.VIEWER) -> Any:
    user = get_user_model().objects.create_user(username)
    Membership.objects.create(user=user, club=club, role=role)
    return user


# -- clubs ----------------------------------------------------------------------------------


def test_clubs_index_and_home_list_visible_clubs_only(client: Client) -> None:
    public = build_club(slug="riverside")
    private = build_club(slug="hilltop", public=False, crowd=2)
    for url in ("/", "/clubs/"):
        page = text(client.get(url))
        assert "Riverside Chess Club" in page
        assert "Hilltop Chess Club" not in page
    client.force_login(member(private.club, "hill-viewer"))
    page = text(client.get("/clubs/"))
    assert "Riverside Chess Club" in page
    assert "Hilltop Chess Club" in page
    assert "members only" in page
    assert public.club.players.count() == 12


def test_club_home_shows_lists_latest_period_top_players_and_tournaments(
    client: Client, data: ClubData
) -> None:
    response = client.get("/clubs/riverside/")
    assert response.status_code == 200
    page = text(response)
    assert "List after 2026-03" in page
    assert "11 rated players" in page  # Boris Duda fell below the floor
    magnus = RatingChange.objects.get(player=data.players["magnus"], period__month__month=3)
    assert f"1 GM Magnus Berg {magnus.rating_after}" in page
    assert "Winter Open (Riverside)" in page
    assert "No period closed yet" in page  # rapid and blitz
    assert 'href="/calculator/"' in response.content.decode()


# -- the rating list ------------------------------------------------------------------------


def test_rating_list_is_ranked_with_changes_k_and_games(client: Client, data: ClubData) -> None:
    response = client.get("/clubs/riverside/lists/standard/")
    assert response.status_code == 200
    rows = list_rows(response)
    published = list(
        RatingChange.objects.filter(
            period__month__month=3, current=True, rating_after__isnull=False
        )
        .select_related("player")
        .order_by("-rating_after", "player__name")
    )
    assert len(rows) == len(published) == 11
    for row, change in zip(rows, published, strict=True):
        assert change.player.name in row[1]
        assert row[4] == str(change.rating_after)
        assert row[6] == str(change.k_factor)
        assert row[7] == str(change.games)
    assert [int(r[0]) for r in rows][:3] == [1, 2, 3]
    alice = next(r for r in rows if "Alice Chen" in r[1])
    alice_change = RatingChange.objects.get(player=data.players["alice"], period__month__month=3)
    assert alice_change.change > 0
    assert f"▲ +{alice_change.change}" in alice[5]
    assert f"up {alice_change.change}" in alice[5]  # the words a screen reader reads
    loser = next(c for c in published if c.change < 0)
    row = next(r for r in rows if loser.player.name in r[1])
    assert f"▼ −{-loser.change}" in row[5]
    assert f"down {-loser.change}" in row[5]
    assert "inactive" in next(r for r in rows if "Petra Sommer" in r[1])[1]


def test_search_keeps_the_overall_rank(client: Client, data: ClubData) -> None:
    full = list_rows(client.get("/clubs/riverside/lists/standard/"))
    omar_rank = next(r[0] for r in full if "Omar Reyes" in r[1])
    rows = list_rows(client.get("/clubs/riverside/lists/standard/", {"q": "omar"}))
    assert len(rows) == 1
    assert rows[0][0] == omar_rank != "1"
    page = text(client.get("/clubs/riverside/lists/standard/", {"q": "nobody-like-this"}))
    assert "No player on this list matches “nobody-like-this”" in page


def test_filters_title_junior_active(client: Client, data: ClubData) -> None:
    url = "/clubs/riverside/lists/standard/"
    titled = list_rows(client.get(url, {"title": "titled"}))
    assert [r[1] for r in titled] == ["GM Magnus Berg"]
    assert list_rows(client.get(url, {"title": "GM"})) == titled
    juniors = list_rows(client.get(url, {"junior": "on"}))
    assert [r[1] for r in juniors] == ["Alice Chen"]
    active = list_rows(client.get(url, {"active": "on"}))
    assert len(active) == 10
    assert not any("Petra Sommer" in r[1] for r in active)
    assert client.get(url, {"title": "XX"}).status_code == 400


def test_any_closed_period_with_a_picker(client: Client, data: ClubData) -> None:
    response = client.get("/clubs/riverside/lists/standard/", {"period": "2026-01"})
    assert response.status_code == 200
    html = response.content.decode()
    assert '<option value="2026-01" selected>' in html
    assert '<option value="2026-03">' in html
    rows = list_rows(response)
    # Nina had no rating yet in January; Boris still had one.
    assert not any("Nina Novak" in r[1] for r in rows)
    assert any("Boris Duda" in r[1] for r in rows)
    february = list_rows(client.get("/clubs/riverside/lists/standard/", {"period": "2026-02"}))
    nina = next(r for r in february if "Nina Novak" in r[1])
    assert "new" in nina[5]
    assert not any("Boris Duda" in r[1] for r in february)  # dropped below the floor


@pytest.mark.parametrize(
    ("params", "status", "message"),
    [
        ({"period": "2026-13"}, 400, "is not a month written YYYY-MM"),
        ({"period": "March"}, 400, "is not a month written YYYY-MM"),
        ({"period": "2025-01"}, 404, "no closed period 2025-01"),
    ],
)
def test_bad_period_gives_a_clear_page(
    client: Client, data: ClubData, params: dict[str, str], status: int, message: str
) -> None:
    response = client.get("/clubs/riverside/lists/standard/", params)
    assert response.status_code == status
    assert message in text(response)
    assert "<main" in response.content.decode()


def test_unknown_list_club_and_player_are_404(client: Client, data: ClubData) -> None:
    assert client.get("/clubs/riverside/lists/bullet/").status_code == 404
    assert client.get("/clubs/riverside/players/999999/").status_code == 404
    client.force_login(get_user_model().objects.create_user("someone"))
    assert client.get("/clubs/no-such-club/").status_code == 404


def test_list_before_any_close_says_so(client: Client, data: ClubData) -> None:
    response = client.get("/clubs/riverside/lists/rapid/")
    assert response.status_code == 200
    assert "No period of this list has been closed yet" in text(response)


def test_long_list_is_paginated(client: Client) -> None:
    build_club(crowd=LIST_PAGE_SIZE)
    first = client.get("/clubs/riverside/lists/standard/")
    rows = list_rows(first)
    assert len(rows) == LIST_PAGE_SIZE
    assert "page 1 of 2" in text(first)
    second = list_rows(client.get("/clubs/riverside/lists/standard/", {"page": "2"}))
    total = LIST_PAGE_SIZE + 5  # Boris Duda is below the floor
    assert len(second) == total - LIST_PAGE_SIZE
    assert int(second[-1][0]) <= total
    assert int(second[0][0]) >= int(rows[-1][0])


# -- the player page ------------------------------------------------------------------------


def test_player_page_ratings_class_k_history_chart_and_games(
    client: Client, data: ClubData
) -> None:
    alice = data.players["alice"]
    response = client.get(f"/clubs/riverside/players/{alice.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    page = text(response)
    march = RatingChange.objects.get(player=alice, period__month__month=3)
    # Bands by their numbers, never a title's name; the seed's description beside it.
    assert f"{march.rating_after} class 1600-1799" in page
    assert "Plans rather than moves." in page
    assert "K 40 (40: junior under 2300)" in page
    # The chart: one point per published period, with an accessible name and description.
    svg = html.split('<svg id="chart-standard"')[1].split("</svg>")[0]
    assert svg.count('<circle class="point"') == 3
    assert "<title id=" in svg
    assert "<desc id=" in svg
    assert f"2026-03: {march.rating_after}" in svg
    # The periods table and each period's games from the engine.
    assert "Games of 2026-03 (2)" in page
    assert "400-point rule: 2442 counted as 2064" in page or "400-point rule" in page
    details = html.split("Games of 2026-01")[1].split("</details>")[0]
    assert "Magnus Berg" in details
    assert "Omar Reyes" in details
    assert "+8.80" in details  # 40 x (0.5 - 0.28)
    assert "K factor history" in page
    assert "Winter Open" in page


def test_per_game_changes_add_up_to_the_published_change(client: Client, data: ClubData) -> None:
    from ratings_site.pages.games import player_games
    from ratings_site.pages.player import player_lists

    for player in [data.players["alice"], data.players["omar"], *data.crowd]:
        lists = player_lists(player=player)
        games = player_games(player=player, lists=lists.lists, history=lists.history)
        for detail in games.periods.values():
            if detail.toward_first_rating:
                continue
            assert detail.engine_change == detail.change.change, (player.name, detail.change)


def test_first_rating_and_performance(client: Client, data: ClubData) -> None:
    nina = data.players["nina"]
    page = text(client.get(f"/clubs/riverside/players/{nina.pk}/"))
    assert "new rating" in page
    assert "First rating" in page
    assert "toward a first rating" in page
    # Winter Open: 5 games, 3½ points against opponents averaging 1680 -> 70% -> dp 149.
    assert "Winter Open" in page
    assert "5 3½ 1680 1829" in page


# -- scoping ----------------------------------------------------------------------------------


@pytest.fixture
def private() -> ClubData:
    return build_club(slug="hilltop", public=False, crowd=2)


def private_urls(private: ClubData) -> list[str]:
    player = private.players["alice"].pk
    return [
        "/clubs/hilltop/",
        "/clubs/hilltop/lists/standard/",
        f"/clubs/hilltop/players/{player}/",
        "/clubs/hilltop/lists/standard/periods/2026-02/",
    ]


def test_private_club_redirects_anonymous_to_login(client: Client, private: ClubData) -> None:
    for url in private_urls(private):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith("/accounts/login/?next=")
    # An unknown club looks the same to an anonymous visitor: no existence leak.
    assert client.get("/clubs/nowhere/").status_code == 302


def test_private_club_is_404_for_non_members_and_open_to_members(
    client: Client, private: ClubData
) -> None:
    other = build_club(slug="other", public=False, crowd=2)
    client.force_login(member(other.club, "outsider"))
    for url in private_urls(private):
        assert client.get(url).status_code == 404, url
    client.force_login(member(private.club, "insider"))
    for url in private_urls(private):
        assert client.get(url).status_code == 200, url


def test_public_club_is_open_to_everyone(client: Client, data: ClubData) -> None:
    assert client.get("/clubs/riverside/").status_code == 200
    client.force_login(get_user_model().objects.create_user("stranger"))
    assert client.get("/clubs/riverside/lists/standard/").status_code == 200


# -- queries ------------------------------------------------------------------------------------


def page_urls(data: ClubData) -> dict[str, str]:
    return {
        "home": "/clubs/riverside/",
        "list": "/clubs/riverside/lists/standard/?period=2026-02",
        "search": "/clubs/riverside/lists/standard/?q=player&junior=&title=titled",
        "sorted": "/clubs/riverside/lists/standard/?sort=-change&category=u20&women=on&top=10",
        "site_search": "/players/?q=a",
        "player": f"/clubs/riverside/players/{data.players['alice'].pk}/",
        "clubs": "/clubs/",
        "h2h": f"/clubs/riverside/players/{data.players['alice'].pk}/vs/{data.players['omar'].pk}/",
        "tournaments": "/clubs/riverside/tournaments/",
        "tournament": f"/clubs/riverside/tournaments/{data.tournament.pk if data.tournament else 0}/",
    }


MAX_QUERIES = {
    "home": 6,
    "list": 7,
    "search": 7,
    "sorted": 7,
    "site_search": 2,
    # One more since the live block: which lists the player has games on that no close
    # has rated yet. One more for the order the club shows names in (its first list's).
    "player": 12,
    "clubs": 1,
    # One more for the order the club shows names in (its first list's), as on "player".
    "h2h": 7,
    "tournaments": 4,
    # The first visit computes the event's ranking (games, byes, period, ratings in force),
    # kept for the later pages and visits, then reads the page's players' games and byes.
    "tournament": 11,
}


@pytest.mark.parametrize("crowd", [5, 50])
def test_query_counts_do_not_grow_with_players(
    client: Client, django_assert_max_num_queries: Any, crowd: int
) -> None:
    data = build_club(crowd=crowd)
    for name, url in page_urls(data).items():
        with django_assert_max_num_queries(MAX_QUERIES[name]):
            assert client.get(url).status_code == 200, url


def test_query_counts_equal_for_5_and_50_players(client: Client) -> None:
    counts: list[dict[str, int]] = []
    for slug, crowd in (("small", 5), ("large", 50)):
        data = build_club(slug=slug, crowd=crowd)
        measured = {}
        for name, url in page_urls(data).items():
            with CaptureQueriesContext(connection) as queries:
                client.get(url.replace("riverside", slug))
            measured[name] = len(queries)
        counts.append(measured)
    assert counts[0] == counts[1]


def test_unknown_path_gets_the_site_404_page(client: Client) -> None:
    response = client.get("/clubs/riverside/nothing-here/")
    assert response.status_code == 404
    assert "There is no page at /clubs/riverside/nothing-here/" in text(response)


def test_a_replayed_list_is_ranked_from_its_new_ratings(
    client: Client, data: ClubData, settings: Any
) -> None:
    # The rank histogram of a period is kept in the cache (every page, sort and filter of
    # it reads the same one); a replay writes new rows, and the page must rank those.
    from players.models import RatingPeriod
    from tournaments.models import Game
    from tournaments.services import game_update, list_replay, period_reopen

    settings.PUBLISHED_CACHE_SECONDS = 0  # the pages themselves rendered each time
    url = "/clubs/riverside/lists/standard/"
    before = list_rows(client.get(url))
    period = RatingPeriod.objects.get(
        rating_list__club=data.club, month__month=3, rating_list__kind="standard"
    )
    game = Game.objects.filter(period=period, result="1-0").order_by("id").first()
    assert game is not None
    period_reopen(period=period, by=data.owner)
    game_update(game=game, by=data.owner, result="0-1")
    list_replay(rating_list=period.rating_list, by=data.owner)

    response = client.get(url)
    assert response.status_code == 200
    rows = list_rows(response)
    ratings = [int(row[4]) for row in rows]
    assert [int(row[0]) for row in rows] == [1 + sum(r > own for r in ratings) for own in ratings]
    assert ratings != [int(row[4]) for row in before]
