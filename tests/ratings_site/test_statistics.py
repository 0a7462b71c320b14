"""The statistics page of a list and its API (issue 37, item 3): every figure computed
again here from the rows of a small known club, not read from the code under test; the
charts are well-formed SVG with a title and a description; visibility as the list's; the
player chart's peak and the list's median."""

from __future__ import annotations

import datetime
import functools
import re
import statistics
import xml.etree.ElementTree as ET
from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from players.models import Membership, RatingChange, RatingPeriod, Role, add_months
from players.rating.classes import rating_class
from players.rating.period import GAME_RESULTS, SCORES
from tests.conftest import built_once_per_module
from tests.pages_data import ClubData, build_club, refreshed
from tests.tournaments.helpers import close, make_club, make_owner, make_player, play
from tournaments import statistics as stats_module
from tournaments.models import Game

pytestmark = pytest.mark.django_db

PAGE = "/clubs/{}/lists/standard/statistics/"
API = "/api/v1/clubs/{}/lists/standard/statistics/"


# Six closed months (January to June), so a shorter "year" leaves some out.
# Built once for the module (a deepcopy for each test, its changes rolled back).
_built_for_module, data = built_once_per_module(
    "data", functools.partial(build_club, extra_months=3)
)


# -- the figures, computed here ---------------------------------------------------------------


def latest_period() -> RatingPeriod:
    return RatingPeriod.objects.filter(status="closed", rating_list__slug="standard").latest(
        "month"
    )


def published(period: RatingPeriod) -> list[RatingChange]:
    return list(
        RatingChange.objects.filter(period=period, current=True, rating_after__isnull=False)
    )


def expected_climbers(latest: RatingPeriod, year_months: int) -> list[dict[str, Any]]:
    since = add_months(latest.month, 1 - year_months)
    found = []
    for row in published(latest):
        window = RatingChange.objects.filter(
            player=row.player,
            rating_list=latest.rating_list,
            current=True,
            period__month__gte=since,
            period__month__lte=latest.month,
        ).order_by("period__month")
        start = next((r.rating_before for r in window if r.rating_before is not None), None)
        if start is not None and row.rating_after - start > 0:
            found.append(
                (row.rating_after - start, row.rating_after, row.player.name, row.player_id, start)
            )
    found.sort(key=lambda c: (-c[0], -c[1], c[2], c[3]))
    return [
        {"player": pid, "start": start, "rating": rating, "gain": gain}
        for gain, rating, _, pid, start in found[:10]
    ]


def expected_pairings() -> list[dict[str, Any]]:
    pairs: dict[tuple[int, int], list[Fraction]] = {}
    for game in Game.objects.filter(period__status="closed", rating_list__slug="standard"):
        low, high = sorted((game.white_id, game.black_id))
        white, black, _ = GAME_RESULTS[game.result]
        low_score = SCORES[white] if game.white_id == low else SCORES[black]
        high_score = SCORES[black] if game.white_id == low else SCORES[white]
        pairs.setdefault((low, high), []).append(low_score - high_score)
    ordered = sorted(pairs.items(), key=lambda item: (-len(item[1]), item[0]))[:10]
    return [
        {
            "player": low,
            "opponent": high,
            "games": len(margins),
            "wins": sum(1 for m in margins if m > 0),
            "losses": sum(1 for m in margins if m < 0),
        }
        for (low, high), margins in ordered
    ]


