"""The new pages in headless Chromium at desktop and phone sizes (390 x 844): a tournament,
head-to-head, the list's sorting and categories, the site-wide search; every page fits a
phone without scrolling sideways; the calculator marks the fields in error. Saves
screenshots of each page at both sizes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import SCREENSHOTS
from tests.pages_data import ClubData, build_club

pytestmark = pytest.mark.django_db(transaction=True)
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def data() -> ClubData:
    return build_club(crowd=24, extra_months=2)


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def german_phone(browser: Any) -> Iterator[Any]:
    """The same phone with a German browser (Accept-Language: de): longer words."""
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True, locale="de-DE"
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    yield page
    context.close()


def shot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def page_urls(data: ClubData) -> dict[str, str]:
    alice, omar = data.players["alice"], data.players["omar"]
    assert data.tournament is not None
    return {
        "rating-list": "/clubs/riverside/lists/standard/",
        "player": f"/clubs/riverside/players/{alice.pk}/",
        "head-to-head": f"/clubs/riverside/players/{alice.pk}/vs/{omar.pk}/",
        "tournament": f"/clubs/riverside/tournaments/{data.tournament.pk}/",
        "tournaments": "/clubs/riverside/tournaments/",
        "period-report": "/clubs/riverside/lists/standard/periods/2026-02/",
        "calculator": "/calculator/",
        "club-home": "/clubs/riverside/",
        "search": "/players/?q=a",
    }


def test_every_page_fits_a_phone_without_sideways_scrolling(
    phone: Any, live_server: Any, data: ClubData
) -> None:
    for name, url in page_urls(data).items():
        phone.goto(f"{live_server.url}{url}")
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"{name} is {width} px wide"
        # The title says where the visitor is.
        assert phone.title().endswith(("Riverside Chess Club", "Club ratings")), name
        shot(phone, f"phone-{name}")


def test_german_pages_fit_a_phone_too(german_phone: Any, live_server: Any, data: ClubData) -> None:
    """German words are longer: the list, a player, a tournament and the calculator still
    fit 390 px, and they are in German (the browser's language)."""
    urls = page_urls(data)
    for name in ("rating-list", "player", "tournament", "calculator"):
        german_phone.goto(f"{live_server.url}{urls[name]}")
        assert german_phone.locator("html").get_attribute("lang") == "de", name
        width = german_phone.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"{name} (German) is {width} px wide"
        shot(german_phone, f"phone-de-{name}")
    # The calculator's script still updates the result, in German, as the rating changes.
    german_phone.fill("#id_rating", "1600")
    expect(german_phone.locator("#summary")).to_contain_text("Wertung von 1600")
    # Its "remove" buttons are labelled in German too (the label comes from the page).
    german_phone.click("#add-game")
    label = german_phone.locator(".remove-game").first.get_attribute("aria-label")
    assert label == "Partie 1 entfernen"


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
    names = page.locator("#rating-list tbody th a").all_inner_texts()
    assert names == sorted(names)
    page.select_option("#id_category", "u14")
    page.get_by_role("button", name="Show").click()
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


def test_calculator_marks_the_field_in_error(page: Any, live_server: Any) -> None:
    page.goto(f"{live_server.url}/calculator/")
    page.wait_for_selector("form[data-enhanced='true']")
    page.fill("#id_rating", "5000")
    page.wait_for_selector("#id_rating[aria-invalid='true']")
    note = page.locator("#id_rating-error")
    assert note.is_visible()
    assert "4000" in note.inner_text()
    assert (
        page.locator("#error-list").get_by_role("link").first.get_attribute("href") == "#id_rating"
    )
    shot(page, "calculator-error")
    page.fill("#id_rating", "1500")
    page.wait_for_selector("#id_rating:not([aria-invalid])")
    assert page.locator("#id_rating-error").count() == 0


def test_every_page_at_desktop_size(page: Any, live_server: Any, data: ClubData) -> None:
    for name, url in page_urls(data).items():
        page.goto(f"{live_server.url}{url}")
        assert page.evaluate("document.documentElement.scrollWidth") <= 1200, name
        assert page.locator("link[rel=icon]").count() == 1
        shot(page, f"desktop-{name}")
