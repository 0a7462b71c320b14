"""Every public page in headless Chromium at desktop and phone sizes (390 x 844): it fits
a phone without scrolling sideways, in English and in German (longer words), and the
desktop width; saves screenshots of each page at both sizes."""

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


def test_every_page_at_desktop_size(page: Any, live_server: Any, data: ClubData) -> None:
    for name, url in page_urls(data).items():
        page.goto(f"{live_server.url}{url}")
        assert page.evaluate("document.documentElement.scrollWidth") <= 1200, name
        assert page.locator("link[rel=icon]").count() == 1
        shot(page, f"desktop-{name}")
