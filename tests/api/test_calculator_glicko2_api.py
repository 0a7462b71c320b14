"""The calculator's Glicko-2 mode through the API: Glickman's worked example."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def test_glickmans_example_through_the_api() -> None:
    body = {
        "rating": 1500,
        "rd": 200,
        "volatility": 0.06,
        "tau": 0.5,
        "games": [
            {"opponent_rating": 1400, "opponent_rd": 30, "result": "1"},
            {"opponent_rating": 1550, "opponent_rd": 100, "result": "loss"},
            {"opponent_rating": 1700, "opponent_rd": 300, "result": 0},
        ],
    }
    response = APIClient().post("/api/v1/calculate/glicko2/", body, format="json")
    assert response.status_code == 200, response.content
    data = response.json()
    # The paper: r' 1464.06, RD' 151.52, sigma' 0.05999 (its intermediate rounding).
    assert data["new_rating"] == pytest.approx(1464.06, abs=0.01)
    assert data["new_rd"] == pytest.approx(151.52, abs=0.01)
    assert data["new_volatility"] == pytest.approx(0.05999, abs=0.00001)
    assert (data["published_rating"], data["published_rd"]) == (1464, 151.52)
    assert (data["games_count"], data["score"]) == (3, 1.0)
    # The paper's E for the three opponents: 0.639, 0.432, 0.303.
    expected = [round(g["expected_score"], 3) for g in data["games"]]
    assert expected == [0.639, 0.432, 0.303]
    assert "1464" in data["summary"]


def test_no_games_grows_rd_only() -> None:
    response = APIClient().post(
        "/api/v1/calculate/glicko2/", {"rating": 1800, "rd": 80, "games": []}, format="json"
    )
    data = response.json()
    assert data["new_rating"] == 1800
    assert data["new_rd"] > 80
    assert data["v"] is None
