"""On a phone (390 px) a radio button or a checkbox sits beside its label, on the label's
first line, not above it: the member home's e-mail choice and the list's filters."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.test_accounts_browser import sign_in
from tests.pages_data import build_club

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
