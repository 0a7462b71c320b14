"""The issue's flow through the API only, with token authentication: create a club,
players with and without ratings, a month of games in bulk, preview, close, histories,
K history and the list (JSON and CSV), reopen, correct a game, replay, corrected figures.
"""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.api.conftest import PASSWORD, assert_error_shape, make_user

pytestmark = pytest.mark.django_db

BASE = "/api/v1/clubs/riverside"


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, (response.status_code, response.content[:500])
    return response.json() if response.content else None


def test_full_flow_through_the_api() -> None:
    make_user("alice")
    api = APIClient()
    token = ok(api.post("/api/v1/auth/token/", {"username": "alice", "password": PASSWORD}))
    assert set(token) == {"token", "expiry"}
    api.credentials(HTTP_AUTHORIZATION=f"Token {token['token']}")

    club = ok(
        api.post("/api/v1/clubs/", {"name": "Riverside", "slug": "riverside", "public": True}),
        201,
    )
    assert club == {**club, "slug": "riverside", "public": True, "role": "owner"}
    lists = ok(api.get(f"{BASE}/lists/"))
    assert [row["list"] for row in lists["results"]] == ["blitz", "rapid", "standard"]
    assert {row["preset"] for row in lists["results"]} == {
        "FIDE standard",
        "FIDE rapid",
        "FIDE blitz",
    }

    rated = [("Anna", 1850, 45), ("Boris", 1900, 60), ("Chen", 1700, 12)]
    ids: dict[str, int] = {}
    for name, rating, games in rated:
        body = {
            "name": name,
            "birth_year": 1990,
            "fide_id": None,
            "ratings": [
                {"list": "standard", "rating": rating, "rated_games": games, "reached_2400": False}
            ],
        }
        player = ok(api.post(f"{BASE}/players/", body, format="json"), 201)
        standard = next(r for r in player["ratings"] if r["list"] == "standard")
        assert standard["rating"] == rating
        ids[name] = player["id"]
    newcomer = ok(api.post(f"{BASE}/players/", {"name": "Dana", "birth_year": 2012}), 201)
    assert all(r["rating"] is None for r in newcomer["ratings"])
    ids["Dana"] = newcomer["id"]

    unrated = ok(api.get(f"{BASE}/players/", {"list": "standard", "rated": "false"}))
    assert [p["name"] for p in unrated["results"]] == ["Dana"]

    a, b, c = ids["Anna"], ids["Boris"], ids["Chen"]
    month = [
        {"list": "standard", "date": "2026-10-05", "white": a, "black": b, "result": "1-0"},
        {"list": "standard", "date": "2026-10-12", "white": b, "black": c, "result": "1/2-1/2"},
        {"list": "standard", "date": "2026-10-19", "white": c, "black": a, "result": "0-1"},
        {
            "list": "standard",
            "date": "2026-10-26",
            "white": ids["Dana"],
            "black": a,
            "result": "--",
        },
    ]
    games = ok(api.post(f"{BASE}/games/", month, format="json"), 201)
    assert len(games) == 4
    assert {g["period"] for g in games} == {"2026-10"}

    periods = ok(api.get(f"{BASE}/lists/standard/periods/"))
    assert periods["results"] == [
        {
            "period": "2026-10",
            "status": "open",
            "games_count": 4,
            "closed_at": None,
            "published": "2026-11-01",
            "rules": "FIDE 2025-10",
        }
    ]

    preview = ok(api.get(f"{BASE}/lists/standard/periods/2026-10/preview/"))
    assert preview["status"] == "open"
    previewed = {row["player"]: row for row in preview["changes"]}
    # Anna 1850 beat Boris 1900 (PD 0.43) and Chen 1700 (PD 0.70), K 20:
    # 20 x (2 - 1.13) = 17.4 -> 17.
    assert previewed[a]["rating_after"] == 1867
    assert previewed[a]["games"] == 2

    closed = ok(api.post(f"{BASE}/lists/standard/periods/2026-10/close/"))
    assert closed["period"] == "2026-10"
    assert closed["status"] == "closed"
    by_player = {row["player"]: row for row in closed["changes"]}
    assert {k: by_player[a][k] for k in ("rating_before", "rating_after", "change", "games")} == {
        "rating_before": 1850,
        "rating_after": 1867,
        "change": 17,
        "games": 2,
    }
    assert {row["player"]: row["rating_after"] for row in closed["changes"]} == {
        row["player"]: row["rating_after"] for row in preview["changes"]
    }

    again = api.post(f"{BASE}/lists/standard/periods/2026-10/close/")
    assert again.status_code == 409
    assert_error_shape(again.json())
    assert again.json()["error"]["fields"]["status"] == ["closed"]

    history = ok(api.get(f"{BASE}/players/{a}/history/", {"list": "standard"}))
    (row,) = history["results"]
    assert row["period"] == "2026-10"
    assert (row["rating_before"], row["rating_after"], row["change"]) == (1850, 1867, 17)
    assert row["change_unrounded"] == pytest.approx(17.4, abs=1e-9)
    assert (row["games"], row["score"], row["k_factor"], row["event"]) == (2, 2.0, 20, "rated")
    assert row["expected_score"] == pytest.approx(1.13, abs=1e-9)
    k_history = ok(api.get(f"{BASE}/players/{c}/k-history/"))
    assert k_history["results"][0] == {
        **k_history["results"][0],
        "k_factor": 40,
        "reason": "new_player",
    }

    ratings = ok(api.get(f"{BASE}/lists/standard/ratings/"))
    names = [r["name"] for r in ratings["results"]]
    assert names[0] == "Boris" or names[0] == "Anna"
    anna = next(r for r in ratings["results"] if r["player"] == a)
    assert (anna["rating"], anna["games"], anna["rated_games"]) == (1867, 2, 47)
    assert [r["rank"] for r in ratings["results"]] == sorted(r["rank"] for r in ratings["results"])
    csv_response = api.get(f"{BASE}/lists/standard/ratings.csv")
    assert csv_response.status_code == 200
    assert csv_response["Content-Type"].startswith("text/csv")
    # The older spelling, kept out of the schema, answers the same file.
    old = api.get(f"{BASE}/lists/standard/ratings/", {"format": "csv"})
    assert old["Content-Type"].startswith("text/csv")
    csv_body = csv_response.getvalue()  # streamed: read once
    assert old.getvalue() == csv_body
    rows = list(csv.DictReader(io.StringIO(csv_body.decode())))
    assert [int(r["player"]) for r in rows] == [r["player"] for r in ratings["results"]]
    assert next(r for r in rows if int(r["player"]) == a)["rating"] == "1867"

    # A correction: the first game was in fact a draw.
    first_game = games[0]["id"]
    refused = api.patch(f"{BASE}/games/{first_game}/", {"result": "1/2-1/2"})
    assert refused.status_code == 409
    assert_error_shape(refused.json())
    reopened = ok(api.post(f"{BASE}/lists/standard/periods/2026-10/reopen/"))
    assert reopened == {"period": "2026-10", "status": "needs_replay", "needs_replay": ["2026-10"]}
    corrected = ok(api.patch(f"{BASE}/games/{first_game}/", {"result": "1/2-1/2"}))
    assert corrected["result"] == "1/2-1/2"
    replay = ok(api.post(f"{BASE}/lists/standard/replay/"))
    assert replay["periods"] == ["2026-10"]
    assert replay["players_changed"] >= 2

    history = ok(api.get(f"{BASE}/players/{a}/history/", {"list": "standard"}))
    (row,) = history["results"]
    # Now 1.5 from 1.13 expected: 20 x 0.37 = 7.4 -> 7.
    assert (row["rating_after"], row["change"]) == (1857, 7)
    ratings = ok(api.get(f"{BASE}/lists/standard/ratings/", {"period": "2026-10"}))
    assert next(r for r in ratings["results"] if r["player"] == a)["rating"] == 1857
    period = ok(api.get(f"{BASE}/lists/standard/periods/2026-10/"))
    assert period["status"] == "closed"

    ok(api.post("/api/v1/auth/logout/"), 204)
    after = api.get(f"{BASE}/players/")
    # The revoked token is refused outright (401), not treated as anonymous.
    assert after.status_code == 401
    assert_error_shape(after.json())


