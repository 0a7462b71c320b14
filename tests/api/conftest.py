"""Two clubs built through the services, for the API tests.

``north`` is private, ``south`` public. Each has an owner, officer, arbiter and viewer,
players with and without ratings, a closed standard period (2026-01) and an open one with
games (2026-02), a rapid period that was closed and reopened (needs a replay), a
tournament without games and a player without games (both deletable), and an open
invitation by email (``extra['invitation']``), a member who is none of the four roles'
users (``extra['claimant']``, a viewer) with a claim of the unrated player waiting
(``extra['claim']``), a webhook (``extra['webhook']``) with one
finished delivery (``extra['delivery']``).
"""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, connection
from rest_framework.test import APIClient

from players import services as player_services
from players.models import Club, Player, RatingPeriod, Role, WebhookDelivery
from players.webhooks import webhook_create
from tests.conftest import built_once_per_module
from tournaments import services as game_services
from tournaments.models import Game, Tournament

ROLES = ("owner", "officer", "arbiter", "viewer")
PASSWORD = "a-long-test-password-42"


@dataclass
class ClubWorld:
    club: Club
    users: dict[str, Any]
    players: list[Player]
    spare_player: Player
    tournament: Tournament
    open_game: Game
    closed_game: Game
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def slug(self) -> str:
        return self.club.slug


def make_user(username: str) -> Any:
    return get_user_model().objects.create_user(username=username, password=PASSWORD)


def build_club(slug: str, *, public: bool) -> ClubWorld:
    users = {role: make_user(f"{slug}-{role}") for role in ROLES}
    owner = users["owner"]
    club = player_services.club_create(name=slug.title(), slug=slug, public=public, by=owner)
    for role in ("officer", "arbiter", "viewer"):
        player_services.membership_set(club=club, user=users[role], role=Role(role), by=owner)
    ratings = [2100, 1950, 1800, None]
    players = [
        player_services.player_create(
            club=club,
            by=owner,
            name=f"{slug.title()} Player {index}",
            birth_year=1990,
            ratings=[
                {"list": kind, "rating": rating, "rated_games": 40, "reached_2400": False}
                for kind in ("standard", "rapid", "blitz")
            ]
            if rating is not None
            else [],
        )
        for index, rating in enumerate(ratings, start=1)
    ]
    p1, p2, p3, _ = players

    def game(kind: str, day: datetime.date, white: Player, black: Player, result: str) -> Game:
        return game_services.game_create(
            club=club, by=owner, list=kind, date=day, white=white.pk, black=black.pk, result=result
        )

    closed_game = game("standard", datetime.date(2026, 1, 10), p1, p2, "1-0")
    game("standard", datetime.date(2026, 1, 11), p2, p3, "1/2-1/2")
    january = RatingPeriod.objects.get(rating_list__club=club, rating_list__kind="standard")
    game_services.period_close(period=january, by=users["officer"])
    open_game = game("standard", datetime.date(2026, 2, 7), p1, p3, "0-1")
    game("standard", datetime.date(2026, 2, 8), p2, p1, "1-0")
    game("rapid", datetime.date(2026, 1, 15), p1, p2, "1-0")
    rapid = RatingPeriod.objects.get(rating_list__club=club, rating_list__kind="rapid")
    game_services.period_close(period=rapid, by=users["officer"])
    game_services.period_reopen(period=rapid, by=users["officer"])
    # Created after the closes, so it has no published rows and can be deleted.
    spare = player_services.player_create(club=club, by=owner, name=f"{slug.title()} Spare")
    tournament = game_services.tournament_create(
        club=club,
        by=owner,
        name=f"{slug.title()} Blitz Cup",
        rating_list="blitz",
        start_date=datetime.date(2026, 3, 1),
        end_date=datetime.date(2026, 3, 2),
    )
    invitation, _ = player_services.invitation_create(
        club=club,
        by=owner,
        role=Role.VIEWER,
        email=f"guest@{slug}.example",
        accept_url=lambda secret: f"https://testserver/accounts/invitations/{secret}/",
    )
    claimant = make_user(f"{slug}-claimant")
    player_services.membership_set(club=club, user=claimant, role=Role.VIEWER, by=owner)
    claim = player_services.claim_create(club=club, player_id=players[3].pk, by=claimant)
    # Last, and switched off: no event of a test that commits (a live server) is sent to
    # it; a ping still would be.
    webhook = webhook_create(
        club=club,
        by=owner,
        url=f"https://93.184.215.14/{slug}",
        events=["period.closed"],
        active=False,
    )
    # A finished delivery (redeliverable); written directly, as no receiver answers here.
    delivery = WebhookDelivery.objects.create(
        webhook=webhook,
        event="period.closed",
        event_id=uuid.uuid4(),
        body="{}",
        status=WebhookDelivery.Status.SUCCEEDED,
        tries=1,
        response_code=200,
    )
    return ClubWorld(
        club=club,
        users=users,
        players=players,
        spare_player=spare,
        tournament=tournament,
        open_game=open_game,
        closed_game=closed_game,
        extra={
            "invitation": invitation,
            "webhook": webhook,
            "delivery": delivery,
            "claimant": claimant,
            "claim": claim,
        },
    )


