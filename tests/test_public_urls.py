"""Every public URL answers the same from the cache of public views.

The URLs come from the URL configuration (every pattern under ratings_site/urls.py, its
parameters filled from a small public club), not from a list that can forget one. Each is
requested anonymously twice (the second answer from the cache where the view is cached)
and with HEAD; status, media type, download name and body must agree. Left out, by prefix:
``admin/`` and ``accounts/`` (staff and sign-in pages: per user, with a CSRF token, never
cached). A parameter the test cannot fill fails the test.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from players.http import cache as published_cache
from players.jobs import job_start
from players.models import Role, WebhookDelivery
from players.services import claim_create, invitation_create
from players.webhooks import webhook_create
from tests.pages_data import ClubData, build_club
from tournaments.models import Game

pytestmark = pytest.mark.django_db

# ^api/ is the API's last route, the JSON 404 of an address no view answers.
LEFT_OUT = ("admin/", "^admin/", "accounts/", "^api/")


def url_patterns() -> Iterator[str]:
    """Every pattern of the site, as its full route string."""

    def walk(patterns: list[Any], prefix: str) -> Iterator[str]:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                yield from walk(entry.url_patterns, prefix + str(entry.pattern))
            else:
                assert isinstance(entry, URLPattern)
                yield prefix + str(entry.pattern)

    yield from walk(get_resolver("ratings_site.urls").url_patterns, "")


PARAM = re.compile(r"<(?:(?P<converter>\w+):)?(?P<name>\w+)>")


def fill(route: str, values: dict[str, str]) -> str:
    """The route with each ``<converter:name>`` replaced by the world's value for the
    segment before it (``players/<int:id>`` is a player, ``tournaments/<int:id>`` a
    tournament); a parameter without a value fails the test."""

    def value(match: re.Match[str]) -> str:
        before = route[: match.start()].rstrip("/").rsplit("/", 1)[-1]
        for key in (f"{before}/{match['name']}", match["name"]):
            if key in values:
                return values[key]
        pytest.fail(f"{route}: no value for <{match['name']}> (after {before!r})")

    return "/" + PARAM.sub(value, route)


def public_urls(data: ClubData) -> list[str]:
    club = data.club
    player, opponent = data.players["omar"], data.players["nina"]
    assert data.tournament is not None
    game = Game.objects.filter(club=club).order_by("pk").first()
    assert game is not None
    job = job_start(kind="history_export", club=club, by=data.owner, params={"list": 1})
    invitation, _ = invitation_create(
        club=club, by=data.owner, role=Role.VIEWER, email="new@example.org", accept_url=str
    )
    # Switched off: no event of this test is sent to it. Its answers are the owner's only.
    webhook = webhook_create(
        club=club,
        by=data.owner,
        url="https://93.184.215.14/public-urls",
        events=["period.closed"],
        active=False,
    )
    delivery = WebhookDelivery.objects.create(
        webhook=webhook,
        event="period.closed",
        event_id=uuid.uuid4(),
        body="{}",
        status=WebhookDelivery.Status.SUCCEEDED,
        tries=1,
        response_code=200,
    )
    # The owner's claim of a record: the API's claim URLs answer 401 anonymously, alike.
    claim = claim_create(club=club, player_id=player.pk, by=data.owner)
    values = {
        "club": club.slug,
        "list": "standard",
        "kind": "standard",
        "players/id": str(player.pk),
        "players/player_id": str(player.pk),
        "vs/opponent_id": str(opponent.pk),
        "tournaments/id": str(data.tournament.pk),
        "tournaments/tournament_id": str(data.tournament.pk),
        "games/id": str(game.pk),
        "jobs/id": str(job.pk),
        "invitations/id": str(invitation.pk),
        "claims/id": str(claim.pk),
        "members/username": data.owner.get_username(),
        "webhooks/id": str(webhook.pk),
        "webhooks/webhook": str(webhook.pk),
        "deliveries/id": str(delivery.pk),
        "period": "2026-02",
        "month": "2026-02",
    }
    return [fill(route, values) for route in url_patterns() if not route.startswith(LEFT_OUT)]


def _answer(response: Any) -> tuple[int, str, str, bytes]:
    return (
        response.status_code,
        response.get("Content-Type", ""),
        response.get("Content-Disposition", ""),
        b"".join(response) if response.streaming else response.content,
    )


@pytest.fixture
def cache_on(settings: Any) -> None:
    # The suite's cache is LocMem (tests/conftest.py); the public views' cache must be on.
    settings.PUBLISHED_CACHE_SECONDS = 600
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


def test_every_public_url_answers_the_same_from_the_cache(
    cache_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = build_club(crowd=4)
    urls = public_urls(data)
    # Pages, API GETs and each download kind are among them.
    for part in (
        "/clubs/riverside/players/",
        "/api/v1/clubs/riverside/",
        "ratings.csv",
        "export.txt",
        "export.pgn",
        "export.trf",
        "history.csv",
    ):
        assert any(part in url for url in urls), part

    hits: list[str] = []
    entry_of = published_cache.published_entry

    def spy(**kwargs: Any) -> Any:
        entry = entry_of(**kwargs)
        if entry is not None and entry.value is not None:
            hits.append(kwargs["request"].path)
        return entry

    monkeypatch.setattr(published_cache, "published_entry", spy)
    monkeypatch.setattr("players.http.api.published_entry", spy)
    monkeypatch.setattr("ratings_site.pages.base.published_entry", spy)

    differ = []
    stored = []
    for url in urls:
        client = Client()
        first = _answer(client.get(url))
        second = _answer(Client().get(url))
        head = Client().head(url)
        if first != second:
            differ.append(
                f"{url}: {first[:3]} {first[3][:200]!r} then {second[:3]} {second[3][:200]!r}"
            )
        if (head.status_code, head.get("Content-Type", "")) != first[:2]:
            differ.append(f"{url}: HEAD {head.status_code} {head.get('Content-Type')}")
        if url in hits:
            stored.append(url)
    assert not differ, "\n".join(differ)
    # The cache was on: the club's pages and API answers came from it the second time.
    assert any(url.startswith("/clubs/riverside/") for url in stored), hits
    assert any(url.startswith("/api/v1/clubs/riverside/") for url in stored), hits
    assert any(url.endswith("ratings.csv") for url in stored), hits
