"""Server time of each public page with a 5,000-player club and a year of closed periods.

Run with ``make bench`` (or ``pytest tests/benchmarks/test_pages_bench.py -m benchmark -s``);
``BENCH_SCALE=small`` builds 500 players. Prints one JSON line per page:
``{"name": "page_list", "players": 5000, "seconds": 0.012, "min_seconds": 0.011,
"baseline_seconds": 0.002, "ratio": 6.0, "peak_mb": 1.9, "peak_scope": "work"}`` where
``seconds`` is the median over several requests through the Django test client (the whole
request: middleware, view, queries, template), ``min_seconds`` the fastest (useful on a
busy machine), ``baseline_seconds`` the median of as many GETs of an unknown path (a 404:
middleware, URL resolution and the small 404 template, no database) through the same client
in the same process, ``ratio`` page / baseline (what can be compared between machines) and ``peak_mb`` the peak of Python memory
allocated during one more request (see ``report.py``). No timing assertions: the figures
are for reading.

The pages are timed with the cache of public views switched off (``PUBLISHED_CACHE_SECONDS``
0): what a visitor waits for when nothing is cached, the first visit after a close. The
``page_list_cached`` line gives the same list page served from that cache (a warm hit),
with ``ratio_vs_render`` against ``page_list``.

The downloads of the whole list are timed the same way, each read to its last byte inside
the timing (a streamed answer does its work as it is read): ``csv_ratings`` (the API's
``ratings.csv``), ``csv_ratings_format`` (``ratings/?format=csv``), ``csv_list_export``
(the page's ``export.csv``), and ``csv_ratings_cached`` / ``csv_list_export_cached`` from
the cache of public views. ``page_tournament`` reads the event's standings from the cache
(they are kept per generation of the club's public views whatever
``PUBLISHED_CACHE_SECONDS`` says); ``page_tournament_fresh`` is the first visit after a
change, the generation retired (untimed) before each request, so the standings of the
event's 5,000 players are computed again.

The club is built with bulk inserts (players, ratings, games) and then every month is
closed by the real period-close service, so the pages read what production would hold.
"""

from __future__ import annotations

import datetime
import gc
import logging
import os
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.http.response import HttpResponseBase
from django.test import Client

from players.models import Club, Player, PlayerRating, RatingList, RatingPeriod, Role, Title
from players.services import club_create, club_published_changed, membership_set, player_update
from tests.benchmarks.report import emit, ratio, traced_peak_mb
from tournaments.models import Game, Tournament
from tournaments.services import period_close

# transaction=True: the data is committed (and flushed afterwards), so PostgreSQL can
# VACUUM it as autovacuum would after a big close.
pytestmark = [pytest.mark.benchmark, pytest.mark.django_db(transaction=True)]

PLAYERS = int(
    os.environ.get("BENCH_PAGES_PLAYERS")
    or (500 if os.environ.get("BENCH_SCALE") == "small" else 5000)
)
# A 200,000-player list (BENCH_PAGES_PLAYERS=200000) is built with two closed months of
# two rounds: the list pages read one period, and a year of them would only lengthen the
# build (and the shared machine's load) without changing what a list page reads.
BIG = PLAYERS > 20_000
MONTHS = 2 if BIG else 12
ROUNDS = 2 if BIG else 4  # games per player per month
REPEAT = 7
YEAR = 2025
# The calculator is no baseline: it computes and renders a form set (slower than most pages).
BASELINE_URL = "/bench-baseline-not-found/"


