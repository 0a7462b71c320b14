"""A member claims their record on a phone (390 px): from their home to the club's list,
their player page, "This is me"; the club's rating officer approves it on their own phone
home; the member's home then shows their corner. Every page fits the phone's width."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from players.models import ClaimStatus, Player, PlayerClaim, Role
from players.services import membership_set
from tests.pages_data import build_club
from tests.tournaments.helpers import play

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}
PASSWORD = "claims-on-a-phone-Passw0rd"


@pytest.fixture
def phones(browser: Any) -> Iterator[Any]:
    """Phones of their own (cookies are a context's): one per person."""
    contexts: list[Any] = []

    def new_phone() -> Any:
        context = browser.new_context(
            viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True
        )
        context.set_default_timeout(15_000)
        contexts.append(context)
        return context.new_page()

    yield new_phone
    for context in contexts:
        context.close()


def sign_in(page: Any, base: str, username: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("form.account-form button[type=submit]")
    page.wait_for_url(f"{base}/accounts/")


def fits(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{page.url} is {width} px wide"


def test_claim_and_approval_on_phones(phones: Any, live_server: Any, screenshot: Any) -> None:
    data = build_club(slug="riverside", crowd=2)
    alice = data.players["alice"]
    play(
        data.club,
        data.owner,
        [(alice, data.players["omar"], "1-0")],
        date=datetime.date(2026, 4, 9),
    )
    users = get_user_model()._default_manager
    member = users.create_user("alice-phone", password=PASSWORD)
    officer = users.create_user("rita-phone", password=PASSWORD)
    membership_set(club=data.club, user=member, role=Role.VIEWER, by=data.owner)
    membership_set(club=data.club, user=officer, role=Role.OFFICER, by=data.owner)
    base = live_server.url

    page = phones()
    sign_in(page, base, "alice-phone")
    fits(page)
    # Each click navigates: wait for the next page, or the check reads one half-replaced.
    page.click("#find-your-record a")
    page.wait_for_url(f"{base}/clubs/riverside/")
    fits(page)
    page.locator("a[href='/clubs/riverside/lists/standard/']").first.click()
    page.wait_for_url(f"{base}/clubs/riverside/lists/standard/")
    fits(page)
    page.click("text=Alice Chen")
    page.wait_for_url(f"{base}/clubs/riverside/players/{alice.pk}/")
    fits(page)
    page.click("#member-link button")
    page.wait_for_url(f"{base}/accounts/")
    fits(page)
    assert "Waiting for an officer" in page.locator("#my-claims").inner_text()
    screenshot("claim-sent-phone", page)
    claim = PlayerClaim.objects.get(user=member)

    officer_page = phones()
    sign_in(officer_page, base, "rita-phone")
    decision = officer_page.locator(f"#claim-{claim.pk}")
    assert "Alice Chen" in decision.inner_text()
    fits(officer_page)
    screenshot("claim-to-decide-phone", officer_page)
    decision.locator("button[value=approve]").click()
    officer_page.wait_for_url(f"{base}/accounts/")
    assert f"#claim-{claim.pk}" not in officer_page.content()
    assert PlayerClaim.objects.get(pk=claim.pk).status == ClaimStatus.APPROVED
    assert Player.objects.get(pk=alice.pk).user_id == member.pk

    page.goto(f"{base}/accounts/")
    corner = page.locator("#corner-riverside")
    text = corner.inner_text()
    assert "next K" in text
    assert "1 game still to be rated" in text
    assert "Omar Reyes" in text
    fits(page)
    screenshot("player-corner-phone", page)
