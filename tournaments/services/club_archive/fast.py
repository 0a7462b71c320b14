"""The restore's hot paths, measured on a 20,000-player club of two years (2.5 million
rows; docs/developers/benchmarks.md, "Club archives"), as helpers the restore calls.

Each helper does what the restore did before, faster; none decides what a reference may
name (that is the restore's).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from django.db import connection, models

from players.bulk import ids_taken
from players.models import Club, Membership
from tournaments.services.club_archive.tables import _EXCLUDED, Table, _club_path, is_auto
from tournaments.services.club_archive.values import DIGITS_AS_ZEROS


@functools.cache
def is_club_table(model: type[models.Model]) -> bool:
    """Whether ``model``'s rows are a club's (and carried by the archive): found once per
    model. Asked for every reference of every row, the search through the foreign keys
    was 43% of a restore's time."""
    return _club_path(model) is not None and not issubclass(model, _EXCLUDED)


# 19 digits: a negative number of 19 digits may be past -2**63 already.
_LONG_NUMBER = b"0" * 19


def lines_decode(lines: Sequence[bytes]) -> list[Any]:
    """A chunk of an archive's lines (each one JSON value) decoded in one call of the
    decoder: one ``json.loads`` per line spent more in the call (the encoding sniffed, the
    decoder set up) than in the decoding. orjson decodes it first, in a third of the time
    of Python's own decoder; a chunk it refuses (a lone surrogate, ``NaN``, which Python's
    decoder reads) or would read otherwise (a number past 64 bits) is decoded by Python's,
    so what a restore accepts is what Python's decoder reads.

    Raises ``ValueError`` (``json.JSONDecodeError``) for a chunk that does not decode to
    one JSON value a line (an empty line, a line of two values, a value across lines);
    the caller, which names the table and the line, then decodes the chunk line by line
    to find which. Lines that split one value into two and join two into one in the same
    chunk decode to as many values as lines: each is still a value the restore checks
    as it checks every row."""
    text = b"[" + b",".join(lines) + b"]"
    try:
        if text.translate(DIGITS_AS_ZEROS).find(_LONG_NUMBER) >= 0:
            # A number past 64 bits, which orjson reads as a float (lossy), Python's
            # decoder as the whole number it is (or digits in a text: the same either way).
            raise orjson.JSONDecodeError("a long number", "", 0)
        values = orjson.loads(text)
    except orjson.JSONDecodeError:
        values = json.loads(text)
    if len(values) != len(lines):
        raise json.JSONDecodeError("not one JSON value a line", "", 0)
    return values  # type: ignore[no-any-return]


def ids_reserve(model: type[models.Model], count: int) -> list[int]:
    """PostgreSQL: ``count`` new ids of ``model``'s table, in ascending order, from its
    sequence named once (``players.bulk.ids_taken``), as ``_reserve`` gave them with a
    lookup of the sequence per id."""
    if connection.vendor != "postgresql":
        raise NotImplementedError("ids_reserve is for PostgreSQL; SQLite has _reserve")
    return sorted(ids_taken(model, count).tolist())


def server_parses(field: models.Field[Any, Any]) -> bool:
    """Whether the archive's text of this field's values goes to PostgreSQL's COPY as it
    is: dates, times and datetimes in ISO 8601, Decimals and UUIDs as strings are what
    the server's own input reads. ``to_python`` of each was a tenth of a restore; a value
    the server cannot read fails the COPY with a ``DataError`` naming the column (the
    restore turns it into its one-line message)."""
    return connection.vendor == "postgresql" and isinstance(
        field, models.DateField | models.TimeField | models.DecimalField | models.UUIDField
    )


@dataclass(frozen=True)
class RowPlan:
    """What the restore asks of every row of a table, found once for the table: looked up
    per row (the unknown field searched through a list, the model's pk, whether the table
    is the club's or the memberships') they were about a fifth of a row's time."""

    fields: frozenset[str]
    checks: list[tuple[str, Callable[[Any], Any]]]
    club: bool
    #: The name of the row's own id when the table's sequence gives it (mapped) and other
    #: rows may name it: only then is it kept among the ids written (a set of every id of
    #: the audit rows and rating changes, which nothing names, was 90 MB of a restore).
    pk: str | None
    membership: bool
    renamed: bool

    @classmethod
    def of(
        cls,
        table: Table,
        fields: Sequence[str],
        columns: Sequence[str],
        checks: dict[str, Callable[[Any], Any]],
        *,
        referenced: bool,
    ) -> RowPlan:
        pk = table.model._meta.pk
        assert pk is not None
        return cls(
            fields=frozenset(fields),
            checks=[(n, checks[n]) for n in columns],
            club=table.model is Club,
            pk=pk.name if is_auto(pk) and referenced else None,
            membership=table.model is Membership,
            renamed=table.model is Club or table.tracked is Club,
        )
