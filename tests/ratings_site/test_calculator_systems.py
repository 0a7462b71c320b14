"""The calculator's "every system" mode takes its systems from the registry: a system added
in the tests alone (the toy of test_toy_rating_system.py) is a choice and is calculated by
its own plan, with no code of its own in the calculator."""

from __future__ import annotations

import datetime
from fractions import Fraction

from django.test import Client

from players.rating.systems import SYSTEMS, RatingSystem
from players.rating.systems.one_month import one_month
from ratings_site.pages.calculator_systems import SystemCalculatorForm, settings_of
from tests.ratings_site.test_toy_rating_system import score_only, text

__all__ = ["score_only"]  # the fixture

OCT = datetime.date(2026, 10, 1)


def query(system: str, rating: str, *games: tuple[str, str]) -> dict[str, str]:
    data = {
        "system": system,
        "rating": rating,
        "games-TOTAL_FORMS": str(len(games)),
        "games-INITIAL_FORMS": "0",
    }
    for n, (opponent, result) in enumerate(games):
        data |= {f"games-{n}-opponent_rating": opponent, f"games-{n}-result": result}
    return data


def test_every_registered_system_is_a_choice() -> None:
    choices = dict(SystemCalculatorForm().fields["system"].choices)  # type: ignore[attr-defined]
    assert list(choices) == list(SYSTEMS)


def test_one_month_is_the_systems_own_plan() -> None:
    # Club Elo's preset: the formula, K 20, no 400-point cap: 1500 beating 1500 gains 10.
    elo = SYSTEMS["elo"]
    change = one_month(elo, settings_of(elo), month=OCT, rating=1500, games=[(1500, Fraction(1))])
    assert (change.rating_before, change.rating_after, change.k_factor) == (1500, 1510, 20)
    glicko2 = SYSTEMS["glicko2"]
    change = one_month(
        glicko2, settings_of(glicko2), month=OCT, rating=1500, games=[(1500, Fraction(1, 2))]
    )
    assert change.rating_after == 1500
    assert glicko2.states_of(change)[1] is not None


def test_a_system_added_to_the_registry_is_calculated_on_the_page(
    score_only: RatingSystem, client: Client
) -> None:
    page = client.get(
        "/calculator/systems/", query("score_only", "1200", ("1300", "1"), ("1100", "0.5"))
    )
    assert page.status_code == 200
    body = text(page.content.decode())
    assert "Score only" in body
    # +10 the win, 0 the draw; its one state figure, the wins, after the month.
    assert "Rating before 1200 New rating 1210 Change 10 Games 2 Score 1½ wins 1" in body


def test_an_unknown_system_is_refused_naming_the_field(client: Client) -> None:
    page = client.get("/calculator/systems/", query("nope", "1500", ("1500", "1")))
    assert page.status_code == 400
    assert "Select a valid choice" in page.content.decode()
