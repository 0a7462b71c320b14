"""Benchmark of a club's archive (docs/backup.md): export_club and import_club of a
20,000-player club with three closed months (``BENCH_SCALE=small``: 400 players, two).

No timing is asserted: the figures are printed (rows, seconds, file size), and the checks
make sure the import restored every row the export wrote.
"""

from __future__ import annotations

import os
import tempfile
import time

import pytest

from players.models import Club, RatingChange, RatingPeriod
from ratings_site.workshop.bench_data import generate
from tests.benchmarks.report import emit
from tournaments.services import period_close
from tournaments.services.club_archive import club_export, club_import

FULL = {"players": 20_000, "games": 40_000, "months": 3}
SMALL = {"players": 400, "games": 2_000, "months": 2}


@pytest.mark.benchmark
@pytest.mark.django_db(transaction=True)
def test_club_archive_benchmark() -> None:
    size = SMALL if os.environ.get("BENCH_SCALE", "full") == "small" else FULL
    started = time.monotonic()
    rating_list, user = generate(
        players=size["players"], games=size["games"], months=size["months"], seed=7, quiet=True
    )
    for period in RatingPeriod.objects.filter(rating_list=rating_list).order_by("month"):
        period_close(period=period, by=user)
    club = rating_list.club
    changes = RatingChange.objects.filter(rating_list=rating_list).count()
    emit(
        {
            "name": "club_archive_data",
            **size,
            "rating_changes": changes,
            "seconds": round(time.monotonic() - started, 2),
        }
    )
    with tempfile.TemporaryFile() as out:
        exported = club_export(club=club, out=out)
        emit(
            {
                "name": "club_export",
                "rows": exported.rows,
                "bytes": out.tell(),
                "seconds": round(exported.seconds, 2),
            }
        )
        out.seek(0)
        imported = club_import(file=out, slug=f"{club.slug}-copy", name=f"{club.name} copy")
    emit({"name": "club_import", "rows": imported.rows, "seconds": round(imported.seconds, 2)})
    assert imported.tables == exported.tables
    assert exported.tables["players.player"] == size["players"]
    copy = Club.objects.get(slug=f"{club.slug}-copy")
    assert RatingChange.objects.filter(rating_list__club=copy).count() == changes > 0
