"""Benchmark of the period close: prints one JSON line per measured run and per summary.

``make bench`` runs it; ``BENCH_SCALE=small`` for 1% of the federation size. Meant for
PostgreSQL (DATABASE_URL); on SQLite it runs in-process and has no floor. No timing is
asserted: the figures are printed for people to read. The ratios against baselines in the
same run: ``ratio_vs_floor`` on the ``close`` line (the best of two closes over the best of
three floors: PostgreSQL alone copying out what the close reads, copying in the rows it
writes and updating the rows it updates, rolled back; see ``bench_close`` and
``bench_floor``), ``ratio_vs_floor_reads`` on the ``preview`` line, and
``ratio_vs_close_per_player`` on the ``naive_close_slice`` line (the naive ORM close's
seconds per player over the real close's). ``peak_mb``: see ``report.py``. The checks
below only make sure the figures are about the work they claim to measure.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from typing import Any

import pytest
from django.db import connection

from ratings_site.workshop.management.commands.bench_close import FULL, run_benchmark
from tests.benchmarks.report import emit as emit_record
from tournaments.models import Game


def _forget_sqlite_statistics() -> None:
    """SQLite keeps sqlite_stat1 across tests (a flush does not empty it): an earlier
    benchmark's ANALYZE would otherwise pass for this one's."""
    if connection.vendor == "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'")
        if cursor.fetchone()[0]:
            cursor.execute("DELETE FROM sqlite_stat1 WHERE tbl = %s", [Game._meta.db_table])


def _analyze_counts() -> tuple[int, ...]:
    """How many times the games table was analysed (and vacuumed) by hand so far."""
    table = Game._meta.db_table
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT analyze_count, vacuum_count FROM pg_stat_user_tables WHERE relname = %s",
                [table],
            )
            row = cursor.fetchone()
            return (int(row[0]), int(row[1]))
        # SQLite keeps ANALYZE's figures in sqlite_stat1, which exists only after one.
        cursor.execute("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'")
        if not cursor.fetchone()[0]:
            return (0,)
        cursor.execute("SELECT count(*) FROM sqlite_stat1 WHERE tbl = %s", [table])
        return (int(cursor.fetchone()[0]),)


@pytest.mark.benchmark
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("system", ["fide", "glicko2"])
def test_close_benchmark(system: str) -> None:
    factor = 100 if os.environ.get("BENCH_SCALE", "full") == "small" else 1
    players, games = FULL["players"] // factor, FULL["games"] // factor
    on_postgres = connection.vendor == "postgresql"
    records: list[dict[str, Any]] = []

    def emit(line: str) -> None:
        record = json.loads(line)
        if "peak_mb" in record:
            # The generate line carries no scope: it runs in this process, like SQLite's phases.
            record.setdefault("peak_scope", "process")
        records.append(record)
        emit_record(record)

    _forget_sqlite_statistics()
    before = _analyze_counts()
    run_benchmark(
        players=players, games=games, naive_slice=min(200, players), emit=emit, system=system
    )
    assert {record["system"] for record in records} == {system}
    after = _analyze_counts()

    named: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        named[record["name"]].append(record)
    once = {"generate", "preview", "naive_close_slice", "close", "floor"}
    assert set(named) == once | {"close_run"} | ({"floor_run"} if on_postgres else set())
    assert all(len(named[name]) == 1 for name in once)
    lines = {name: entries[0] for name, entries in named.items()}
    close, floor, preview = lines["close"], lines["floor"], lines["preview"]

    # The generated tables were analysed before anything was timed.
    assert all(a > b for a, b in zip(after, before, strict=True))
    assert Game._meta.db_table in lines["generate"]["analyzed"]

    for line in [lines["preview"], close, *named["close_run"], *named.get("floor_run", [])]:
        assert (line["players"], line["games"]) == (players, games)
    for line in records:
        if line.get("skipped"):
            continue
        assert {"seconds", "peak_mb", "peak_scope"} <= set(line)
        assert line["peak_mb"] >= 0
    assert preview["changes"] == players

    # Two closes of the same month: each wrote a row for every player and changed the
    # same ratings, so the reset between them restored what the first one found.
    closes = named["close_run"]
    assert [line["run"] for line in closes] == [1, 2]
    assert [line["changes_written"] for line in closes] == [players, players]
    assert closes[0]["players_changed"] == closes[1]["players_changed"] > 0
    assert close["runs"] == [line["seconds"] for line in closes]
    assert close["seconds"] == min(close["runs"])
    assert close["peak_mb"] == max(line["peak_mb"] for line in closes)
    assert set(close["steps"]) == {"read", "compute", "write"}

    if on_postgres:
        floors = named["floor_run"]
        assert [line["run"] for line in floors] == [1, 2, 3]
        for line in floors:
            # The floor moved what the close moves: every game and every player's state
            # out (no closed period before this one), every row the close wrote in, every
            # player's rating updated; and rolled all of it back.
            assert line["rows"] == {
                "games": games,
                "states": players,
                "previous_states": 0,
                "changes": players,
                "ratings_updated": players,
            }
            assert set(line["parts"]) == {
                "copy_out_games",
                "copy_out_states",
                "copy_in_changes",
                "update_ratings",
            }
            assert line["seconds"] == pytest.approx(sum(line["parts"].values()), abs=0.005)
            assert line["check_foreign_keys"] >= 0
            assert line["changes_after_rollback"] == 0
        assert floor["runs"] == [line["seconds"] for line in floors]
        assert floor["seconds"] == min(floor["runs"]) > 0
        assert close["ratio_vs_floor"] == round(close["seconds"] / floor["seconds"], 2)
        reads = min(f["parts"]["copy_out_games"] + f["parts"]["copy_out_states"] for f in floors)
        assert preview["ratio_vs_floor_reads"] == round(preview["seconds"] / reads, 2)
    else:
        assert "SQLite" in floor["skipped"]
        assert close["ratio_vs_floor"] is None
        assert preview["ratio_vs_floor_reads"] is None

    assert lines["naive_close_slice"]["ratio_vs_close_per_player"] > 0
