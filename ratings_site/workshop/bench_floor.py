"""The close benchmark's floor, and how it undoes a close between two runs.

The floor is the time PostgreSQL alone needs to move the rows a close moves, with no
Python work beyond handing bytes over: COPY out the columns the close reads (the month's games:
white, black, result, rated, tournament; the list's PlayerRating entry state with the
player's birth year; the previous closed period's RatingChange state, if any) to the
server's /dev/null (see ``_copy_out``), COPY in from this client the very RatingChange
rows the first close wrote, and UPDATE the same PlayerRating rows from them as the close
does, all in one transaction that is rolled back, so the real close is unaffected.

The floor is the rows' movement only: it leaves out the foreign key checks of the new
rows, which a commit runs (Django makes them deferred) but which the schema decides, not
the data (RatingChange has none left: players migration 0025 dropped the last, the
player's). The floor still runs them before rolling back (``SET CONSTRAINTS ALL
IMMEDIATE`` fires the queued ones) and reports their time apart, as
``check_foreign_keys``, so the close's commit can be read against it. The floor also
leaves out the commit's flush, the KFactorChange rows and the few small rows (run,
period) the close writes.

Between two closes, ``reset`` deletes the period's RatingChange and KFactorChange rows,
puts back the PlayerRating columns the close updates from a copy taken before the first
close (``snapshot``), reopens the period and runs ``VACUUM (ANALYZE)`` on those tables and
the players (whose rows the key checks lock). After a floor there is nothing to undo, but
its rolled-back rows are dead tuples in the table and its indexes: they are vacuumed too. So each close and each floor meets the same
tables as the first, cleaned as production's autovacuum would clean them (it is off on
our benchmark machines).

SQLite has no floor: without COPY, a floor of plain SELECT/INSERT/UPDATE would run
through the same Python driver as the close and time that driver rather than the
database's least work.
"""

from __future__ import annotations

import os
import tempfile
import time
from typing import Any

from django.db import connection, transaction

from players.models import (
    KFactorChange,
    Player,
    PlayerRating,
    RatingChange,
    RatingList,
    RatingPeriod,
)
from tournaments.models import Game

GENERATED: tuple[Any, ...] = (Player, PlayerRating, RatingPeriod, Game)
# What a close or a floor leaves dead or locked rows in (the key checks lock the players).
CLOSE_TOUCHES: tuple[Any, ...] = (RatingChange, KFactorChange, PlayerRating, RatingPeriod, Player)
# The PlayerRating columns a close updates: copied before the first close, put back after.
RESTORED = ("rating", "rated_games", "reached_2400", "pool", "k_factor", "k_reason", "updated")
SQLITE_NO_FLOOR = (
    "SQLite has no COPY: a floor of plain SELECT/INSERT/UPDATE would run through the same "
    "Python driver as the close and time the driver, not the database's least work"
)


def _table(model: Any) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def vacuum_analyze(models: tuple[Any, ...]) -> None:
    """Statistics for the planner and hint bits set, before anything is timed."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # Outside any transaction: the command and the benchmark test run in autocommit.
            cursor.execute(f"VACUUM (ANALYZE) {', '.join(_table(m) for m in models)}")
        else:
            for model in models:
                cursor.execute(f"ANALYZE {_table(model)}")


def snapshot_name(rating_list: RatingList) -> str:
    return f"bench_close_snapshot_{int(rating_list.pk)}"


def snapshot(rating_list: RatingList) -> None:
    snapshot_lists([int(rating_list.pk)], snapshot_name(rating_list))


def snapshot_lists(list_ids: list[int], name: str) -> None:
    """The rating rows of the lists ``list_ids`` a close changes, copied into table ``name``."""
    columns = ", ".join(RESTORED)
    marks = ", ".join(["%s"] * len(list_ids))  # IN, not ANY(): SQLite's benchmark runs it too
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TABLE {name} AS SELECT id, {columns} "  # noqa: S608
            f"FROM {_table(PlayerRating)} WHERE rating_list_id IN ({marks})",
            list_ids,
        )


def drop_snapshot(rating_list: RatingList) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {snapshot_name(rating_list)}")


def reset(rating_list: RatingList, period: RatingPeriod) -> None:
    """Undo a close: see the module's docstring."""
    reset_periods([int(period.pk)], snapshot_name(rating_list))


