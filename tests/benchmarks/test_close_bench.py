"""Benchmark of the period close: prints one JSON line per measured phase.

``make bench`` runs it; ``BENCH_SCALE=small`` for 1% of the federation size. Meant for
PostgreSQL (DATABASE_URL); on SQLite it runs in-process. No timing is asserted: the
figures are printed for people to read. The checks below only make sure the figures are
about the work they claim to measure.
"""

from __future__ import annotations

import json
import os

import pytest

from tournaments.management.commands.bench_close import FULL, run_benchmark


@pytest.mark.benchmark
@pytest.mark.django_db(transaction=True)
def test_close_benchmark(capsys: pytest.CaptureFixture[str]) -> None:
    factor = 100 if os.environ.get("BENCH_SCALE", "full") == "small" else 1
    players, games = FULL["players"] // factor, FULL["games"] // factor
    printed: list[str] = []

    def emit(line: str) -> None:
        printed.append(line)
        print(line)

    run_benchmark(players=players, games=games, naive_slice=min(200, players), emit=emit)
    lines = {entry["name"]: entry for entry in map(json.loads, printed)}
    assert set(lines) == {"generate", "preview", "close", "naive_close_slice"}
    for name in ("preview", "close"):
        assert (lines[name]["players"], lines[name]["games"]) == (players, games)
        assert {"seconds", "peak_mb"} <= set(lines[name])
    assert lines["preview"]["changes"] == players
    assert lines["naive_close_slice"]["ratio_vs_close_per_player"] > 0
