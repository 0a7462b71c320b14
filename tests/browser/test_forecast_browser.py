"""Forecasts in headless Chromium: a tournament's forecast at 390 px (the page does not
scroll sideways; the table scrolls in its own box) and at desktop width, and a player's
next game picked in its form, without JavaScript."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from players.models import Club, Player
from players.services import club_create, player_create
from tests.tournaments.helpers import make_owner, make_player
from tournaments.models import Tournament
from tournaments.services import tournament_create, tournament_entries_set

pytestmark = pytest.mark.django_db(transaction=True)


def forecast_club() -> tuple[Club, Tournament, list[Player]]:
    owner = make_owner()
    club = club_create(name="Forecast Club", slug="forecast", public=True, by=owner)
    players = [
        make_player(club, owner, f"Entrant with a longer name {i}", 1500 + 90 * i)
        for i in range(11)
    ]
    players.append(player_create(club=club, by=owner, name="Newcomer"))
    tournament = tournament_create(
        club=club,
        by=owner,
        name="Winter Round Robin",
        rating_list="standard",
        start_date=datetime.date(2026, 11, 10),
        end_date=datetime.date(2026, 11, 20),
    )
    tournament_entries_set(tournament=tournament, by=owner, player_ids=[p.pk for p in players])
    return club, tournament, players


def test_the_forecast_fits_a_phone_and_a_desktop(
    browser: Any, live_server: Any, screenshot: Any
) -> None:
    club, tournament, _ = forecast_club()
    url = f"{live_server.url}/clubs/{club.slug}/tournaments/{tournament.pk}/forecast/"
    for name, width in (("phone", 390), ("desktop", 1200)):
        context = browser.new_context(viewport={"width": width, "height": 844})
        page = context.new_page()
        page.goto(url)
        table = page.locator("table#forecast")
        table.wait_for(state="visible")
        assert table.locator("tbody tr").count() == 12
        # 0 to 11 in half points: 23 score columns beside the player's figures.
        assert table.locator("thead th").count() >= 23 + 3
        page_width = page.evaluate("document.documentElement.scrollWidth")
        assert page_width <= width, (name, page_width)
        region = page.locator("div.scroll[role=region]").first
        assert region.get_attribute("tabindex") == "0"
        screenshot(f"forecast-{name}", page)
        context.close()


def test_a_next_game_is_picked_in_the_form(nojs_page: Any, live_server: Any) -> None:
    club, _, players = forecast_club()
    me, opponent = players[3], players[8]
    nojs_page.goto(f"{live_server.url}/clubs/{club.slug}/players/{me.pk}/")
    nojs_page.locator("#next-game-link").click()
    nojs_page.locator("#id_opponent").select_option(str(opponent.pk))
    nojs_page.get_by_role("button", name="Show").click()
    table = nojs_page.locator("table#next-game")
    # The form's GET loads the answer as a new page: wait for it (is_visible does not).
    table.wait_for(state="visible")
    rows = table.locator("tbody tr")
    assert rows.count() == 3
    assert rows.nth(0).locator("th").inner_text() == "Win"
    assert rows.nth(0).locator("td").nth(1).inner_text().startswith("+")
