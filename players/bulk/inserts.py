"""The inserts: rows (or rows kept as columns) into a model's table, through COPY on
PostgreSQL and multi-row INSERTs elsewhere, with the audit rows where the caller asks."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy
from django.db import connection, models
from django.utils import timezone

from players.bulk import copying
from players.bulk.audit import history_rows_copy, tracked
from players.bulk.binary import ColumnValues, binary_value, copy_columns
from players.bulk.copying import copy_rows, copy_text, copy_value, ids_taken
from players.bulk.fields import columns_of, copy_constants, json_text
from players.models.audit import audit_user_id, audit_via

# Bound parameters per statement: SQLite allows 32,766, PostgreSQL 65,535.
_MAX_PARAMETERS = 30_000
_MAX_ROWS = 2_000


def rows_per_statement(per_row: int) -> int:
    """How many rows of ``per_row`` bound values one statement takes."""
    return max(1, min(_MAX_ROWS, _MAX_PARAMETERS // per_row))


def insert_rows(
    model: type[models.Model],
    fields: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    raw: Any = None,
) -> int:
    """Insert ``rows`` (values in the order of ``fields``; foreign keys as ids) in batches;
    returns how many. Runs inside the caller's transaction; ids are not returned. ``raw``:
    PostgreSQL's COPY on that psycopg connection (:class:`CopyBehind`'s thread)."""
    cols = columns_of(model, fields)
    columns = cols.columns
    quote = connection.ops.quote_name
    if connection.vendor == "postgresql":
        return copy_rows(model, cols, rows, raw=raw)
    constant_values = [value for _, value in cols.constants]
    per_row = len(columns)
    batch = rows_per_statement(per_row)
    head = (
        f"INSERT INTO {quote(model._meta.db_table)} "  # noqa: S608 - names from the model, values bound
        f"({', '.join(quote(column) for column in columns)}) VALUES "
    )
    placeholder = "(" + ", ".join(["%s"] * per_row) + ")"
    adapters = cols.adapters
    count = 0
    pending: list[Any] = []
    pending_rows = 0
    with connection.cursor() as cursor:
        for row in rows:
            values = list(row)
            for index, adapt in adapters:
                values[index] = adapt(values[index])
            pending.extend(values)
            pending.extend(constant_values)
            pending_rows += 1
            if pending_rows == batch:
                cursor.execute(head + ", ".join([placeholder] * pending_rows), pending)
                count += pending_rows
                pending, pending_rows = [], 0
        if pending_rows:
            cursor.execute(head + ", ".join([placeholder] * pending_rows), pending)
            count += pending_rows
    return count


def insert_rows_sharing(
    model: type[models.Model], fields: Sequence[str], rows: Iterable[tuple[Any, Sequence[Any]]]
) -> int:
    """:func:`insert_rows` for rows that mostly differ in their first value only: each row
    is (its first value, the rest), and rows with the same rest share one object (the
    states of an import's new players: thousands of players, a few distinct states).

    PostgreSQL: each distinct rest is written in COPY's text once and each row is its
    first value and that text; psycopg's ``write_row`` dumped every value of every row
    (the 48,000 rating and K rows of 8,000 imported players). Elsewhere: the rows through
    :func:`insert_rows`."""
    if connection.vendor != "postgresql":
        return insert_rows(model, fields, ((first, *rest) for first, rest in rows))
    cols = columns_of(model, fields)
    json_fields = [isinstance(field, models.JSONField) for field in cols.named[1:]]
    tail = "".join("\t" + copy_value(value) for _, value in copy_constants(cols)) + "\n"
    # By identity, each rest kept alive beside its text so that its id is not reused.
    texts: dict[int, tuple[Sequence[Any], str]] = {}

    def text_of(rest: Sequence[Any]) -> str:
        known = texts.get(id(rest))
        if known is None:
            values = [
                copy_value(json_text(value, field) if is_json else value)
                for value, field, is_json in zip(rest, cols.named[1:], json_fields, strict=True)
            ]
            known = texts[id(rest)] = (rest, "\t" + "\t".join(values) + tail)
        return known[1]

    lines = (copy_value(first) + text_of(rest) for first, rest in rows)
    return copy_text(model, cols.columns, lines, batch=copying.COPY_CHUNK)


def insert_rows_returning_ids(
    model: type[models.Model], fields: Sequence[str], rows: Sequence[Sequence[Any]]
) -> list[int]:
    """:func:`insert_rows` for rows whose ids the caller needs (new players): the ids in the
    order of ``rows``. ``bulk_create`` built a model instance and prepared every value of
    every row through the ORM, about a millisecond a player under load.

    PostgreSQL: the ids are taken from the table's sequence in one query and the rows go
    through COPY with them; a multi-row ``INSERT ... RETURNING`` spent most of its time in
    the driver quoting 30,000 parameters a statement (0.7 s for 8,000 players). SQLite:
    multi-row ``INSERT ... VALUES ... RETURNING id`` per batch, whose ids come back in the
    order of the rows, as ``bulk_create`` relies on too."""
    pk = model._meta.pk
    assert pk is not None
    if connection.vendor == "postgresql":
        if not rows:
            return []
        ids: list[int] = ids_taken(model, len(rows)).tolist()
        insert_rows(
            model, [pk.name, *fields], ((key, *row) for key, row in zip(ids, rows, strict=True))
        )
        return ids
    cols = columns_of(model, fields)
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    columns = ", ".join(quote(column) for column in cols.columns)
    constant_values = [value for _, value in cols.constants]
    adapters = cols.adapters
    ids = []
    with connection.cursor() as cursor:
        per_row = len(cols.named) + len(cols.constants)
        size = rows_per_statement(per_row)
        placeholder = "(" + ", ".join(["%s"] * per_row) + ")"
        for start in range(0, len(rows), size):
            batch = rows[start : start + size]
            params: list[Any] = []
            for row in batch:
                values = list(row)
                for index, adapt in adapters:
                    values[index] = adapt(values[index])
                params.extend(values)
                params.extend(constant_values)
            cursor.execute(
                f"INSERT INTO {table} ({columns}) VALUES "  # noqa: S608 - names from the model, values bound
                f"{', '.join([placeholder] * len(batch))} RETURNING {quote(pk.column)}",
                params,
            )
            ids.extend(row[0] for row in cursor.fetchall())
    return ids


def insert_columns(
    model: type[models.Model],
    fields: Sequence[str],
    size: int,
    columns: Sequence[tuple[numpy.ndarray[Any, Any], Sequence[Any]]],
    *,
    by_id: int | None,
) -> int:
    """:func:`insert_rows` for ``size`` rows given column by column, each column as (an
    index per row, the distinct values they index), with their audit rows (as
    :func:`history_rows_copy` writes them, through the channel in force, by the acting
    user where one is known, else ``by_id``); returns how many rows.

    PostgreSQL: each distinct value is dumped once (COPY's binary format, see
    :func:`copy_columns`) and the rows are joined from those bytes, a chunk of rows at a
    time: psycopg's ``write_row`` dumped every value of every row (about 5 microseconds a
    row of an import's games). The ids are taken from the table's sequence first, so that
    the same values also COPY the audit rows: the ``INSERT ... SELECT`` that read the rows
    back was an eighth of a 100,000-game import.
    Elsewhere: the rows through :func:`insert_rows`, then :func:`history_rows_copy`.
    """
    if size == 0:
        return 0
    via, user_id = audit_via(), audit_user_id() or by_id
    pk = model._meta.pk
    assert pk is not None
    if connection.vendor != "postgresql":
        latest = model._default_manager.aggregate(latest=models.Max(pk.name))["latest"] or 0
        stored = insert_rows(model, fields, _rows_of(size, columns))
        history_rows_copy(model._default_manager.filter(pk__gt=latest), via=via, user_id=user_id)
        return stored
    cols = columns_of(model, fields)
    # Every column per row: the ids, the caller's columns (distinct values, indexed), the
    # constants (one value each).
    values: dict[str, ColumnValues] = {pk.column: (None, ids_taken(model, size))}
    adapters = dict(cols.adapters)
    for position, (field, (codes, distinct)) in enumerate(zip(cols.named, columns, strict=True)):
        adapt = adapters.get(position)
        values[field.column] = (codes, [adapt(v) for v in distinct] if adapt else distinct)
    constants = {field.column: binary_value(field, v) for field, v in copy_constants(cols)}
    history = model.history.model  # type: ignore[attr-defined]
    history_columns = [f.column for f in tracked(history)]
    history_constants = {
        "history_date": timezone.now(),
        "history_type": "+",
        "history_user_id": user_id,
        "history_change_reason": None,
        "via": via,
    }
    copy_columns(model._meta.db_table, size, values, constants)
    copy_columns(
        history._meta.db_table,
        size,
        {column: values[column] for column in history_columns if column in values},
        {
            **{column: constants[column] for column in history_columns if column in constants},
            **history_constants,
        },
    )
    return size


def _rows_of(
    size: int, columns: Sequence[tuple[numpy.ndarray[Any, Any], Sequence[Any]]]
) -> Iterator[tuple[Any, ...]]:
    chunk = copying.COPY_CHUNK
    for start in range(0, size, chunk):
        parts = [
            list(map(values.__getitem__, codes[start : start + chunk].tolist()))
            for codes, values in columns
        ]
        yield from zip(*parts, strict=True)