def reset_periods(period_ids: list[int], name: str) -> None:
    """Undo the closes of the periods ``period_ids``, their lists' ratings put back from the
    snapshot table ``name`` (``snapshot_lists``)."""
    target = _table(PlayerRating)
    assignments = ", ".join(f"{column} = s.{column}" for column in RESTORED)
    with transaction.atomic():
        KFactorChange.objects.filter(source_period__in=period_ids)._raw_delete(connection.alias)
        RatingChange.objects.filter(period__in=period_ids)._raw_delete(connection.alias)
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {target} SET {assignments} FROM {name} AS s "  # noqa: S608
                f"WHERE s.id = {target}.id"
            )
        RatingPeriod.objects.filter(pk__in=period_ids).update(
            status=RatingPeriod.Status.OPEN, closed_by=None, closed_at=None
        )
    vacuum_analyze(CLOSE_TOUCHES)


def _change_columns() -> list[str]:
    """Every RatingChange column but the id: what the floor copies out and back in."""
    return [f.column for f in RatingChange._meta.concrete_fields if not f.primary_key]


def capture_changes(period: RatingPeriod) -> str:
    """The RatingChange rows the close wrote, as COPY text in a temporary file."""
    columns = ", ".join(_change_columns())
    handle, path = tempfile.mkstemp(prefix="bench_close_", suffix=".copy")
    sql = (
        f"COPY (SELECT {columns} FROM {_table(RatingChange)} "  # noqa: S608
        f"WHERE period_id = {int(period.pk)} ORDER BY id) TO STDOUT"
    )
    with (
        os.fdopen(handle, "wb") as file,
        connection.cursor() as cursor,
        cursor.cursor.copy(sql) as copy,
    ):
        for block in copy:
            file.write(block)
    return path


# -- the floor ------------------------------------------------------------------------------


def _copy_out(cursor: Any, sql: str, *, on_server: bool) -> int:
    """COPY the rows of ``sql`` out and drop them; the number of rows.

    On the server (``TO '/dev/null'``) when the role may write server files: PostgreSQL
    sends COPY out one message per row, and a Python client's loop over a million of
    them costs about three times the server's own work, which is not the floor. Else
    through this client, and the line says so.
    """
    if on_server:
        cursor.execute(f"COPY ({sql}) TO '/dev/null'")
        return int(cursor.rowcount)
    rows = 0
    with cursor.copy(f"COPY ({sql}) TO STDOUT") as copy:
        for block in copy:
            rows += bytes(block).count(b"\n")
    return rows


def floor(*, rating_list: RatingList, period: RatingPeriod, payload_path: str) -> dict[str, Any]:
    """PostgreSQL's least work for the close (see the module's docstring); rolled back.

    ``seconds`` is the sum of ``parts``; reading the payload file comes first, untimed,
    and ``check_foreign_keys`` last, timed apart.
    """
    with open(payload_path, "rb") as file:
        payload = file.read()
    previous = (
        RatingPeriod.objects.filter(
            rating_list=rating_list, month__lt=period.month, status=RatingPeriod.Status.CLOSED
        )
        .order_by("-month")
        .values_list("pk", flat=True)
        .first()
    )
    ratings, changes = _table(PlayerRating), _table(RatingChange)
    parts: dict[str, float] = {}
    rows: dict[str, int] = {}
    with transaction.atomic(), connection.cursor() as wrapper:
        cursor = wrapper.cursor
        cursor.execute("SELECT pg_has_role('pg_write_server_files', 'MEMBER')")
        on_server = bool(cursor.fetchone()[0])
        _copy_out_reads(
            cursor,
            rating_list=rating_list,
            period=period,
            previous=previous,
            on_server=on_server,
            parts=parts,
            rows=rows,
        )
        clock = time.perf_counter()
        with cursor.copy(f"COPY {changes} ({', '.join(_change_columns())}) FROM STDIN") as copy:
            for start in range(0, len(payload), 1 << 20):
                copy.write(payload[start : start + (1 << 20)])
        parts["copy_in_changes"] = time.perf_counter() - clock
        rows["changes"] = payload.count(b"\n")
        clock = time.perf_counter()
        cursor.execute(
            f"UPDATE {ratings} SET rating = rc.rating_after, rated_games = rc.rated_games_after, "  # noqa: S608
            "reached_2400 = rc.reached_2400_after, pool = rc.pool_after, k_factor = rc.k_next, "
            f"k_reason = rc.k_next_reason, updated = now() FROM {changes} AS rc "
            f"WHERE rc.period_id = %s AND rc.current AND rc.player_id = {ratings}.player_id "
            f"AND {ratings}.rating_list_id = %s",
            [period.pk, rating_list.pk],
        )
        rows["ratings_updated"] = cursor.rowcount
        parts["update_ratings"] = time.perf_counter() - clock
        # Django's foreign keys are deferred to the commit, which a rolled-back
        # transaction never reaches; switching them to immediate runs the queued checks
        # now, as the close's commit does. Timed apart: not in the floor (module docstring).
        clock = time.perf_counter()
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        checks = time.perf_counter() - clock
        transaction.set_rollback(True)
    return {
        "seconds": round(sum(parts.values()), 3),
        "parts": {name: round(value, 3) for name, value in parts.items()},
        "check_foreign_keys": round(checks, 3),
        "rows": rows,
        "copy_out_to": "server /dev/null" if on_server else "client",
    }


