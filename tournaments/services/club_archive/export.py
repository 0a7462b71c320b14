"""A club's history written as one archive (``club_export``)."""

from __future__ import annotations

import datetime
import hashlib
import json
import time
import uuid
import zipfile
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from decimal import Decimal
from operator import itemgetter
from typing import IO, Any

from django.db import connection, models, transaction
from django.db.migrations.recorder import MigrationRecorder
from django.db.models import Value
from django.utils import timezone

from players.models import Club
from tournaments.services.club_archive.tables import (
    CHUNK,
    FORMAT,
    FORMAT_VERSION,
    LEFT_OUT,
    MANIFEST,
    Table,
    _related,
    _user_model,
    club_tables,
)

# --- export -----------------------------------------------------------------------------

# zlib's fastest level: a 20,000-player club's 800 MB of lines took 5.4 s of CPU to
# compress at it against 8.9 s at the default (6), for a file of 63 MB instead of 45.
_LEVEL = 1


def _encode(value: Any) -> Any:
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, Decimal | uuid.UUID):
        return str(value)
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    raise TypeError(f"{type(value).__name__} cannot be written to a club archive")


def _migrations(labels: Iterable[str]) -> dict[str, list[str]]:
    applied = MigrationRecorder(connection).applied_migrations()
    wanted = set(labels)
    found: dict[str, list[str]] = defaultdict(list)
    for app, name in applied:
        if app in wanted:
            found[app].append(name)
    return {app: sorted(names) for app, names in sorted(found.items())}


@dataclass
class ExportReport:
    club: str
    tables: dict[str, int]
    seconds: float = 0.0

    @property
    def rows(self) -> int:
        return sum(self.tables.values())


def club_export(
    *, club: Club, out: IO[bytes], progress: Callable[[int], None] | None = None
) -> ExportReport:
    """Write ``club``'s archive to ``out`` (a writable, seekable binary file).

    One read transaction (repeatable read on PostgreSQL when not nested) so that a close
    committing meanwhile is either wholly in the file or not at all. Rows are read in
    chunks (a server-side cursor on PostgreSQL): memory does not grow with the history."""
    started = time.monotonic()
    tables = club_tables()
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                if len(connection.atomic_blocks) == 1:
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                # Every row is read: a plan for the first rows (a server-side cursor's
                # default) read a club's K history through an index of every club's in
                # 3.6 s instead of 0.1 s.
                cursor.execute("SET LOCAL cursor_tuple_fraction = 1")
        manifest_tables = []
        counts: dict[str, int] = {}
        user_model = _user_model()
        with zipfile.ZipFile(
            out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=_LEVEL, allowZip64=True
        ) as zf:
            for table in tables:
                rows, digest = _export_table(zf, table, club, user_model, progress)
                counts[table.label] = rows
                manifest_tables.append(
                    {
                        "model": table.label,
                        "file": table.file,
                        "rows": rows,
                        "sha256": digest,
                        "fields": [f.name for f in table.fields],
                    }
                )
            manifest = {
                "format": FORMAT,
                "format_version": FORMAT_VERSION,
                "exported_at": timezone.now().isoformat(),
                "club": {"slug": club.slug, "name": club.name},
                "source": {
                    "database": connection.vendor,
                    "migrations": _migrations(t.model._meta.app_label for t in tables),
                },
                "tables": manifest_tables,
            }
            zf.writestr(MANIFEST, json.dumps(manifest, indent=1, sort_keys=True))
    return ExportReport(club=club.slug, tables=counts, seconds=time.monotonic() - started)


def _export_table(
    zf: zipfile.ZipFile,
    table: Table,
    club: Club,
    user_model: type[models.Model],
    progress: Callable[[int], None] | None,
) -> tuple[int, str]:
    """One table's member of the zip; its row count and SHA-256.

    The rows are read here while a second thread checksums and compresses the block
    before (zlib and hashlib let go of the GIL): the database builds the next lines
    meanwhile, where a single thread left it waiting for the compression (half of the
    export's time)."""
    digest = hashlib.sha256()
    rows = 0

    def write(data: bytes) -> None:
        digest.update(data)
        member.write(data)

    blocks = (
        _json_lines_selected(table, club, user_model)
        if connection.vendor == "postgresql"
        else _json_lines_encoded(table, club, user_model)
    )
    with (
        zf.open(table.file, "w", force_zip64=True) as member,
        ThreadPoolExecutor(max_workers=1, thread_name_prefix="archive-zip") as pool,
    ):
        pending: deque[Future[None]] = deque()
        for data, lines in blocks:
            pending.append(pool.submit(write, data))
            # At most two blocks wait: memory stays a few megabytes, and an error of the
            # writer (a full disk) stops the export at once.
            while len(pending) > 2:
                pending.popleft().result()
            rows += lines
            if progress is not None:
                progress(lines)
        for future in pending:
            future.result()
    return rows, digest.hexdigest()


