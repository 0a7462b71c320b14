"""Forecasts before a tournament: a 5,000-player club's tournament with 10, 40 and 100
entrants, and a player's next game.

``make bench PYTEST_ARGS="-k forecast"``; ``BENCH_SCALE=small``: 500 players. One JSON
line per measurement, each the median of ``REPEAT`` requests through the Django test
client (``min_seconds`` the fastest), with ``ratio`` to a 404 (``baseline_seconds``)
timed in the same process:

- ``forecast_<n>_fresh``: the API's forecast of ``n`` entrants, the club's live generation
  replaced before each request (as an entry list set or a game does): every entrant
  planned anew (a round robin: ``2n - 1`` scores of ``n - 1`` games each);
- ``forecast_<n>_cached``: the same read by an anonymous visitor of the public club,
  served from the cache of public views;
- ``forecast_page_100_fresh``: the page of 100 entrants, computed anew;
- ``next_game``: a player's next game (loss, draw, win), never cached.

No timing assertions: the figures are for reading (docs/developers/benchmarks.md).
"""

from __future__ import annotations

import datetime
import os
import random
import statistics
import time
from collections.abc import Callable

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from players.models import Player, PlayerRating, RatingList
from players.services import club_create, club_live_changed
from tests.benchmarks.report import emit, ratio
from tournaments.models import Tournament, TournamentEntry

pytestmark = [pytest.mark.benchmark, pytest.mark.django_db(transaction=True)]

SMALL = os.environ.get("BENCH_SCALE") == "small"
PLAYERS = 500 if SMALL else 5000
REPEAT = 5
FIELDS = (10, 40, 100)
BASELINE_URL = "/bench-baseline-not-found/"


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


def test_forecast_speed() -> None:
    rng = random.Random(37)
    owner = get_user_model().objects.create_user("bench-owner")
    club = club_create(name="Forecast Chess Club", slug="forecast-bench", public=True, by=owner)
    standard = RatingList.objects.get(club=club, kind="standard")
    players = Player.objects.bulk_create(
        [Player(club=club, name=f"Player {index:05d}") for index in range(PLAYERS)],
        batch_size=2000,
    )
    ratings = []
    for index, player in enumerate(players):
        rating = None if index % 25 == 1 else rng.randint(1300, 2600)
        ratings.append(
            PlayerRating(
                player=player,
                rating_list=standard,
                rating=rating,
                entry_rating=rating,
                rated_games=rng.randint(0, 200) if rating else 0,
                entry_rated_games=0,
            )
        )
    PlayerRating.objects.bulk_create(ratings, batch_size=5000)
    tournaments = {}
    for size in FIELDS:
        tournament = Tournament.objects.create(
            club=club,
            name=f"Open of {size}",
            rating_list=standard,
            start_date=datetime.date(2026, 11, 7),
            end_date=datetime.date(2026, 11, 15),
        )
        TournamentEntry.objects.bulk_create(
            TournamentEntry(tournament=tournament, player=p) for p in rng.sample(players, size)
        )
        tournaments[size] = tournament
    base = f"/api/v1/clubs/{club.slug}"
    client = Client()
    fresh = lambda: club_live_changed(club_id=club.pk)  # noqa: E731 - an entry list's effect
    client.get(BASELINE_URL)
    baseline = statistics.median(_timed(client, BASELINE_URL))
    emit({"name": "forecast_baseline", "players": PLAYERS, "not_found_seconds": baseline})
    me, opponent = players[0], players[2]
    cases: list[tuple[str, str, Callable[[], None] | None]] = []
    for size, tournament in tournaments.items():
        url = f"{base}/tournaments/{tournament.pk}/forecast/"
        cases += [(f"forecast_{size}_fresh", url, fresh), (f"forecast_{size}_cached", url, None)]
    page = f"/clubs/{club.slug}/tournaments/{tournaments[100].pk}/forecast/"
    cases.append(("forecast_page_100_fresh", page, fresh))
    cases.append(("next_game", f"{base}/players/{me.pk}/forecast/?opponent={opponent.pk}", None))
    for name, url, before in cases:
        client.get(url)  # a cached case reads what this stored
        times = _timed(client, url, before)
        seconds = statistics.median(times)
        emit(
            {
                "name": name,
                "players": PLAYERS,
                "seconds": round(seconds, 5),
                "min_seconds": round(min(times), 5),
                "baseline_seconds": round(baseline, 5),
                "ratio": ratio(seconds, baseline),
                "load": [round(x, 2) for x in os.getloadavg()],
            }
        )
