"""Records of one dataclass kept column by column, for files of a million games.

A parsed or planned game as an object took about 120 bytes, and a 50 MB file of games
held a million of them, twice (parsed, then planned). A :class:`RecordTable` keeps each
field as a column of small integers: the ``line`` as itself, every other field as an
index into that field's table of distinct values (a file names a few thousand players,
a few dozen dates and events). About 45 bytes a game, and the plan shares the parse's
columns instead of copying them.

A record is made only when one is read (``table[i]``, iteration), so code that reads
records keeps working; the import's hot paths read the columns (:meth:`column`,
:meth:`rows`) instead.
"""

from __future__ import annotations

import dataclasses
from array import array
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from itertools import compress, repeat
from operator import is_
from typing import Any, Generic, TypeVar, overload

import numpy

R = TypeVar("R")

#: Rows read per step by :meth:`RecordTable.rows`: each step turns that many indices into
#: Python values at once (``tolist``) without holding a whole column of them.
_CHUNK = 8192
#: The one field kept as itself (a 1-based file line), not as an index into distinct values.
_RAW = "line"


class RecordTable(Sequence[R], Generic[R]):
    """Records of dataclass ``record``, appended one at a time or built from columns.

    Fields named in ``by_identity`` hold objects compared by identity (mutable,
    unhashable planned persons and tournaments); every other field's values must be
    hashable and are kept once per distinct value.
    """

    def __init__(self, record: type[R], *, by_identity: Collection[str] = ()) -> None:
        self._type = record
        self._record: Callable[..., R] = record
        self._fields = tuple(field.name for field in dataclasses.fields(record))  # type: ignore[arg-type]
        self._indexed = tuple(name for name in self._fields if name != _RAW)
        self._by_identity = frozenset(by_identity)
        self._lines: array[int] | numpy.ndarray[Any, Any] = array("q")
        self._columns: dict[str, array[int] | numpy.ndarray[Any, Any]] = {
            name: array("i") for name in self._indexed
        }
        self._values: dict[str, list[Any]] = {name: [] for name in self._indexed}
        self._seen: dict[str, dict[Any, int]] = {name: {} for name in self._indexed}
        # What append needs per field, looked up once: it runs a million times.
        self._slots = [
            (name in self._by_identity, self._seen[name], self._values[name], self._columns[name])
            for name in self._indexed
        ]

    @classmethod
    def from_columns(
        cls,
        record: type[R],
        *,
        lines: numpy.ndarray[Any, Any],
        columns: Mapping[str, numpy.ndarray[Any, Any]],
        values: Mapping[str, list[Any]],
    ) -> RecordTable[R]:
        """A table over given columns (indices into ``values``), which it does not copy."""
        table = cls(record)
        missing = set(table._indexed) - set(columns)
        if missing or set(columns) != set(values):
            raise ValueError(f"columns and values must name every field; missing {missing}")
        table._lines = lines
        table._columns = dict(columns)
        table._values = {name: list(values[name]) for name in table._indexed}
        table._seen = {}
        table._slots = []  # built from columns: no appends
        return table

    def append(self, record: R) -> None:
        """Add one record (while the table is being built: :meth:`column` freezes it)."""
        self.append_fields(
            getattr(record, _RAW), tuple(getattr(record, name) for name in self._indexed)
        )

    def append_fields(self, line: int, fields: tuple[Any, ...]) -> None:
        """Add one record given as its line and its other fields in the record's order
        (:attr:`fields`): what a parser's hottest loop calls, without making the record."""
        self._lines.append(line)  # type: ignore[union-attr]
        for (identity, seen, values, column), value in zip(self._slots, fields, strict=True):
            key = id(value) if identity else value
            index = seen.get(key)
            if index is None:
                index = seen[key] = len(values)
                values.append(value)
            column.append(index)  # type: ignore[union-attr]

    def extend_fields(self, lines: Sequence[int], rows: Sequence[tuple[Any, ...]]) -> None:
        """:meth:`append_fields` for a batch of records (their lines, and their other fields
        as tuples): each column is extended at once, a field's values (or, by identity,
        their ids) looked up in C, and only the values not seen before go through Python.
        The same columns as appending the records one by one."""
        if not rows:
            return
        self._lines.extend(lines)  # type: ignore[union-attr]
        for (identity, seen, values, column), field in zip(
            self._slots, zip(*rows, strict=True), strict=True
        ):
            keys = list(map(id, field)) if identity else field
            indices = list(map(seen.get, keys))
            # The positions of the values seen for the first time (in this batch or ever).
            for position in compress(range(len(indices)), map(is_, indices, repeat(None))):
                key = keys[position]
                index = seen.get(key)
                if index is None:
                    index = seen[key] = len(values)
                    values.append(field[position])
                indices[position] = index
            column.extend(indices)  # type: ignore[union-attr,arg-type]

    @property
    def fields(self) -> tuple[str, ...]:
        """The fields :meth:`append_fields` takes, in order (every field but ``line``)."""
        return self._indexed

    def __len__(self) -> int:
        return len(self._lines)

    @overload
    def __getitem__(self, index: int) -> R: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[R]: ...

    def __getitem__(self, index: int | slice) -> R | Sequence[R]:
        if isinstance(index, slice):
            return [self[position] for position in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("record index out of range")
        fields = {name: self._values[name][self._columns[name][index]] for name in self._indexed}
        return self._record(line=int(self._lines[index]), **fields)

    def __iter__(self) -> Iterator[R]:
        make = self._record
        names = self._indexed
        for row in self.rows(_RAW, *names):
            yield make(line=row[0], **dict(zip(names, row[1:], strict=True)))

    def __eq__(self, other: object) -> bool:
        # Equal to a table or list or tuple of the same records in the same order, as the
        # tuple the parsers returned before was.
        if not isinstance(other, RecordTable | list | tuple):
            return NotImplemented
        return len(self) == len(other) and all(
            mine == theirs for mine, theirs in zip(self, other, strict=True)
        )

    __hash__ = None  # type: ignore[assignment]  # mutable while built, like a list

    def column(self, name: str) -> numpy.ndarray[Any, Any]:
        """The field's column: the lines themselves for ``line``, else indices into
        :meth:`values`. A view, not a copy (the table takes no more appends)."""
        source = self._lines if name == _RAW else self._columns[name]
        if isinstance(source, array):
            return numpy.frombuffer(source, dtype=numpy.int64 if name == _RAW else numpy.int32)
        return source

    def values(self, name: str) -> list[Any]:
        """The field's distinct values, in the order first seen (the column's indices)."""
        return self._values[name]

    def rows(
        self, *names: str, through: Mapping[str, Sequence[Any]] | None = None
    ) -> Iterator[tuple[Any, ...]]:
        """The named fields' values, row by row, read a chunk at a time. ``through`` gives
        a field's own table in place of its values (the same length: one entry for each
        of :meth:`values`), such as each planned player's id."""
        through = through or {}
        columns = [self.column(name) for name in names]
        tables = [None if name == _RAW else through.get(name, self._values[name]) for name in names]
        for start in range(0, len(self), _CHUNK):
            parts = []
            for column, table in zip(columns, tables, strict=True):
                chunk = column[start : start + _CHUNK].tolist()
                parts.append(chunk if table is None else list(map(table.__getitem__, chunk)))
            yield from zip(*parts, strict=True)

    def select(self, keep: numpy.ndarray[Any, Any]) -> RecordTable[R]:
        """A new table of the rows where ``keep`` (booleans) is true; tables shared."""
        return RecordTable.from_columns(
            self._type,
            lines=self.column(_RAW)[keep],
            columns={name: self.column(name)[keep] for name in self._indexed},
            values=self._values,
        )