def build(players: int) -> tuple[Club, Player]:
    rng = random.Random(2025)
    owner = get_user_model().objects.create_user("bench-owner")
    club = club_create(name="Benchmark Chess Club", slug="bench", public=True, by=owner)
    lists = {rl.kind: rl for rl in RatingList.objects.filter(club=club)}
    standard = lists["standard"]
    titles = [Title.GM, Title.IM, Title.FM, Title.CM, Title.WFM]
    rows = []
    for index in range(players):
        rows.append(
            Player(
                club=club,
                name=f"{rng.choice(FIRST)} {rng.choice(LAST)} {index:05d}",
                birth_year=rng.choice([2009, 2010, 2011]) if index % 7 == 0 else 1950 + index % 55,
                federation=rng.choice(["NOR", "GER", "ESP", "NED", "FRA"]),
                title=titles[index % 5] if index % 97 == 0 else "",
                active=index % 11 != 0,
            )
        )
    created = Player.objects.bulk_create(rows, batch_size=2000)
    ratings = []
    for index, player in enumerate(created):
        # One in fifty starts unrated, so first ratings appear in the reports.
        rating = None if index % 50 == 1 else rng.randint(1400, 2500)
        for kind, rating_list in lists.items():
            on_list = kind == "standard"
            ratings.append(
                PlayerRating(
                    player=player,
                    rating_list=rating_list,
                    rating=rating if on_list else None,
                    entry_rating=rating if on_list else None,
                    rated_games=rng.randint(0, 200) if on_list and rating else 0,
                    entry_rated_games=0,
                )
            )
    PlayerRating.objects.bulk_create(ratings, batch_size=5000)
    strength = {p.pk: r.rating or 1600 for p, r in zip(created, ratings[::3], strict=True)}
    for month in range(1, MONTHS + 1):
        first = datetime.date(YEAR, month, 1)
        period = RatingPeriod.objects.create(rating_list=standard, month=first)
        open_ = Tournament.objects.create(
            club=club,
            name=f"Monthly Open {first:%B}",
            rating_list=standard,
            start_date=first.replace(day=3),
            end_date=first.replace(day=5),
            rounds=2,
            city="Bergen",
        )
        games = []
        for round_number in range(1, ROUNDS + 1):
            order = created[:]
            rng.shuffle(order)
            # Neighbours in rating make realistic pairings (and keep most games rated).
            order.sort(key=lambda p: strength[p.pk] + rng.randint(-150, 150))
            in_open = round_number <= 2
            for white, black in zip(order[::2], order[1::2], strict=False):
                draw = rng.random()
                result = "1-0" if draw < 0.4 else "0-1" if draw < 0.75 else "1/2-1/2"
                games.append(
                    Game(
                        club=club,
                        rating_list=standard,
                        period=period,
                        tournament=open_ if in_open else None,
                        date=first.replace(day=3 + round_number if in_open else 10 + round_number),
                        round=round_number if in_open else None,
                        white=white,
                        black=black,
                        result=result,
                    )
                )
        Game.objects.bulk_create(games, batch_size=5000)
        period_close(period=period, by=owner)
    if connection.vendor == "postgresql":
        # Fresh bulk loads have no planner statistics yet; in production autovacuum has
        # analysed the tables long before anyone reads a year-old list.
        # VACUUM too: autovacuum processes a table after a big insert (PostgreSQL 13+),
        # and the visibility map it sets lets the list's rank histogram be read from the
        # current rows' (period, rating_after) index alone.
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
    return club, created[0]


FIRST = ["Anna", "Bo", "Carla", "Dmitri", "Elif", "Finn", "Greta", "Hugo", "Ines", "Jonas"]
LAST = ["Berg", "Costa", "Dahl", "Eriksen", "Fischer", "Garcia", "Haugen", "Ivanova", "Jensen"]


def fetch(client: Client, url: str) -> HttpResponseBase:
    """One GET, a streamed answer read to its end (the server's work is done as it
    streams: the rows are read and written while the client takes them)."""
    response = client.get(url)
    if response.streaming:
        for _ in response.streaming_content:  # type: ignore[attr-defined]
            pass
    return response


def measure(
    client: Client, url: str, status: int = 200, before: Callable[[], object] | None = None
) -> tuple[float, float, float]:
    """Median and fastest of ``REPEAT`` GETs and one more's peak memory; ``before`` runs
    ahead of each, untimed (retiring a cached figure, for the first visit after a change)."""
    response = fetch(client, url)  # warm: template compilation, caches
    assert response.status_code == status, url
    times = []
    for _ in range(REPEAT):
        if before is not None:
            before()
        started = time.perf_counter()
        fetch(client, url)
        times.append(time.perf_counter() - started)
    if before is not None:
        before()
    return statistics.median(times), min(times), traced_peak_mb(lambda: fetch(client, url))


Report = Callable[..., None]


