"""A list's statistics page in headless Chromium without JavaScript, at a 390 px phone and
at a desktop: nothing scrolls sideways, the chart drawn for the width is the one shown
(its labels near 12 px), and the tables of the same figures open without a script; the
player page's chart with the list's median likewise. Screenshots in
test-artifacts/screenshots/."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import SCREENSHOTS
from tests.pages_data import ClubData, build_club

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1366, "height": 900}}
OVERFLOW = "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
# The smallest chart label as drawn on the screen (the SVG scaled to its column).
SMALLEST_LABEL = """() => Math.min(...[...document.querySelectorAll('svg text')]
    .filter(t => t.getBoundingClientRect().height > 0)
    .map(t => t.getBoundingClientRect().height))"""


@pytest.fixture
def data() -> ClubData:
    return build_club(crowd=24, extra_months=5)


@pytest.mark.parametrize("size", SIZES)
def test_the_statistics_page_fits_without_javascript(
    browser: Any, live_server: Any, data: ClubData, size: str
) -> None:
    context = browser.new_context(java_script_enabled=False, viewport=SIZES[size])
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/clubs/riverside/lists/standard/statistics/")
        assert "Standard list in figures" in page.get_by_role("heading", level=1).inner_text()
        for summary in page.locator("details > summary").all():
            summary.click()  # the tables of the charts' figures open without a script
        assert page.locator("#distribution-table").is_visible()
        assert page.locator("#activity-table").is_visible()
        assert page.evaluate(OVERFLOW) == 0
        shown = "phone" if size == "phone" else "wide"
        hidden = "wide" if size == "phone" else "phone"
        assert page.locator(f"svg.bar-chart.{shown}").count() == 2
        for svg in page.locator(f"svg.bar-chart.{shown}").all():
            assert svg.is_visible()
        for svg in page.locator(f"svg.bar-chart.{hidden}").all():
            assert not svg.is_visible()
        assert page.evaluate(SMALLEST_LABEL) >= 10
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / f"statistics-{size}.png"), full_page=True)

        page.goto(f"{live_server.url}/clubs/riverside/players/{data.players['omar'].pk}/")
        page.locator("details.medians > summary").first.click()
        assert page.locator(".medians-table").first.is_visible()
        assert page.locator(f"svg.history-chart.{shown} polyline.median").first.is_visible()
        assert page.evaluate(OVERFLOW) == 0
        page.screenshot(path=str(SCREENSHOTS / f"player-median-{size}.png"), full_page=True)
    finally:
        context.close()