def _copy_out_reads(
    cursor: Any,
    *,
    rating_list: RatingList,
    period: RatingPeriod,
    previous: int | None,
    on_server: bool,
    parts: dict[str, float],
    rows: dict[str, int],
) -> None:
    """The floor's reads, timed into ``parts`` and counted into ``rows``: COPY out the
    month's games, the list's entry states and the previous closed period's states."""
    games, ratings, players, changes = (
        _table(m) for m in (Game, PlayerRating, Player, RatingChange)
    )
    clock = time.perf_counter()
    rows["games"] = _copy_out(
        cursor,
        f"SELECT white_id, black_id, result, rated, tournament_id FROM {games} "  # noqa: S608
        f"WHERE period_id = {int(period.pk)}",
        on_server=on_server,
    )
    parts["copy_out_games"] = time.perf_counter() - clock
    clock = time.perf_counter()
    rows["states"] = _copy_out(
        cursor,
        "SELECT r.player_id, r.entry_rating, r.entry_rated_games, r.entry_reached_2400, "  # noqa: S608
        f"r.k_override, p.birth_year, r.entry_month FROM {ratings} AS r "
        f"JOIN {players} AS p ON p.id = r.player_id WHERE r.rating_list_id = {rating_list.pk}",
        on_server=on_server,
    )
    rows["previous_states"] = 0
    if previous is not None:
        rows["previous_states"] = _copy_out(
            cursor,
            "SELECT player_id, rating_after, rated_games_after, reached_2400_after, "  # noqa: S608
            f"last_active_month, pool_after FROM {changes} "
            f"WHERE period_id = {int(previous)} AND current",
            on_server=on_server,
        )
    parts["copy_out_states"] = time.perf_counter() - clock


# -- the report -----------------------------------------------------------------------------


def summaries(
    preview_line: dict[str, Any],
    naive_line: dict[str, Any],
    closes: list[dict[str, Any]],
    floors: list[dict[str, Any]],
    size: dict[str, int],
) -> list[dict[str, Any]]:
    """The floor, preview, close and naive lines: best runs and the ratios between them."""
    best_close = min(closes, key=lambda line: line["seconds"])
    close_line = {
        **best_close,
        "name": "close",
        "runs": [line["seconds"] for line in closes],
        "peak_mb": max(line["peak_mb"] for line in closes),
        "ratio_vs_floor": None,
    }
    del close_line["run"]
    if floors:
        best = min(floors, key=lambda line: line["seconds"])
        floor_line = {**best, "name": "floor", "runs": [line["seconds"] for line in floors]}
        del floor_line["run"], floor_line["changes_after_rollback"]
        reads = min(
            line["parts"]["copy_out_games"] + line["parts"]["copy_out_states"] for line in floors
        )
        close_line["ratio_vs_floor"] = _ratio(close_line["seconds"], best["seconds"])
        preview_line["ratio_vs_floor_reads"] = _ratio(preview_line["seconds"], reads)
    else:
        floor_line = {"name": "floor", **size, "skipped": SQLITE_NO_FLOOR}
        preview_line["ratio_vs_floor_reads"] = None
    per_player_naive = naive_line["seconds"] / max(1, naive_line["players"])
    per_player_close = close_line["seconds"] / max(1, close_line["players"])
    naive_line["ratio_vs_close_per_player"] = round(per_player_naive / per_player_close, 1)
    return [floor_line, preview_line, close_line, naive_line]


def _ratio(seconds: float, floor_seconds: float) -> float | None:
    return round(seconds / floor_seconds, 2) if floor_seconds > 0 else None
