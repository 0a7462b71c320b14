"""The rows of an archive's tables written as a new club's (``Restorer``, for
``restore.club_import``): every value of every row is taken through one check per column,
built once per table (``Restorer._columns``): a reference is mapped to a row of the archive
written before it (tables go in the order of their foreign keys) or resolved by name, and
anything else is refused with the table, the line and the field."""

from __future__ import annotations

import zipfile
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

from django.apps import apps
from django.db import models

from players.models import Club, Membership
from tournaments.services.club_archive import fast
from tournaments.services.club_archive.at_once import ChunkAtOnce
from tournaments.services.club_archive.ids import Ids
from tournaments.services.club_archive.members import fresh_secret, members_restore
from tournaments.services.club_archive.reading import (
    Entry,
    Manifest,
    row_chunks,
)
from tournaments.services.club_archive.tables import (
    _JSON_REFERENCES,
    _PLAIN_REFERENCES,
    _RESECRETED,
    _ROWS_OF_A_USER,
    LEFT_OUT,
    ArchiveError,
    Table,
    _related,
    _user_model,
    is_auto,
)
from tournaments.services.club_archive.values import Refused, old_id, shown, value_check
from tournaments.services.club_archive.writing import table_writer

# A row left out of the restore (a membership: it becomes an invitation; a row whose user
# is not here), not an error.
_SKIP = object()


@dataclass
class ImportReport:
    club: str
    #: Rows taken per table (memberships: taken as the owner's role or invitations).
    tables: dict[str, int]
    #: What could not be restored as it was: skipped rows and emptied references.
    skipped: list[str] = field(default_factory=list)
    #: The owner the operator named (the one role a restore grants), if any.
    owner: str | None = None
    #: The archive's members, each now invited to their role ("alice: officer").
    invited: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def rows(self) -> int:
        return sum(self.tables.values())


