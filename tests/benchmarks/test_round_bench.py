"""A round in progress: a game entered every second through the API (an arbiter's token)
while visitors read the club's published and live pages, under gunicorn on PostgreSQL.

``make bench PYTEST_ARGS="-k round"`` with ``DATABASE_URL`` on PostgreSQL. The pages
benchmark's club (5,000 players, a year published; ``BENCH_SCALE=small``: 500), with a
first round of the next month entered, so the live list has every second player on it.
``ROUND_SECONDS`` (default 20, small 10), ``LOAD_CONNECTIONS`` and ``LOAD_WORKERS`` (as
the load benchmark) override.

Two runs against the same gunicorn, the same visitors and the same seconds: ``quiet`` (no
writes) and ``round`` (a game a second). The visitors are two crowds, each a driver
process: three quarters of the connections read the published pages, a quarter the live
ones. One JSON line per target and run (``rps``,
``p50_ms``, ``p99_ms``), then ``round_summary``: the published pages' requests per
second in the round and quiet (``published_rps_ratio``, the goal: at least 0.90, the
published pages staying cached while games come in), the live pages' likewise, and how
long after the game's POST answered (it committed) the live list (the live API's
``games_count``, asked as an anonymous visitor asks it, every 20 ms) showed it:
``visible_p50_ms``, ``visible_p99_ms`` (goals 200 ms and 1 s), from the POST's start
(``entered_to_visible_*``), and the POST's own ``post_p50_ms`` and ``post_p99_ms``. The CPU
the web (gunicorn) and the database server used a visitor's request in each run
(``web_cpu_ms_per_request_*``, ``db_cpu_ms_per_request_*``, read from /proc), and what a
game cost them besides (``game_cpu_ms``: the round's CPU less its requests at the quiet
run's cost each), which moves less from run to run than the requests a second. Errors are
asserted to be zero; timings are printed.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from players.models import RatingPeriod
from players.services import api_token_create
from tests.benchmarks.load_driver import figures
from tests.benchmarks.report import emit
from tests.benchmarks.test_load_bench import (
    ANY,
    CONNECTIONS,
    ROOT,
    WORKERS,
    _gunicorn,
    _load_info,
    _spec,
    _stat,
)
from tests.benchmarks.test_pages_bench import YEAR, build
from tests.tournaments.helpers import play

pytestmark = [pytest.mark.benchmark, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SMALL = os.environ.get("BENCH_SCALE") == "small"
PLAYERS = 500 if SMALL else 5000
SECONDS = float(os.environ.get("ROUND_SECONDS", "10" if SMALL else "20"))
JSON = {"Accept": "application/json"}
POLL_SECONDS = 0.02
# A quarter of the visitors read the live pages, the rest the published ones.
LIVE_CONNECTIONS = max(1, CONNECTIONS // 4)


def web_and_db_cpu_seconds() -> dict[str, float]:
    """CPU seconds so far of the web (gunicorn's processes) and of the database server (its
    running backends, and those that ended: the postmaster's reaped children), from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    found = {"web": 0.0, "db": 0.0}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            fields = _stat(int(entry.name))
        except OSError:
            continue  # ended meanwhile
        own, children = (int(fields[11]) + int(fields[12])), (int(fields[13]) + int(fields[14]))
        if b"gunicorn" in command:
            found["web"] += own / tick
        elif command.startswith(b"postgres:"):  # a backend, by the title it sets
            found["db"] += own / tick
        elif b"bin/postgres" in command:  # the postmaster: its ended backends' CPU too
            found["db"] += (own + children) / tick
    return found


def _used(before: dict[str, float]) -> dict[str, float]:
    now = web_and_db_cpu_seconds()
    return {key: now[key] - value for key, value in before.items()}


def _merged(results: list[dict[str, Any]]) -> dict[str, Any]:
    return {"targets": {k: v for result in results for k, v in result["targets"].items()}}


def _next_month() -> datetime.date:
    latest = (
        RatingPeriod.objects.filter(status=RatingPeriod.Status.CLOSED)
        .order_by("-month")
        .values_list("month", flat=True)
        .first()
    )
    assert latest is not None
    return (latest + datetime.timedelta(days=32)).replace(day=1)


def _start_driver(
    targets: list[dict[str, Any]], seconds: float, connections: int
) -> subprocess.Popen[bytes]:
    spec = {"targets": targets, "connections": connections, "seconds": seconds}
    return subprocess.Popen(
        [sys.executable, "-m", "tests.benchmarks.load_driver", json.dumps(spec)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
    )


def _finished(driver: subprocess.Popen[bytes]) -> dict[str, Any]:
    out, _ = driver.communicate(timeout=600)
    assert driver.returncode == 0
    result: dict[str, Any] = json.loads(out)
    return result


def _get_json(url: str) -> dict[str, Any]:
    request = urllib.request.Request(url, headers=JSON)  # noqa: S310
    with urllib.request.urlopen(request, timeout=60) as answer:  # noqa: S310
        body: dict[str, Any] = json.loads(answer.read())
        return body


def _post(url: str, body: dict[str, Any], token: str) -> int:
    request = urllib.request.Request(  # noqa: S310
        url,
        data=json.dumps(body).encode(),
        headers={**JSON, "Content-Type": "application/json", "Authorization": f"Token {token}"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=60) as answer:  # noqa: S310
        return int(answer.status)


def _round(
    base: str, api: str, token: str, pairs: list[tuple[int, int]], day: datetime.date
) -> tuple[list[float], list[float]]:
    """A game a second for ``SECONDS``: each POST's seconds, and the seconds from its answer
    until the live list counts it."""
    posts: list[float] = []
    visible: list[float] = []
    live = f"{base}{api}/lists/standard/live/"
    count = int(_get_json(live)["games_count"])
    began = time.monotonic()
    for index, (white, black) in enumerate(pairs):
        due = began + index
        if due - began >= SECONDS:
            break
        time.sleep(max(0.0, due - time.monotonic()))
        started = time.perf_counter()
        game = {"list": "standard", "date": day.isoformat(), "white": white, "black": black}
        assert _post(f"{base}{api}/games/", {**game, "result": "1-0"}, token) == 201
        answered = time.perf_counter()
        posts.append(answered - started)
        count += 1
        while int(_get_json(live)["games_count"]) < count:
            time.sleep(POLL_SECONDS)
            assert time.perf_counter() - answered < 30, "the game never showed"
        visible.append(time.perf_counter() - answered)
    return posts, visible


@pytest.mark.usefixtures("database_cache_table")
def test_a_round_leaves_the_published_pages_cached() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: gunicorn's processes must open the test database")
    club, player = build(PLAYERS)
    owner = get_user_model().objects.get(username="bench-owner")
    _, token = api_token_create(user=owner, name="round benchmark")
    month = _next_month()
    players = list(club.players.order_by("id").values_list("id", flat=True))
    half = len(players) // 2
    # Round 1 of the month, entered: the first half of the club paired, on the live list.
    seated = list(club.players.order_by("id")[:half])
    round_one = [(w, b, "1-0") for w, b in zip(seated[::2], seated[1::2], strict=False)]
    play(club, owner, round_one, date=month)
    with connection.cursor() as cursor:
        # As after any bulk load: autovacuum would otherwise analyze the new rows during
        # one of the two runs, and the ratio between them measured that, not the round.
        cursor.execute("VACUUM ANALYZE")
    rest = players[half:]
    pairs = list(zip(rest[::2], rest[1::2], strict=False))
    assert len(pairs) >= SECONDS, "too few players for a game a second"
    base_path = f"/clubs/{club.slug}"
    api = f"/api/v1/clubs/{club.slug}"
    published = {
        "round_club_home": (f"{base_path}/", 200, {}),
        "round_list": (f"{base_path}/lists/standard/", 200, {}),
        "round_player": (f"{base_path}/players/{player.pk}/", 200, {}),
        "round_period_report": (f"{base_path}/lists/standard/periods/{YEAR}-06/", 200, {}),
        "round_ratings_api": (f"{api}/lists/standard/ratings/", 200, {}),
        "round_ratings_csv": (f"{api}/lists/standard/ratings.csv", 200, ANY),
        "round_players_api": (f"{api}/players/", 200, {}),
    }
    live = {
        "round_live_list": (f"{base_path}/lists/standard/live/", 200, {}),
        "round_live_api": (f"{api}/lists/standard/live/", 200, {}),
    }
    targets = {**published, **live}
    failed: list[tuple[str, str, object]] = []
    runs: dict[str, dict[str, Any]] = {}
    with _gunicorn() as base:
        for target in _spec(base, targets):  # every page built once: both runs start warm
            request = urllib.request.Request(target["url"], headers=target["headers"])  # noqa: S310
            urllib.request.urlopen(request, timeout=600).read()  # noqa: S310

        def visitors() -> list[subprocess.Popen[bytes]]:
            # Two crowds: a visitor of the published pages never waits behind a live page
            # (one driver's connection takes its targets in turn).
            return [
                _start_driver(_spec(base, published), SECONDS, CONNECTIONS - LIVE_CONNECTIONS),
                _start_driver(_spec(base, live), SECONDS, LIVE_CONNECTIONS),
            ]

        cpu: dict[str, dict[str, float]] = {}
        before = web_and_db_cpu_seconds()
        runs["quiet"] = _merged([_finished(driver) for driver in visitors()])
        cpu["quiet"] = _used(before)
        before = web_and_db_cpu_seconds()
        drivers = visitors()
        posts, visible = _round(base, api, token, pairs, month)
        runs["round"] = _merged([_finished(driver) for driver in drivers])
        cpu["round"] = _used(before)
    for run, result in runs.items():
        for name, found in result["targets"].items():
            emit(
                {
                    "name": name,
                    "run": run,
                    "players": PLAYERS,
                    "connections": LIVE_CONNECTIONS
                    if name in live
                    else CONNECTIONS - LIVE_CONNECTIONS,
                    "seconds": SECONDS,
                    "gunicorn_workers": WORKERS,
                    **found,
                    **_load_info(),
                }
            )
            if found["errors"]:
                failed.append((name, run, found["statuses"]))

    def rps(run: str, names: dict[str, Any]) -> float:
        return sum(float(runs[run]["targets"][name]["rps"]) for name in names)

    def requests(run: str) -> float:
        return rps(run, targets) * SECONDS

    def per_request_ms(run: str, part: str) -> float:
        return round(cpu[run][part] * 1000 / requests(run), 2)

    # What each game cost the web and the database besides the visitors' requests: the
    # round's CPU less its requests at the quiet run's CPU a request (the POST, the live
    # figures computed, the live pages rebuilt, and the polls that wait for them).
    quiet_per_request = sum(cpu["quiet"].values()) / requests("quiet")
    game_cpu = (sum(cpu["round"].values()) - quiet_per_request * requests("round")) / len(posts)
    post, shown = figures(posts, SECONDS), figures(visible, SECONDS)
    whole = figures([p + v for p, v in zip(posts, visible, strict=True)], SECONDS)
    emit(
        {
            "name": "round_summary",
            "players": PLAYERS,
            "connections": CONNECTIONS,
            "seconds": SECONDS,
            "gunicorn_workers": WORKERS,
            "games": len(posts),
            "published_rps_quiet": round(rps("quiet", published), 1),
            "published_rps_round": round(rps("round", published), 1),
            "published_rps_ratio": round(rps("round", published) / rps("quiet", published), 3),
            "live_rps_quiet": round(rps("quiet", live), 1),
            "live_rps_round": round(rps("round", live), 1),
            "live_rps_ratio": round(rps("round", live) / rps("quiet", live), 3),
            "visible_p50_ms": shown["p50_ms"],
            "visible_p99_ms": shown["p99_ms"],
            # From the POST's start: what the arbiter's client waits, write included.
            "entered_to_visible_p50_ms": whole["p50_ms"],
            "entered_to_visible_p99_ms": whole["p99_ms"],
            "post_p50_ms": post["p50_ms"],
            "post_p99_ms": post["p99_ms"],
            "web_cpu_ms_per_request_quiet": per_request_ms("quiet", "web"),
            "web_cpu_ms_per_request_round": per_request_ms("round", "web"),
            "db_cpu_ms_per_request_quiet": per_request_ms("quiet", "db"),
            "db_cpu_ms_per_request_round": per_request_ms("round", "db"),
            "game_cpu_ms": round(game_cpu * 1000, 1),
            **_load_info(),
        }
    )
    assert not failed, failed
