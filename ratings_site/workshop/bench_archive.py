"""The club archive's benchmark (``tests/benchmarks/test_club_archive_bench.py`` and
``manage.py bench_archive``): a club built as a club's history grows, then exported,
dumped by ``pg_dump`` and restored, each timed.

On PostgreSQL the restore is also set against the database's own floor for writing the
same rows (``copy_floor_seconds``: COPY of their text into tables of the same indexes).

The club: ``players`` players and ``games`` games in each of ``months`` months
(``bench_data.generate``, with the audit rows an import writes for its players and games),
every month closed by ``period_close``. Full size is the issue's: 20,000 players, two
years of monthly closes, 40,000 games a month (two games a player a week): about 960,000
games, as many audit rows and 480,000 rating changes.

Building it takes minutes; a database that keeps it (``manage.py bench_archive`` on a
development database) finds it again by its name and builds it only once. The test
database is emptied after each test, so the pytest benchmark builds it every time.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import Any

from django.db import connection, transaction

from players.models import Club, RatingPeriod
from ratings_site.workshop import bench_floor
from ratings_site.workshop.bench_data import generate
from tournaments.services import period_close
from tournaments.services.club_archive import club_export, club_import, club_tables

FULL = {"players": 20_000, "games": 40_000, "months": 24}
SMALL = {"players": 400, "games": 800, "months": 3}


def archive_club(*, players: int, games: int, months: int, seed: int = 7) -> Club:
    """The benchmark's club: found by its name when this database has it whole, else built
    (and every month closed)."""
    name = f"Archive benchmark {players}-{games}-{months}-{seed}"
    club = Club.objects.filter(name=name).first()
    if club is not None:
        if not RatingPeriod.objects.filter(rating_list__club=club, closed_at=None).exists():
            return club
        club.delete()
    rating_list, user = generate(
        players=players, games=games, months=months, seed=seed, quiet=True, audit=True
    )
    for period in RatingPeriod.objects.filter(rating_list=rating_list).order_by("month"):
        period_close(period=period, by=user)
    club = rating_list.club
    Club.objects.filter(pk=club.pk).update(name=name)
    club.refresh_from_db()
    return club


def pg_dump_seconds(tables: list[str]) -> dict[str, Any]:
    """``pg_dump --data-only`` of ``tables`` (the archive's tables) into a file, timed: in
    plain SQL (COPY text) and in its custom format (compressed, as the zip is)."""
    settings = connection.settings_dict
    env = {**os.environ}
    if settings.get("PASSWORD"):
        env["PGPASSWORD"] = str(settings["PASSWORD"])
    base = ["pg_dump", "--data-only", "--no-owner", "--no-acl"]
    for option, key in (("--host", "HOST"), ("--port", "PORT"), ("--username", "USER")):
        if settings.get(key):
            base += [option, str(settings[key])]
    for table in tables:
        base += ["--table", table]
    base.append(str(settings["NAME"]))
    figures: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        for form in ("plain", "custom"):
            path = os.path.join(folder, f"dump.{form}")
            started = time.monotonic()
            subprocess.run([*base, f"--format={form}", f"--file={path}"], check=True, env=env)  # noqa: S603 - our own arguments
            figures[f"pg_dump_{form}_seconds"] = round(time.monotonic() - started, 2)
            figures[f"pg_dump_{form}_bytes"] = os.path.getsize(path)
    return figures


def copy_floor_seconds(tables: list[str]) -> float:
    """PostgreSQL's own time to write the same rows: each table's rows COPied out as text
    (untimed), then COPied back, in one transaction, into a new table of the same columns,
    defaults and indexes (``LIKE ... INCLUDING ALL``; no triggers), rolled back. What a
    restore writing them cannot beat on this machine (a restore also reads, checks and maps
    every value, and writes beside the original's rows, into larger indexes)."""
    quote = connection.ops.quote_name
    with tempfile.TemporaryDirectory() as folder, connection.cursor() as cursor:
        files = []
        for table in tables:
            path = os.path.join(folder, table)
            with (
                open(path, "wb") as out,
                cursor.cursor.copy(f"COPY {quote(table)} TO STDOUT") as copy,
            ):
                for data in copy:
                    out.write(data)
            files.append((table, path))
        started = time.monotonic()
        with transaction.atomic():
            for table, path in files:
                floor = quote(f"bench_floor_{table}")
                cursor.execute(f"CREATE TABLE {floor} (LIKE {quote(table)} INCLUDING ALL)")
                with (
                    open(path, "rb") as data,
                    cursor.cursor.copy(f"COPY {floor} FROM STDIN") as copy,
                ):
                    while block := data.read(1024 * 1024):
                        copy.write(block)
            seconds = time.monotonic() - started
            transaction.set_rollback(True)
    return round(seconds, 2)


def run_benchmark(
    *, players: int, games: int, months: int, emit: Callable[[dict[str, Any]], None]
) -> dict[str, Any]:
    """Build (or find) the club, export it, ``pg_dump`` the same tables, restore the
    export as a copy; emit a line each and return the summary line."""
    started = time.monotonic()
    club = archive_club(players=players, games=games, months=months)
    # Statistics and hint bits as autovacuum leaves them between a club's last close and
    # its export (untimed): the first read of freshly written rows sets every hint bit.
    bench_floor.vacuum_analyze(tuple(t.model for t in club_tables()))
    emit(
        {
            "name": "club_archive_data",
            "players": players,
            "games_per_month": games,
            "months": months,
            "seconds": round(time.monotonic() - started, 2),
        }
    )
    slug = f"{club.slug}-copy"
    Club.objects.filter(slug=slug).delete()
    with tempfile.TemporaryFile() as out:
        exported = club_export(club=club, out=out)
        size = out.tell()
        export_line = {
            "name": "club_export",
            "rows": exported.rows,
            "bytes": size,
            "seconds": round(exported.seconds, 2),
        }
        emit(export_line)
        dump: dict[str, Any] = {}
        if connection.vendor == "postgresql" and shutil.which("pg_dump"):
            tables = [t.model._meta.db_table for t in club_tables()]
            dump = pg_dump_seconds(tables)
            emit({"name": "pg_dump", **dump})
            dump["copy_floor_seconds"] = copy_floor_seconds(tables)
            emit({"name": "copy_floor", "seconds": dump["copy_floor_seconds"]})
        out.seek(0)
        imported = club_import(file=out, slug=slug, name=f"{club.name} copy")
    import_line = {
        "name": "club_import",
        "rows": imported.rows,
        "seconds": round(imported.seconds, 2),
    }
    emit(import_line)
    summary: dict[str, Any] = {
        "name": "club_archive",
        "players": players,
        "months": months,
        "rows": exported.rows,
        "export_seconds": export_line["seconds"],
        "import_seconds": import_line["seconds"],
        **dump,
    }
    for form in ("plain", "custom"):
        baseline = dump.get(f"pg_dump_{form}_seconds")
        if baseline:
            summary[f"export_ratio_vs_pg_dump_{form}"] = round(export_line["seconds"] / baseline, 2)
    if dump.get("pg_dump_plain_seconds"):
        summary["import_ratio_vs_pg_dump_plain"] = round(
            import_line["seconds"] / dump["pg_dump_plain_seconds"], 2
        )
        summary["import_ratio_vs_copy_floor"] = round(
            import_line["seconds"] / dump["copy_floor_seconds"], 2
        )
    emit(summary)
    return {"exported": exported, "imported": imported, "club": club, "copy": slug, **summary}
