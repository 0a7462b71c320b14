"""The live list of a 5,000-player club with 20,000 games in the open month.

``make bench PYTEST_ARGS="-k live"``; ``BENCH_SCALE=small``: 500 players, 2,000 games.
The club has one closed month (so the published ratings endpoint has a list) and an open
one with the games. One JSON line per measurement, each the median of ``REPEAT`` requests
through the Django test client (``min_seconds`` the fastest), with ``ratio`` to a 404
(``baseline_seconds``) and ``ratio_vs_ratings`` to the published ratings endpoint, both
timed in the same process:

- ``live_list_fresh``: the first read after a game (a game entered in the open month and
  the club's live generation replaced before each request, as a game write does): the
  figures computed anew, which plans the game's two players again (players.rating.replan);
- ``live_list_after_publish``: the first read after something published (the club's
  published generation replaced): the period's start read and the whole month planned;
- ``live_list_member``: a member's read with the live figures in the cache (the rows
  filtered, ordered, paginated and serialized per request);
- ``live_list_cached``: an anonymous visitor's read, served from the cache of public views;
- ``live_csv_fresh``, ``live_page_fresh``, ``player_live_fresh``: the CSV, the live tab and
  one player's live figure, computed anew.

No timing assertions: the figures are for reading (docs/developers/benchmarks.md).
"""

from __future__ import annotations

import datetime
import os
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, override_settings

from players.models import Club, Player, PlayerRating, RatingList, RatingPeriod
from players.services import club_create, club_live_changed, club_published_changed
from tests.benchmarks.report import emit, ratio
from tournaments.models import Game
from tournaments.services import period_close

pytestmark = [pytest.mark.benchmark, pytest.mark.django_db(transaction=True)]

SMALL = os.environ.get("BENCH_SCALE") == "small"
PLAYERS = 500 if SMALL else 5000
GAMES = 2000 if SMALL else 20_000
REPEAT = 7
BASELINE_URL = "/bench-baseline-not-found/"


def _games(
    club: Club, rating_list: RatingList, period: RatingPeriod, players: list[Player], count: int
) -> None:
    rng = random.Random(period.month.toordinal())
    games = []
    for index in range(count):
        white, black = rng.sample(players, 2)
        draw = rng.random()
        games.append(
            Game(
                club=club,
                rating_list=rating_list,
                period=period,
                date=period.month.replace(day=1 + index % 28),
                white=white,
                black=black,
                result="1-0" if draw < 0.4 else "0-1" if draw < 0.75 else "1/2-1/2",
            )
        )
    Game.objects.bulk_create(games, batch_size=5000)


def build() -> tuple[Club, Any, Player]:
    rng = random.Random(26)
    owner = get_user_model().objects.create_user("bench-owner")
    club = club_create(name="Live Chess Club", slug="live-bench", public=True, by=owner)
    standard = RatingList.objects.get(club=club, kind="standard")
    players = Player.objects.bulk_create(
        [Player(club=club, name=f"Player {index:05d}") for index in range(PLAYERS)],
        batch_size=2000,
    )
    entries = []
    for index, player in enumerate(players):
        rating = None if index % 50 == 1 else rng.randint(1400, 2500)
        for rating_list in RatingList.objects.filter(club=club):
            on_list = rating_list.pk == standard.pk
            entries.append(
                PlayerRating(
                    player=player,
                    rating_list=rating_list,
                    rating=rating if on_list else None,
                    entry_rating=rating if on_list else None,
                    rated_games=rng.randint(0, 200) if on_list and rating else 0,
                    entry_rated_games=0,
                )
            )
    PlayerRating.objects.bulk_create(entries, batch_size=5000)
    closed = RatingPeriod.objects.create(rating_list=standard, month=datetime.date(2026, 10, 1))
    _games(club, standard, closed, players, GAMES // 2)
    period_close(period=closed, by=owner)
    open_month = RatingPeriod.objects.create(rating_list=standard, month=datetime.date(2026, 11, 1))
    _games(club, standard, open_month, players, GAMES)
    return club, owner, players[0]


def _timed(client: Client, url: str, before: Callable[[], None] | None = None) -> list[float]:
    times = []
    for _ in range(REPEAT):
        if before is not None:
            before()
        start = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - start)
        assert response.status_code in (200, 404), (url, response.status_code)
    return times


def test_live_list_speed() -> None:
    club, owner, player = build()
    base = f"/api/v1/clubs/{club.slug}"
    anonymous, member = Client(), Client()
    member.force_login(owner)
    rating_list = RatingList.objects.get(club=club, kind="standard")
    open_month = RatingPeriod.objects.get(rating_list=rating_list, month=datetime.date(2026, 11, 1))
    everyone = list(Player.objects.filter(club=club))
    rng = random.Random(11)

    def fresh() -> None:
        # A game write's effect: one more game of the month, the live generation replaced.
        _games(club, rating_list, open_month, rng.sample(everyone, 2), 1)
        club_live_changed(club_id=club.pk)

    def published() -> None:
        club_published_changed(club_id=club.pk)

    # Warm the interpreter and the database's caches before anything is timed.
    for client in (anonymous, member):
        client.get(BASELINE_URL)
        client.get(f"{base}/lists/standard/live/")
    baseline = statistics.median(_timed(member, BASELINE_URL))
    with override_settings(PUBLISHED_CACHE_SECONDS=0):
        ratings = statistics.median(_timed(member, f"{base}/lists/standard/ratings/"))
    emit(
        {
            "name": "live_baselines",
            "players": PLAYERS,
            "games": GAMES,
            "not_found_seconds": round(baseline, 5),
            "ratings_seconds": round(ratings, 5),
        }
    )
    cases: list[tuple[str, Client, str, Callable[[], None] | None]] = [
        ("live_list_fresh", anonymous, f"{base}/lists/standard/live/", fresh),
        ("live_list_after_publish", anonymous, f"{base}/lists/standard/live/", published),
        ("live_list_member", member, f"{base}/lists/standard/live/", None),
        ("live_list_cached", anonymous, f"{base}/lists/standard/live/", None),
        ("live_csv_fresh", anonymous, f"{base}/lists/standard/live.csv", fresh),
        ("live_page_fresh", anonymous, f"/clubs/{club.slug}/lists/standard/live/", fresh),
        ("player_live_fresh", anonymous, f"{base}/players/{player.pk}/live/", fresh),
    ]
    for name, client, url, before in cases:
        client.get(url)  # a cached case reads what this stored
        times = _timed(client, url, before)
        seconds = statistics.median(times)
        emit(
            {
                "name": name,
                "players": PLAYERS,
                "games": GAMES,
                "seconds": round(seconds, 5),
                "min_seconds": round(min(times), 5),
                "baseline_seconds": round(baseline, 5),
                "ratio": ratio(seconds, baseline),
                "ratings_seconds": round(ratings, 5),
                "ratio_vs_ratings": ratio(seconds, ratings),
            }
        )
