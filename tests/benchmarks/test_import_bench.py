"""How fast a 100,000-game file imports into an empty club (figures printed, not asserted).

BENCH_SCALE=small runs 1% of the size. Each format prints one JSON line:
{"name": "import_trf", "games": ..., "seconds": ..., "parse_seconds": ..., "ratio": ...,
"peak_mb": ..., "peak_scope": "process", "players": ...}. The time covers the whole
service: parse, matching, players, tournament and games written in one transaction.
``parse_seconds`` is the parse alone of the same bytes in the same process, and ``ratio``
(import / parse) is what can be compared between machines. ``cpu_seconds``,
``parse_cpu_seconds`` and ``cpu_ratio`` are the same in this process's CPU time: on a
machine whose cores are busy with other work they stay put while the seconds do not (the
database server's own work is not in them). The files are the parse
benchmark's (a 25-round Swiss of 8,000 players; a 5,000-player ladder as CSV and PGN).
``peak_mb``: see ``report.py``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from django.contrib.auth import get_user_model

from players.services import club_create
from tests.benchmarks.report import emit, process_peak_mb, ratio
from tests.benchmarks.test_interchange_bench import GAMES, _csv, _pgn, _trf
from tournaments.interchange import parse_games_csv, parse_pgn, parse_trf
from tournaments.models import Game
from tournaments.services.imports import ImportReport, import_csv, import_pgn, import_trf


def _measure(
    name: str, text: str, run: Callable[..., ImportReport], parse: Callable[[bytes], int]
) -> None:
    owner = get_user_model().objects.create_user(f"bench-{name}")
    club = club_create(name=f"Bench {name}", slug=f"bench-{name}", by=owner)
    data = text.encode()
    started, cpu_started = time.perf_counter(), time.process_time()
    parsed_games = parse(data)
    parse_seconds = time.perf_counter() - started
    parse_cpu = time.process_time() - cpu_started
    started, cpu_started = time.perf_counter(), time.process_time()
    report = run(club=club, rating_list="standard", data=data, by=owner)
    seconds = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    assert report.errors == [], report.errors[:3]
    figures = {
        "name": name,
        "games": report.games_created,
        "seconds": round(seconds, 3),
        "parse_seconds": round(parse_seconds, 3),
        "ratio": ratio(seconds, parse_seconds),
        "cpu_seconds": round(cpu, 3),
        "parse_cpu_seconds": round(parse_cpu, 3),
        "cpu_ratio": ratio(cpu, parse_cpu),
        "peak_mb": process_peak_mb(),
        "peak_scope": "process",
        "players": len(report.players_created),
    }
    emit(figures)
    assert parsed_games == GAMES
    assert Game.objects.filter(club=club).count() == GAMES


@pytest.mark.benchmark
@pytest.mark.django_db(transaction=True)
def test_import_trf_speed() -> None:
    _measure("import_trf", _trf(GAMES), import_trf, lambda data: len(parse_trf(data).games))


@pytest.mark.benchmark
@pytest.mark.django_db(transaction=True)
def test_import_csv_speed() -> None:
    _measure("import_csv", _csv(GAMES), import_csv, lambda data: len(parse_games_csv(data).games))


@pytest.mark.benchmark
@pytest.mark.django_db(transaction=True)
def test_import_pgn_speed() -> None:
    _measure("import_pgn", _pgn(GAMES), import_pgn, lambda data: len(parse_pgn(data).games))
