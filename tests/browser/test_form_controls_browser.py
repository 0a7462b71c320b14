"""On a phone (390 px) a radio button or a checkbox sits beside its label, on the label's
first line, not above it: the member home's e-mail choice and the list's filters; the
calculator's fields sit on their labels' line. Buttons look like the site's (the list
filters' button) on public pages and like the admin's in the admin (the period's actions
were the browser's grey buttons)."""

from __future__ import annotations

from typing import Any

import pytest

from players.models import RatingList, RatingPeriod
from players.services import club_create
from tests.browser.test_accounts_browser import sign_in
from tests.pages_data import build_club
from tests.players import admin_world
from tests.tournaments.helpers import make_player, play

pytestmark = pytest.mark.django_db(transaction=True)
PASSWORD = "controls-browser-Passw0rd"


def _beside(page: Any, control: str, label: str) -> None:
    box = page.locator(control).bounding_box()
    text = page.locator(label).bounding_box()
    assert box is not None
    assert text is not None
    # Left of the label's text and within its first line (not a line of its own above).
    assert box["x"] + box["width"] <= text["x"] + text["width"]
    assert box["y"] < text["y"] + 1.5 * 16 * 1.5, (control, box, text)
    assert box["y"] + box["height"] > text["y"], (control, box, text)


def test_radio_buttons_and_checkboxes_sit_beside_their_labels(page: Any, live_server: Any) -> None:
    data = build_club(slug="phoneforms", public=True, crowd=2)
    owner = data.owner
    owner.set_password(PASSWORD)
    owner.save()
    page.set_viewport_size({"width": 390, "height": 844})
    base = live_server.url
    page.goto(f"{base}/clubs/phoneforms/lists/standard/")
    for name in ("women", "junior", "active"):
        _beside(page, f"#id_{name}", f"label[for=id_{name}]")
    sign_in(page, base, owner.username, PASSWORD, "/accounts/")
    page.wait_for_url(f"{base}/accounts/")
    radios = page.locator("#rating-emails-form input[type=radio]")
    assert radios.count() >= 2
    for index in range(radios.count()):
        radio_id = radios.nth(index).get_attribute("id")
        _beside(page, f"#{radio_id}", f"label[for={radio_id}]")
        # The label holds the radio: the radio's box is the label's left edge, its text right.
        radio = radios.nth(index).bounding_box()
        label = page.locator(f"label[for={radio_id}]").bounding_box()
        assert radio is not None
        assert label is not None
        assert radio["x"] - label["x"] < 8
        assert label["width"] > radio["width"] * 3


def _background(page: Any, selector: str) -> str:
    return str(page.eval_on_selector(selector, "e => getComputedStyle(e).backgroundColor"))


def _same_line(page: Any, control: str, label: str) -> None:
    box = page.locator(control).bounding_box()
    text = page.locator(label).bounding_box()
    assert box is not None
    assert text is not None
    assert box["y"] < text["y"] + text["height"], (control, box, text)
    assert text["y"] < box["y"] + box["height"], (control, box, text)


def test_calculator_fields_beside_labels_and_its_buttons_like_the_sites(
    page: Any, live_server: Any
) -> None:
    build_club(slug="buttons", public=True, crowd=2)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/clubs/buttons/lists/standard/")
    site_button = _background(page, ".filters button[type=submit]")
    assert site_button not in ("rgba(0, 0, 0, 0)", "rgb(239, 239, 239)")
    page.goto(f"{live_server.url}/calculator/")
    for name in ("rating", "k_choice", "expected_score", "rating_list", "apply_400_rule"):
        _same_line(page, f"#id_{name}", f"label[for=id_{name}]")
    assert _background(page, "#calculate") == site_button
    # Adding a game is secondary: outlined in the same colour, not the browser's grey.
    add = page.locator("#add-game")
    assert add.evaluate("e => getComputedStyle(e).borderTopColor") == site_button
    assert _background(page, "#add-game") == "rgb(255, 255, 255)"
    page.goto(f"{live_server.url}/calculator/glicko2/")
    assert _background(page, "button[type=submit]:not([name])") == site_button


def test_admin_period_buttons_look_like_the_admins(page: Any, live_server: Any) -> None:
    root = admin_world.make_user("root", superuser=True)
    club = club_create(name="Buttons Chess Club", slug="adminbuttons", public=True, by=root)
    a, b = make_player(club, root, "Ada Lovelace", 1850), make_player(club, root, "Bo Bishop", 1700)
    play(club, root, [(a, b, "1-0")], date=admin_world.JANUARY)
    period = RatingPeriod.objects.get(
        rating_list=RatingList.objects.get(club=club, kind="standard")
    )
    page.goto(f"{live_server.url}/admin/")
    page.fill("#id_username", "root")
    page.fill("#id_password", admin_world.PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")
    page.goto(f"{live_server.url}/admin/players/ratingperiod/{period.pk}/change/")
    buttons = page.locator("#period-actions button")
    assert buttons.count() >= 2
    # The admin's own colours, read from its stylesheet's variables through a probe.
    admin = page.evaluate(
        """() => ['--default-button-bg', '--button-bg'].map(name => {
          const probe = document.createElement('div');
          probe.style.background = `var(${name})`;
          document.body.append(probe);
          const colour = getComputedStyle(probe).backgroundColor;
          probe.remove();
          return colour;
        })"""
    )
    default, plain = admin
    assert _background(page, "#period-actions button.default") == default
    for index in range(1, buttons.count()):
        button = buttons.nth(index)
        assert button.evaluate("e => getComputedStyle(e).backgroundColor") == plain
    for index in range(buttons.count()):
        # No browser bevel: the admin's buttons have no border and round corners.
        style = buttons.nth(index).evaluate(
            "e => [getComputedStyle(e).borderTopStyle, getComputedStyle(e).borderRadius]"
        )
        assert style == ["none", "4px"]
