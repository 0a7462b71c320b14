"""Log in to the admin, import a TRF through the upload form, see the report and the games."""

from __future__ import annotations

from typing import Any

import pytest

from tests.tournaments.import_world import FILES, build_import_world
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a-long-browser-password-42"


def test_admin_import_of_a_trf(page: Any, live_server: Any, screenshot: Any) -> None:
    world = build_import_world()
    arbiter = world.arbiter
    arbiter.is_staff = True
    arbiter.set_password(PASSWORD)
    arbiter.save()

    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", arbiter.username)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.goto(f"{live_server.url}/admin/tournaments/tournament/")
    page.click("text=Import tournament file")

    page.select_option("#id_club", str(world.club.pk))
    page.select_option("#id_rating_list", "standard")
    page.select_option("#id_format", "trf")
    page.set_input_files("#id_file", str(FILES / "swiss_9_rounds.trf"))
    page.click("#import-form input[type=submit]")

    report = page.locator("#import-report")
    report.wait_for()
    assert "created 48 games (5 not rated), 12 new players" in report.inner_text()
    assert page.locator("#import-byes tbody tr").count() == 12
    assert page.locator("#import-not-rated tbody tr").count() == 5
    assert "created 48 games" in page.locator(".messagelist").inner_text()
    screenshot("admin-import")

    page.click("#import-report .report-tournament a")
    page.wait_for_selector("#content h2, #content-main")
    tournament = Tournament.objects.get()
    assert f"/admin/tournaments/tournament/{tournament.pk}/change/" in page.url
    assert page.locator("input#id_name").input_value() == "Riverton Autumn Open 2026"
    # The inline lists every stored game (plus the empty extra rows for new ones).
    assert page.locator("select[id$='-result'] >> nth=47").count() == 1
    assert "Petrov, Ivan" in page.content()
    screenshot("admin-imported-tournament")
