"""Glicko-2 in headless Chromium: a player's rating with its uncertainty and the chart's
band, and the Glicko-2 calculator opening on Glickman's worked example."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from players.models import Club, Player, PlayerRating
from players.services import club_create, player_create, rating_list_create
from tests.tournaments.helpers import make_owner, period_of
from tournaments.services import games_create_bulk, period_close, period_open

pytestmark = pytest.mark.django_db(transaction=True)


def glicko2_player() -> tuple[Club, Player]:
    """Glickman's example player on a public club's Glicko-2 list: October is the paper's
    month (1500 / 200 / 0.06 against 1400/30 won, 1550/100 and 1700/300 lost), November a
    month without games, so the chart has two points and a band."""
    owner = make_owner()
    club = club_create(name="Online Club", slug="online", public=True, by=owner)
    arena = rating_list_create(
        club=club, by=owner, slug="arena", name="Arena", kind="blitz", system="glicko2"
    )

    def member(name: str, rating: int, rd: float) -> Player:
        entry = {"list": "arena", "rating": rating, "rd": rd, "volatility": 0.06}
        return player_create(club=club, by=owner, name=name, ratings=[entry])

    me = member("Mark Example", 1500, 200)
    a, b, c = member("A", 1400, 30), member("B", 1550, 100), member("C", 1700, 300)
    day = datetime.date(2026, 10, 5)
    games_create_bulk(
        club=club,
        by=owner,
        games=[
            {"list": "arena", "date": day, "white": white, "black": black, "result": result}
            for white, black, result in [(me, a, "1-0"), (b, me, "1-0"), (me, c, "0-1")]
        ],
    )
    period_close(period=period_of(club, "2026-10", "arena"), by=owner)
    november = period_open(rating_list=arena, month=datetime.date(2026, 11, 1), by=owner)
    period_close(period=november, by=owner)
    return club, me


def test_a_glicko2_players_page_shows_the_uncertainty_and_the_band(
    page: Any, live_server: Any, screenshot: Any
) -> None:
    club, me = glicko2_player()
    page.goto(f"{live_server.url}/clubs/{club.slug}/players/{me.pk}/")
    assert page.get_by_role("heading", level=1).inner_text() == "Mark Example"

    held = PlayerRating.objects.get(player=me, rating_list__slug="arena")
    assert held.state["rd"] is not None
    # The paper's r after October (1464.05, published 1464); an idle November keeps r and
    # grows the RD from the paper's 151.52.
    assert held.rating == 1464
    assert held.state["rd"] > 151.52
    standing = page.locator("dl.standings > div").filter(has_text="Arena")
    assert standing.locator("span.rating").inner_text() == "1464"
    uncertainty = standing.locator("span.uncertainty")
    assert uncertainty.is_visible()
    assert uncertainty.inner_text() == f"± {int(2 * held.state['rd'] + 0.5)}"  # half away from zero
    assert f"RD {held.state['rd']:.2f}" in standing.inner_text()

    chart = page.locator("svg#chart-arena")
    assert chart.is_visible()
    band = chart.locator("polygon.band")
    assert band.count() == 1
    # Drawn, not just present: filled with some opacity, and it wraps the rating line.
    style = band.evaluate(
        "el => { const s = getComputedStyle(el); return [s.fill, s.fillOpacity, s.display]; }"
    )
    fill, opacity, display = style
    assert fill not in ("none", "")
    assert float(opacity) > 0
    assert display != "none"
    band_box, line_box = band.bounding_box(), chart.locator("polyline.line").bounding_box()
    assert band_box is not None
    assert line_box is not None
    assert band_box["height"] > line_box["height"]
    assert band_box["y"] < line_box["y"]
    assert band_box["y"] + band_box["height"] > line_box["y"] + line_box["height"]
    screenshot("glicko2-player")


def test_the_glicko2_calculator_shows_glickmans_example(
    page: Any, live_server: Any, screenshot: Any
) -> None:
    page.goto(f"{live_server.url}/calculator/glicko2/")
    # The page opens on the paper's player and opponents.
    assert page.locator("#id_rating").input_value() == "1500"
    assert page.locator("#id_rd").input_value() == "200"
    opponents = [
        (
            page.locator(f"#id_games-{index}-opponent_rating").input_value(),
            page.locator(f"#id_games-{index}-opponent_rd").input_value(),
        )
        for index in range(3)
    ]
    assert opponents == [("1400", "30"), ("1550", "100"), ("1700", "300")]
    # Glickman's result: r' 1464.06 and RD' 151.52 as printed (his rounded intermediates;
    # exact arithmetic gives 1464.05), so 1464 / 151.5 to the paper's precision.
    result = page.locator("#result")
    figures = result.locator("dl.figures")
    new_rating = float(figures.locator("span.rating").inner_text())
    assert new_rating == pytest.approx(1464.06, abs=0.02)
    assert "151.52" in figures.inner_text()
    assert "1464 (RD 151.52)" in figures.inner_text()
    screenshot("glicko2-calculator")

    # The same figures after a real form post of the page's values.
    page.get_by_role("button", name="Calculate").click()
    page.wait_for_load_state()
    assert "1464 (RD 151.52)" in page.locator("#result dl.figures").inner_text()
