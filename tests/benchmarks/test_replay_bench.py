"""Benchmark of a year's replay against the twelve closes it redoes (``bench_replay``).

``make bench`` runs it; ``BENCH_SCALE=small`` for 1/50 of a tenth of the federation size
(400 players, 2,000 games a month). No timing is asserted: the figures are printed, the
checks make sure they are about the work they claim to measure.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from players.models import RatingChange
from ratings_site.workshop.management.commands.bench_replay import FULL, SMALL_FACTOR, run_benchmark
from tests.benchmarks.report import emit as emit_record


@pytest.mark.benchmark
@pytest.mark.django_db(transaction=True)
def test_replay_benchmark() -> None:
    factor = SMALL_FACTOR if os.environ.get("BENCH_SCALE", "full") == "small" else 1
    players, games, months = FULL["players"] // factor, FULL["games"] // factor, FULL["months"]
    records: list[dict[str, Any]] = []

    def emit(line: str) -> None:
        records.append(json.loads(line))
        emit_record(records[-1])

    run_benchmark(players=players, games=games, months=months, emit=emit)

    names = [record["name"] for record in records]
    assert names == [
        "generate",
        *["close_month"] * months,
        "closes",
        "replay_run",
        "replay_run",
        "replay",
    ]
    closes = [r for r in records if r["name"] == "close_month"]
    assert len({r["month"] for r in closes}) == months
    assert all(r["players_changed"] > 0 for r in closes)
    summary = records[-1]
    assert summary["closes_seconds"] == pytest.approx(sum(r["seconds"] for r in closes), abs=0.01)
    runs = [r for r in records if r["name"] == "replay_run"]
    # Each replay redid the whole year: every month, and the same figures both times (the
    # games did not change, so nobody's published rating did either).
    assert [r["periods"] for r in runs] == [months, months]
    assert [r["players_changed"] for r in runs] == [0, 0]
    assert summary["seconds"] == min(r["seconds"] for r in runs)
    assert summary["ratio_vs_closes"] == round(summary["seconds"] / summary["closes_seconds"], 2)
    # The generated club is gone again.
    assert not RatingChange.objects.exists()
