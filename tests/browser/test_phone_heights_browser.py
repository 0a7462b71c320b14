"""On a phone (390 x 844) the tournament page of a 40-player event and every player page
are at most 3,000 px tall, and at a desktop's width their content is all there.

The club: 40 rated players; one of them (the "regular") has played a monthly event every
month for 28 months, and two rapid games a month (a second list's history); the last month holds a seven-round, 40-player Swiss. What repeats is
folded or condensed on a phone (the crosstable in a <details>, the standings on one line
a player, older periods and events folded), never removed: a desktop shows all of it, and
the folds open without JavaScript.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import AbstractBaseUser

from players.models import Club, Player
from players.services import player_create
from tests.browser.conftest import SCREENSHOTS
from tests.pages_data import crowd_name
from tests.tournaments.helpers import close, make_club, make_owner
from tournaments.models import Tournament
from tournaments.services import games_create_bulk, tournament_create

pytestmark = pytest.mark.django_db(transaction=True)
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}
MAX_PHONE_HEIGHT = 3000
PLAYERS = 40
ROUNDS = 7
HISTORY_MONTHS = 28  # 2024-01 .. 2026-04
RESULTS = ("1-0", "1/2-1/2", "0-1", "1-0", "0-1")


@dataclass
class Event:
    club: Club
    players: list[Player]
    regular: Player
    tournament: Tournament


def _month(index: int) -> tuple[int, int]:
    return 2024 + index // 12, index % 12 + 1


def _swiss_round(players: list[Player], number: int) -> list[tuple[Player, Player, str]]:
    """Top half against bottom half, shifted each round: every pairing is new, colours
    alternate, and the result follows the rating gap with a draw now and then."""
    half = len(players) // 2
    games = []
    for index in range(half):
        top, bottom = players[index], players[half + (index + number) % half]
        white, black = (top, bottom) if (index + number) % 2 == 0 else (bottom, top)
        result = RESULTS[(index * 3 + number) % len(RESULTS)]
        games.append((white, black, result))
    return games


def _name(index: int) -> str:
    """Short names, and every third one as long as real ones get (they may wrap)."""
    name = crowd_name(index)
    return f"{name} de Vasconcelos-Oyelaran" if index % 3 == 0 else name


def build_event(owner: AbstractBaseUser) -> Event:
    club = make_club(owner, "phones")
    club.name = "Phones Chess Club"
    club.public = True
    club.save(update_fields=["name", "public"])
    players = [
        player_create(
            club=club,
            by=owner,
            name=_name(i),
            birth_year=1980,
            ratings=[
                {"list": kind, "rating": 2300 - i * 21, "rated_games": 60}
                for kind in ("standard", "rapid")
            ],
        )
        for i in range(PLAYERS)
    ]
    regular = players[7]
    for index in range(HISTORY_MONTHS - 1):
        year, month = _month(index)
        monthly = tournament_create(
            club=club,
            by=owner,
            name=f"Monthly Open {year}-{month:02d}",
            rating_list="standard",
            start_date=datetime.date(year, month, 5),
            end_date=datetime.date(year, month, 26),
            rounds=4,
            city="Riverside",
        )
        games = []
        for number in range(1, 5):
            opponent = players[(index * 4 + number * 5) % PLAYERS]
            if opponent == regular:
                opponent = players[0]
            pair = (regular, opponent) if number % 2 else (opponent, regular)
            games.append(
                {
                    "list": "standard",
                    "date": datetime.date(year, month, 5 + 7 * (number - 1)),
                    "white": pair[0],
                    "black": pair[1],
                    "result": RESULTS[(index + number) % len(RESULTS)],
                    "tournament": monthly,
                    "round": number,
                }
            )
        # And two rapid games a month, outside any event: a second list's history.
        games += [
            {
                "list": "rapid",
                "date": datetime.date(year, month, 27),
                "white": regular if number % 2 else players[(index + number * 11) % 7],
                "black": players[(index + number * 11) % 7] if number % 2 else regular,
                "result": RESULTS[(index * 2 + number) % len(RESULTS)],
            }
            for number in (1, 2)
        ]
        games_create_bulk(club=club, by=owner, games=games)
        close(club, owner, f"{year}-{month:02d}")
        close(club, owner, f"{year}-{month:02d}", kind="rapid")
    year, month = _month(HISTORY_MONTHS - 1)
    swiss = tournament_create(
        club=club,
        by=owner,
        name="Spring Swiss",
        rating_list="standard",
        start_date=datetime.date(year, month, 4),
        end_date=datetime.date(year, month, 25),
        rounds=ROUNDS,
        city="Riverside",
    )
    games_create_bulk(
        club=club,
        by=owner,
        games=[
            {
                "list": "standard",
                "date": datetime.date(year, month, 4 + 3 * (number - 1)),
                "white": white,
                "black": black,
                "result": result,
                "tournament": swiss,
                "round": number,
            }
            for number in range(1, ROUNDS + 1)
            for white, black, result in _swiss_round(players, number)
        ],
    )
    close(club, owner, f"{year}-{month:02d}")
    return Event(club, players, regular, swiss)


@pytest.fixture
def event() -> Event:
    return build_event(make_owner("phones-owner"))


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    """A phone without JavaScript: what is folded must open by HTML alone."""
    context = browser.new_context(
        viewport=PHONE,
        device_scale_factor=1,
        is_mobile=True,
        has_touch=True,
        java_script_enabled=False,
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def desktop(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(10_000)
    page = context.new_page()
    yield page
    context.close()


def _height(page: Any) -> int:
    return int(page.evaluate("document.documentElement.scrollHeight"))


def _shot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def test_a_40_player_tournament_fits_a_phone_and_keeps_its_tables_on_a_desktop(
    phone: Any, desktop: Any, live_server: Any, event: Event
) -> None:
    url = f"{live_server.url}/clubs/{event.club.slug}/tournaments/{event.tournament.pk}/"
    phone.goto(url)
    height = _height(phone)
    _shot(phone, "phone-tournament-40")
    print(f"tournament of {PLAYERS} players at 390 px: {height} px tall")
    assert height <= MAX_PHONE_HEIGHT, f"the tournament page is {height} px tall at 390 px"
    assert int(phone.evaluate("document.documentElement.scrollWidth")) <= PHONE["width"]
    # Every player is in the standings, their change in view; the crosstable is folded.
    standings = phone.locator("#standings tbody tr")
    assert standings.count() == PLAYERS
    change = phone.locator("#standings thead th").last.bounding_box()
    assert change is not None
    assert change["x"] + change["width"] <= PHONE["width"]
    fold = phone.locator("#crosstable-fold")
    assert fold.get_attribute("open") is None
    assert not phone.locator("#crosstable").is_visible()
    # It opens without JavaScript, all of it.
    fold.locator(":scope > summary").click()
    assert phone.locator("#crosstable").is_visible()
    assert phone.locator("#crosstable tbody tr").count() == PLAYERS

    desktop.goto(url)
    print(f"tournament of {PLAYERS} players at 1366 px: {_height(desktop)} px tall")
    _shot(desktop, "desktop-tournament-40")
    # A desktop shows the crosstable unfolded (no summary to open) and every column.
    assert desktop.locator("#crosstable").is_visible()
    assert not desktop.locator("#crosstable-fold > summary").is_visible()
    assert desktop.locator("#crosstable tbody tr").count() == PLAYERS
    assert desktop.locator("#crosstable tbody tr").last.is_visible()
    assert desktop.locator("#crosstable thead th").count() == 2 + ROUNDS + 1
    assert desktop.locator("#standings tbody tr").last.is_visible()
    for head in ("BH", "SB", "Wins", "Perf."):
        assert desktop.locator("#standings thead th", has_text=head).first.is_visible(), head


def test_every_player_page_fits_a_phone_and_a_long_history_is_all_there(
    phone: Any, desktop: Any, live_server: Any, event: Event
) -> None:
    base = f"{live_server.url}/clubs/{event.club.slug}/players"
    heights = {}
    for player in event.players:
        phone.goto(f"{base}/{player.pk}/")
        heights[player.name] = _height(phone)
        if player == event.regular:
            _shot(phone, "phone-player-long-history")
    regular = heights[event.regular.name]
    print(
        f"player pages at 390 px: {event.regular.name} ({HISTORY_MONTHS} months) {regular} px, "
        f"tallest {max(heights.values())} px"
    )
    too_tall = {name: h for name, h in heights.items() if h > MAX_PHONE_HEIGHT}
    assert not too_tall, f"player pages taller than {MAX_PHONE_HEIGHT} px: {too_tall}"
    # On the phone the K history is folded, and opens without JavaScript.
    phone.goto(f"{base}/{event.regular.pk}/")
    fold = phone.locator("details.k-history-fold").first
    assert fold.get_attribute("open") is None
    assert not fold.locator("table.k-history").is_visible()
    fold.locator(":scope > summary").click()
    assert fold.locator("table.k-history").is_visible()

    # On a desktop the regular's whole history is on the page: every period and event.
    desktop.goto(f"{base}/{event.regular.pk}/")
    print(f"{event.regular.name} at 1366 px: {_height(desktop)} px tall")
    _shot(desktop, "desktop-player-long-history")
    # Both lists' periods (the rapid list has no period in the Swiss's month).
    assert desktop.locator("table.history tr.period-row").count() == 2 * HISTORY_MONTHS - 1
    assert desktop.locator("table.k-history").first.is_visible()
    assert desktop.locator("table.events tbody tr").count() == HISTORY_MONTHS
    for summary in desktop.locator("details.older-periods > summary").all():
        summary.click()
    assert desktop.locator("table.history tr.period-row").last.is_visible()
