"""PostgreSQL's way in: ``COPY ... FROM STDIN`` of rows (through psycopg's encoder) or of
lines already in COPY's text format, and new ids taken from a table's sequence."""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from decimal import Decimal
from itertools import repeat
from typing import Any

import numpy
from django.db import connection, models

from players.bulk.fields import Columns, copy_constants, json_text
from players.bulk.pauses import pause_between_chunks

# Rows per COPY write: a chunk's rows are held as bytes until it is sent. The other
# modules of the package read it here, so that a test's smaller chunk reaches them all.
COPY_CHUNK = 2048
_IDS_PER_QUERY = 50_000


@contextmanager
def copy_in(
    table: str, columns: Sequence[str], *, binary: bool = False, raw: Any = None
) -> Iterator[Any]:
    """The one way rows are COPied in: ``COPY table (columns) FROM STDIN``; on ``raw`` (the
    transaction's psycopg connection, from a thread of :class:`CopyBehind`) its errors are
    psycopg's, which the caller's thread translates."""
    quote = connection.ops.quote_name
    statement = f"COPY {quote(table)} ({', '.join(quote(column) for column in columns)}) FROM STDIN"
    if binary:
        statement += " (FORMAT BINARY)"
    if raw is not None:
        with raw.cursor() as cursor, cursor.copy(statement) as copy:
            yield copy
        return
    # The raw psycopg cursor bypasses Django's error translation; wrap it so that a
    # constraint violation is an IntegrityError like everywhere else.
    with (
        connection.wrap_database_errors,
        connection.cursor() as cursor,
        cursor.cursor.copy(statement) as copy,
    ):
        yield copy


def copy_rows(
    model: type[models.Model], cols: Columns, rows: Iterable[Sequence[Any]], *, raw: Any = None
) -> int:
    """PostgreSQL: COPY FROM STDIN, row by row through psycopg's own (compiled) encoder. A
    multi-row INSERT spent most of its time in psycopg splitting a 30,000-placeholder
    statement; for the ids, dates, short texts and flags of these rows ``write_row`` is
    faster than building COPY's text here (0.12 s against 0.30 s for 100,000 games). The
    period close, whose rows are mostly Decimals, still writes text (:func:`copy_text`)."""
    json_columns = [i for i, field in enumerate(cols.named) if isinstance(field, models.JSONField)]
    # None in a nullable JSON field is SQL NULL, as the ORM and the INSERT path write it
    # (json.dumps would store JSON's null, which ``__isnull`` does not find).
    tail = tuple(value for _, value in copy_constants(cols))
    chunk = COPY_CHUNK
    count = 0
    with copy_in(model._meta.db_table, cols.columns, raw=raw) as copy:
        write = copy.write_row
        for row in rows:
            if not count % chunk and raw is None:  # CopyBehind's caller pauses
                pause_between_chunks()
            count += 1
            if json_columns:
                values = list(row)
                for index in json_columns:
                    values[index] = json_text(values[index], cols.named[index])
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


_NULL = "\\N"
_BOOLS = {True: "t", False: "f", None: _NULL}
_NONE = type(None)


def _escaped(texts: list[str]) -> list[str]:
    """Texts in COPY's text format: as they are where none holds a character to escape
    (one test over the column joined), else each escaped."""
    joined = "".join(texts)
    if "\\" in joined or "\t" in joined or "\n" in joined or "\r" in joined:
        return [text.translate(_COPY_ESCAPES) for text in texts]
    return texts


def _json_column_text(field: models.Field[Any, Any], values: list[Any]) -> list[str]:
    # Most values of a JSON column are empty (a rating change's pool, its states): their
    # texts found once.
    empty = copy_value(json_text(None, field))
    no_list = copy_value(json_text([], field))
    return [
        empty
        if value is None
        else no_list
        if type(value) is list and not value
        else copy_value(json_text(value, field))
        for value in values
    ]


def column_text(field: models.Field[Any, Any], values: list[Any]) -> list[str]:
    """One column's values in COPY's text format (as :func:`copy_value` writes each), a
    column at a time: the column's types found once, whole numbers, flags and plain texts
    written without a Python step per value where they can be."""
    if isinstance(field, models.JSONField):
        return _json_column_text(field, values)
    kinds = set(map(type, values))
    if kinds <= {int}:
        return list(map(str, values))
    if kinds <= {int, _NONE}:
        return [_NULL if value is None else str(value) for value in values]
    if kinds <= {bool, _NONE}:
        return list(map(_BOOLS.__getitem__, values))
    if kinds <= {str}:
        return _escaped(values)
    if kinds <= {str, _NONE}:
        present = iter(_escaped([value for value in values if value is not None]))
        return [_NULL if value is None else next(present) for value in values]
    return list(map(copy_value, values))


def columns_text(cols: Columns, columns: Sequence[list[Any]]) -> str:
    """Rows kept as columns (values in the order of ``cols.named``), with the constants of
    the fields left out, as COPY's text: each column written whole (:func:`column_text`),
    each row joined by one call. psycopg's ``write_row`` took a Python call per row, in
    the thread that writes behind a restore, where it held the lock the restore's own
    thread needed (``players.bulk.behind``)."""
    count = len(columns[0]) if columns else 0
    texts: list[Iterable[str]] = [
        column_text(field, values) for field, values in zip(cols.named, columns, strict=True)
    ]
    constants = [copy_value(value) for _, value in copy_constants(cols)]
    if constants:
        texts.append(repeat("\t".join(constants), count))
    if not count:
        return ""
    return "\n".join(map("\t".join, zip(*texts, strict=True))) + "\n"


def copy_text(
    model: type[models.Model],
    columns: Sequence[str],
    lines: Iterable[str],
    *,
    batch: int = 5000,
    raw: Any = None,
) -> int:
    """PostgreSQL only: COPY rows already written in COPY's text format (one line each,
    tab-separated, ``\\N`` for NULL) into ``columns`` (database column names) of
    ``model``'s table. For the period close, whose 200,000 rows are cheapest to build as
    text: handing psycopg tuples of Decimals and JSON made its per-value dumping most of
    the write. Returns how many lines."""
    count = 0
    with copy_in(model._meta.db_table, columns, raw=raw) as copy:
        chunk: list[str] = []
        for line in lines:
            chunk.append(line)
            if len(chunk) >= batch:
                if raw is None:  # CopyBehind's caller pauses
                    pause_between_chunks()
                copy.write("".join(chunk))
                count += len(chunk)
                chunk = []
        if chunk:
            copy.write("".join(chunk))
            count += len(chunk)
    return count


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
