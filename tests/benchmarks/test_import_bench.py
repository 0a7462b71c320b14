"""How fast a 100,000-game file imports into an empty club (figures printed, not asserted).

BENCH_SCALE=small runs 1% of the size. Each format prints one JSON line:
{"name": "import_trf", "games": ..., "seconds": ..., "peak_mb": ...}. The time covers the
whole service: parse, matching, players, tournament and games written in one transaction.
The files are the parse benchmark's (a 25-round Swiss of 8,000 players; a 5,000-player
ladder as CSV and PGN).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest
from django.contrib.auth import get_user_model

from players.services import club_create
from tests.benchmarks.test_interchange_bench import (
    GAMES,
    _csv,
    _pgn,
    _reset_peak_rss,
    _rss_mb,
    _trf,
)
from tournaments.models import Game
from tournaments.services.imports import ImportReport, import_csv, import_pgn, import_trf


def _measure(name: str, text: str, run: Callable[..., ImportReport]) -> None:
    owner = get_user_model().objects.create_user(f"bench-{name}")
    club = club_create(name=f"Bench {name}", slug=f"bench-{name}", by=owner)
    data = text.encode()
    before = _rss_mb("VmRSS") if _reset_peak_rss() else None
    started = time.perf_counter()
    report = run(club=club, rating_list="standard", data=data, by=owner)
    seconds = time.perf_counter() - started
    peak = _rss_mb("VmHWM")
    peak_mb = round(peak - before, 1) if peak is not None and before is not None else None
    assert report.errors == [], report.errors[:3]
    figures = {
        "name": name,
        "games": report.games_created,
        "seconds": round(seconds, 3),
        "peak_mb": peak_mb,
        "players": len(report.players_created),
    }
    print(json.dumps(figures))
    assert Game.objects.filter(club=club).count() == GAMES


@pytest.mark.benchmark
@pytest.mark.django_db(transaction=True)
def test_import_trf_speed() -> None:
    _measure("import_trf", _trf(GAMES), import_trf)


@pytest.mark.benchmark
@pytest.mark.django_db(transaction=True)
def test_import_csv_speed() -> None:
    _measure("import_csv", _csv(GAMES), import_csv)


@pytest.mark.benchmark
@pytest.mark.django_db(transaction=True)
def test_import_pgn_speed() -> None:
    _measure("import_pgn", _pgn(GAMES), import_pgn)
