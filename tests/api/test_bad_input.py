"""Bad input on every endpoint: a 4xx in the one error shape, naming the field where one
is to blame, and the database unchanged afterwards (every row compared).

``CASES`` covers every operation of the generated schema; a new operation without bad
input cases fails ``test_every_operation_has_bad_input_cases``.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import pytest
from django.utils import timezone

from players.models import ApiToken as AuthToken
from players.services import player_update
from tests.api.conftest import World, assert_error_shape, client_for, db_snapshot
from tests.api.test_authorization_matrix import OPERATIONS

pytestmark = pytest.mark.django_db

C = "/api/v1/clubs/{club}"


@dataclass(frozen=True)
class Bad:
    method: str
    path: str  # the schema's path template
    status: int
    body: Any = None
    query: dict[str, Any] | None = None
    fields: frozenset[str] = frozenset()  # must be among the error's fields
    # Path values that differ from the defaults (north's first player, its open game...).
    values: Callable[[World], dict[str, Any]] | None = None
    user: str = "owner"  # "owner" of north, or "anonymous"

    def label(self) -> str:
        return f"{self.method} {self.path} {self.body or self.query or ''} -> {self.status}"


def fields(*names: str) -> frozenset[str]:
    return frozenset(names)


GOOD_GAME = {"list": "blitz", "date": "2026-04-05", "result": "1-0"}


def with_players(w: World, **extra: Any) -> dict[str, Any]:
    return {**GOOD_GAME, "white": w.north.players[0].pk, "black": w.north.players[1].pk, **extra}


CASES: list[Bad] = [
    # auth
    Bad("POST", "/api/v1/auth/token/", 400, {"username": "north-owner"}, fields=fields("password")),
    Bad("POST", "/api/v1/auth/token/", 400, {"username": "north-owner", "password": "wrong"}),
    Bad("POST", "/api/v1/auth/token/", 400, ["not", "an", "object"]),
    Bad("POST", "/api/v1/auth/logout/", 401, user="anonymous"),
    Bad("POST", "/api/v1/auth/logout/", 401, user="session-only"),
    Bad(
        "POST",
        "/api/v1/calculate/",
        400,
        {"rating": 5000, "games": [{"opponent_rating": 1500, "result": "1"}]},
        fields=fields("rating"),
    ),
    # oEmbed: the page's address and the sizes, whoever asks
    Bad(
        "GET",
        "/api/v1/oembed/",
        400,
        query={"url": "ftp://testserver/clubs/south/", "maxwidth": 0},
        fields=fields("url", "maxwidth"),
        user="anonymous",
    ),
    # invitations
    Bad("POST", C + "/invitations/", 400, {"role": "viewer"}, fields=fields("email")),
    Bad(
        "POST",
        C + "/invitations/",
        400,
        {"email": "a@example.org", "username": "stranger", "role": "viewer"},
        fields=fields("email"),
    ),
    Bad(
        "POST",
        C + "/invitations/",
        400,
        {"email": "not-an-address", "role": "viewer"},
        fields=fields("email"),
    ),
    # A username no account has is invited like any (the answer must not tell them apart).
    Bad(
        "POST",
        C + "/invitations/",
        400,
        {"username": "north-viewer", "role": "viewer"},
        fields=fields("username"),
    ),
    Bad(
        "POST",
        C + "/invitations/",
        400,
        {"email": "a@example.org", "role": "king"},
        fields=fields("role"),
    ),
    Bad("POST", C + "/invitations/", 400, {"email": "a@example.org"}, fields=fields("role")),
    Bad("POST", C + "/invitations/", 400, ["a@example.org"]),
    Bad(
        "POST",
        C + "/invitations/",
        401,
        {"email": "a@example.org", "role": "viewer"},
        user="anonymous",
    ),
    Bad("GET", C + "/invitations/", 404, query={"page": 99}),
    Bad("GET", C + "/invitations/{id}/", 404, values=lambda w: {"id": 999999}),
    Bad(
        "GET",
        C + "/invitations/{id}/",
        404,
        values=lambda w: {"id": w.south.extra["invitation"].pk},
    ),
    Bad("DELETE", C + "/invitations/{id}/", 404, values=lambda w: {"id": 999999}),
    Bad(
        "DELETE",
        C + "/invitations/{id}/",
        401,
        user="anonymous",
        values=lambda w: {"id": w.north.extra["invitation"].pk},
    ),
    # audit
    Bad("GET", C + "/audit/", 400, query={}, fields=fields("model")),
    Bad("GET", C + "/audit/", 400, query={"model": "ratingchange"}, fields=fields("model")),
    Bad("GET", C + "/audit/", 400, query={"model": "game", "object": "x"}, fields=fields("object")),
    Bad("GET", C + "/audit/", 400, query={"model": "game", "object": 0}, fields=fields("object")),
    Bad("GET", C + "/audit/", 404, query={"model": "game", "page": 99}),
    Bad(
        "POST",
        "/api/v1/calculate/glicko2/",
        400,
        {"rd": 0, "games": [{"opponent_rating": 1500, "result": "1"}]},
        fields=fields("rd"),
    ),
    Bad(
        "POST",
        "/api/v1/calculate/glicko2/",
        400,
        {"games": [{"opponent_rating": 1500, "opponent_rd": 5000, "result": "1"}]},
        fields=fields("games[0].opponent_rd"),
    ),
    # clubs
    Bad("GET", "/api/v1/clubs/", 400, query={"public": "maybe"}, fields=fields("public")),
    Bad("GET", "/api/v1/clubs/", 404, query={"page": 0}),
    Bad("POST", "/api/v1/clubs/", 400, {"slug": "east"}, fields=fields("name")),
    Bad(
        "POST", "/api/v1/clubs/", 400, {"name": "East", "slug": "no spaces"}, fields=fields("slug")
    ),
    Bad("POST", "/api/v1/clubs/", 400, {"name": "Again", "slug": "north"}, fields=fields("slug")),
    Bad(
        "POST",
        "/api/v1/clubs/",
        400,
        {"name": "E", "slug": "e", "public": "x"},
        fields=fields("public"),
    ),
    Bad("GET", C + "/", 404, values=lambda w: {"club": "no-such-club"}),
    Bad("PATCH", C + "/", 400, {"name": ""}, fields=fields("name")),
    Bad("PATCH", C + "/", 400, {"public": "sometimes"}, fields=fields("public")),
    # members
    Bad("GET", C + "/members/", 404, query={"page": 9}),
    # An unknown username is not bad input: it is invited like a known one, and the answer
    # does not tell them apart (tests/accounts/test_member_invitations.py).
    Bad(
        "POST",
        C + "/members/",
        400,
        {"username": "stranger", "role": "king"},
        fields=fields("role"),
    ),
    Bad("GET", C + "/members/{username}/", 404, values=lambda w: {"username": "nobody"}),
    Bad("PATCH", C + "/members/{username}/", 400, {"role": "king"}, fields=fields("role")),
    Bad(
        "PATCH",
        C + "/members/{username}/",
        409,
        {"role": "viewer"},
        values=lambda w: {"username": "north-owner"},
    ),
    Bad("DELETE", C + "/members/{username}/", 409, values=lambda w: {"username": "north-owner"}),
    Bad("DELETE", C + "/members/{username}/", 404, values=lambda w: {"username": "south-viewer"}),
    # claims of player records
    Bad("GET", C + "/claims/", 404, query={"page": 9}),
    Bad("GET", C + "/claims/", 400, query={"page_size": 0}, fields=fields("page_size")),
    Bad("POST", C + "/claims/", 400, {}, fields=fields("player")),
    Bad("POST", C + "/claims/", 400, {"player": "me"}, fields=fields("player")),
    Bad("POST", C + "/claims/", 400, {"player": 999999}, fields=fields("player")),
    Bad("POST", C + "/claims/", 400, {"player": -1}, fields=fields("player")),
    Bad("GET", C + "/claims/{id}/", 404, values=lambda w: {"id": 999999}),
    Bad("GET", C + "/claims/{id}/", 404, values=lambda w: {"id": w.south.extra["claim"].pk}),
    Bad(
        "POST",
        C + "/claims/{id}/decision/",
        400,
        {"decision": "maybe"},
        values=lambda w: {"id": w.north.extra["claim"].pk},
        fields=fields("decision"),
    ),
    Bad(
        "POST",
        C + "/claims/{id}/decision/",
        400,
        {"decision": "decline", "note": "x" * 501},
        values=lambda w: {"id": w.north.extra["claim"].pk},
        fields=fields("note"),
    ),
    Bad(
        "POST",
        C + "/claims/{id}/decision/",
        404,
        {"decision": "approve"},
        values=lambda w: {"id": 999999},
    ),
    Bad("GET", "/api/v1/claims/", 401, user="anonymous"),
    Bad("GET", "/api/v1/claims/", 404, query={"page": 9}),
    # lists
    Bad("GET", C + "/lists/", 404, query={"page": 2}),
    Bad("GET", C + "/lists/{list}/", 404, values=lambda w: {"list": "classical"}),
    Bad(
        "POST",
        C + "/lists/",
        400,
        {"slug": "x", "kind": "bullet", "system": "glicko2"},
        fields=fields("kind"),
    ),
    Bad(
        "POST",
        C + "/lists/",
        400,
        {"slug": "x", "kind": "blitz", "system": "glicko9"},
        fields=fields("system"),
    ),
    Bad(
        "POST",
        C + "/lists/",
        400,
        {"slug": "standard", "kind": "blitz", "system": "glicko2"},
        fields=fields("slug"),
    ),
    Bad(
        "POST",
        C + "/lists/",
        400,
        {"slug": "x", "kind": "blitz", "system": "glicko2", "rd_start": 200, "rd_max": 100},
        fields=fields("rd_max"),
    ),
    Bad(
        "POST",
        C + "/lists/",
        400,
        {"slug": "x", "kind": "blitz", "system": "glicko2", "tau": 0},
        fields=fields("tau"),
    ),
    Bad("PATCH", C + "/lists/{list}/", 400, {"fixed_k": 0}, fields=fields("fixed_k")),
    Bad("PATCH", C + "/lists/{list}/", 400, {"preset": "Nope"}, fields=fields("preset")),
    Bad(
        "PATCH",
        C + "/lists/{list}/",
        400,
        {"k_policy": "fixed", "fixed_k": None},
        fields=fields("fixed_k"),
    ),
    # players
    Bad("GET", C + "/players/", 400, query={"rated": "perhaps"}, fields=fields("rated")),
    Bad("GET", C + "/players/", 400, query={"list": "classical"}, fields=fields("list")),
    Bad("POST", C + "/players/", 400, {"birth_year": 2000}, fields=fields("name")),
    Bad(
        "POST", C + "/players/", 400, {"name": "X", "birth_year": 1700}, fields=fields("birth_year")
    ),
    Bad(
        "POST",
        C + "/players/",
        400,
        {"name": "X", "ratings": [{"list": "classical", "rating": 1500}]},
        fields=fields("ratings[0].list"),
    ),
    Bad(
        "POST",
        C + "/players/",
        400,
        {"name": "X", "ratings": [{"list": "standard", "rating": 5000}]},
        fields=fields("ratings[0].rating"),
    ),
    Bad(
        "POST",
        C + "/players/",
        400,
        {
            "name": "X",
            "ratings": [{"list": "rapid", "rating": 1500}, {"list": "rapid", "rating": 1600}],
        },
        fields=fields("ratings[1].list"),
    ),
    Bad(
        "POST",
        C + "/players/",
        400,
        {"name": "X", "fide_id": 4100018},
        fields=fields("fide_id"),
    ),
    Bad("GET", C + "/players/{id}/", 404, values=lambda w: {"id": 10**20}),
    Bad("PATCH", C + "/players/{id}/", 400, {"name": ""}, fields=fields("name")),
    Bad("PATCH", C + "/players/{id}/", 400, {"user": "nobody"}, fields=fields("user")),
    Bad("PATCH", C + "/players/{id}/", 400, {"user": "south-owner"}, fields=fields("user")),
    Bad("PATCH", C + "/players/{id}/", 400, {"user": ["north-viewer"]}, fields=fields("user")),
    Bad("PATCH", C + "/players/{id}/", 400, {"birth_year": "old"}, fields=fields("birth_year")),
    Bad("PATCH", C + "/players/{id}/", 400, {"title": "Champion"}, fields=fields("title")),
    Bad("DELETE", C + "/players/{id}/", 409),
    Bad("DELETE", C + "/players/{id}/", 404, values=lambda w: {"id": w.south.spare_player.pk}),
    Bad(
        "GET", C + "/players/{id}/history/", 400, query={"list": "classical"}, fields=fields("list")
    ),
    Bad("GET", C + "/players/{id}/history/", 404, values=lambda w: {"id": 10**9}),
    Bad("GET", C + "/players/{id}/k-history/", 400, query={"list": "x"}, fields=fields("list")),
    Bad("GET", C + "/players/{id}/k-history/", 404, query={"page": 5}),
    Bad(
        "POST",
        C + "/players/{id}/k-override/",
        400,
        {"list": "standard", "k": 0},
        fields=fields("k"),
    ),
    Bad(
        "POST", C + "/players/{id}/k-override/", 400, {"k": 30, "note": "x"}, fields=fields("list")
    ),
    Bad(
        "POST",
        C + "/players/{id}/k-override/",
        400,
        {"list": "standard", "k": 30, "note": ""},
        fields=fields("note"),
    ),
    # tournaments
    Bad(
        "GET", C + "/tournaments/", 400, query={"start_after": "soon"}, fields=fields("start_after")
    ),
    Bad(
        "POST",
        C + "/tournaments/",
        400,
        {"name": "T", "list": "standard", "start_date": "2026-04-03", "end_date": "2026-04-01"},
        fields=fields("end_date"),
    ),
    Bad(
        "POST",
        C + "/tournaments/",
        400,
        {"name": "T", "list": "chess960", "start_date": "2026-04-01", "end_date": "2026-04-01"},
        fields=fields("list"),
    ),
    Bad("GET", C + "/tournaments/{id}/", 404, values=lambda w: {"id": w.south.tournament.pk}),
    Bad(
        "PATCH",
        C + "/tournaments/{id}/",
        400,
        {"start_date": "yesterday"},
        fields=fields("start_date"),
    ),
    Bad("PATCH", C + "/tournaments/{id}/", 400, {"rounds": 0}, fields=fields("rounds")),
    Bad("DELETE", C + "/tournaments/{id}/", 404, values=lambda w: {"id": 10**9}),
    # a tournament's entry list and forecast
    Bad(
        "GET", C + "/tournaments/{id}/entries/", 404, values=lambda w: {"id": w.south.tournament.pk}
    ),
    Bad("PUT", C + "/tournaments/{id}/entries/", 400, {}, fields=fields("players")),
    Bad(
        "PUT",
        C + "/tournaments/{id}/entries/",
        400,
        {"players": ["x"]},
        fields=fields("players[0]"),
    ),
    Bad(
        "PUT", C + "/tournaments/{id}/entries/", 400, {"players": [10**9]}, fields=fields("players")
    ),
    Bad(
        "PUT",
        C + "/tournaments/{id}/entries/",
        404,
        {"players": []},
        values=lambda w: {"id": 10**9},
    ),
    Bad(
        "GET",
        C + "/tournaments/{id}/forecast/",
        404,
        values=lambda w: {"id": w.south.tournament.pk},
    ),
    Bad("GET", C + "/players/{id}/forecast/", 400, query={}, fields=fields("opponent")),
    Bad(
        "GET",
        C + "/players/{id}/forecast/",
        400,
        query={"opponent": "x"},
        fields=fields("opponent"),
    ),
    Bad(
        "GET",
        C + "/players/{id}/forecast/",
        400,
        query={"opponent": 10**9},
        fields=fields("opponent"),
    ),
    Bad(
        "GET",
        C + "/players/{id}/forecast/",
        400,
        query={"opponent": 1, "list": "classical"},
        fields=fields("list"),
    ),
    Bad(
        "GET",
        C + "/players/{id}/forecast/",
        404,
        query={"opponent": 1},
        values=lambda w: {"id": 10**9},
    ),
    # games
    Bad("GET", C + "/games/", 400, query={"period": "January"}, fields=fields("period")),
    Bad("GET", C + "/games/", 400, query={"player": "abc"}, fields=fields("player")),
    Bad("POST", C + "/games/", 400, {**GOOD_GAME, "white": 1}, fields=fields("black")),
    Bad("POST", C + "/games/", 400, "just a string"),
    Bad("GET", C + "/players/duplicates/", 404, values=lambda w: {"club": "no-such-club"}),
    Bad("POST", C + "/players/{id}/merge/", 400, {}, fields=fields("duplicate")),
    Bad("POST", C + "/players/{id}/merge/", 400, {"duplicate": "x"}, fields=fields("duplicate")),
    Bad(
        "POST", C + "/players/{id}/merge/", 400, {"duplicate": 99999999}, fields=fields("duplicate")
    ),
    # After tomorrow or before 1900: 9999-12-31 once opened a period 9999-12, after which
    # the periods API answered 500 for everyone.
    Bad("PATCH", C + "/games/{id}/", 400, {"date": "9999-12-31"}, fields=fields("date")),
    Bad("POST", C + "/lists/{list}/periods/", 400, {"period": "9999-12"}, fields=fields("period")),
    Bad("POST", C + "/lists/{list}/periods/", 400, {"period": "1899-12"}, fields=fields("period")),
    # imports take multipart only; its multipart bad input is in test_imports_api.py
    Bad("POST", C + "/imports/", 415, {"format": "trf", "list": "standard"}),
    Bad("POST", C + "/fide-list/", 415, {"dry_run": True}),
    Bad("POST", C + "/games/", 400, [], fields=fields("games")),
    Bad("POST", C + "/games/", 400, {"result": "2-0"}, fields=fields("result", "date")),
    Bad("GET", C + "/games/{id}/", 404, values=lambda w: {"id": w.south.open_game.pk}),
    Bad("PATCH", C + "/games/{id}/", 400, {"result": "win"}, fields=fields("result")),
    Bad("PATCH", C + "/games/{id}/", 400, {"date": "2026-02-30"}, fields=fields("date")),
    Bad(
        "PATCH",
        C + "/games/{id}/",
        409,
        {"result": "0-1"},
        values=lambda w: {"id": w.north.closed_game.pk},
    ),
    Bad("DELETE", C + "/games/{id}/", 409, values=lambda w: {"id": w.north.closed_game.pk}),
    # periods and the list
    Bad("GET", C + "/lists/{list}/periods/", 404, values=lambda w: {"list": "bullet"}),
    Bad("POST", C + "/lists/{list}/periods/", 400, {"period": "2026-13"}, fields=fields("period")),
    Bad("POST", C + "/lists/{list}/periods/", 400, {"period": "Jan 2026"}, fields=fields("period")),
    Bad("POST", C + "/lists/{list}/periods/", 409, {"period": "2026-02"}),
    Bad("GET", C + "/lists/{list}/periods/{period}/", 404, values=lambda w: {"period": "2026-13"}),
    Bad("GET", C + "/lists/{list}/periods/{period}/", 404, values=lambda w: {"period": "2031-01"}),
    Bad(
        "GET",
        C + "/lists/{list}/periods/{period}/preview/",
        404,
        values=lambda w: {"period": "1999-01"},
    ),
    Bad(
        "POST",
        C + "/lists/{list}/periods/{period}/close/",
        409,
        values=lambda w: {"period": "2026-01"},
        fields=fields("status"),
    ),
    Bad("POST", C + "/lists/{list}/periods/{period}/close/", 404, values=lambda w: {"period": "x"}),
    Bad("POST", C + "/lists/{list}/periods/{period}/reopen/", 409, fields=fields("status")),
    Bad("POST", C + "/lists/{list}/replay/", 409),
    Bad("POST", C + "/lists/{list}/replay/", 400, query={"wait": "soon"}, fields=fields("wait")),
    Bad(
        "POST",
        C + "/lists/{list}/periods/{period}/close/",
        400,
        query={"wait": 31},
        fields=fields("wait"),
    ),
    Bad("POST", C + "/lists/{list}/history-export/", 404, values=lambda w: {"list": "bullet"}),
    Bad(
        "POST", C + "/lists/{list}/history-export/", 400, query={"wait": -1}, fields=fields("wait")
    ),
    Bad("POST", C + "/export/", 400, query={"wait": "soon"}, fields=fields("wait")),
    Bad("POST", C + "/export/", 404, values=lambda w: {"club": "no-such-club"}),
    Bad(
        "GET",
        "/api/v1/jobs/{id}/",
        404,
        values=lambda w: {"id": "00000000-0000-0000-0000-000000000000"},
    ),
    Bad(
        "GET",
        "/api/v1/jobs/{id}/download/",
        404,
        values=lambda w: {"id": "00000000-0000-0000-0000-000000000000"},
    ),
    Bad(
        "GET",
        C + "/lists/{list}/ratings/",
        400,
        query={"period": "2026/01"},
        fields=fields("period"),
    ),
    Bad("GET", C + "/lists/{list}/ratings/", 404, query={"period": "2026-02"}),
    Bad("GET", C + "/lists/{list}/ratings/", 404, query={"period": "2026-02", "format": "csv"}),
    Bad(
        "GET",
        C + "/lists/{list}/ratings.csv",
        400,
        query={"period": "2026/01"},
        fields=fields("period"),
    ),
    Bad("GET", C + "/lists/{list}/ratings.csv", 404, query={"period": "2026-02"}),
    # the paged changes of a closed period
    Bad(
        "GET",
        C + "/lists/{list}/periods/{period}/changes/",
        404,
        values=lambda w: {"period": "2031-01"},
    ),
    Bad(
        "GET",
        C + "/lists/{list}/periods/{period}/changes/",
        404,
        values=lambda w: {"period": "2026-13"},
    ),
    Bad(
        "GET",
        C + "/lists/{list}/periods/{period}/changes/",
        404,
        query={"page": 99},
        values=lambda w: {"period": "2026-01"},
    ),
    # live ratings
    Bad("GET", C + "/lists/{list}/statistics/", 404, values=lambda w: {"list": "bullet"}),
    Bad("GET", C + "/lists/{list}/live/", 404, values=lambda w: {"list": "bullet"}),
    Bad(
        "GET", C + "/lists/{list}/live/", 400, query={"active": "perhaps"}, fields=fields("active")
    ),
    Bad(
        "GET", C + "/lists/{list}/live/", 400, query={"ordering": "age"}, fields=fields("ordering")
    ),
    Bad("GET", C + "/lists/{list}/live/", 404, query={"page": 99}),
    Bad("GET", C + "/lists/{list}/live.csv", 404, values=lambda w: {"list": "bullet"}),
    Bad(
        "GET", C + "/lists/{list}/live.csv", 400, query={"played": "maybe"}, fields=fields("played")
    ),
    Bad("GET", C + "/players/{id}/live/", 400, query={"list": "classical"}, fields=fields("list")),
    Bad("GET", C + "/players/{id}/live/", 404, values=lambda w: {"id": 10**9}),
    Bad("GET", C + "/players/{id}/live/", 404, values=lambda w: {"id": w.south.players[0].pk}),
    # webhooks
    Bad("GET", C + "/webhooks/", 404, query={"page": 9}),
    Bad("POST", C + "/webhooks/", 400, {"events": ["period.closed"]}, fields=fields("url")),
    Bad(
        "POST",
        C + "/webhooks/",
        400,
        {"url": "ftp://example.org/", "events": ["period.closed"]},
        fields=fields("url"),
    ),
    Bad(
        "POST",
        C + "/webhooks/",
        400,
        {"url": "http://127.0.0.1/hook", "events": ["period.closed"]},
        fields=fields("url"),
    ),
    Bad(
        "POST",
        C + "/webhooks/",
        400,
        {"url": "https://93.184.215.14/hook", "events": ["period.exploded"]},
        fields=fields("events"),
    ),
    Bad(
        "POST",
        C + "/webhooks/",
        401,
        {"url": "https://93.184.215.14/hook", "events": ["period.closed"]},
        user="anonymous",
    ),
    Bad("GET", C + "/webhooks/{id}/", 404, values=lambda w: {"id": 999999}),
    Bad(
        "GET",
        C + "/webhooks/{id}/",
        404,
        values=lambda w: {"id": w.south.extra["webhook"].pk},
    ),
    Bad(
        "PATCH",
        C + "/webhooks/{id}/",
        400,
        {"url": "http://10.0.0.1/"},
        fields=fields("url"),
        values=lambda w: {"id": w.north.extra["webhook"].pk},
    ),
    Bad(
        "PATCH",
        C + "/webhooks/{id}/",
        400,
        {"events": []},
        fields=fields("events"),
        values=lambda w: {"id": w.north.extra["webhook"].pk},
    ),
    Bad(
        "PATCH",
        C + "/webhooks/{id}/",
        400,
        {"active": "perhaps"},
        fields=fields("active"),
        values=lambda w: {"id": w.north.extra["webhook"].pk},
    ),
    Bad("DELETE", C + "/webhooks/{id}/", 404, values=lambda w: {"id": 999999}),
    Bad(
        "DELETE",
        C + "/webhooks/{id}/",
        401,
        user="anonymous",
        values=lambda w: {"id": w.north.extra["webhook"].pk},
    ),
    Bad("POST", C + "/webhooks/{id}/ping/", 404, values=lambda w: {"id": 999999}),
    Bad(
        "POST",
        C + "/webhooks/{id}/ping/",
        404,
        values=lambda w: {"id": w.south.extra["webhook"].pk},
    ),
    Bad("GET", C + "/webhooks/{id}/deliveries/", 404, values=lambda w: {"id": 999999}),
    Bad(
        "GET",
        C + "/webhooks/{id}/deliveries/",
        400,
        query={"status": "exploded"},
        fields=fields("status"),
        values=lambda w: {"id": w.north.extra["webhook"].pk},
    ),
    Bad(
        "GET",
        C + "/webhooks/{webhook}/deliveries/{id}/",
        404,
        values=lambda w: {
            "webhook": w.north.extra["webhook"].pk,
            "id": "00000000-0000-0000-0000-000000000000",
        },
    ),
    Bad(
        "GET",
        C + "/webhooks/{webhook}/deliveries/{id}/",
        404,
        values=lambda w: {
            "webhook": w.north.extra["webhook"].pk,
            "id": w.south.extra["delivery"].pk,
        },
    ),
    Bad(
        "POST",
        C + "/webhooks/{webhook}/deliveries/{id}/redeliver/",
        404,
        values=lambda w: {
            "webhook": 999999,
            "id": w.north.extra["delivery"].pk,
        },
    ),
    Bad(
        "POST",
        C + "/webhooks/{webhook}/deliveries/{id}/redeliver/",
        404,
        values=lambda w: {
            "webhook": w.north.extra["webhook"].pk,
            "id": "00000000-0000-0000-0000-000000000000",
        },
    ),
]


def test_every_operation_has_bad_input_cases() -> None:
    covered = {(case.method, case.path) for case in CASES}
    assert set(OPERATIONS) <= covered, sorted(set(OPERATIONS) - covered)


def build_url(case: Bad, world: World) -> str:
    north = world.north
    values: dict[str, Any] = {
        "club": north.slug,
        "list": "standard",
        "period": "2026-02",
        "username": north.users["viewer"].username,
        "id": north.players[0].pk,
    }
    if "/games/{id}" in case.path:
        values["id"] = north.open_game.pk
    if "/tournaments/{id}" in case.path:
        values["id"] = north.tournament.pk
    if case.values is not None:
        values.update(case.values(world))
    return case.path.format(**values)


def body_for(case: Bad, world: World) -> Any:
    body = case.body
    if isinstance(body, dict) and body.get("white") == 1:
        # White names a real player; black is missing.
        return {**body, "white": world.north.players[0].pk}
    return body


@pytest.mark.parametrize("case", CASES, ids=[case.label() for case in CASES])
def test_bad_input_is_refused_cleanly(world: World, case: Bad) -> None:
    if case.user == "anonymous":
        client = client_for(None)
    elif case.user == "session-only":
        # Signed in by session: there is no token to revoke.
        client = client_for(None)
        client.force_login(world.north.users["owner"])
    else:
        client = client_for(None)
        _, token = AuthToken.objects.create(world.north.users["owner"])
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    if isinstance(case.body, dict) and "fide_id" in case.body:
        # A second player may not take a FIDE ID the club already uses.
        player_update(player=world.north.players[0], by=world.north.users["owner"], fide_id=4100018)
    url = build_url(case, world)
    before = db_snapshot()
    method = getattr(client, case.method.lower())
    if case.query is not None and case.method == "GET":
        response = method(url, case.query)
    elif case.query is not None:
        response = method(f"{url}?{urlencode(case.query)}", format="json")
    else:
        response = method(url, body_for(case, world), format="json")
    assert response.status_code == case.status, response.content[:400]
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert_error_shape(body)
    assert case.fields <= set(body["error"]["fields"]), body
    assert db_snapshot() == before, "a refused request changed the database"


def test_bulk_games_are_all_or_nothing(world: World) -> None:
    """Nine good games and one naming a player of another club: none is stored."""
    north, south = world.north, world.south
    games = [with_players(world, date=f"2026-04-{day:02d}") for day in range(1, 10)] + [
        with_players(world, black=south.players[0].pk)
    ]
    before = db_snapshot()
    response = client_for(north.users["arbiter"]).post(
        f"/api/v1/clubs/{north.slug}/games/", games, format="json"
    )
    assert response.status_code == 400
    assert_error_shape(response.json())
    assert set(response.json()["error"]["fields"]) == {"[9].black"}
    assert db_snapshot() == before


@pytest.mark.parametrize("day", ["9999-12-31", "1899-12-31", "after-tomorrow"])
def test_game_dates_out_of_bounds_are_refused_naming_date(world: World, day: str) -> None:
    if day == "after-tomorrow":
        day = (timezone.localdate() + datetime.timedelta(days=2)).isoformat()
    before = db_snapshot()
    response = client_for(world.north.users["arbiter"]).post(
        f"/api/v1/clubs/{world.north.slug}/games/", with_players(world, date=day), format="json"
    )
    assert response.status_code == 400
    assert_error_shape(response.json())
    assert set(response.json()["error"]["fields"]) == {"date"}
    assert db_snapshot() == before
    # The periods API still answers for everyone.
    assert client_for(None).get(
        f"/api/v1/clubs/{world.south.slug}/lists/standard/periods/"
    ).status_code in (200, 404)


@pytest.mark.parametrize("day", ["9999-12-31", "1899-12-31", "after-tomorrow"])
def test_a_bulk_create_with_a_date_out_of_bounds_is_refused_naming_its_date(
    world: World, day: str
) -> None:
    """Three good games and one dated out of bounds (the fourth): none is stored."""
    if day == "after-tomorrow":
        day = (timezone.localdate() + datetime.timedelta(days=2)).isoformat()
    games = [with_players(world, date=f"2026-04-{n:02d}") for n in (1, 2, 3)]
    games.append(with_players(world, date=day))
    before = db_snapshot()
    response = client_for(world.north.users["arbiter"]).post(
        f"/api/v1/clubs/{world.north.slug}/games/", games, format="json"
    )
    assert response.status_code == 400
    assert_error_shape(response.json())
    assert set(response.json()["error"]["fields"]) == {"[3].date"}
    assert db_snapshot() == before


def test_a_game_of_tomorrow_is_accepted(world: World) -> None:
    tomorrow = timezone.localdate() + datetime.timedelta(days=1)
    response = client_for(world.north.users["arbiter"]).post(
        f"/api/v1/clubs/{world.north.slug}/games/",
        with_players(world, date=tomorrow.isoformat()),
        format="json",
    )
    assert response.status_code == 201, response.json()