def test_the_answer_matches_the_figures_computed_from_the_rows(
    client: Client, data: ClubData
) -> None:
    latest = latest_period()
    ratings = [row.rating_after for row in published(latest)]
    body = client.get(API.format("riverside")).json()

    assert body["period"] == latest.label == "2026-06"
    assert body["players"] == len(ratings)
    assert body["median"] == statistics.median_low(ratings)
    by_bar = Counter(rating // 100 * 100 for rating in ratings)
    bars = {bar["lowest"]: bar["players"] for bar in body["distribution"]}
    assert {k: v for k, v in bars.items() if v} == dict(by_bar)
    assert list(bars) == list(range(min(by_bar), max(by_bar) + 100, 100))
    classes = {c["band"]: c["players"] for c in body["classes"] if c["players"]}
    assert classes == dict(Counter(rating_class(rating) for rating in ratings))

    months = RatingPeriod.objects.filter(status="closed", rating_list__slug="standard")
    assert body["activity"] == [
        {
            "period": period.label,
            "games": Game.objects.filter(period=period).count(),
            "players": RatingChange.objects.filter(
                period=period, current=True, games__gt=0
            ).count(),
        }
        for period in months.order_by("month")
    ]
    assert [m["games"] for m in body["activity"]] == [10, 7, 10, 10, 10, 10]

    assert body["climbers_since"] == "2025-07"
    climbers = [{k: c[k] for k in ("player", "start", "rating", "gain")} for c in body["climbers"]]
    assert climbers == expected_climbers(latest, 12)
    assert climbers  # the club's months move ratings both ways

    pairings = [
        {k: p[k] for k in ("player", "opponent", "games", "wins", "losses")}
        for p in body["pairings"]
    ]
    assert pairings == expected_pairings()
    for pairing in body["pairings"]:
        assert pairing["score"] == pairing["wins"] + pairing["draws"] / 2


def test_the_climbers_year_ends_with_the_list_in_force(
    client: Client, data: ClubData, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A three-month "year" (April to June) leaves out what happened before it."""
    monkeypatch.setattr(stats_module, "YEAR_MONTHS", 3)
    body = client.get(API.format("riverside")).json()
    assert body["climbers_since"] == "2026-04"
    climbers = [{k: c[k] for k in ("player", "start", "rating", "gain")} for c in body["climbers"]]
    assert climbers == expected_climbers(latest_period(), 3)
    assert climbers != expected_climbers(latest_period(), 12)


def cells(html: str, table_id: str) -> list[list[str]]:
    table = html.split(f'id="{table_id}"')[1].split("</table>")[0]
    body = table.split("<tbody>")[1]
    return [
        [
            re.sub(r"<[^>]+>", "", cell).strip()
            for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row)
        ]
        for row in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S)
    ]


def test_the_page_shows_the_same_figures_as_tables(client: Client, data: ClubData) -> None:
    latest = latest_period()
    ratings = [row.rating_after for row in published(latest)]
    response = client.get(PAGE.format("riverside"))
    assert response.status_code == 200
    html = response.content.decode()
    by_bar = Counter(rating // 100 * 100 for rating in ratings)
    shown = {int(label.split("-")[0]): int(n) for label, n in cells(html, "distribution-table")}
    assert {k: v for k, v in shown.items() if v} == dict(by_bar)
    assert f'id="stats-median">{statistics.median_low(ratings)}<' in html
    classes = {band: int(n) for band, n in cells(html, "classes-table") if n != "0"}
    assert classes == dict(Counter(rating_class(rating) for rating in ratings))
    activity = cells(html, "activity-table")
    assert [row[0] for row in activity] == [
        "2026-01",
        "2026-02",
        "2026-03",
        "2026-04",
        "2026-05",
        "2026-06",
    ]
    climbers = expected_climbers(latest, 12)
    assert [int(row[3].replace("+", "")) for row in cells(html, "climbers-table")] == [
        c["gain"] for c in climbers
    ]
    first = expected_pairings()[0]
    assert f'href="/clubs/riverside/players/{first["player"]}/vs/{first["opponent"]}/"' in html
    # Linked from the list page (its tabs).
    assert (
        'href="/clubs/riverside/lists/standard/statistics/"'
        in client.get("/clubs/riverside/lists/standard/").content.decode()
    )


def svgs(html: str) -> list[ET.Element]:
    # The site's own pages, not untrusted input: the standard parser is enough.
    found = [
        ET.fromstring(svg)  # noqa: S314
        for svg in re.findall(r"<svg\b.*?</svg>", html, flags=re.S)
    ]
    for svg in found:
        ns = "{http://www.w3.org/2000/svg}"
        title, desc = svg.find(f"{ns}title"), svg.find(f"{ns}desc")
        assert title is not None
        assert (title.text or "").strip()
        assert desc is not None
        assert (desc.text or "").strip()
        assert svg.get("role") == "img"
    return found


def test_the_charts_are_well_formed_svg_with_a_title_and_a_description(
    client: Client, data: ClubData
) -> None:
    html = client.get(PAGE.format("riverside")).content.decode()
    charts = svgs(html)
    # The distribution and the activity, each drawn for a desktop and for a phone.
    assert len(charts) == 4
    assert {svg.get("viewBox") for svg in charts} == {"0 0 720 260", "0 0 360 190"}
    ns = "{http://www.w3.org/2000/svg}"
    distribution = charts[0].findall(f".//{ns}rect")
    assert len(distribution) == len(cells(html, "distribution-table"))


def test_a_list_with_nothing_published_says_so(client: Client) -> None:
    owner = make_owner("empty-owner")
    club = make_club(owner, "empty")
    club.public = True
    club.save(update_fields=["public"])
    make_player(club, owner, "Ada Lind", 1500)
    response = client.get(PAGE.format("empty"))
    assert response.status_code == 200
    assert "Nothing is published on this list yet" in response.content.decode()
    assert client.get(API.format("empty")).json()["period"] is None


def test_a_list_the_club_does_not_keep_is_not_found(client: Client, data: ClubData) -> None:
    assert client.get("/clubs/riverside/lists/bullet/statistics/").status_code == 404
    assert client.get("/api/v1/clubs/riverside/lists/bullet/statistics/").status_code == 404


# -- who sees it -------------------------------------------------------------------------------


def test_a_private_clubs_statistics_are_for_its_members_only(client: Client) -> None:
    data = build_club(slug="hidden", public=False, crowd=2)
    member = get_user_model().objects.create_user("member", password="pw-12345678")
    Membership.objects.create(user=member, club=data.club, role=Role.VIEWER)
    stranger = get_user_model().objects.create_user("stranger", password="pw-12345678")

    # Anonymous: sent to sign in, as the list page does; the API hides the club.
    for url in (PAGE.format("hidden"), "/clubs/hidden/lists/standard/"):
        response = client.get(url)
        assert response.status_code == 302
        assert "/accounts/login/" in response["Location"]
    assert client.get(API.format("hidden")).status_code == 404

    client.force_login(stranger)
    assert client.get(PAGE.format("hidden")).status_code == 404
    assert client.get("/clubs/hidden/lists/standard/").status_code == 404
    assert client.get(API.format("hidden")).status_code == 404

    client.force_login(member)
    assert client.get(PAGE.format("hidden")).status_code == 200
    assert client.get(API.format("hidden")).json()["players"] > 0


def test_a_member_of_a_public_club_sees_the_anonymous_figures(
    client: Client, data: ClubData
) -> None:
    anonymous = client.get(API.format("riverside")).json()
    page = client.get(PAGE.format("riverside")).content.decode()
    client.force_login(data.owner)
    assert client.get(API.format("riverside")).json() == anonymous
    own = client.get(PAGE.format("riverside")).content.decode()
    assert cells(own, "classes-table") == cells(page, "classes-table")


# -- cached under the published generation ----------------------------------------------------


def test_a_game_leaves_the_page_cached_and_a_close_retires_it(
    client: Client, data: ClubData, django_assert_max_num_queries: Any
) -> None:
    first = client.get(PAGE.format("riverside")).content
    with django_assert_max_num_queries(0):
        assert client.get(PAGE.format("riverside")).content == first
    magnus, omar = data.players["magnus"], data.players["omar"]
    play(data.club, data.owner, [(omar, magnus, "1-0")], date=datetime.date(2026, 7, 3))
    with django_assert_max_num_queries(0):
        assert client.get(PAGE.format("riverside")).content == first
    close(data.club, data.owner, "2026-07")
    after = refreshed(client, PAGE.format("riverside")).content.decode()
    assert "2026-07" in after
    assert client.get(API.format("riverside")).json()["period"] == "2026-07"  # none kept


# -- the player's chart ------------------------------------------------------------------------


def test_the_player_chart_shows_the_peak_and_the_lists_median(
    client: Client, data: ClubData
) -> None:
    omar = data.players["omar"]
    html = client.get(f"/clubs/riverside/players/{omar.pk}/").content.decode()
    rows = list(
        RatingChange.objects.filter(player=omar, current=True, rating_after__isnull=False)
        .select_related("period")
        .order_by("period__month")
    )
    peak = max(rows, key=lambda r: r.rating_after)  # max keeps the first of equals
    charts = svgs(html)
    ns = "{http://www.w3.org/2000/svg}"
    assert f"Peak {peak.rating_after} ({peak.period.label})." in charts[0].find(f"{ns}desc").text
    assert charts[0].find(f".//{ns}polyline[@class='median']") is not None
    medians = {
        row.period.label: statistics.median_low(r.rating_after for r in published(row.period))
        for row in rows
    }
    table = html.split('class="compact medians-table"')[1].split("</table>")[0]
    shown = {
        label: (int(rating), int(median))
        for label, rating, median in re.findall(
            r'<th scope="row">([\d-]+)</th><td class="num">(\d+)</td><td class="num">(\d+)</td>',
            table,
        )
    }
    assert shown == {
        row.period.label: (row.rating_after, medians[row.period.label]) for row in rows
    }