@dataclass
class World:
    north: ClubWorld  # private
    south: ClubWorld  # public
    stranger: Any  # signed in, member of no club

    def other(self, club: ClubWorld) -> ClubWorld:
        return self.south if club is self.north else self.north


def build_world() -> World:
    return World(
        north=build_club("north", public=False),
        south=build_club("south", public=True),
        stranger=make_user("stranger"),
    )


# Built once per test module and committed: building it per test would cost most of the
# matrix's time. Its jobs go where the settings send them rather than running at once: the
# API tests were written against the world built that way.
_built_for_module, world = built_once_per_module("world", build_world, jobs_at_once=False)


@pytest.fixture(autouse=True)
def _clear_throttles() -> None:
    cache.clear()


@pytest.fixture
def api() -> APIClient:
    return APIClient()


def client_for(user: Any | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def assert_error_shape(body: Any) -> None:
    assert isinstance(body, dict), body
    assert set(body) == {"error"}, body
    error = body["error"]
    assert set(error) == {"code", "message", "fields"}, error
    assert isinstance(error["code"], str)
    assert error["code"]
    assert isinstance(error["message"], str)
    assert error["message"]
    assert isinstance(error["fields"], dict)
    for name, messages in error["fields"].items():
        assert isinstance(name, str)
        assert isinstance(messages, list)
        assert all(isinstance(m, str) for m in messages)


def db_snapshot() -> dict[str, list[str]]:
    """Every row of the project's tables (and users and tokens), to compare around a
    request that must change nothing; row counts alone would miss an update. A token's
    "last used" stamp is left out: using a token is not a change of data.

    Jobs are left out: a refusal that only the work itself finds (closing a closed
    period) is the answer of a job, which stays as the record of what was asked. Input
    the view can check stores no job (tests/api/test_jobs_api.py)."""
    models = [
        *(m for m in apps.get_app_config("players").get_models() if m._meta.model_name != "job"),
        *apps.get_app_config("tournaments").get_models(),
        get_user_model(),
    ]
    snapshot: dict[str, list[str]] = {}
    with connection.cursor() as cursor:
        for model in models:
            table = connection.ops.quote_name(model._meta.db_table)
            columns = ", ".join(
                connection.ops.quote_name(f.column)
                for f in model._meta.concrete_fields
                if (model._meta.label, f.name) != ("players.ApiToken", "last_used")
            )
            cursor.execute(f"SELECT {columns} FROM {table}")  # noqa: S608 - a model's own table
            snapshot[model._meta.label] = sorted(repr(row) for row in cursor.fetchall())
    return snapshot


@pytest.fixture
def keep_test_connection() -> Iterator[None]:
    """Django closes the connection at the end of every WSGI request when it sees a
    transaction open (the test's); its own test client disconnects these handlers too."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)
