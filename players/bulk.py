"""Bulk rows without model instances (COPY or multi-row INSERTs), for large bulk writes.

``Model.objects.bulk_create`` builds a model instance and prepares every field of every row
through the ORM: about 50 microseconds a row, so 100,000 imported games took half a minute.
The services validate their rows first (the same checks as always) and then hand plain
tuples to :func:`insert_rows`, which adapts only the values that need it (dates, datetimes,
JSON) and sends a few thousand rows per statement (SQLite) or streams them with COPY
(PostgreSQL, as the period close does). Fields the caller does not name get
their model default (``auto_now``/``auto_now_add`` fields the current time), so a field the
tracker adds later with a default needs no change here. Rows kept as columns (an import's
games) go through :func:`insert_columns`, which writes their audit rows in the same pass.

Between its chunks a COPY (PostgreSQL) calls the pause its caller set (:func:`between_chunks`):
a job of a lane that gives way waits there while more urgent jobs run
(players/services/job_lanes.py, docs/reference/queue.md).
"""

from __future__ import annotations

import contextvars
import datetime
import gc
import json
import struct
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from decimal import Decimal
from typing import Any, NamedTuple

import numpy
from django.db import DataError, connection, models
from django.utils import timezone
from psycopg import pq
from psycopg.adapt import PyFormat, Transformer

from players.models.audit import audit_user_id, audit_via

_pause: contextvars.ContextVar[Callable[[], None] | None] = contextvars.ContextVar(
    "bulk_pause", default=None
)


@contextmanager
def between_chunks(pause: Callable[[], None]) -> Iterator[None]:
    """Call ``pause`` between the chunks of every COPY inside the block (and before each
    audit ``INSERT ... SELECT``): it may wait, the write's transaction (and a COPY in
    progress) held open meanwhile, the database server idle for it."""
    token = _pause.set(pause)
    try:
        yield
    finally:
        _pause.reset(token)


def _between_chunks() -> None:
    pause = _pause.get()
    if pause is not None:
        pause()


# Bound parameters per statement: SQLite allows 32,766, PostgreSQL 65,535.
_MAX_PARAMETERS = 30_000
_MAX_ROWS = 2_000
# Ids per `pk IN (...)` of an audit copy (one bound parameter each).
_MAX_IDS = 10_000


class _Columns(NamedTuple):
    """What an insert of ``fields`` into a model's table writes, beside the caller's values."""

    named: list[models.Field[Any, Any]]  # the fields of the caller's values, in order
    # The fields the caller leaves out, with the value each row gets (prepared for the
    # database).
    constants: list[tuple[models.Field[Any, Any], Any]]
    # The positions of the caller's values the driver cannot take as they are.
    adapters: list[tuple[int, Callable[[Any], Any]]]
    now: datetime.datetime  # what auto_now/auto_now_add fields get

    @property
    def columns(self) -> list[str]:
        return [f.column for f in self.named] + [f.column for f, _ in self.constants]