class Restorer:
    def __init__(self, *, manifest: Manifest, slug: str, name: str, report: ImportReport) -> None:
        self.manifest = manifest
        self.slug = slug
        self.name = name
        self.report = report
        self.ids = Ids()
        self.user_model = _user_model()
        self.users: dict[str, Any] = {}
        self.missing_users: dict[str, set[str]] = defaultdict(set)
        #: The archive's memberships of users found here: (username, role), for ``members``
        #: (one of a user not here is skipped when read, and reported with the others).
        self.memberships: list[tuple[str, str]] = []
        self.club_old: int | None = None
        self.resecreted: set[str] = set()
        self._plans: dict[str, fast.RowPlan] = {}

    def club_id(self) -> tuple[int, int]:
        """The archive's club: its id in the file and here."""
        assert self.club_old is not None
        return self.club_old, self.ids.get(Club, self.club_old)

    def _load_users(self, names: Iterable[Any]) -> None:
        wanted = {n for n in names if isinstance(n, str) and n not in self.users}
        if wanted:
            field_name = self.user_model.USERNAME_FIELD
            found = dict(
                self.user_model._default_manager.filter(
                    **{f"{field_name}__in": wanted}
                ).values_list(field_name, "pk")
            )
            for n in wanted:
                self.users[n] = found.get(n)

    def table(
        self,
        zf: zipfile.ZipFile,
        table: Table,
        entry: Entry,
        progress: Callable[[int], None] | None,
    ) -> int:
        """The table's rows of the archive written here, a chunk at a time, each row
        checked and its references mapped; how many were written."""
        pk = table.model._meta.pk
        assert pk is not None
        referenced = self._referenced(table)
        keep_pk = not is_auto(pk) or referenced
        # The columns written: the file's, less an id the target's sequence gives.
        columns = [n for n in entry.fields if keep_pk or n != pk.name]
        checks = self._columns(table, columns)
        prepare = self._chunk_preparation(table, columns, pk.name if referenced else None)
        at_once = (
            ChunkAtOnce(self, table, entry.fields, columns, referenced=referenced)
            if ChunkAtOnce.applies(table)
            else None
        )
        kept_aside = table.label == Membership._meta.label_lower
        count = 0
        with table_writer(table, columns, kept_aside=kept_aside) as writer:
            for first, rows in row_chunks(zf, entry):
                writer.wait()  # the connection is free: this chunk's ids and users
                prepare(rows)
                writer.send()  # the last chunk, written while this one is checked
                by_column = at_once.rows(rows) if at_once is not None else None
                if by_column is not None:
                    writer.hold_columns(by_column, len(rows))
                    count += len(rows)
                else:  # a row at a time: the same rows taken, a bad one named
                    values = [
                        out
                        for line, row in enumerate(rows, first)
                        if (out := self._row(table, entry, line, row, columns, checks)) is not _SKIP
                    ]
                    writer.hold_rows(values)
                    count += len(values)
                if progress is not None:
                    progress(len(rows))
        self._report_missing_users(table.label)
        return count

    def _chunk_preparation(
        self, table: Table, columns: list[str], referenced_pk: str | None
    ) -> Callable[[list[dict[str, Any]]], None]:
        """What a chunk's references need before its rows are mapped: the table's own ids
        where other rows name them (``referenced_pk``), the users the rows name, and the
        ids that get an id of their own without a row."""
        users = [n for n in columns if _related(_field(table, n)) is self.user_model]
        fresh = self._fresh_ids(table, columns)

        def prepare(rows: list[dict[str, Any]]) -> None:
            if referenced_pk is not None:
                self.ids.ensure(table.model, (row.get(referenced_pk) for row in rows))
            for n in users:
                self._load_users(row.get(n) for row in rows)
            for target, ids in fresh(rows):
                self.ids.ensure(target, ids)

        return prepare

    def _report_missing_users(self, label: str) -> None:
        for field_name, usernames in sorted(self.missing_users.items()):
            if field_name.startswith(label + "."):
                listed = ", ".join(sorted(usernames)[:10])
                more = f" and {len(usernames) - 10} more" if len(usernames) > 10 else ""
                self.report.skipped.append(f"{field_name}: no user {listed}{more} here")

    def _row(
        self,
        table: Table,
        entry: Entry,
        line: int,
        row: dict[str, Any],
        columns: list[str],
        checks: dict[str, Callable[[Any], Any]],
    ) -> Any:
        plan = self._plans.get(table.label)
        if plan is None:
            plan = self._plans[table.label] = fast.RowPlan.of(
                table, entry.fields, columns, checks, referenced=self._referenced(table)
            )
        if not plan.fields.issuperset(row):
            unknown = next(n for n in row if n not in plan.fields)
            raise ArchiveError(f"{table.label} line {line}, field {shown(unknown)}: not a column.")
        if plan.club:
            self._club_row(line, row)
        out: list[Any] = []
        get = row.get
        for n, check in plan.checks:
            try:
                value = check(get(n))
            except Refused as refused:
                raise ArchiveError(f"{table.label} line {line}, field {n}: {refused}.") from None
            if value is _SKIP:
                return _SKIP
            out.append(value)
        if plan.pk is not None and _whole(get(plan.pk)):
            self.ids.written(table.model, row[plan.pk])
        if plan.membership:
            # Taken (and counted), but written as the owner's role or an invitation.
            self.memberships.append((row["user"], row["role"]))
        if plan.renamed:
            self._rename_club(table, columns, row, out)
        return out

    def _club_row(self, line: int, row: dict[str, Any]) -> None:
        # The club's own id: the one club every other row may name.
        try:
            self.club_old = old_id(row.get("id"))
        except Refused as refused:
            raise ArchiveError(f"players.club line {line}, field id: {refused}.") from None
        if row.get("slug") != self.manifest.slug:
            raise ArchiveError(
                f"players.club line {line}, field slug: {shown(row.get('slug'))}, but the "
                f"manifest names the club {shown(self.manifest.slug)}."
            )

    def _columns(self, table: Table, columns: list[str]) -> dict[str, Callable[[Any], Any]]:
        """Each column's check and mapping, built once for the table."""
        return {n: self._column(table, _field(table, n)) for n in columns}

    def _column(self, table: Table, f: models.Field[Any, Any]) -> Callable[[Any], Any]:
        model = table.model
        target = _related(f)
        plain = self._plain_target(table, f.name)
        if f.primary_key and is_auto(f):
            return lambda value: self.ids.new_pk(model, old_id(value))
        if target is None and plain is None:
            return self._value_column(table, f)
        return self._reference_column(table, f, target, plain)

    def _reference_column(
        self,
        table: Table,
        f: models.Field[Any, Any],
        target: type[models.Model] | None,
        plain: type[models.Model] | None,
    ) -> Callable[[Any], Any]:
        """A reference (a foreign key, ``target``, or a plain id, ``plain``) mapped to the
        row it names here: a user by name, the club, an archived row, a row left out."""
        if target is self.user_model:
            return self._user_column(table, f)
        if target is Club or plain is Club:
            return lambda value: self._own_club(value)
        if target is not None and self._is_club_table(target):
            if table.tracked is not None:
                # An audit row may name an object deleted since (a merged player): it gets
                # an id of its own, the same wherever it is named, that names no row.
                return lambda value: None if value is None else self.ids.get(target, old_id(value))
            return lambda value: self._archived(target, value, null=f.null)
        if target is not None:
            return lambda value: self._left_out(target, value, null=f.null)
        assert plain is not None
        return lambda value: self._nullable(value, f.null, lambda v: self.ids.get(plain, old_id(v)))

    def _value_column(self, table: Table, f: models.Field[Any, Any]) -> Callable[[Any], Any]:
        """A value checked, with the ids inside JSON mapped and secrets made anew."""
        label = table.label
        # PostgreSQL reads the archive's ISO text itself: the value is checked for its form
        # only (fast.server_parses), not converted.
        check = value_check(f, parse=not fast.server_parses(f))
        json_refs = {
            key: _model(target_label)
            for (model_label, n), refs in _JSON_REFERENCES.items()
            if model_label == label and n == f.name
            for key, target_label in refs.items()
        }
        if json_refs:
            return lambda value: self._json_mapped(check(value), json_refs)
        if (label, f.name) in _RESECRETED:
            return lambda value: self._resecret(label, f.name, check(value))
        return check

    def _resecret(self, label: str, name: str, value: Any) -> Any:
        where = f"{label}.{name}"
        if where not in self.resecreted:
            self.resecreted.add(where)
            self.report.skipped.append(
                f"{where}: the archive's links do not work here (new secrets; an invited "
                "account accepts on its home page)"
            )
        return fresh_secret(value)

    def _user_column(self, table: Table, f: models.Field[Any, Any]) -> Callable[[Any], Any]:
        where = f"{table.label}.{f.name}"
        whole_row = table.label in _ROWS_OF_A_USER and f.name == "user"

        def user(value: Any) -> Any:
            if value is None:
                if not f.null:
                    raise Refused("must name a user")
                return None
            if not isinstance(value, str):
                raise Refused(f"{shown(value)} is not a username")
            user_id = self.users.get(value)
            if user_id is None:
                self.missing_users[where].add(value)
                if whole_row or not f.null:
                    return _SKIP
            return user_id

        return user

    def _own_club(self, value: Any) -> Any:
        # Never empty either, though an audit row's column may be: a row of no club would
        # be written outside the new club.
        if self.club_old is None or not _whole(value) or value != self.club_old:
            raise Refused(f"{shown(value)} is not the archive's club ({self.club_old})")
        return self.ids.get(Club, value)

    def _archived(self, target: type[models.Model], value: Any, *, null: bool) -> Any:
        if value is None and null:
            return None
        mapped = self.ids.written_as(target, old_id(value))
        if mapped is None:
            raise Refused(
                f"{shown(value)} is not a row of the archive's {target._meta.label_lower}"
            )
        return mapped

    @staticmethod
    def _left_out(target: type[models.Model], value: Any, *, null: bool) -> Any:
        if issubclass(target, LEFT_OUT) and null:
            return None  # a run's job: the queue's record, not the club's history
        if value is None and null:
            return None
        raise Refused(f"names a {target._meta.label_lower}, which an archive does not carry")

    @staticmethod
    def _nullable(value: Any, null: bool, then: Callable[[Any], Any]) -> Any:
        if value is None:
            if not null:
                raise Refused("must not be empty")
            return None
        return then(value)

    def _json_mapped(self, value: Any, refs: dict[str, type[models.Model]]) -> Any:
        if not isinstance(value, dict):
            return value
        value = dict(value)
        for key, target in refs.items():
            if key in value and value[key] is not None:
                value[key] = self.ids.get(target, old_id(value[key]))
        return value

    def _plain_target(self, table: Table, name: str) -> type[models.Model] | None:
        target = _PLAIN_REFERENCES.get((table.label, name))
        if target is not None:
            return _model(target)
        tracked = table.tracked
        if tracked is not None and tracked._meta.pk is not None and name == tracked._meta.pk.name:
            return tracked if self._is_club_table(tracked) else None
        return None

    def _fresh_ids(
        self, table: Table, columns: list[str]
    ) -> Callable[[list[dict[str, Any]]], list[tuple[type[models.Model], list[int]]]]:
        """Per chunk, the ids that get an id of their own without a row: an audit row's
        objects, a merge's duplicate, the ids inside summaries."""
        label = table.label
        wanted: list[tuple[str, str | None, type[models.Model]]] = []
        for n in columns:
            target = _related(_field(table, n))
            if table.tracked is not None and target is not None and self._is_club_table(target):
                wanted.append((n, None, target))
            plain = self._plain_target(table, n)
            if plain is not None and plain is not Club:
                wanted.append((n, None, plain))
            for (model_label, json_field), refs in _JSON_REFERENCES.items():
                if model_label == label and json_field == n:
                    wanted.extend((n, key, _model(t)) for key, t in refs.items())

        def found(rows: list[dict[str, Any]]) -> list[tuple[type[models.Model], list[int]]]:
            out: list[tuple[type[models.Model], list[int]]] = []
            for n, key, target in wanted:
                values: list[Any] = list(map(dict.get, rows, repeat(n, len(rows))))
                if key is not None:
                    values = [v.get(key) for v in values if isinstance(v, dict)]
                out.append((target, values))  # Ids.ensure takes the whole numbers only
            return out

        return found

    def members(self, owner: Any) -> None:
        _, club_id = self.club_id()
        self.report.owner, self.report.invited = members_restore(
            club_id=club_id, memberships=self.memberships, users=self.users, owner=owner
        )

    @staticmethod
    def _is_club_table(model: type[models.Model]) -> bool:
        return fast.is_club_table(model)

    def _referenced(self, table: Table) -> bool:
        """Whether other rows name this table's ids (its ids must then be mapped)."""
        model = table.model
        if model is Club:
            return True
        label = table.label
        if label in _PLAIN_REFERENCES.values():
            return True
        if any(label in refs.values() for refs in _JSON_REFERENCES.values()):
            return True
        for other in apps.get_models():
            if getattr(other, "instance_type", None) is model:
                return True
            for f in other._meta.concrete_fields:
                if f.is_relation and f.related_model is model and other is not model:
                    return True
        return False

    def _rename_club(
        self, table: Table, columns: list[str], row: dict[str, Any], out: list[Any]
    ) -> None:
        """The club and its own audit rows under the new slug and name (where they had
        the old ones)."""
        if table.model is not Club and table.tracked is not Club:
            return
        for n, old, new in (
            ("slug", self.manifest.slug, self.slug),
            ("name", self.manifest.name, self.name),
        ):
            if n in columns and row.get(n) == old:
                out[columns.index(n)] = new


def _whole(value: Any) -> bool:
    return type(value) is int  # JSON's whole numbers (not bools)


def _field(table: Table, name: str) -> models.Field[Any, Any]:
    return table.model._meta.get_field(name)  # type: ignore[return-value]


def _model(label: str) -> type[models.Model]:
    return apps.get_model(label)
