"""COPY's binary format for rows kept column by column (an import's games): each distinct
value dumped once by its column's own type, each row joined from those bytes."""

from __future__ import annotations

import json
import struct
from collections.abc import Mapping, Sequence
from typing import Any

import numpy
from django.db import DataError, connection, models
from psycopg import pq
from psycopg.adapt import PyFormat, Transformer

from players.bulk import copying
from players.bulk.pauses import pause_between_chunks

# COPY's binary format: the file's signature, flags and header extension; its end.
_BINARY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
_BINARY_TRAILER = struct.pack(">h", -1)
_BINARY_NULL = struct.pack(">i", -1)
# PostgreSQL's integer types by oid (int8, int4, int2) as numpy's big-endian integers.
_BINARY_INTEGERS = {20: ">i8", 23: ">i4", 21: ">i2"}

# Per column: indices into its distinct values, or None and a value per row.
ColumnValues = tuple[numpy.ndarray[Any, Any] | None, Sequence[Any] | numpy.ndarray[Any, Any]]


def _in_range(column: str, value: int, limits: numpy.iinfo) -> None:
    """An integer the column's type can hold: the binary dumpers would wrap one that it
    cannot (40,000 in a smallint is stored as -25,536), where the server refuses the text
    form. Refused as the server would refuse it."""
    if not limits.min <= value <= limits.max:
        raise DataError(f'value {value} is out of range for column "{column}"')


def binary_value(field: models.Field[Any, Any], value: Any) -> Any:
    """A constant as the binary dumpers take it: a JSON default as its object (``None``
    in a nullable JSON field is SQL NULL, as ``json_text`` has it)."""
    if isinstance(field, models.JSONField):
        return None if value is None else json.loads(value)
    return value


def copy_columns(
    table: str,
    size: int,
    columns: Mapping[str, ColumnValues],
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
    chunk = copying.COPY_CHUNK
    with copying.copy_in(table, names, binary=True) as copy:
        copy.write(_BINARY_HEADER)
        for start in range(0, size, chunk):
            pause_between_chunks()
            end = min(size, start + chunk)
            parts = [
                tables[column][codes[start:end]].tolist()
                if codes is not None
                else per_row(column, items[start:end])
                for column, (codes, items) in columns.items()
            ]
            copy.write(b"".join([head + b"".join(row) + tail for row in zip(*parts, strict=True)]))
        copy.write(_BINARY_TRAILER)
