"""The rating list's sortable columns, categories, "top N", downloads and search."""

from __future__ import annotations

import re
from html import unescape as html_unescape
from typing import Any

import pytest
from django.http import QueryDict
from django.test import Client

from players.models import Player, RatingChange, Sex
from players.services import club_published_changed
from tests.pages_data import ClubData, build_club, refreshed

pytestmark = pytest.mark.django_db
URL = "/clubs/riverside/lists/standard/"


@pytest.fixture
def data() -> ClubData:
    return build_club(crowd=12)


def rows(response: Any) -> list[list[str]]:
    assert response.status_code == 200, response.content[:500]
    html = response.content.decode()
    if 'id="rating-list"' not in html:
        return []
    body = html.split('id="rating-list"')[1].split("<tbody>")[1].split("</tbody>")[0]
    return [
        [
            re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", cell)).strip()
            for cell in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row)
        ]
        for row in body.split("</tr>")
        if "<td" in row
    ]


def published(data: ClubData) -> list[RatingChange]:
    return list(
        RatingChange.objects.filter(
            period__month__month=3, current=True, rating_after__isnull=False
        ).select_related("player")
    )


@pytest.mark.parametrize(
    ("sort", "key", "reverse"),
    [
        ("name", lambda c: c.player.name, False),
        ("-name", lambda c: c.player.name, True),
        ("rating", lambda c: c.rating_after, True),
        ("-rating", lambda c: c.rating_after, False),
        ("change", lambda c: c.change, True),
        ("games", lambda c: c.games, True),
    ],
)
def test_columns_sort_by_link(
    client: Client, data: ClubData, sort: str, key: Any, reverse: bool
) -> None:
    shown = rows(client.get(f"{URL}?sort={sort}"))
    names = [row[1] for row in shown]
    ordered = sorted(published(data), key=key, reverse=reverse)
    # Ties may come in any order among themselves: compare the sort keys.
    by_name = {c.player.name: key(c) for c in ordered}
    plain = [n.removeprefix("GM ").removesuffix(" (inactive)") for n in names]
    assert [by_name[n] for n in plain] == [key(c) for c in ordered]


def test_head_links_sort_and_flip(client: Client, data: ClubData) -> None:
    html = client.get(f"{URL}?sort=name&q=a&page=1").content.decode()
    heads = {
        label: (aria, QueryDict(html_unescape(query)))
        for aria, query, label in re.findall(
            r'aria-sort="(\w+)"><a href="\?([^"]*)">(\w+)</a>', html
        )
    }
    # The current column links to the other direction and says how it is sorted; the
    # others sort by themselves; the search is kept and the page dropped.
    assert heads["Player"][0] == "ascending"
    assert heads["Player"][1]["sort"] == "-name"
    assert heads["Rating"][0] == "none"
    assert heads["Rating"][1]["sort"] == "rating"
    assert all(q.get("q") == "a" and "page" not in q for _, q in heads.values())
    assert set(heads) == {"Rank", "Player", "Rating", "Change", "Games"}


def test_ranks_stay_the_whole_lists_in_any_order(client: Client, data: ClubData) -> None:
    by_rank = {row[1]: row[0] for row in rows(client.get(URL))}
    by_name = {row[1]: row[0] for row in rows(client.get(f"{URL}?sort=name"))}
    assert by_rank == by_name


def test_age_categories_women_federation_and_top(client: Client, data: ClubData) -> None:
    # Alice (2012) is under 14 in 2026; Magnus (1990) is not; Boris (1970) fell off the list.
    u14 = [row[1] for row in rows(client.get(f"{URL}?category=u14"))]
    assert u14 == ["Alice Chen"]
    seniors = [row[1] for row in rows(client.get(f"{URL}?category=s50"))]
    assert seniors == []  # Petra (1979) is 47 in 2026
    Player.objects.filter(pk=data.players["petra"].pk).update(birth_year=1975, sex=Sex.FEMALE)
    # Written behind the services' back: retire the cached pages as player_update would.
    club_published_changed(club_id=data.club.pk)
    seniors = [row[1] for row in rows(refreshed(client, f"{URL}?category=s50"))]
    assert seniors == ["Petra Sommer (inactive)"]
    women = [row[1] for row in rows(client.get(f"{URL}?women=on"))]
    assert women == ["Petra Sommer (inactive)"]
    norway = [row[1] for row in rows(client.get(f"{URL}?federation=nor"))]
    assert norway == ["GM Magnus Berg"]
    top = rows(client.get(f"{URL}?top=3"))
    assert [row[0] for row in top] == ["1", "2", "3"]
    top_by_name = [row[1] for row in rows(client.get(f"{URL}?top=3&sort=name"))]
    assert sorted(top_by_name) == top_by_name
    assert set(top_by_name) == {row[1] for row in top}


def test_bad_filters_are_a_400_naming_the_field(client: Client, data: ClubData) -> None:
    for query, field in (
        ("top=0", "top"),
        ("federation=NO1", "federation"),
        ("category=u7", "category"),
        ("sort=colour", "sort"),
    ):
        response = client.get(f"{URL}?{query}")
        assert response.status_code == 400
        assert field in response.content.decode()


def test_downloads_are_linked_from_the_list(client: Client, data: ClubData) -> None:
    html = client.get(URL).content.decode()
    assert 'href="/clubs/riverside/lists/standard/export.csv?period=2026-03"' in html
    assert 'href="/clubs/riverside/lists/standard/export.txt?period=2026-03"' in html


def test_site_wide_search_covers_the_clubs_the_visitor_may_see(client: Client) -> None:
    build_club(crowd=2)
    hidden = build_club(slug="hidden", public=False, crowd=2)
    found = client.get("/players/?q=alice")
    assert found.status_code == 200
    html = found.content.decode()
    assert "/clubs/riverside/players/" in html
    assert "/clubs/hidden/" not in html  # a private club's player stays hidden
    assert "1 player found" in re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    client.force_login(hidden.owner)
    html = client.get("/players/?q=alice").content.decode()
    assert "/clubs/hidden/players/" in html
    assert "/clubs/riverside/players/" in html
    assert client.get("/players/").status_code == 200
    assert client.get("/players/?q=" + "x" * 101).status_code == 400


def test_whole_list_pages_match_a_plain_offset_at_every_page(
    client: Client, data: ClubData, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small pages, so ties in rating straddle page boundaries; equal ratings come in
    # player-id order on both paths.
    from ratings_site.pages import lists

    monkeypatch.setattr(lists, "LIST_PAGE_SIZE", 3)
    ordered = sorted(published(data), key=lambda c: (-(c.rating_after or 0), c.player_id))
    RatingChange.objects.filter(pk__in=[c.pk for c in ordered[2:6]]).update(rating_after=1700)
    ordered = sorted(published(data), key=lambda c: (-(c.rating_after or 0), c.player_id))
    pages = (len(ordered) + 2) // 3
    shown = []
    for number in range(1, pages + 1):
        page_rows = rows(client.get(f"{URL}?page={number}"))
        assert len(page_rows) == min(3, len(ordered) - 3 * (number - 1))
        shown += [row[1].removeprefix("GM ").removesuffix(" (inactive)") for row in page_rows]
    assert shown == [c.player.name for c in ordered]
    # Beyond the end: the last page; not a number: the first.
    assert rows(client.get(f"{URL}?page=999")) == rows(client.get(f"{URL}?page={pages}"))
    assert rows(client.get(f"{URL}?page=x")) == rows(client.get(f"{URL}?page=1"))
