"""Benchmark of a club's archive (docs/reference/backup.md): export_club and import_club of a
20,000-player club with two years of monthly closes (``BENCH_SCALE=small``: 400 players,
three months), against ``pg_dump --data-only`` of the same tables and the database's own
floor for writing the same rows (their COPY text into tables of the same indexes) in the same run
(``ratings_site/workshop/bench_archive.py`` builds the club and runs the steps).

No timing is asserted: the figures are printed (rows, seconds, file sizes, the ratios
against pg_dump on PostgreSQL), and the checks make sure the import restored every row
the export wrote.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from players.models import Club, RatingChange
from ratings_site.workshop.bench_archive import FULL, SMALL, run_benchmark
from tests.benchmarks.report import emit


@pytest.mark.benchmark
@pytest.mark.django_db(transaction=True)
def test_club_archive_benchmark() -> None:
    size = SMALL if os.environ.get("BENCH_SCALE", "full") == "small" else FULL
    records: list[dict[str, Any]] = []

    def record(line: dict[str, Any]) -> None:
        records.append(line)
        emit(line)

    result = run_benchmark(**size, emit=record)
    names = [r["name"] for r in records]
    assert names[:2] == ["club_archive_data", "club_export"]
    assert names[-2:] == ["club_import", "club_archive"]
    exported, imported = result["exported"], result["imported"]
    assert imported.tables == exported.tables
    assert exported.tables["players.player"] == size["players"]
    assert exported.tables["tournaments.game"] == size["games"] * size["months"]
    changes = RatingChange.objects.filter(rating_list__club=result["club"]).count()
    copy = Club.objects.get(slug=result["copy"])
    assert RatingChange.objects.filter(rating_list__club=copy).count() == changes > 0
    summary = records[-1]
    if "pg_dump_plain_seconds" in summary:
        assert summary["export_ratio_vs_pg_dump_plain"] == round(
            summary["export_seconds"] / summary["pg_dump_plain_seconds"], 2
        )
