"""A Glicko-2 list through the API: the owner adds it, players are entered with r, RD and
volatility, a month is closed, and the history, the ratings list and its CSV carry RD."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.api.conftest import make_user

pytestmark = pytest.mark.django_db
BASE = "/api/v1/clubs/online"


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, (response.status_code, response.content[:500])
    return response.json() if response.content else None


def test_a_glicko2_list_through_the_api() -> None:
    owner = make_user("owner")
    api = APIClient()
    api.force_login(owner)
    ok(api.post("/api/v1/clubs/", {"name": "Online", "slug": "online"}), 201)
    body = {"slug": "arena", "name": "Arena", "kind": "blitz", "system": "glicko2"}
    created = ok(
        api.post(f"{BASE}/lists/", {**body, "tau": 0.6, "rd_max": 400}, format="json"), 201
    )
    assert created["list"] == "arena"
    assert created["system"] == "glicko2"
    assert (created["tau"], created["rd_start"], created["rd_min"], created["rd_max"]) == (
        0.6,
        350,
        0,
        400,
    )
    slugs = [row["list"] for row in ok(api.get(f"{BASE}/lists/"))["results"]]
    assert sorted(slugs) == ["arena", "blitz", "rapid", "standard"]

    def player(name: str, **entry: Any) -> int:
        ratings = [{"list": "arena", **entry}] if entry else []
        made = ok(
            api.post(f"{BASE}/players/", {"name": name, "ratings": ratings}, format="json"), 201
        )
        arena = next(r for r in made["ratings"] if r["list"] == "arena")
        assert arena["rd"] is not None
        return int(made["id"])

    me = player("Me", rating=1500, rd=200, volatility=0.06)
    a = player("A", rating=1400, rd=30)
    b = player("B", rating=1550, rd=100)
    c = player("C", rating=1700, rd=300)
    fresh = player("Fresh")
    games = [
        {"list": "arena", "date": "2026-10-03", "white": me, "black": a, "result": "1-0"},
        {"list": "arena", "date": "2026-10-04", "white": b, "black": me, "result": "1-0"},
        {"list": "arena", "date": "2026-10-05", "white": me, "black": c, "result": "0-1"},
    ]
    ok(api.post(f"{BASE}/games/", games, format="json"), 201)
    ok(api.post(f"{BASE}/lists/arena/periods/2026-10/close/"))

    history = ok(api.get(f"{BASE}/players/{me}/history/", {"list": "arena"}))["results"]
    row = history[0]
    assert (row["rating_before"], row["rating_after"], row["games"], row["score"]) == (
        1500,
        1464,
        3,
        1,
    )
    assert (row["rd_before"], row["rd_after"], row["volatility_before"]) == (200, 151.52, 0.06)
    assert row["volatility_after"] == pytest.approx(0.05999, abs=0.00001)
    # A new player (1500 / 350 / 0.06) without games: RD grows (under the list's cap 400).
    new = ok(api.get(f"{BASE}/players/{fresh}/history/", {"list": "arena"}))["results"][0]
    assert (new["rating_after"], new["rd_before"], new["rd_after"]) == (1500, 350, 350.16)

    ratings = ok(api.get(f"{BASE}/lists/arena/ratings/"))["results"]
    assert {r["player"]: (r["rating"], r["rd"]) for r in ratings}[me] == (1464, 151.52)
    text = api.get("/clubs/online/lists/arena/export.csv").content.decode()
    table = list(csv.DictReader(io.StringIO(text)))
    mine = next(line for line in table if line["name"] == "Me")
    assert (mine["rating"], mine["rd"]) == ("1464", "151.52")
    # The FIDE lists' CSV keeps its columns.
    assert ok(api.get(f"{BASE}/lists/standard/"))["system"] == "fide"


def test_a_new_list_takes_its_name_order_and_keeps_its_preset() -> None:
    owner = make_user("owner")
    api = APIClient()
    api.force_login(owner)
    ok(api.post("/api/v1/clubs/", {"name": "Online", "slug": "online"}), 201)
    body = {"slug": "arena", "kind": "blitz", "system": "glicko2"}
    bad = api.post(f"{BASE}/lists/", {**body, "name_order": "backwards"}, format="json")
    assert bad.status_code == 400
    assert bad.json()["error"]["fields"].keys() == {"name_order"}
    created = ok(
        api.post(f"{BASE}/lists/", {**body, "name_order": "surname_given"}, format="json"), 201
    )
    assert created["name_order"] == "surname_given"
    assert created["preset"] != ""
