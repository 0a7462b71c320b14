"""Old ids to new ones, per model, for a restore: new ids come from the target's own
sequences a chunk at a time, in the order of the old ones (lists sorted by id keep their
order), and the ids of the rows actually written are known apart from those reserved for
what an audit row names (which name no row)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from itertools import filterfalse
from typing import Any

from django.db import connection, models

from tournaments.services.club_archive.fast import ids_reserve
from tournaments.services.club_archive.values import Refused


class Ids:
    def __init__(self) -> None:
        self.maps: dict[type[models.Model], dict[int, int]] = defaultdict(dict)
        self._written: dict[type[models.Model], set[int]] = defaultdict(set)

    def ensure(self, model: type[models.Model], old_ids: Iterable[Any]) -> None:
        known = self.maps[model]
        # The ids not known yet, found without a Python step per id (most are known: an
        # audit row's object, a chunk's own ids met again).
        values = list(old_ids)
        try:
            distinct = set(values)
        except TypeError:  # a list or an object where an id belongs: refused by its row
            distinct = {i for i in values if type(i) is int}
        wanted = sorted(i for i in filterfalse(known.__contains__, distinct) if type(i) is int)
        if wanted:
            known.update(zip(wanted, _reserve(model, len(wanted)), strict=True))

    def get(self, model: type[models.Model], old: int) -> int:
        return self.maps[model][old]

    def new_pk(self, model: type[models.Model], old: int) -> int:
        """A row's own id, mapped; the same id twice in one table is refused."""
        if old in self._written[model]:
            raise Refused(f"the id {old} is used by an earlier row")
        return self.maps[model][old]

    def written(self, model: type[models.Model], old: int) -> None:
        self._written[model].add(old)

    def written_all(self, model: type[models.Model], old: list[int]) -> None:
        self._written[model].update(old)

    def written_set(self, model: type[models.Model]) -> set[int]:
        """The old ids of ``model``'s rows written so far (the set itself, kept current)."""
        return self._written[model]

    def written_as(self, model: type[models.Model], old: int) -> int | None:
        """The new id of the archive's row ``old`` of ``model``, None if none was written."""
        return self.maps[model][old] if old in self._written[model] else None


def _reserve(model: type[models.Model], n: int) -> list[int]:
    """``n`` ids of ``model``'s table that no other row will take, in ascending order."""
    if connection.vendor == "postgresql":
        return ids_reserve(model, n)  # the sequence named once, not per id
    pk = model._meta.pk
    assert pk is not None
    table = model._meta.db_table
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            # AUTOINCREMENT tables: the next id is above both the recorded sequence and the
            # largest id; raising the sequence keeps ids never inserted (a deleted player's
            # audit rows name one) from being handed out later.
            cursor.execute("SELECT seq FROM sqlite_sequence WHERE name = %s", [table])
            row = cursor.fetchone()
            cursor.execute(f"SELECT MAX({quote(pk.column)}) FROM {quote(table)}")  # noqa: S608 - names from the model
            top = cursor.fetchone()[0] or 0
            start = max(row[0] if row else 0, top)
            if row:
                cursor.execute(
                    "UPDATE sqlite_sequence SET seq = %s WHERE name = %s", [start + n, table]
                )
            else:
                cursor.execute(
                    "INSERT INTO sqlite_sequence (name, seq) VALUES (%s, %s)", [table, start + n]
                )
            return list(range(start + 1, start + n + 1))
    raise NotImplementedError(f"Club import on {connection.vendor} is not supported.")
