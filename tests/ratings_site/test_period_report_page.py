"""The period report page: gains, losses, first ratings, the floor, the pool's points."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db.models import Sum
from django.test import Client

from players.models import Membership, RatingChange, Role
from tests.pages_data import ClubData, build_club

pytestmark = pytest.mark.django_db
URL = "/clubs/riverside/lists/standard/periods/{}/"


@pytest.fixture
def data() -> ClubData:
    return build_club()


def text(response: Any) -> str:
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", response.content.decode(), flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def section(response: Any, heading_id: str) -> str:
    html = response.content.decode()
    return text_of(html.split(f'id="{heading_id}"')[1].split("</section>")[0])


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_report_lists_gainers_losers_first_ratings_and_floor(
    client: Client, data: ClubData
) -> None:
    response = client.get(URL.format("2026-02"))
    assert response.status_code == 200
    gainers = section(response, "gainers-heading")
    alice = RatingChange.objects.get(player=data.players["alice"], period__month__month=2)
    assert (
        f"Alice Chen {alice.rating_before} ▲ +{alice.change} up {alice.change} {alice.rating_after}"
        in gainers
    )
    losers = section(response, "losers-heading")
    assert "Boris Duda 1403 ▼ −5 down 5" in losers
    first = section(response, "first-heading")
    nina = RatingChange.objects.get(player=data.players["nina"], period__month__month=2)
    assert nina.event == "first_rating"
    assert f"Nina Novak unrated new rating {nina.rating_after} 5 3½" in first
    below = section(response, "floor-heading")
    assert "Boris Duda 1403" in below
    assert "ratings of 1400 and above" in below


def test_report_accounts_for_the_pool(client: Client, data: ClubData) -> None:
    response = client.get(URL.format("2026-02"))
    rows = RatingChange.objects.filter(period__month__month=2, current=True)
    games = rows.filter(event__in=["rated", "below_floor"]).aggregate(s=Sum("change"))["s"]
    first = rows.filter(event="first_rating").aggregate(s=Sum("rating_after"))["s"]
    before = rows.aggregate(s=Sum("rating_before"))["s"]
    after = rows.aggregate(s=Sum("rating_after"))["s"]
    assert (
        first
        == RatingChange.objects.get(
            player=data.players["nina"], period__month__month=2
        ).rating_after
    )
    # Boris lost 5 and then his 1398 left the list with him.
    assert after - before == games + first - 1398
    pool = section(response, "pool-heading")
    sign = "+" if games > 0 else ""
    assert f"Rated games (the sum of every player's change) {sign}{games}".replace("-", "−") in pool
    assert f"First ratings (1 new player) +{first}" in pool
    assert (
        "Dropped below the floor (1 player: their rating after the games leaves the list) −1398"
        in pool
    )
    assert (
        f"Change in the sum of all published ratings {after - before:+}".replace("-", "−") in pool
    )
    assert "inflated" in pool or "deflated" in pool or "neither" in pool


def test_report_links_neighbouring_periods(client: Client, data: ClubData) -> None:
    html = client.get(URL.format("2026-02")).content.decode()
    assert 'href="/clubs/riverside/lists/standard/periods/2026-01/" rel="prev"' in html
    assert 'href="/clubs/riverside/lists/standard/periods/2026-03/" rel="next"' in html


@pytest.mark.parametrize(
    ("month", "status"), [("2026-13", 400), ("202602", 400), ("2025-12", 404), ("2026-04", 404)]
)
def test_bad_months_give_clear_pages(
    client: Client, data: ClubData, month: str, status: int
) -> None:
    response = client.get(URL.format(month))
    assert response.status_code == status
    assert month in text(response)


def test_private_report_needs_membership(client: Client) -> None:
    private = build_club(slug="hilltop", public=False, crowd=2)
    url = "/clubs/hilltop/lists/standard/periods/2026-02/"
    assert client.get(url).status_code == 302
    outsider = get_user_model().objects.create_user("outsider")
    client.force_login(outsider)
    assert client.get(url).status_code == 404
    Membership.objects.create(user=outsider, club=private.club, role=Role.VIEWER)
    assert client.get(url).status_code == 200


@pytest.mark.parametrize("crowd", [5, 50])
def test_report_queries_do_not_grow_with_players(
    client: Client, django_assert_max_num_queries: Any, crowd: int
) -> None:
    build_club(crowd=crowd)
    with django_assert_max_num_queries(12):
        assert client.get(URL.format("2026-02")).status_code == 200