def test_wrong_password_is_a_400_in_the_error_shape() -> None:
    make_user("bob")
    response = APIClient().post("/api/v1/auth/token/", {"username": "bob", "password": "nope"})
    assert response.status_code == 400
    assert_error_shape(response.json())
    assert response.json()["error"]["message"] == "Wrong username or password."


def test_tokens_are_stored_hashed_and_expire_in_30_days() -> None:
    from datetime import timedelta

    from django.utils import timezone

    from players.models import ApiToken as AuthToken

    make_user("frank")
    body = APIClient().post("/api/v1/auth/token/", {"username": "frank", "password": PASSWORD})
    token = body.json()["token"]
    (stored,) = AuthToken.objects.filter(user__username="frank")
    assert token not in (stored.digest, stored.token_key)
    assert len(stored.digest) == 128  # a SHA-512 hex digest
    assert stored.expiry is not None
    assert abs(stored.expiry - (timezone.now() + timedelta(days=30))) < timedelta(minutes=1)


def test_signing_in_writes_the_token_through_the_token_service(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The sign-in view writes no row itself: the token service does (its name and the
    configured lifetime passed in), as for every other token."""
    from datetime import timedelta

    from players.api import auth
    from players.services import tokens

    calls: list[dict[str, Any]] = []

    def recorded(**kwargs: Any) -> Any:
        calls.append(kwargs)
        return tokens.api_token_create(**kwargs)

    monkeypatch.setattr(auth, "api_token_create", recorded)
    make_user("gina")
    response = APIClient().post("/api/v1/auth/token/", {"username": "gina", "password": PASSWORD})
    assert response.status_code == 200
    assert [(c["user"].username, c["name"], c["expiry"]) for c in calls] == [
        ("gina", "Signed in through the API", timedelta(days=30))
    ]


def test_expired_token_is_refused() -> None:
    from datetime import timedelta

    from django.utils import timezone

    from players.models import ApiToken as AuthToken

    user = make_user("carol")
    _, token = AuthToken.objects.create(user, expiry=timedelta(seconds=-1))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = api.get("/api/v1/clubs/")
    assert response.status_code == 401
    assert_error_shape(response.json())
    assert AuthToken.objects.filter(expiry__gt=timezone.now()).count() == 0
