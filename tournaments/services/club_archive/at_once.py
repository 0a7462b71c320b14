"""A chunk's rows checked and mapped a column at a time (``ChunkAtOnce``), for the restore.

The restore's rules are ``restorer.Restorer``'s, a value at a time: that was 24 million
checks and 11 million ids mapped, one Python call each, for a 20,000-player club of two
years, most of a restore's time. Here each column of a chunk is tested whole (the set of
its types, its text joined once, its ids against the set of ids written) and mapped with
one dictionary lookup per value. Where a test is not sure (a value of another type, an id
not written, a user not here), the chunk is handed back and the restorer takes it a row
at a time, which finds the same rows good and names the line and the field of a bad one:
the two ways agree on everything they accept, and only the row-at-a-time one refuses.

Nothing here changes the restorer's state until the whole chunk has passed."""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain, repeat
from typing import Any, Protocol

from django.db import models

from players.models import Club
from tournaments.services.club_archive import fast
from tournaments.services.club_archive.ids import Ids
from tournaments.services.club_archive.tables import (
    _JSON_REFERENCES,
    _RESECRETED,
    LEFT_OUT,
    Table,
    _related,
    is_auto,
)
from tournaments.services.club_archive.values import NONE, Unsure, column_check, each_or_unsure


class Restorer(Protocol):
    """What the column checks read of ``restorer.Restorer``: its row-at-a-time rules and
    its maps, named here so the two modules do not import each other."""

    ids: Ids
    user_model: type[models.Model]
    users: dict[str, Any]
    club_old: Any

    def _plain_target(self, table: Table, name: str) -> type[models.Model] | None: ...

    def _value_column(self, table: Table, f: models.Field[Any, Any]) -> Callable[[Any], Any]: ...


Column = Callable[[list[Any]], list[Any]]


class ChunkAtOnce:
    """The columns' checks of one table, built once; ``rows`` gives a chunk's values or
    None for a chunk to be taken a row at a time."""

    def __init__(
        self,
        restorer: Restorer,
        table: Table,
        fields: list[str],
        columns: list[str],
        *,
        referenced: bool,
    ):
        self.restorer = restorer
        self.table = table
        self.fields = frozenset(fields)
        self.columns = columns
        pk = table.model._meta.pk
        assert pk is not None
        # The ids written are kept only where other rows may name them (fast.RowPlan.pk).
        self.pk = pk.name if is_auto(pk) and referenced else None
        self.checks = [self._column(table.model._meta.get_field(n)) for n in columns]  # type: ignore[arg-type]

    @staticmethod
    def applies(table: Table) -> bool:
        """The club, its audit rows and the memberships have rows that do more than
        check and map (the club renamed, memberships kept aside): a row at a time."""
        return (
            table.model is not Club
            and table.tracked is not Club
            and table.label not in ("players.membership",)
        )

    def rows(self, rows: list[dict[str, Any]]) -> list[list[Any]] | None:
        """The chunk's values, a list per column (in the order of ``columns``), or None."""
        if not self.columns or not self.fields.issuperset(chain.from_iterable(rows)):
            return None  # a field that is not a column: the row at a time names it
        count = len(rows)
        out: list[list[Any]] = []
        try:
            for name, check in zip(self.columns, self.checks, strict=True):
                out.append(check(list(map(dict.get, rows, repeat(name, count)))))
        except (Unsure, KeyError, TypeError):  # TypeError: a list or object, not hashable
            return None
        if self.pk is not None:
            ids = list(map(dict.get, rows, repeat(self.pk, count)))
            self.restorer.ids.written_all(self.table.model, [i for i in ids if type(i) is int])
        return out

    def _column(self, f: models.Field[Any, Any]) -> Column:
        restorer = self.restorer
        table = self.table
        target = _related(f)
        plain = restorer._plain_target(table, f.name)
        ids = restorer.ids
        if f.primary_key and is_auto(f):
            return self._new_pks(table.model)
        if target is restorer.user_model:
            return self._users(f)
        if target is Club or plain is Club:
            return self._own_club
        if target is not None and fast.is_club_table(target):
            if table.tracked is not None:
                return _mapped(ids.maps[target], null=True)
            return self._archived(target, null=f.null)
        if target is not None:
            if issubclass(target, LEFT_OUT) and f.null:
                return lambda values: [None] * len(values)
            return _all_empty if f.null else _unsure
        if plain is not None:
            return _mapped(ids.maps[plain], null=f.null)
        if self._special(f):
            one = restorer._value_column(table, f)
            return lambda values: each_or_unsure(one, values)
        return column_check(f, parse=not fast.server_parses(f))

    def _special(self, f: models.Field[Any, Any]) -> bool:
        """A value with ids inside it or a secret made anew: a value at a time."""
        key = (self.table.label, f.name)
        return key in _JSON_REFERENCES or key in _RESECRETED

    def _new_pks(self, model: type[models.Model]) -> Column:
        known = self.restorer.ids.maps[model]
        written = self.restorer.ids.written_set(model)

        def new_pks(values: list[Any]) -> list[Any]:
            distinct = set(values)
            if (
                len(distinct) != len(values)
                or not {int}.issuperset(map(type, distinct))
                or not written.isdisjoint(distinct)
            ):
                raise Unsure
            return list(map(known.__getitem__, values))

        return new_pks

    def _users(self, f: models.Field[Any, Any]) -> Column:
        users = self.restorer.users

        def named(values: list[Any]) -> list[Any]:
            found: dict[Any, Any] = {}
            for name in set(values):
                if name is None:
                    if not f.null:
                        raise Unsure
                    found[None] = None
                elif type(name) is not str or users.get(name) is None:
                    raise Unsure  # the row at a time records the missing user
                else:
                    found[name] = users[name]
            return list(map(found.__getitem__, values))

        return named

    def _own_club(self, values: list[Any]) -> list[Any]:
        old = self.restorer.club_old
        if old is None or set(values) != {old} or not {int}.issuperset(map(type, values)):
            raise Unsure
        return [self.restorer.ids.get(Club, old)] * len(values)

    def _archived(self, target: type[models.Model], *, null: bool) -> Column:
        known = self.restorer.ids.maps[target]
        written = self.restorer.ids.written_set(target)
        mapped = _mapped(known, null=null)

        def archived(values: list[Any]) -> list[Any]:
            distinct = set(values)
            distinct.discard(None)
            if not written.issuperset(distinct):
                raise Unsure
            return mapped(values)

        return archived


def _mapped(known: dict[int, int], *, null: bool) -> Column:
    """Ids mapped that need not name a written row (an audit row's object, a plain id)."""
    kinds = {int, NONE} if null else {int}

    def mapped(values: list[Any]) -> list[Any]:
        if not kinds.issuperset(map(type, values)):
            raise Unsure
        if null and None in values:
            return [None if v is None else known[v] for v in values]
        return list(map(known.__getitem__, values))

    return mapped


def _all_empty(values: list[Any]) -> list[Any]:
    if any(v is not None for v in values):
        raise Unsure
    return values


def _unsure(values: list[Any]) -> list[Any]:
    raise Unsure
