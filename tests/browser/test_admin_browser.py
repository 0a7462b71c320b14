"""The rating officer's month end in the admin, in headless Chromium."""

from __future__ import annotations

from typing import Any

import pytest

from players.models import RatingChange, RatingList, RatingPeriod, Role
from players.services import club_create, membership_set
from tests.players.admin_world import JANUARY, PASSWORD, make_user
from tests.tournaments.helpers import make_player, play

pytestmark = pytest.mark.django_db(transaction=True)


def test_officer_previews_and_closes_a_period(page: Any, live_server: Any, screenshot: Any) -> None:
    root = make_user("root", superuser=True)
    club = club_create(name="Riverside Chess Club", slug="riverside", public=True, by=root)
    officer = make_user("officer")
    membership_set(club=club, user=officer, role=Role.OFFICER, by=root)
    players = [
        make_player(club, root, name, rating)
        for name, rating in (("Ada Lovelace", 1850), ("Bobby Bishop", 1792), ("Cleo Castle", 1911))
    ]
    a, b, c = players
    play(club, root, [(a, b, "1-0"), (c, a, "1/2-1/2"), (b, c, "0-1")], date=JANUARY)
    standard = RatingList.objects.get(club=club, kind="standard")
    period = RatingPeriod.objects.get(rating_list=standard)

    # Before the close nothing is published: the public list has no period to show.
    page.goto(f"{live_server.url}/clubs/riverside/lists/standard/")
    assert "2025-01" not in page.locator("main").inner_text()

    page.goto(f"{live_server.url}/admin/")
    page.fill("#id_username", "officer")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")

    page.goto(f"{live_server.url}/admin/players/ratingperiod/")
    page.check(f"input[name=_selected_action][value='{period.pk}']")
    page.select_option("select[name=action]", "preview_period")
    page.click("button[name=index]")
    table = page.locator("#preview-table")
    table.wait_for()
    assert table.locator("tbody tr").count() == 3
    assert "Ada Lovelace" in table.inner_text()
    assert "Nothing has been written yet" in page.locator(".preview-summary").inner_text()
    screenshot("admin-period-preview")

    # The close runs as a job: its page follows it (here it is done at once: the tests'
    # jobs run inside the request) and says what it did.
    page.click("#close-period")
    page.wait_for_selector("#job[data-status=succeeded]")
    assert "closed" in page.locator(".messagelist").inner_text()
    screenshot("admin-job-done")
    page.goto(f"{live_server.url}/admin/players/ratingperiod/")
    row = page.locator("#result_list tbody tr", has_text="2025-01")
    assert "Closed" in row.inner_text()
    period.refresh_from_db()
    assert period.status == "closed"
    assert period.closed_by_id == officer.pk

    # The public list now shows the period and the changes the preview announced.
    rating_after = {
        change.player.name: change.rating_after
        for change in RatingChange.objects.filter(period=period).select_related("player")
    }
    page.goto(f"{live_server.url}/clubs/riverside/lists/standard/")
    listing = page.locator("main").inner_text()
    assert "2025-01" in listing
    for name, rating in rating_after.items():
        assert name in listing
        assert str(rating) in listing
    assert rating_after["Ada Lovelace"] != 1850


def test_closing_from_the_list_asks_first(page: Any, live_server: Any, screenshot: Any) -> None:
    root = make_user("root", superuser=True)
    club = club_create(name="Riverside Chess Club", slug="riverside", public=True, by=root)
    officer = make_user("officer")
    membership_set(club=club, user=officer, role=Role.OFFICER, by=root)
    a, b = (make_player(club, root, name, 1850) for name in ("Ada Lovelace", "Bobby Bishop"))
    play(club, root, [(a, b, "1-0")], date=JANUARY)
    period = RatingPeriod.objects.get(rating_list__club=club, rating_list__kind="standard")
    changelist = f"{live_server.url}/admin/players/ratingperiod/"

    page.goto(f"{live_server.url}/admin/")
    page.fill("#id_username", "officer")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")

    def choose_close() -> None:
        page.goto(changelist)
        page.check(f"input[name=_selected_action][value='{period.pk}']")
        page.select_option("select[name=action]", "close_period")
        page.click("button[name=index]")
        page.locator("#close-outlook").wait_for()

    # The action shows what closing will do and writes nothing.
    choose_close()
    outlook = page.locator("#close-outlook tbody tr").inner_text()
    assert "2025-01" in outlook
    assert "2025-02-01" in outlook  # the list the close publishes
    screenshot("admin-period-close-confirmation")
    period.refresh_from_db()
    assert period.status == "open"

    # "No, take me back" returns to the periods, still open.
    page.click("text=No, take me back")
    page.wait_for_selector("#result_list")
    assert page.url.split("?")[0] == changelist
    period.refresh_from_db()
    assert period.status == "open"

    # "Yes" closes.
    choose_close()
    page.click("#confirm-close")
    page.wait_for_selector(".messagelist")
    assert "closed" in page.locator(".messagelist").inner_text()
    period.refresh_from_db()
    assert period.status == "closed"
    assert period.closed_by_id == officer.pk