def _value(f: Any, user_model: type[models.Model]) -> str | Value:
    """What the archive holds of field ``f``: a user's username, nothing for what the
    archive leaves out (a run's job would name nothing on the target: it is written
    empty), any other value as stored."""
    if f.is_relation and f.related_model is user_model:
        return f"{f.name}__{user_model.USERNAME_FIELD}"  # type: ignore[attr-defined]
    if _related(f) in LEFT_OUT:
        return Value(None, output_field=type(f.target_field)())
    return str(f.attname)


def _values(table: Table, club: Club, user_model: type[models.Model]) -> Any:
    """The table's rows of ``club`` by id, a value per field: a user's username (joined),
    any other reference its id."""
    values = [_value(f, user_model) for f in table.fields]
    return (
        table.model._base_manager.filter(**{table.club_path: club.pk})
        .order_by("pk")
        .values_list(*values)
    )


# How the database writes a value of each kind as the archive's JSON (``{}`` the column):
# what Python's encoder wrote for it (Decimals and UUIDs as strings, times in ISO 8601,
# durations in seconds). Text of any kind goes through ``to_json`` (escaped).
_AS_NUMBER = "({})::text"
_AS_STRING = """'"' || ({})::text || '"'"""
_JSON_OF_KIND = {
    **dict.fromkeys(
        (
            "AutoField",
            "BigAutoField",
            "SmallAutoField",
            "IntegerField",
            "BigIntegerField",
            "SmallIntegerField",
            "PositiveIntegerField",
            "PositiveBigIntegerField",
            "PositiveSmallIntegerField",
            "FloatField",
            "BooleanField",
            "JSONField",
        ),
        _AS_NUMBER,
    ),
    "DecimalField": _AS_STRING,
    "UUIDField": _AS_STRING,
    "DurationField": "(extract(epoch from {}))::text",
}
# Rows fetched at once from the server-side cursor: a few megabytes of lines.
_FETCH = 10_000


def _json_expression(table: Table, user_model: type[models.Model]) -> str:
    """SQL that writes a row of ``t`` (columns ``c0``, ``c1``, ... in the order of the
    table's fields) as the archive's line: the field names and the values of the object
    joined as text. ``row_to_json`` did the same at twice the server's time (a million
    audit rows: 7 s against 3.5 s), and Python's encoder at more than three times."""
    parts = []
    for index, f in enumerate(table.fields):
        target = f.target_field if f.is_relation else f  # type: ignore[attr-defined]
        if f.is_relation and f.related_model is user_model:
            kind = "CharField"  # written by username
        else:
            kind = target.get_internal_type()
        if kind == "BinaryField":
            raise TypeError(f"{table.label}.{f.name}: binary values cannot be written")
        value = _JSON_OF_KIND.get(kind, "to_json({})::text").format(f"t.c{index}")
        # Python's separators (", " and ": "), as the archives written before had them.
        key = json.dumps(f.name) + ": "
        lead = "{" if index == 0 else ", "
        parts.append(f"'{lead}{key}' || coalesce({value}, 'null')")
    return " || ".join(parts) + " || '}'"


def _json_lines_selected(
    table: Table, club: Club, user_model: type[models.Model]
) -> Iterator[tuple[bytes, int]]:
    """PostgreSQL: the table's lines written by the database itself
    (:func:`_json_expression`), read through a server-side cursor in blocks of a few
    megabytes with their line counts. Encoding each row in Python was most of a large
    club's export (a million games and as many audit rows: about 5 microseconds a row in
    ``json.dumps`` alone, and as much again for the rows' tuples)."""
    sql, params = _values(table, club, user_model).query.sql_with_params()
    aliases = ", ".join(f"c{index}" for index in range(len(table.fields)))
    statement = (
        f"SELECT {_json_expression(table, user_model)} "  # noqa: S608 - names from the model, values bound
        f"FROM ({sql}) AS t ({aliases})"
    )
    with (
        connection.chunked_cursor() as cursor,
        ThreadPoolExecutor(max_workers=1, thread_name_prefix="archive-fetch") as pool,
    ):
        cursor.execute(statement, params)
        # The next rows are asked for before these are joined: the server builds them
        # meanwhile instead of waiting for the next FETCH (a third of the export's time
        # was the two taking turns). Only this thread uses the cursor between the calls.
        ahead = pool.submit(cursor.fetchmany, _FETCH)
        while rows := ahead.result():
            ahead = pool.submit(cursor.fetchmany, _FETCH)
            text = "\n".join(map(itemgetter(0), rows)) + "\n"
            yield text.encode("utf-8"), len(rows)


def _json_lines_encoded(
    table: Table, club: Club, user_model: type[models.Model]
) -> Iterator[tuple[bytes, int]]:
    """Elsewhere (SQLite): the lines encoded here, a chunk of rows at a time."""
    names = [f.name for f in table.fields]
    query = _values(table, club, user_model)
    encode = json.JSONEncoder(default=_encode).encode
    for chunk in _chunks(query.iterator(chunk_size=CHUNK), CHUNK):
        lines = [encode(dict(zip(names, row, strict=True))) for row in chunk]
        yield ("\n".join(lines) + "\n").encode("utf-8"), len(chunk)


def _chunks(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    chunk: list[Any] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
