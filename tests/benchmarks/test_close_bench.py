"""Benchmark of the period close: prints one JSON line per measured phase.

``make bench`` runs it; ``BENCH_SCALE=small`` for 1% of the federation size. Meant for
PostgreSQL (DATABASE_URL); on SQLite it runs in-process. No timing is asserted: the
figures are printed for people to read. The ratio against a baseline in the same process
is ``ratio_vs_close_per_player`` on the ``naive_close_slice`` line: the naive ORM close's
seconds per player over the real close's. ``peak_mb``: see ``report.py``. The checks below
only make sure the figures are about the work they claim to measure.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from tests.benchmarks.report import emit as emit_record
from tournaments.management.commands.bench_close import FULL, run_benchmark


@pytest.mark.benchmark
@pytest.mark.django_db(transaction=True)
def test_close_benchmark() -> None:
    factor = 100 if os.environ.get("BENCH_SCALE", "full") == "small" else 1
    players, games = FULL["players"] // factor, FULL["games"] // factor
    records: list[dict[str, Any]] = []

    def emit(line: str) -> None:
        record = json.loads(line)
        if "peak_mb" in record:
            # The generate line carries no scope: it runs in this process, like SQLite's phases.
            record.setdefault("peak_scope", "process")
        records.append(record)
        emit_record(record)

    run_benchmark(players=players, games=games, naive_slice=min(200, players), emit=emit)
    lines = {entry["name"]: entry for entry in records}
    assert set(lines) == {"generate", "preview", "close", "naive_close_slice"}
    for name in ("preview", "close"):
        assert (lines[name]["players"], lines[name]["games"]) == (players, games)
    for line in lines.values():
        assert {"seconds", "peak_mb", "peak_scope"} <= set(line)
        assert line["peak_mb"] >= 0
    assert lines["preview"]["changes"] == players
    assert lines["naive_close_slice"]["ratio_vs_close_per_player"] > 0
