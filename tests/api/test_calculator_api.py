"""POST /api/v1/calculate/: the fixed contract, the seeds' worked examples, and bad input."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

URL = "/api/v1/calculate/"

SEED_002_GAMES = [
    {"opponent_rating": 1792, "result": "1"},
    {"opponent_rating": 1911, "result": "0.5"},
    {"opponent_rating": 2010, "result": "0"},
    {"opponent_rating": 2290, "result": "0.5"},
    {"opponent_rating": 1745, "result": "1"},
]


@pytest.fixture(autouse=True)
def _clear_throttle() -> None:
    cache.clear()


@pytest.fixture
def api() -> APIClient:
    return APIClient()


def post(api: APIClient, body: Any) -> Any:
    return api.post(URL, body, format="json")


def test_seed_002_fide_table_five_games(api: APIClient) -> None:
    response = post(api, {"rating": 1850, "k_factor": 20, "games": SEED_002_GAMES})
    assert response.status_code == 200, response.json()
    body = response.json()
    assert [g["expected_score"] for g in body["games"]] == [0.58, 0.42, 0.29, 0.08, 0.64]
    assert [g["change"] for g in body["games"]] == pytest.approx(
        [8.4, 1.6, -5.8, 8.4, 7.2], abs=1e-12
    )
    fourth = body["games"][3]
    assert (fourth["rating_difference"], fourth["counted_difference"], fourth["capped"]) == (
        -440,
        -400,
        True,
    )
    assert "400" in fourth["note"]
    assert body["expected_score"] == pytest.approx(2.01, abs=1e-12)
    assert body["score"] == 3
    assert body["change_unrounded"] == pytest.approx(19.8, abs=1e-12)
    assert (body["change"], body["new_rating"], body["k_factor"], body["games_count"]) == (
        20,
        1870,
        20,
        5,
    )
    assert body["summary"] == "With a rating of 1850 and K = 20, your rating changes by 20 to 1870."
    assert body["rating_class"] == "1800-1999"


@pytest.mark.parametrize(
    ("rating", "k", "games", "expected", "unrounded", "change", "new_rating"),
    [
        (1500, 20, [(1700, "win")], 0.240253, 15.194939, 15, 1515),
        (2100, 20, [(2100, "draw"), (2300, "loss")], 0.740253, -4.805061, -5, 2095),
        (1500, 20, [(2100, "loss")], 0.090909, None, -2, 1498),
        (2700, 10, [(2200, "win")], 0.94676, None, 1, 2701),
    ],
)
def test_seed_000_formula_examples(
    api: APIClient,
    rating: int,
    k: int,
    games: list[tuple[int, str]],
    expected: float,
    unrounded: float | None,
    change: int,
    new_rating: int,
) -> None:
    body = post(
        api,
        {
            "rating": rating,
            "k_factor": k,
            "expected_score": "formula",
            "games": [{"opponent_rating": o, "result": r} for o, r in games],
        },
    ).json()
    assert body["expected_score"] == pytest.approx(expected, abs=5e-7)
    if unrounded is not None:
        assert body["change_unrounded"] == pytest.approx(unrounded, abs=5e-7)
    assert (body["change"], body["new_rating"]) == (change, new_rating)


@pytest.mark.parametrize(("wins", "change", "new_rating"), [(14, 13, 1513), (13, -13, 1487)])
def test_seed_000_seven_hundred_rule_and_half_away_from_zero(
    api: APIClient, wins: int, change: int, new_rating: int
) -> None:
    games = [{"opponent_rating": 1500, "result": "win"}] * wins + [
        {"opponent_rating": 1500, "result": "loss"}
    ] * (27 - wins)
    body = post(
        api, {"rating": 1500, "k_factor": 40, "expected_score": "formula", "games": games}
    ).json()
    assert (body["k_factor_base"], body["k_factor"]) == (40, 25)
    assert body["expected_score"] == pytest.approx(13.5)
    assert body["change_unrounded"] == pytest.approx(12.5 if wins == 14 else -12.5)
    assert (body["change"], body["new_rating"]) == (change, new_rating)


def test_seed_001_four_game_event_without_the_400_rule(api: APIClient) -> None:
    games = [
        {"opponent_rating": 1500, "result": 1},
        {"opponent_rating": 1620, "result": "½"},
        {"opponent_rating": 1390, "result": 0},
        {"opponent_rating": 1555, "result": 1},
    ]
    body = post(
        api,
        {
            "rating": 1450,
            "k_factor": 40,
            "expected_score": "formula",
            "apply_400_rule": False,
            "games": games,
        },
    ).json()
    assert [round(g["change"], 1) for g in body["games"]] == [22.9, 9.1, -23.4, 25.9]
    assert round(body["change_unrounded"], 1) == 34.4
    assert body["new_rating"] == 1484


def test_first_rating_for_an_unrated_player_fide_example(api: APIClient) -> None:
    # FIDE 8.2: five games, 3 points, opponents summing to 9507 -> Ra 1872.43, p .57, dp 50.
    opponents = [1850, 1900, 1950, 1907, 1900]
    results = ["1", "1", "1", "0", "0"]
    body = post(
        api,
        {
            "rating": None,
            "games": [
                {"opponent_rating": o, "result": r} for o, r in zip(opponents, results, strict=True)
            ],
        },
    ).json()
    assert body["initial_rating"] == 1922
    assert body["rating"] is None
    assert body["change"] is None
    assert body["games_count"] == 5
    assert "1922" in body["summary"]


def test_unrated_player_with_too_few_games_gets_a_reason(api: APIClient) -> None:
    body = post(
        api, {"rating": None, "games": [{"opponent_rating": 1800, "result": "1"}] * 4}
    ).json()
    assert body["initial_rating"] is None
    assert "5" in body["initial_rating_note"]


@pytest.mark.parametrize(
    ("player", "k", "reason"),
    [
        ({"rated_games": 10, "birth_year": 1980, "as_of": "2026-10-01"}, 40, "new_player"),
        ({"rated_games": 100, "birth_year": 2008, "as_of": "2026-10-01"}, 40, "junior"),
        ({"rated_games": 100, "birth_year": 2007, "as_of": "2026-10-01"}, 20, "standard"),
        (
            {"rated_games": 100, "birth_year": 1980, "reached_2400": True, "as_of": "2026-10-01"},
            10,
            "reached_2400",
        ),
    ],
)
def test_k_from_player_details(api: APIClient, player: dict[str, Any], k: int, reason: str) -> None:
    body = post(
        api, {"rating": 2000, "player": player, "games": [{"opponent_rating": 2000, "result": 1}]}
    ).json()
    assert (body["k_factor"], body["k_reason"]) == (k, reason)


def test_default_k_is_20_and_fixed_k_wins_over_player(api: APIClient) -> None:
    game = [{"opponent_rating": 2000, "result": 1}]
    assert post(api, {"rating": 2000, "games": game}).json()["k_factor"] == 20
    body = post(
        api, {"rating": 2000, "k_factor": 32, "player": {"rated_games": 0}, "games": game}
    ).json()
    assert (body["k_factor"], body["k_reason"]) == (32, "fixed")


def test_fide_published_39_games_at_k20_use_k17(api: APIClient) -> None:
    games = [{"opponent_rating": 2000, "result": "draw"}] * 39
    body = post(api, {"rating": 2000, "k_factor": 20, "games": games}).json()
    assert (body["k_factor_base"], body["k_factor"], body["games_count"]) == (20, 17, 39)


@pytest.mark.parametrize("spelling", ["1", 1, "win", "WIN", " 1 "])
def test_win_spellings(api: APIClient, spelling: object) -> None:
    body = post(
        api, {"rating": 1500, "games": [{"opponent_rating": 1500, "result": spelling}]}
    ).json()
    assert body["score"] == 1


@pytest.mark.parametrize("spelling", ["0.5", 0.5, "1/2", "½", "=", "draw"])
def test_draw_spellings(api: APIClient, spelling: object) -> None:
    body = post(
        api, {"rating": 1500, "games": [{"opponent_rating": 1500, "result": spelling}]}
    ).json()
    assert body["score"] == 0.5


def test_rapid_list_caps_everyone_and_skips_600_point_games_above_2600(api: APIClient) -> None:
    body = post(
        api,
        {
            "rating": 2700,
            "k_factor": 20,
            "rating_list": "rapid",
            "games": [
                {"opponent_rating": 2250, "result": 1},
                {"opponent_rating": 2050, "result": 1},
            ],
        },
    ).json()
    first, second = body["games"]
    assert (first["counted_difference"], first["capped"], first["rated"]) == (400, True, True)
    assert second["rated"] is False
    assert body["games_count"] == 1


def _game(**overrides: Any) -> dict[str, Any]:
    return {"opponent_rating": 1500, "result": "1", **overrides}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"rating": 4001, "games": [_game()]}, "rating"),
        ({"rating": -1, "games": [_game()]}, "rating"),
        ({"rating": "abc", "games": [_game()]}, "rating"),
        ({"rating": 1500.5, "games": [_game()]}, "rating"),
        ({"games": [_game()]}, "rating"),
        ({"rating": 1500, "games": []}, "games"),
        ({"rating": 1500}, "games"),
        ({"rating": 1500, "games": [_game()] * 101}, "games"),
        ({"rating": 1500, "games": "many"}, "games"),
        ({"rating": 1500, "games": [_game(result="2")]}, "games[0].result"),
        ({"rating": 1500, "games": [_game(result=True)]}, "games[0].result"),
        (
            {"rating": 1500, "games": [_game(), _game(opponent_rating=5000)]},
            "games[1].opponent_rating",
        ),
        ({"rating": 1500, "games": [{"result": "1"}]}, "games[0].opponent_rating"),
        ({"rating": 1500, "k_factor": 0, "games": [_game()]}, "k_factor"),
        ({"rating": 1500, "k_factor": 101, "games": [_game()]}, "k_factor"),
        ({"rating": 1500, "expected_score": "guess", "games": [_game()]}, "expected_score"),
        ({"rating": 1500, "rating_list": "bullet", "games": [_game()]}, "rating_list"),
        ({"rating": 1500, "player": {"as_of": "2026-13-01"}, "games": [_game()]}, "player.as_of"),
        ({"rating": 1500, "player": {"rated_games": -3}, "games": [_game()]}, "player.rated_games"),
    ],
)
def test_bad_input_names_the_field(api: APIClient, body: dict[str, Any], field: str) -> None:
    response = post(api, body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert field in error["fields"], error
    assert error["message"]


@pytest.mark.parametrize("raw", ["not json", "[1, 2]", '"x"', "null"])
def test_malformed_bodies_are_400_never_500(api: APIClient, raw: str) -> None:
    response = api.post(URL, raw, content_type="application/json")
    assert response.status_code == 400
    assert "error" in response.json()


def test_anonymous_callers_are_throttled_with_the_error_shape(
    api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # DRF binds the rates to the throttle class at import, so patch the class, not settings.
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"calculator": "2/minute"})
    for _ in range(2):
        assert post(api, {"rating": 1500, "games": [_game()]}).status_code == 200
    response = post(api, {"rating": 1500, "games": [_game()]})
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "throttled"


@pytest.mark.django_db
def test_schema_documents_the_calculator(api: APIClient) -> None:
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operation = schema["paths"]["/api/v1/calculate/"]["post"]
    assert operation["operationId"] == "calculate"
    assert "200" in operation["responses"]
    assert "CalculateOut" in str(operation["responses"]["200"])