def built_and_frozen(request: pytest.FixtureRequest) -> tuple[Club, Player]:
    """``build(PLAYERS)``, its objects then frozen out of the collector's reach, as
    ``test_page_server_times`` does (the statistics and widget benchmarks share it)."""
    club, player = build(PLAYERS)
    gc.collect()
    gc.freeze()  # the build's objects are not a web worker's
    request.addfinalizer(gc.unfreeze)
    return club, player


def against_a_404(client: Client, players: int) -> Report:
    """Time the baseline (a 404 through ``client``) and give the function that prints a
    figure beside it: ``report(name, measure(...), **more)``, one JSON line as the pages
    benchmark prints them (the statistics and widget benchmarks share it)."""
    request_log = logging.getLogger("django.request")
    level = request_log.level
    request_log.setLevel(logging.ERROR)  # the baseline's 404s would bury the figures
    try:
        baseline, _, _ = measure(client, BASELINE_URL, status=404)
    finally:
        request_log.setLevel(level)

    def report(name: str, figures: tuple[float, float, float], **more: Any) -> None:
        seconds, fastest, peak = figures
        emit(
            {
                "name": name,
                "players": players,
                "seconds": round(seconds, 5),
                "min_seconds": round(fastest, 5),
                "baseline_seconds": round(baseline, 5),
                "ratio": ratio(seconds, baseline),
                **more,
                "peak_mb": peak,
                "peak_scope": "work",
            }
        )

    return report


