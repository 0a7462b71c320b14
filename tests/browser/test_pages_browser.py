"""The public club pages in headless Chromium: browse the list, search, open a player's
chart and a period's games, read a period report. Saves the pages' screenshots."""

from __future__ import annotations

from typing import Any

import pytest

from players.models import RatingChange
from tests.pages_data import ClubData, build_club

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def data() -> ClubData:
    return build_club(crowd=24, extra_months=5)


def test_browse_search_player_chart_and_games(
    page: Any, live_server: Any, screenshot: Any, data: ClubData
) -> None:
    page.goto(f"{live_server.url}/")
    page.get_by_role("link", name="Riverside Chess Club").click()
    assert page.get_by_role("heading", level=1).inner_text() == "Riverside Chess Club"
    screenshot("club-home")

    page.get_by_role("link", name="Full standard list").click()
    assert "after 2026-08" in page.get_by_role("heading", level=1).inner_text()
    rows = page.locator("#rating-list tbody tr")
    assert rows.count() == 29  # 30 players; Boris Duda fell below the floor in February
    assert rows.first.locator("td").first.inner_text() == "1"
    screenshot("rating-list")

    # Search by name with the keyboard: type and press Enter.
    page.get_by_label("Name").fill("alice")
    page.get_by_label("Name").press("Enter")
    page.wait_for_url("**q=alice**")
    assert rows.count() == 1
    assert "Alice Chen" in rows.first.inner_text()

    page.get_by_role("link", name="Alice Chen").click()
    assert page.get_by_role("heading", level=1).inner_text() == "Alice Chen"
    published = RatingChange.objects.filter(
        player=data.players["alice"], current=True, rating_after__isnull=False
    ).count()
    chart = page.locator("svg#chart-standard")
    assert chart.is_visible()
    assert chart.get_attribute("role") == "img"
    assert chart.locator("circle.point").count() == published == 8
    assert "Alice Chen: Standard rating by period" in chart.locator("title").first.text_content()

    # The oldest periods are folded under "older periods": open them (no script needed).
    page.locator("details.older-periods > summary").first.click()
    details = page.locator("tr.games-row details").filter(has_text="Games of 2026-01")
    games = details.locator("table.games")
    assert not games.is_visible()
    details.locator("summary").click()
    assert games.is_visible()
    assert "Magnus Berg" in games.inner_text()
    assert "400-point rule" in games.inner_text()
    screenshot("player")


def test_period_report(page: Any, live_server: Any, screenshot: Any, data: ClubData) -> None:
    page.goto(f"{live_server.url}/clubs/riverside/lists/standard/")
    page.get_by_role("link", name="What this period changed").click()
    page.get_by_role("link", name="\u2039 2026-07").click()
    for _ in range(5):
        page.get_by_role("link", name="\u2039", exact=False).first.click()
    assert "February 2026" in page.get_by_role("heading", level=1).inner_text()
    assert "Nina Novak" in page.locator("section", has=page.locator("#first-heading")).inner_text()
    assert "Boris Duda" in page.locator("section", has=page.locator("#floor-heading")).inner_text()
    assert (
        "inflated" in page.locator("#pool-sentence").inner_text()
        or "deflated" in page.locator("#pool-sentence").inner_text()
    )
    screenshot("period-report")


def test_period_picker_without_javascript(nojs_page: Any, live_server: Any, data: ClubData) -> None:
    nojs_page.goto(f"{live_server.url}/clubs/riverside/lists/standard/")
    nojs_page.select_option("#id_period", "2026-01")
    nojs_page.get_by_role("button", name="Show").click()
    assert "after 2026-01" in nojs_page.get_by_role("heading", level=1).inner_text()
    assert nojs_page.locator("#id_period").input_value() == "2026-01"