def _columns(model: type[models.Model], fields: Sequence[str]) -> _Columns:
    """The named fields, their adapters, and the constant of every field not named."""
    concrete = [f for f in model._meta.concrete_fields if not f.primary_key]
    by_name = {f.name: f for f in concrete}
    pk = model._meta.pk
    if pk is not None and pk.name in fields:
        # Ids the caller took from the table's sequence (insert_rows_returning_ids).
        by_name[pk.name] = pk
    unknown = [name for name in fields if name not in by_name]
    if unknown:
        raise ValueError(f"{model.__name__} has no field {unknown[0]!r}")
    now = timezone.now()
    named = [by_name[name] for name in fields]
    adapters = [
        (index, adapt)
        for index, adapt in enumerate(_adapter(field) for field in named)
        if adapt is not None
    ]
    constants: list[tuple[models.Field[Any, Any], Any]] = []
    for field in concrete:
        if field.name in fields:
            continue
        if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
            value: Any = now
        else:
            # A text field without a default gets "" (Django's own rule); anything else
            # without a default and not nullable must be named.
            value = field.get_default()
            if value is None and not field.null:
                raise ValueError(f"{model.__name__}.{field.name} has no default: name it")
        constants.append((field, field.get_db_prep_save(value, connection)))
    return _Columns(named=named, constants=constants, adapters=adapters, now=now)


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a bulk job runs (a close, an import). Such a
    job allocates millions of small objects that all live until it ends; the collector
    would walk them again and again for nothing (it doubled a federation-sized close's CPU
    time, and was a tenth of a 100,000-game import). Entered before the transaction so
    that it is left after the commit: a collection set off by the commit's own work would
    walk them all once more. The first collection after it walks every object still alive
    that was made meanwhile (they are all in the youngest generation): a caller lets its
    large objects go before leaving it (0.2 s for a close's plan at 200,000 players)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def insert_rows(
    model: type[models.Model], fields: Sequence[str], rows: Iterable[Sequence[Any]]
) -> int:
    """Insert ``rows`` (values in the order of ``fields``; foreign keys as ids) in batches;
    returns how many. Runs inside the caller's transaction; ids are not returned."""
    cols = _columns(model, fields)
    columns = cols.columns
    quote = connection.ops.quote_name
    if connection.vendor == "postgresql":
        return _copy_rows(model, cols, rows)
    constant_values = [value for _, value in cols.constants]
    per_row = len(columns)
    batch = max(1, min(_MAX_ROWS, _MAX_PARAMETERS // per_row))
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
    cols = _columns(model, fields)
    json_fields = [isinstance(field, models.JSONField) for field in cols.named[1:]]
    tail = "".join("\t" + copy_value(value) for _, value in _copy_constants(cols)) + "\n"
    # By identity, each rest kept alive beside its text so that its id is not reused.
    texts: dict[int, tuple[Sequence[Any], str]] = {}

    def text_of(rest: Sequence[Any]) -> str:
        known = texts.get(id(rest))
        if known is None:
            values = [
                copy_value(_json_text(value, field) if is_json else value)
                for value, field, is_json in zip(rest, cols.named[1:], json_fields, strict=True)
            ]
            known = texts[id(rest)] = (rest, "\t" + "\t".join(values) + tail)
        return known[1]

    lines = (copy_value(first) + text_of(rest) for first, rest in rows)
    return copy_text(model, cols.columns, lines, batch=_COPY_CHUNK)


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
    cols = _columns(model, fields)
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    columns = ", ".join(quote(column) for column in cols.columns)
    constant_values = [value for _, value in cols.constants]
    adapters = cols.adapters
    ids = []
    with connection.cursor() as cursor:
        per_row = len(cols.named) + len(cols.constants)
        size = max(1, min(_MAX_ROWS, _MAX_PARAMETERS // per_row))
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
    :func:`_copy_columns`) and the rows are joined from those bytes, a chunk of rows at a
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
    cols = _columns(model, fields)
    # Every column per row: the ids, the caller's columns (distinct values, indexed), the
    # constants (one value each).
    values: dict[
        str, tuple[numpy.ndarray[Any, Any] | None, Sequence[Any] | numpy.ndarray[Any, Any]]
    ] = {pk.column: (None, ids_taken(model, size))}
    adapters = dict(cols.adapters)
    for position, (field, (codes, distinct)) in enumerate(zip(cols.named, columns, strict=True)):
        adapt = adapters.get(position)
        values[field.column] = (codes, [adapt(v) for v in distinct] if adapt else distinct)
    constants = {field.column: _binary_value(field, v) for field, v in _copy_constants(cols)}
    history = model.history.model  # type: ignore[attr-defined]
    tracked = [f.column for f in _tracked(history)]
    history_constants = {
        "history_date": timezone.now(),
        "history_type": "+",
        "history_user_id": user_id,
        "history_change_reason": None,
        "via": via,
    }
    _copy_columns(model._meta.db_table, size, values, constants)
    _copy_columns(
        history._meta.db_table,
        size,
        {column: values[column] for column in tracked if column in values},
        {
            **{column: constants[column] for column in tracked if column in constants},
            **history_constants,
        },
    )
    return size


# Rows per COPY write: a chunk's rows are held as bytes until it is sent.
_COPY_CHUNK = 2048
_IDS_PER_QUERY = 50_000
# COPY's binary format: the file's signature, flags and header extension; its end.
_BINARY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
_BINARY_TRAILER = struct.pack(">h", -1)
_BINARY_NULL = struct.pack(">i", -1)
# PostgreSQL's integer types by oid (int8, int4, int2) as numpy's big-endian integers.
_BINARY_INTEGERS = {20: ">i8", 23: ">i4", 21: ">i2"}


def _in_range(column: str, value: int, limits: numpy.iinfo) -> None:
    """An integer the column's type can hold: the binary dumpers would wrap one that it
    cannot (40,000 in a smallint is stored as -25,536), where the server refuses the text
    form. Refused as the server would refuse it."""
    if not limits.min <= value <= limits.max:
        raise DataError(f'value {value} is out of range for column "{column}"')


def _binary_value(field: models.Field[Any, Any], value: Any) -> Any:
    """A constant as the binary dumpers take it: a JSON default as its object (``None``
    in a nullable JSON field is SQL NULL, as ``_json_text`` has it)."""
    if isinstance(field, models.JSONField):
        return None if value is None else json.loads(value)
    return value


def _copy_columns(
    table: str,
    size: int,
    columns: Mapping[
        str, tuple[numpy.ndarray[Any, Any] | None, Sequence[Any] | numpy.ndarray[Any, Any]]
    ],
    constants: Mapping[str, Any],
) -> None:
    """COPY ``size`` rows in COPY's binary format: ``columns`` (per column: indices into
    its distinct values, or ``None`` and a value per row) and ``constants`` (one value
    each). Each distinct value is dumped once, by the column's own type (psycopg's
    binary dumpers), and each row is joined from those bytes: the server reads binary
    values without parsing text (a sixth of a 100,000-game COPY)."""
    names = [*columns, *constants]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attname, atttypid FROM pg_attribute WHERE attrelid = %s::regclass "
            "AND attnum > 0 AND NOT attisdropped",
            [table],
        )
        oids: dict[str, int] = dict(cursor.fetchall())
    transformer = Transformer(connection.connection)

    def dumped(column: str, items: Sequence[Any]) -> list[bytes]:
        transformer.set_dumper_types([oids[column]], pq.Format.BINARY)
        formats = [PyFormat.BINARY]
        kind = _BINARY_INTEGERS.get(oids[column])
        limits = numpy.iinfo(kind) if kind is not None else None
        out = []
        for item in items:
            if limits is not None and item is not None:
                _in_range(column, item, limits)
            (data,) = transformer.dump_sequence([item], formats)
            out.append(_BINARY_NULL if data is None else struct.pack(">i", len(data)) + data)
        return out

    def per_row(column: str, items: Sequence[Any] | numpy.ndarray[Any, Any]) -> list[bytes]:
        # A column of a value per row (the ids): integers packed by numpy, each row's
        # length and value sliced from one buffer.
        kind = _BINARY_INTEGERS.get(oids[column])
        if kind is None or not isinstance(items, numpy.ndarray) or items.dtype.kind != "i":
            return dumped(column, list(items))
        limits = numpy.iinfo(kind)
        if len(items) and (items.min() < limits.min or items.max() > limits.max):
            return dumped(column, items.tolist())  # which refuses the value
        packed = numpy.empty(len(items), dtype=[("length", ">i4"), ("value", kind)])
        packed["length"] = packed.dtype["value"].itemsize
        packed["value"] = items
        raw, width = packed.tobytes(), packed.dtype.itemsize
        return [raw[at : at + width] for at in range(0, len(raw), width)]

    head = struct.pack(">h", len(names))
    tail = b"".join(b for column, v in constants.items() for b in dumped(column, [v]))
    tables = {
        column: numpy.array(dumped(column, list(items)), dtype=object)
        for column, (codes, items) in columns.items()
        if codes is not None
    }
    with _copy(table, names, binary=True) as copy:
        copy.write(_BINARY_HEADER)
        for start in range(0, size, _COPY_CHUNK):
            _between_chunks()
            end = min(size, start + _COPY_CHUNK)
            parts = [
                tables[column][codes[start:end]].tolist()
                if codes is not None
                else per_row(column, items[start:end])
                for column, (codes, items) in columns.items()
            ]
            copy.write(b"".join([head + b"".join(row) + tail for row in zip(*parts, strict=True)]))
        copy.write(_BINARY_TRAILER)


def _rows_of(
    size: int, columns: Sequence[tuple[numpy.ndarray[Any, Any], Sequence[Any]]]
) -> Iterator[tuple[Any, ...]]:
    for start in range(0, size, _COPY_CHUNK):
        parts = [
            list(map(values.__getitem__, codes[start : start + _COPY_CHUNK].tolist()))
            for codes, values in columns
        ]
        yield from zip(*parts, strict=True)


def _copy_constants(cols: _Columns) -> Iterator[tuple[models.Field[Any, Any], Any]]:
    """The value COPY writes for each field the caller leaves out (``_copy_rows``'s
    rules: a JSON default as its text, auto_now fields the current time)."""
    for field, _ in cols.constants:
        if isinstance(field, models.JSONField):
            yield field, _json_text(field.get_default(), field)
        elif getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
            yield field, cols.now
        else:
            yield field, field.get_default()


def ids_taken(model: type[models.Model], count: int) -> numpy.ndarray[Any, Any]:
    """PostgreSQL: ``count`` new ids from the table's sequence, in order. The sequence is
    named first: ``nextval(pg_get_serial_sequence(...))`` looked it up again for every id
    (0.3 s for 100,000, against 0.06 s for the name given)."""
    pk = model._meta.pk
    assert pk is not None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_get_serial_sequence(%s, %s)", [model._meta.db_table, pk.column])
        (sequence,) = cursor.fetchone()
        # A query per batch of ids: the driver holds a query's whole result, and half a
        # million ids in one were tens of megabytes of rows.
        ids = numpy.empty(count, dtype=numpy.int64)
        for at in range(0, count, _IDS_PER_QUERY):
            taken = min(_IDS_PER_QUERY, count - at)
            cursor.execute(
                "SELECT nextval(%s::regclass) FROM generate_series(1, %s)", [sequence, taken]
            )
            ids[at : at + taken] = [row[0] for row in cursor.fetchall()]
        return ids


def _adapter(field: models.Field[Any, Any]) -> Callable[[Any], Any] | None:
    """How to turn a Python value into what the database driver takes, when it differs."""
    ops = connection.ops
    if isinstance(field, models.DateTimeField):
        return ops.adapt_datetimefield_value
    if isinstance(field, models.DateField):
        return ops.adapt_datefield_value
    if isinstance(field, models.JSONField | models.DecimalField):
        return lambda value: field.get_db_prep_save(value, connection)
    return None


def _json_text(value: Any, field: models.Field[Any, Any]) -> str | None:
    return None if value is None and field.null else json.dumps(value)


def _copy_rows(model: type[models.Model], cols: _Columns, rows: Iterable[Sequence[Any]]) -> int:
    """PostgreSQL: COPY FROM STDIN, row by row through psycopg's own (compiled) encoder. A
    multi-row INSERT spent most of its time in psycopg splitting a 30,000-placeholder
    statement; for the ids, dates, short texts and flags of these rows ``write_row`` is
    faster than building COPY's text here (0.12 s against 0.30 s for 100,000 games). The
    period close, whose rows are mostly Decimals, still writes text (:func:`copy_text`)."""
    json_columns = [i for i, field in enumerate(cols.named) if isinstance(field, models.JSONField)]
    # None in a nullable JSON field is SQL NULL, as the ORM and the INSERT path write it
    # (json.dumps would store JSON's null, which ``__isnull`` does not find).
    tail = tuple(value for _, value in _copy_constants(cols))
    count = 0
    with _copy(model._meta.db_table, cols.columns) as copy:
        write = copy.write_row
        for row in rows:
            if not count % _COPY_CHUNK:
                _between_chunks()
            count += 1
            if json_columns:
                values = list(row)
                for index in json_columns:
                    values[index] = _json_text(values[index], cols.named[index])
                write((*values, *tail))
            else:
                write((*row, *tail))
    return count


# COPY's text format: a backslash starts an escape, a tab ends a value, a line break a row.
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def copy_value(value: Any) -> str:
    """One value in COPY's text format: ``\\N`` for NULL, ``t``/``f``, ISO dates and
    times, text with its backslashes, tabs and line breaks escaped."""
    if value is None:
        return "\\N"
    if value is True:
        return "t"
    if value is False:
        return "f"
    if isinstance(value, int | Decimal | float):
        return str(value)
    if isinstance(value, datetime.date):  # datetimes too (isoformat keeps the offset)
        return value.isoformat()
    if isinstance(value, bytes | memoryview):
        return "\\\\x" + bytes(value).hex()  # bytea's hex form, its backslash escaped
    return str(value).translate(_COPY_ESCAPES)


def copy_text(
    model: type[models.Model], columns: Sequence[str], lines: Iterable[str], *, batch: int = 5000
) -> int:
    """PostgreSQL only: COPY rows already written in COPY's text format (one line each,
    tab-separated, ``\\N`` for NULL) into ``columns`` (database column names) of
    ``model``'s table. For the period close, whose 200,000 rows are cheapest to build as
    text: handing psycopg tuples of Decimals and JSON made its per-value dumping most of
    the write. Returns how many lines."""
    count = 0
    with _copy(model._meta.db_table, columns) as copy:
        chunk: list[str] = []
        for line in lines:
            chunk.append(line)
            if len(chunk) >= batch:
                _between_chunks()
                copy.write("".join(chunk))
                count += len(chunk)
                chunk = []
        if chunk:
            copy.write("".join(chunk))
            count += len(chunk)
    return count


@contextmanager
def _copy(table: str, columns: Sequence[str], *, binary: bool = False) -> Iterator[Any]:
    """The one way rows are COPied in: ``COPY table (columns) FROM STDIN``."""
    quote = connection.ops.quote_name
    statement = f"COPY {quote(table)} ({', '.join(quote(column) for column in columns)}) FROM STDIN"
    if binary:
        statement += " (FORMAT BINARY)"
    # The raw psycopg cursor bypasses Django's error translation; wrap it so that a
    # constraint violation is an IntegrityError like everywhere else.
    with (
        connection.wrap_database_errors,
        connection.cursor() as cursor,
        cursor.cursor.copy(statement) as copy,
    ):
        yield copy


def _tracked(history_model: type[models.Model]) -> list[models.Field[Any, Any]]:
    """The audit model's copies of its model's fields (not its own ``history_*`` and
    ``via``): what an audit row copies from the row it records."""
    return [
        f
        for f in history_model._meta.concrete_fields
        if not f.name.startswith("history_") and f.name != "via"
    ]


def history_rows_copy(
    queryset: models.QuerySet[Any], *, via: str, user_id: int | None, history_type: str = "+"
) -> int:
    """One audit row per row of ``queryset`` (an audited model's rows just written in
    bulk), copied inside the database by one INSERT ... SELECT: the bulk paths (imports,
    bulk games) skip the ORM's per-object saves, so the library's signals never fire.

    The rows are read unsorted (as stored: rows just written in the order written), not
    in the model's ordering: for an import's 100,000 games that was a sort by date and
    round spilled to disk, a seventh of the statement."""
    model = queryset.model
    history_model = model.history.model
    source = [f.attname for f in _tracked(history_model)]
    select_sql, params = queryset.order_by().values_list(*source).query.sql_with_params()
    quote = connection.ops.quote_name
    columns = [quote(history_model._meta.get_field(name).column) for name in source]
    extra = ["history_date", "history_type", "history_user_id", "history_change_reason", "via"]
    sql = (
        f"INSERT INTO {quote(history_model._meta.db_table)} "  # noqa: S608 - our own tables
        f"({', '.join(columns + [quote(c) for c in extra])}) "
        f"SELECT sub.*, %s, %s, %s, NULL, %s FROM ({select_sql}) sub"
    )
    _between_chunks()
    with connection.cursor() as cursor:
        cursor.execute(sql, [timezone.now(), history_type, user_id, via, *params])
        count: int = cursor.rowcount
    return count


def history_rows_copy_ids(
    model: type[models.Model],
    ids: Sequence[int],
    *,
    by_id: int | None,
    history_type: str = "~",
) -> int:
    """:func:`history_rows_copy` for rows named by id (rows a service just changed in
    bulk, for ``by_id``): through the channel in force, by the acting user where one is
    known, else ``by_id``. One INSERT ... SELECT per batch of ids, a list of ids longer
    than the bound parameters a statement may have (SQLite: 32,766) split across several."""
    via, user_id = audit_via(), audit_user_id() or by_id
    count = 0
    for start in range(0, len(ids), _MAX_IDS):
        count += history_rows_copy(
            model._default_manager.filter(pk__in=ids[start : start + _MAX_IDS]),
            via=via,
            user_id=user_id,
            history_type=history_type,
        )
    return count


def update_rows(
    model: type[models.Model], fields: Sequence[str], rows: Iterable[Sequence[Any]]
) -> int:
    """UPDATE many rows by primary key: each row is ``(pk, *values)`` in the order of
    ``fields``; one statement per batch (``WITH v AS (VALUES ...) UPDATE ... FROM v``).

    ``QuerySet.bulk_update`` builds a CASE expression through the ORM for every value:
    about 18 ms a row (200 players' nine fields took 3.5 s). Runs inside the caller's
    transaction; returns how many rows were given.
    """
    by_name = {f.name: f for f in model._meta.concrete_fields}
    named = [by_name[name] for name in fields]
    adapters = [_adapter(field) for field in named]
    quote = connection.ops.quote_name
    pk = model._meta.pk
    assert pk is not None
    names = ["pk", *(f"v{index}" for index in range(len(named)))]
    # PostgreSQL types a VALUES column from its values (text when all are NULL): cast
    # each to its column's type. SQLite takes any value as it is.
    casts = (
        [f"::{field.db_type(connection)}" for field in named]
        if connection.vendor == "postgresql"
        else [""] * len(named)
    )
    table = quote(model._meta.db_table)
    sets = ", ".join(
        f"{quote(field.column)} = v.{name}{cast}"
        for field, name, cast in zip(named, names[1:], casts, strict=True)
    )
    per_row = len(names)
    batch = max(1, min(_MAX_ROWS, _MAX_PARAMETERS // per_row))
    placeholder = "(" + ", ".join(["%s"] * per_row) + ")"
    count = 0
    pending: list[Any] = []
    pending_rows = 0

    def flush(cursor: Any) -> None:
        cursor.execute(
            f"WITH v ({', '.join(names)}) AS (VALUES {', '.join([placeholder] * pending_rows)}) "  # noqa: S608 - names from the model, values bound
            f"UPDATE {table} SET {sets} FROM v WHERE {table}.{quote(pk.column)} = v.pk",
            pending,
        )

    with connection.cursor() as cursor:
        for key, *values in rows:
            for index, adapt in enumerate(adapters):
                if adapt is not None:
                    values[index] = adapt(values[index])
            pending.extend([key, *values])
            pending_rows += 1
            if pending_rows == batch:
                flush(cursor)
                count += pending_rows
                pending, pending_rows = [], 0
        if pending_rows:
            flush(cursor)
            count += pending_rows
    return count