def open_month_with_member(club: Club, player: Player) -> Any:
    """A round of every player in the month after the closed ones (left open), and a
    member whose record is ``player``."""
    owner = get_user_model().objects.get(username="bench-owner")
    standard = RatingList.objects.get(club=club, kind="standard")
    month = datetime.date(YEAR + MONTHS // 12, MONTHS % 12 + 1, 1)
    period = RatingPeriod.objects.create(rating_list=standard, month=month)
    order = list(Player.objects.filter(club=club).order_by("pk"))
    Game.objects.bulk_create(
        [
            Game(
                club=club,
                rating_list=standard,
                period=period,
                date=month.replace(day=9),
                white=white,
                black=black,
                result="1-0" if index % 3 else "1/2-1/2",
            )
            for index, (white, black) in enumerate(zip(order[::2], order[1::2], strict=False))
        ],
        batch_size=5000,
    )
    member = get_user_model().objects.create_user("bench-member")
    membership_set(club=club, user=member, role=Role.VIEWER, by=owner)
    player_update(player=player, by=owner, user="bench-member")
    return member


def test_page_server_times(settings: Any, request: pytest.FixtureRequest) -> None:
    settings.PUBLISHED_CACHE_SECONDS = 0
    started = time.perf_counter()
    club, player = build(PLAYERS)
    # The build left hundreds of thousands of objects in this process, which a web worker
    # does not hold (and gunicorn's workers freeze what they load: deploy/gunicorn.conf.py):
    # a request that made a full collection walked them all, a tenth to a fifth of a second
    # in the timing. Frozen, the collector skips them, as a worker's does its own.
    gc.collect()
    gc.freeze()
    request.addfinalizer(gc.unfreeze)
    opponent_id = (
        Game.objects.filter(white=player).values_list("black_id", flat=True).first()
        or Game.objects.filter(black=player).values_list("white_id", flat=True).first()
    )
    opponent = Player.objects.get(pk=opponent_id)
    tournament_id = Tournament.objects.filter(club=club).values_list("id", flat=True).first()
    built = time.perf_counter() - started
    emit({"name": "build", "players": PLAYERS, "seconds": round(built, 1)})
    base = f"/clubs/{club.slug}"
    pages: dict[str, str] = {
        "page_home": "/",
        "page_clubs": "/clubs/",
        "page_club_home": f"{base}/",
        "page_list": f"{base}/lists/standard/",
        "page_list_middle_page": f"{base}/lists/standard/?page={max(PLAYERS // 200, 1)}",
        "page_list_last_page": f"{base}/lists/standard/?page={PLAYERS // 100}",
        "page_list_sorted_by_name": f"{base}/lists/standard/?sort=name&page=2",
        "page_list_category": f"{base}/lists/standard/?category=u18&women=&federation=NOR",
        "page_list_search": f"{base}/lists/standard/?q=anna",
        "page_list_filtered": (
            f"{base}/lists/standard/?period={YEAR}-{min(6, MONTHS):02d}&junior=on&active=on"
        ),
        "page_player": f"{base}/players/{player.pk}/",
        "page_period_report": f"{base}/lists/standard/periods/{YEAR}-{min(6, MONTHS):02d}/",
        "page_head_to_head": f"{base}/players/{player.pk}/vs/{opponent.pk}/",
        "page_tournaments": f"{base}/tournaments/",
        "page_player_search": "/players/?q=anna",
    }
    # The downloads of the whole list, read to their last byte (the streamed ones too).
    pages["csv_ratings"] = f"/api/v1{base}/lists/standard/ratings.csv"
    pages["csv_ratings_format"] = f"/api/v1{base}/lists/standard/ratings/?format=csv"
    pages["csv_list_export"] = f"{base}/lists/standard/export.csv"
    if not BIG:
        # A tournament of every player of the club: a 200,000-player crosstable is no page
        # anyone reads, so only the 5,000-player club times it.
        pages["page_tournament"] = f"{base}/tournaments/{tournament_id}/"
    client = Client()
    # Django logs every 404 as a warning; the baseline's would bury the figures.
    request_log = logging.getLogger("django.request")
    level = request_log.level
    request_log.setLevel(logging.ERROR)
    try:
        baseline_seconds, _, _ = measure(client, BASELINE_URL, status=404)
    finally:
        request_log.setLevel(level)
    results: list[dict[str, Any]] = []

    def report(name: str, seconds: float, fastest: float, peak: float) -> None:
        line = {
            "name": name,
            "players": PLAYERS,
            "seconds": round(seconds, 4),
            "min_seconds": round(fastest, 4),
            "baseline_seconds": round(baseline_seconds, 5),
            "ratio": ratio(seconds, baseline_seconds),
            "peak_mb": peak,
            "peak_scope": "work",
        }
        results.append(line)
        emit(line)

    for name, url in pages.items():
        report(name, *measure(client, url))
    if not BIG:
        # The first visit after a change: the event's standings (kept per generation of
        # the club's live views, whatever PUBLISHED_CACHE_SECONDS) computed again.
        def retire() -> None:
            club_published_changed(club_id=club.pk)

        report("page_tournament_fresh", *measure(client, pages["page_tournament"], before=retire))
    assert len(results) == len(pages) + (0 if BIG else 1)

    settings.PUBLISHED_CACHE_SECONDS = 600
    seconds, fastest, peak = measure(client, pages["page_list"])
    rendered = results[list(pages).index("page_list")]["seconds"]
    emit(
        {
            "name": "page_list_cached",
            "players": PLAYERS,
            "seconds": round(seconds, 5),
            "min_seconds": round(fastest, 5),
            "baseline_seconds": round(baseline_seconds, 5),
            "ratio": ratio(seconds, baseline_seconds),
            "ratio_vs_render": ratio(seconds, rendered),
            "peak_mb": peak,
            "peak_scope": "work",
        }
    )
    # The downloads served from that cache: the stored bytes.
    for name in ("csv_ratings", "csv_list_export"):
        cache.clear()
        seconds, fastest, peak = measure(client, pages[name])
        rendered = results[list(pages).index(name)]["seconds"]
        emit(
            {
                "name": f"{name}_cached",
                "players": PLAYERS,
                "seconds": round(seconds, 5),
                "min_seconds": round(fastest, 5),
                "baseline_seconds": round(baseline_seconds, 5),
                "ratio": ratio(seconds, baseline_seconds),
                "ratio_vs_render": ratio(seconds, rendered),
                "peak_mb": peak,
                "peak_scope": "work",
            }
        )
    if not BIG:
        # The player's corner (the member's home with their record linked) after a round
        # of a month not closed yet: live figures and games still to be rated. Fresh: the
        # club's generation retired before each request, so the list's live figures (the
        # close's preview of every player) are computed again; then from their cache
        # (PUBLISHED_CACHE_SECONDS is 600 here: 0 keeps no live figures either).
        member = open_month_with_member(club, player)
        home = Client()
        home.force_login(member)
        report("page_member_home_fresh", *measure(home, "/accounts/", before=retire))
        report("page_member_home", *measure(home, "/accounts/"))
