"""A member's first day, as people would do it: the owner invites by email in the admin,
the invitee opens the mailed link, chooses a password, signs in at /accounts/login/,
reads the private club's list and their own player page, creates and revokes an API
token; as a viewer they cannot reach officer actions; ten wrong passwords lock them out."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail

from players.models import Invitation, Membership, Role
from players.services import player_update
from tests.pages_data import build_club

pytestmark = pytest.mark.django_db(transaction=True)

OWNER_PASSWORD = "owner-browser-password-42"
NEW_PASSWORD = "nina-chooses-this-one-77"


def sign_in(page: Any, base: str, username: str, password: str, next_path: str = "") -> None:
    page.goto(f"{base}/accounts/login/" + (f"?next={next_path}" if next_path else ""))
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("form.account-form button[type=submit]")


def test_invited_member_signs_in_reads_and_manages_tokens(
    browser: Any, page: Any, live_server: Any, screenshot: Any
) -> None:
    data = build_club(slug="hilltop", public=False, crowd=2)
    owner = data.owner
    owner.is_staff = True
    owner.set_password(OWNER_PASSWORD)
    owner.save()
    base = live_server.url

    # The owner invites by email in the admin; the link is shown once and mailed.
    page.goto(f"{base}/admin/login/")
    page.fill("#id_username", owner.username)
    page.fill("#id_password", OWNER_PASSWORD)
    page.click("input[type=submit]")
    page.goto(f"{base}/admin/players/invitation/add/")
    page.select_option("#id_club", str(data.club.pk))
    page.fill("#id_email", "nina@example.org")
    page.select_option("#id_role", "viewer")
    page.click("input[name=_save]")
    assert "shown only now" in page.locator(".messagelist").inner_text()
    (message,) = mail.outbox
    assert message.to == ["nina@example.org"]
    link = re.search(r"(https?://\S+/accounts/invitations/\S+/)", message.body)
    assert link is not None

    # The invitee, in their own browser, opens the link and chooses a password.
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    context.set_default_timeout(10_000)
    nina = context.new_page()
    nina.goto(link.group(1))
    assert "Join Hilltop Chess Club" in nina.locator("h1").inner_text()
    nina.fill("#id_username", "nina")
    nina.fill("#id_password1", NEW_PASSWORD)
    nina.fill("#id_password2", NEW_PASSWORD)
    screenshot("invitation", nina)
    nina.click("#register-form button[type=submit]")
    # Signed in at once, on the club's page.
    nina.wait_for_url(f"{base}/clubs/hilltop/")
    assert Invitation.objects.get().status == "accepted"
    membership = Membership.objects.get(user__username="nina")
    assert membership.role == Role.VIEWER

    # An officer links her player record (Nina Novak) to her account.
    player = data.players["nina"]
    player_update(player=player, by=owner, user="nina")

    # Still signed in: the private club's list.
    nina.goto(f"{base}/clubs/hilltop/lists/standard/")
    assert nina.locator("#rating-list tbody tr").count() > 0
    assert "Nina Novak" in nina.locator("#rating-list").inner_text()
    nina.goto(f"{base}/clubs/hilltop/players/{player.pk}/")
    assert "This is your player record." in nina.locator("#member-link").inner_text()

    # Her home: the club with her role, her record, and tokens.
    nina.click("text=My account")
    assert "Hilltop Chess Club\tViewer" in nina.locator("#my-clubs").inner_text()
    assert "Nina Novak" in nina.locator("#my-players").inner_text()
    nina.fill("#id_name", "laptop script")
    nina.click("#token-form button[type=submit]")
    token = nina.locator("#new-token .secret").inner_text().strip()
    assert len(token) > 20
    assert "laptop script" in nina.locator("#my-tokens").inner_text()
    screenshot("member-home", nina)
    answer = nina.request.get(f"{base}/api/v1/clubs/", headers={"Authorization": f"Token {token}"})
    assert answer.status == 200
    nina.click("button[aria-label='Revoke laptop script']")
    assert "The token is revoked." in nina.locator(".messages").inner_text()
    assert nina.locator("#my-tokens").count() == 0
    answer = nina.request.get(f"{base}/api/v1/clubs/", headers={"Authorization": f"Token {token}"})
    assert answer.status == 401

    # A viewer cannot reach officer actions: no admin, and closing a period is refused.
    nina.goto(f"{base}/admin/players/ratingperiod/")
    assert "/admin/login/" in nina.url
    csrf = next(c["value"] for c in context.cookies() if c["name"] == "csrftoken")
    refused = nina.request.post(
        f"{base}/api/v1/clubs/hilltop/lists/standard/periods/2026-03/close/",
        headers={"X-CSRFToken": csrf, "Referer": f"{base}/accounts/"},
    )
    assert refused.status == 403
    assert refused.json()["error"]["code"] == "permission_denied"
    context.close()

    # Ten wrong passwords lock the account: then even the right one is refused.
    stranger = browser.new_context()
    attacker = stranger.new_page()
    for _ in range(10):
        sign_in(attacker, base, "nina", "not-her-password")
    sign_in(attacker, base, "nina", NEW_PASSWORD)
    assert "Locked out" in attacker.locator("h1").inner_text()
    screenshot("locked-out", attacker)
    stranger.close()
