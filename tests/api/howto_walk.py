"""Every URL of the site with a how-to's new rating system or list kind present.

Not part of the suite (no ``test_`` in its name): tests/test_howtos.py runs it with pytest
inside a copy of the project that followed a how-to, with ``HOWTO_SYSTEM`` (a list of the
new system is created) or ``HOWTO_KIND`` (every new club has a list of the new kind). The
URLs come from the URL configuration, each parameter filled with a good value of the
world (tests/api/conftest.py), ``<list>`` and ``<kind>`` with the new list's; each is
requested as its floor's signed-in user (the owner; a superuser in the admin).
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterator
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from players.models import RatingList, RatingPeriod
from players.services import rating_list_create
from tests.api.conftest import World
from tests.api.test_bad_paths import PARAMETER, clients, good_values
from tournaments.services import game_create, period_close

__all__ = ["clients"]  # the fixture, from the bad paths' matrix

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="session")
def django_db_setup() -> None:
    """The database the how-to migrated (``DATABASE_URL``), not a test database made
    afresh: the walk sees the schema the how-to's migration left, and no second database
    is created and dropped. The world is flushed after the walk."""


def routes() -> Iterator[str]:
    def walk(patterns: list[Any], prefix: str) -> Iterator[str]:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                yield prefix + str(pattern.pattern)

    for route in walk(get_resolver().url_patterns, ""):
        yield route.replace("^", "").replace("$", "").replace("\\Z", "").replace("\\", "")


def the_new_list(world: World) -> RatingList:
    """The new system's list (created) or the new kind's (the club's own), with a closed
    month of games."""
    north = world.north
    owner = north.users["owner"]
    if os.environ.get("HOWTO_SYSTEM"):
        the_list = rating_list_create(
            club=north.club,
            by=owner,
            slug="howto",
            name="How-to",
            kind="standard",
            system=os.environ["HOWTO_SYSTEM"],
        )
    else:
        the_list = RatingList.objects.get(club=north.club, kind=os.environ["HOWTO_KIND"])
    one, two, three = north.players[:3]
    for day, white, black, result in (
        (10, one, two, "1-0"),
        (11, two, three, "1/2-1/2"),
        (12, three, one, "0-1"),
    ):
        game_create(
            club=north.club,
            by=owner,
            list=the_list.slug,
            date=datetime.date(2026, 1, day),
            white=white.pk,
            black=black.pk,
            result=result,
        )
    period_close(period=RatingPeriod.objects.get(rating_list=the_list), by=north.users["officer"])
    return the_list


def test_every_url_answers_without_a_server_error(world: World, clients: dict[str, Any]) -> None:
    the_list = the_new_list(world)
    values = {**good_values(world), "list": the_list.slug, "kind": the_list.kind}
    failures = []
    seen = 0
    for route in routes():
        path = "/" + PARAMETER.sub(lambda m: values[m["name"] or m["group"]], route)
        floor = (
            "api" if path.startswith("/api/") else "admin" if path.startswith("/admin/") else "site"
        )
        response = clients[floor].get(path)
        seen += 1
        if response.status_code >= 500:
            failures.append(f"GET {path} ({route}): {response.status_code}")
    assert seen > 100
    assert not failures, "\n".join(failures)
