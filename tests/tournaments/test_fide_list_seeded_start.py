"""``seed_ratings`` starts a player at their FIDE rating: the start shows where a user
reads the player's history (the history endpoint's ``entry``, the player page's start row)
with its reason, and a K it changed is a row of the K history with the same reason.

K by FIDE 8.3.3: an unrated player with no games has K 40 (fewer than 30 rated games); a
published rating of 2400 or more has K 10 for good."""

from __future__ import annotations

import datetime
import io
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from players.models import Club, Player
from players.services import player_create
from tests.tournaments.fide_files import Row, txt
from tests.tournaments.helpers import make_club, make_owner
from tournaments.services.fide_list import fide_list_import

pytestmark = pytest.mark.django_db

NOVEMBER = datetime.date(2026, 11, 1)
NOTE = "FIDE rating list of 2026-11"
ROWS = [
    Row(1503014, "Carlsen, Magnus", "NOR", "M", "GM", "", 2837, 2820, 2886, 1990),
    Row(1700020, "Lindqvist, Maja", "SWE", "F", "", "WIM", 2215, None, 2190, 2003),
    Row(1500029, "Dahl, Per", "NOR", "M", "", "", 1980, None, None, 1971),
]


@pytest.fixture
def world() -> tuple[Any, Club, dict[str, Player]]:
    owner = make_owner()
    club = make_club(owner, "fide")
    players = {
        "magnus": player_create(club=club, by=owner, name="Magnus Carlsen", fide_id=1503014),
        "maja": player_create(club=club, by=owner, name="Maja Lindqvist", fide_id=1700020),
    }
    fide_list_import(
        club=club,
        stream=io.BytesIO(txt(ROWS)),
        by=owner,
        add_federation="NOR",
        seed_ratings=True,
        month=NOVEMBER,
    )
    players["per"] = Player.objects.get(club=club, fide_id=1500029)
    return owner, club, players


def _get(owner: Any, club: Club, player: Player, what: str, kind: str = "standard") -> Any:
    api = APIClient()
    api.force_authenticate(owner)
    response = api.get(f"/api/v1/clubs/{club.slug}/players/{player.pk}/{what}/", {"list": kind})
    assert response.status_code == 200, response.content
    return response.json()


def test_the_history_endpoint_starts_with_the_seeded_entry(
    world: tuple[Any, Club, dict[str, Player]],
) -> None:
    owner, club, players = world

    body = _get(owner, club, players["magnus"], "history")

    assert body["results"] == []  # nothing published yet: the start is all there is
    assert body["entry"] == {
        "rating": 2837,
        "rated_games": 0,
        "reached_2400": True,
        "month": None,
        "note": NOTE,
        "rd": None,
        "volatility": None,
        "state": None,
    }
    # A list with nothing seeded starts unrated, without a note.
    assert _get(owner, club, players["maja"], "history", "rapid")["entry"]["note"] == ""


def test_a_k_the_seeding_changed_is_in_the_k_history_with_the_reason(
    world: tuple[Any, Club, dict[str, Player]],
) -> None:
    owner, club, players = world

    rows = _get(owner, club, players["magnus"], "k-history")["results"]

    # Joined unrated (K 40), then started at 2837: K 10, reached 2400, from the same month.
    assert [(r["old_k_factor"], r["k_factor"], r["reason"], r["note"]) for r in rows] == [
        (None, 40, "new_player", "entered when the player joined"),
        (40, 10, "reached_2400", NOTE),
    ]
    assert rows[1]["period"] == rows[0]["period"]
    assert rows[1]["k_reason"] == "reached_2400"
    # Maja at 2215 with no games keeps K 40: nothing changed, nothing written.
    maja = _get(owner, club, players["maja"], "k-history")["results"]
    assert [(r["k_factor"], r["note"]) for r in maja] == [(40, "entered when the player joined")]


def test_a_player_added_and_seeded_has_the_reason_on_the_k_they_joined_with(
    world: tuple[Any, Club, dict[str, Player]],
) -> None:
    owner, club, players = world

    standard = _get(owner, club, players["per"], "k-history")["results"]
    rapid = _get(owner, club, players["per"], "k-history", "rapid")["results"]

    assert [(r["k_factor"], r["reason"], r["note"]) for r in standard] == [(40, "new_player", NOTE)]
    # No FIDE rapid rating: unrated there, the K entered on joining as usual.
    assert [r["note"] for r in rapid] == ["entered when the player joined"]
    assert _get(owner, club, players["per"], "history")["entry"]["note"] == NOTE


def test_the_player_page_shows_the_seeded_start(
    world: tuple[Any, Club, dict[str, Player]],
) -> None:
    owner, club, players = world
    client = Client()
    client.force_login(owner)

    page = client.get(f"/clubs/{club.slug}/players/{players['magnus'].pk}/").content.decode()

    standard = page[page.index('id="list-standard"') : page.index('id="list-rapid"')]
    start = standard[standard.index('<tr class="entry-row">') :]
    start = start[: start.index("</tr>")]
    assert ">2837<" in start
    assert NOTE in start
    k_table = standard[standard.index('class="k-history"') :]
    assert f"({NOTE})" in k_table


def test_the_player_page_says_the_reason_in_german(
    world: tuple[Any, Club, dict[str, Player]],
) -> None:
    owner, club, players = world
    client = Client()
    client.force_login(owner)

    page = client.get(
        f"/clubs/{club.slug}/players/{players['magnus'].pk}/", HTTP_ACCEPT_LANGUAGE="de"
    ).content.decode()

    assert "FIDE-Liste vom 2026-11" in page
    assert NOTE not in page
