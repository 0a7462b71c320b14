"""Following the public pages' links in headless Chromium: a tournament's standings and
crosstable from the club's home, the head-to-head from a player's opponent (and the chart's
points by keyboard), the list's column sorting and category filter, the site-wide search."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS
from tests.pages_data import ClubData, build_club

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def data() -> ClubData:
    return build_club(crowd=24, extra_months=2)


def shot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def test_tournament_page_standings_crosstable_and_links(
    page: Any, live_server: Any, data: ClubData
) -> None:
    page.goto(f"{live_server.url}/clubs/riverside/")
    page.get_by_role("link", name="Winter Open").click()
    assert page.get_by_role("heading", level=1).inner_text() == "Winter Open"
    first = page.locator("#standings tbody tr").first
    assert "Nina Novak" in first.inner_text()
    assert page.locator("#crosstable tbody tr").count() == 7
    assert page.get_by_role("link", name="PGN").get_attribute("href").endswith("export.pgn")
    shot(page, "tournament")
    page.get_by_role("link", name="Nina Novak").first.click()
    assert page.get_by_role("heading", level=1).inner_text() == "Nina Novak"


def test_head_to_head_from_an_opponent_and_chart_focus(
    page: Any, live_server: Any, data: ClubData
) -> None:
    alice = data.players["alice"]
    page.goto(f"{live_server.url}/clubs/riverside/players/{alice.pk}/")
    # Keyboard focus on a chart point shows its month and rating.
    point = page.locator("svg#chart-standard g.pt").first
    tip = point.locator("text.tip")
    assert not tip.is_visible()
    point.focus()
    assert tip.is_visible()
    assert tip.text_content().startswith("2026-01: ")
    page.locator("body").click(position={"x": 5, "y": 5})
    point.hover()
    assert tip.is_visible()
    # The oldest periods are folded under "older periods": open them (no script needed).
    page.locator("details.older-periods > summary").first.click()
    details = page.locator("tr.games-row details").filter(has_text="Games of 2026-01")
    details.locator("summary").click()
    details.get_by_role("link", name="Omar Reyes").click()
    assert "Alice Chen against Omar Reyes" in page.get_by_role("heading", level=1).inner_text()
    assert page.locator("#h2h-games tbody tr").count() >= 1
    shot(page, "head-to-head")


def test_list_sorts_by_column_link_and_filters_by_category(
    nojs_page: Any, live_server: Any, data: ClubData
) -> None:
    page = nojs_page  # sorting and filters need no JavaScript
    page.goto(f"{live_server.url}/clubs/riverside/lists/standard/")
    page.locator("#rating-list thead").get_by_role("link", name="Player").click()
    # Each click loads a new page: read its rows once it has loaded (read at once, they
    # were sometimes those of the page being left, or none at all).
    page.wait_for_url("**sort=name**")
    names = page.locator("#rating-list tbody th a").all_inner_texts()
    assert names == sorted(names)
    page.select_option("#id_category", "u14")
    page.get_by_role("button", name="Show").click()
    page.wait_for_url("**category=u14**")
    assert page.locator("#rating-list tbody tr").all_inner_texts()[0].count("Alice Chen") == 1
    assert page.locator("#rating-list tbody tr").count() == 1
    shot(page, "rating-list-filtered")


def test_site_search_finds_a_player(page: Any, live_server: Any, data: ClubData) -> None:
    page.goto(f"{live_server.url}/")
    page.get_by_role("link", name="Players").click()
    page.get_by_label("Name").fill("nina")
    page.get_by_label("Name").press("Enter")
    page.get_by_role("link", name="Nina Novak").click()
    assert page.get_by_role("heading", level=1).inner_text() == "Nina Novak"
