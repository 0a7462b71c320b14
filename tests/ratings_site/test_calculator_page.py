"""The calculator page without JavaScript: plain form posts."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

URL = "/calculator/"


def form_data(rating: str, k: str, games: list[tuple[str, str]], **extra: str) -> dict[str, Any]:
    data: dict[str, Any] = {
        "rating": rating,
        "k_choice": k,
        "expected_score": "fide_table",
        "rating_list": "standard",
        "apply_400_rule": "on",
        "games-TOTAL_FORMS": str(len(games)),
        "games-INITIAL_FORMS": "0",
        **extra,
    }
    for index, (opponent, result) in enumerate(games):
        data[f"games-{index}-opponent_rating"] = opponent
        data[f"games-{index}-result"] = result
    return data


@pytest.fixture
def client() -> Client:
    return Client()


def test_page_opens_with_the_seed_default_worked(client: Client) -> None:
    response = client.get(URL)
    assert response.status_code == 200
    html = response.content.decode()
    assert "With a rating of 1500 and K = 20, your rating changes by 15 to 1515." in html
    assert 'name="add_game"' in html


def test_seed_002_through_the_form(client: Client) -> None:
    games = [("1792", "1"), ("1911", "0.5"), ("2010", "0"), ("2290", "0.5"), ("1745", "1")]
    response = client.post(URL, form_data("1850", "20", games))
    html = response.content.decode()
    assert response.status_code == 200
    assert "With a rating of 1850 and K = 20, your rating changes by 20 to 1870." in html
    for figure in ["+8.40", "+1.60", "\u22125.80", "+7.20", "+19.80", "0.58", "0.08"]:
        assert figure in html
    assert "2290*" in html


def test_custom_k_is_required_when_chosen(client: Client) -> None:
    response = client.post(URL, form_data("1500", "custom", [("1700", "1")]))
    assert response.status_code == 400
    assert "Enter a K from 1 to 100" in response.content.decode()


def test_automatic_k_uses_the_player_details(client: Client) -> None:
    data = form_data("1500", "auto", [("1500", "1")], rated_games="5", birth_year="1980")
    html = client.post(URL, data).content.decode()
    assert "K = 40" in html


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (form_data("5000", "20", [("1700", "1")]), "less than or equal to 4000"),
        (form_data("1500", "20", [("", "1")]), "Enter at least one game"),
        (form_data("1500", "20", [("x", "1")]), "Enter a whole number"),
        (form_data("1500", "20", [("1700", "2")]), "Select a valid choice"),
    ],
)
def test_bad_input_shows_field_errors_with_400(
    client: Client, data: dict[str, Any], message: str
) -> None:
    response = client.post(URL, data)
    assert response.status_code == 400
    assert message in response.content.decode()


def test_add_game_without_javascript_adds_an_empty_row(client: Client) -> None:
    data = form_data("1500", "20", [("1700", "1")], add_game="1")
    html = client.post(URL, data).content.decode()
    assert 'name="games-1-opponent_rating"' in html
    assert 'value="1700"' in html


def test_unrated_player_gets_a_first_rating(client: Client) -> None:
    games = [("1850", "1"), ("1900", "1"), ("1950", "1"), ("1907", "0"), ("1900", "0")]
    html = client.post(URL, form_data("", "20", games)).content.decode()
    assert "your first rating would be 1922" in html


def test_fragment_request_returns_only_the_result(client: Client) -> None:
    response = client.post(URL, form_data("1500", "20", [("1700", "1")]), HTTP_X_FRAGMENT="result")
    html = response.content.decode()
    assert "<html" not in html
    assert "changes by 15 to 1515" in html


def test_the_glicko2_mode_opens_on_glickmans_example(client: Any) -> None:
    page = client.get("/calculator/glicko2/")
    assert page.status_code == 200
    text = page.content.decode()
    # The paper's r' 1464.06 and RD' 151.52 (unrounded: 1464.05, 151.52).
    assert '<span class="rating">1464.05</span>' in text
    assert "151.52" in text
    assert "/calculator/glicko2/" in client.get("/calculator/").content.decode()


def test_the_glicko2_mode_posts_and_refuses_bad_input(client: Any) -> None:
    data = {
        "rating": "1800",
        "rd": "50",
        "volatility": "0.06",
        "tau": "0.5",
        "games-TOTAL_FORMS": "1",
        "games-INITIAL_FORMS": "0",
        "games-0-opponent_rating": "1800",
        "games-0-opponent_rd": "50",
        "games-0-result": "0.5",
    }
    ok = client.post("/calculator/glicko2/", data)
    assert ok.status_code == 200
    assert '<span class="rating">1800.00</span>' in ok.content.decode()
    bad = client.post("/calculator/glicko2/", {**data, "rd": "0"})
    assert bad.status_code == 400
