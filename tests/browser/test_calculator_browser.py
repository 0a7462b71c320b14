"""The calculator in headless Chromium: live updates with JavaScript, form posts without."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_live_update_and_add_a_game(page: Any, live_server: Any, screenshot: Any) -> None:
    page.goto(f"{live_server.url}/calculator/")
    summary = page.locator("#summary")
    assert (
        summary.inner_text()
        == "With a rating of 1500 and K = 20, your rating changes by 15 to 1515."
    )
    page.wait_for_selector("form[data-enhanced='true']")

    page.fill("#id_rating", "1850")
    page.click("#add-game")
    rows = page.locator("#games-table tr.game-row")
    assert rows.count() == 2
    games = [("1792", "1"), ("1911", "0.5"), ("2010", "0"), ("2290", "0.5"), ("1745", "1")]
    for _ in range(len(games) - 2):
        page.click("#add-game")
    for index, (opponent, result) in enumerate(games):
        page.fill(f"#id_games-{index}-opponent_rating", opponent)
        page.select_option(f"#id_games-{index}-result", result)
    expected = "With a rating of 1850 and K = 20, your rating changes by 20 to 1870."
    page.wait_for_function(
        "text => document.querySelector('#summary')?.innerText === text", arg=expected
    )
    assert page.locator("#result-games tbody tr").count() == 5
    assert "+19.80" in page.locator("#fig-unrounded").inner_text()
    screenshot("calculator")

    page.locator("#games-table .remove-game").last.click()
    page.wait_for_function("() => document.querySelectorAll('#result-games tbody tr').length === 4")


def test_custom_k_field_appears_only_when_chosen(page: Any, live_server: Any) -> None:
    page.goto(f"{live_server.url}/calculator/")
    page.wait_for_selector("form[data-enhanced='true']")
    assert not page.locator(".field-custom_k").is_visible()
    page.select_option("#id_k_choice", "custom")
    assert page.locator(".field-custom_k").is_visible()
    page.fill("#id_custom_k", "32")
    page.wait_for_function("() => document.querySelector('#summary')?.innerText.includes('K = 32')")


def test_works_without_javascript(nojs_page: Any, live_server: Any) -> None:
    page = nojs_page
    page.goto(f"{live_server.url}/calculator/")
    page.fill("#id_rating", "2100")
    page.fill("#id_games-0-opponent_rating", "2100")
    page.select_option("#id_games-0-result", "0.5")
    page.click("#add-game")
    page.fill("#id_games-1-opponent_rating", "2300")
    page.select_option("#id_games-1-result", "0")
    page.click("#calculate")
    assert page.locator("#summary").inner_text() == (
        "With a rating of 2100 and K = 20, your rating changes by -5 to 2095."
    )


def test_calculator_marks_the_field_in_error(page: Any, live_server: Any, screenshot: Any) -> None:
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
    screenshot("calculator-error")
    page.fill("#id_rating", "1500")
    page.wait_for_selector("#id_rating:not([aria-invalid])")
    assert page.locator("#id_rating-error").count() == 0
