"""Bad values in every path parameter of every URL pattern (enumerated from the URL
configuration, admin included): a NUL byte, 300 characters, Unicode look-alikes of a
good value, and bytes that are not UTF-8 (``ff fe``, an encoded surrogate ``ed a0 80``,
the overlong ``c0 af``), signed in and (the bytes) anonymous. None is a server error;
under /api/ a refusal is in the error shape.

(Bodies over the limits: tests/api/test_body_limits.py.)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from tests.api.conftest import World, assert_error_shape

pytestmark = pytest.mark.django_db

PARAMETER = re.compile(r"<(?:(?P<converter>\w+):)?(?P<name>\w+)>|\(\?P<(?P<group>\w+)>[^)]*\)")
# Latin letters and digits and a look-alike of each (Cyrillic, full-width digits).
LOOK_ALIKES = str.maketrans(
    "aceiopxyABCEHKMOPTX0123456789",
    "асеіорхуАВСЕНКМОРТХ０１２３４５６７８９",  # noqa: RUF001 - look-alikes on purpose
)


def routes() -> Iterator[str]:
    def walk(patterns: list[Any], prefix: str) -> Iterator[str]:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                yield prefix + str(pattern.pattern)

    for route in walk(get_resolver().url_patterns, ""):
        route = route.replace("^", "").replace("$", "").replace("\\Z", "").replace("\\", "")
        if PARAMETER.search(route):
            yield route


def good_values(world: World) -> dict[str, str]:
    north = world.north
    return {
        "club": north.slug,
        "list": "standard",
        "kind": "standard",
        "period": "2026-01",
        "month": "2026-01",
        "username": north.users["viewer"].username,
        "player_id": str(north.players[0].pk),
        "opponent_id": str(north.players[1].pk),
        "tournament_id": str(north.tournament.pk),
        "id": str(north.players[0].pk),
        "webhook": str(north.extra["webhook"].pk),
        "object_id": "1",
        "invitation_id": "1",
        "claim_id": str(north.extra["claim"].pk),
        "content_type_id": "1",
        "app_label": "players",
        "model": "ratingperiod",
        "rest": "1/change/",
        "url": "players/club/1/change/",
        "digest": "0" * 64,
        "secret": "s" * 43,
        "uidb64": "MQ",
        "token": "set-password",
    }


# Not UTF-8: a segment the server decodes, as WSGI does, into these bytes.
NOT_UTF8 = ["%FF%FE", "%ED%A0%80", "%C0%AF"]


def bad_values(good: str) -> list[str]:
    return [
        "%00",
        good[:1] + "%00" + good[1:],
        "x" * 300,
        "9" * 300,
        quote(good.translate(LOOK_ALIKES)),
        *not_utf8(good),
    ]


def not_utf8(good: str) -> list[str]:
    return [*NOT_UTF8, good + NOT_UTF8[1]]


def paths(
    world: World, bad_values: Callable[[str], list[str]] = bad_values
) -> Iterator[tuple[str, str]]:
    values = good_values(world)
    for route in routes():
        names = [m["name"] or m["group"] for m in PARAMETER.finditer(route)]
        for bad_name in names:
            for bad in bad_values(values[bad_name]):

                def fill(match: re.Match[str], bad_name: str = bad_name, bad: str = bad) -> str:
                    name = match["name"] or match["group"]
                    return bad if name == bad_name else values[name]

                yield route, "/" + PARAMETER.sub(fill, route)


@pytest.fixture
def clients(world: World) -> dict[str, Any]:
    root = get_user_model().objects.create_superuser("root-bad-paths", password="x" * 20)
    site, admin, api = Client(raise_request_exception=False), Client(), APIClient()
    site.force_login(world.north.users["owner"])
    admin.force_login(root)
    api.force_authenticate(world.north.users["owner"])
    admin.raise_request_exception = False
    api.raise_request_exception = False
    return {"site": site, "admin": admin, "api": api}


@pytest.fixture
def anonymous() -> dict[str, Any]:
    site, api = Client(raise_request_exception=False), APIClient(raise_request_exception=False)
    return {"site": site, "admin": site, "api": api}


def test_every_path_parameter_refuses_bad_values_without_a_server_error(
    world: World, clients: dict[str, Any]
) -> None:
    assert_no_server_error(paths(world), clients)


def test_bytes_that_are_not_utf8_in_a_path_are_no_server_error_to_anyone(
    world: World, anonymous: dict[str, Any]
) -> None:
    assert_no_server_error(paths(world, not_utf8), anonymous)


def assert_no_server_error(requests: Iterator[tuple[str, str]], clients: dict[str, Any]) -> None:
    failures = []
    seen = 0
    for route, path in requests:
        kind = (
            "api" if path.startswith("/api/") else "admin" if path.startswith("/admin/") else "site"
        )
        for method in ("get", "post"):
            response = getattr(clients[kind], method)(path)
            seen += 1
            if response.status_code >= 500:
                failures.append(f"{method.upper()} {path[:120]} ({route}): {response.status_code}")
            elif kind == "api" and response.status_code >= 400:
                if response.get("Content-Type") != "application/json":
                    failures.append(f"{method.upper()} {path[:120]}: not in the error shape")
                else:
                    assert_error_shape(response.json())
    assert seen > 500
    assert not failures, "\n".join(failures)
