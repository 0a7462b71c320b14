"""An archive restored into an empty club of any instance (``club_import``)."""

from __future__ import annotations

import hashlib
import json
import secrets
import time
import zipfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from django.apps import apps
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import connection, models, transaction

from players.bulk import insert_rows
from players.errors import invalid_field
from players.models import RESERVED_SLUGS, Club
from players.services import club_published_changed
from tournaments.services.club_archive.export import _chunks, _migrations
from tournaments.services.club_archive.tables import (
    _EXCLUDED,
    _JSON_REFERENCES,
    _PLAIN_REFERENCES,
    _RESECRETED,
    _ROWS_OF_A_USER,
    CHUNK,
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    MANIFEST_MAX_BYTES,
    ArchiveError,
    Table,
    _club_path,
    _related,
    _user_model,
    club_tables,
)

# --- import -----------------------------------------------------------------------------


@dataclass
class ImportReport:
    club: str
    tables: dict[str, int]
    #: What could not be restored as it was: skipped rows and emptied references.
    skipped: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def rows(self) -> int:
        return sum(self.tables.values())


def _read_manifest(zf: zipfile.ZipFile) -> dict[str, Any]:
    try:
        info = zf.getinfo(MANIFEST)
    except KeyError:
        raise ArchiveError("Not a club archive: it has no manifest.json.") from None
    if info.file_size > MANIFEST_MAX_BYTES:
        raise ArchiveError("The manifest is too large to be a club archive's.")
    try:
        manifest = json.loads(zf.read(MANIFEST))
    except ValueError:
        raise ArchiveError("The manifest is not JSON.") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ArchiveError("Not a club archive (the manifest names another format).")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise ArchiveError(
            f"Archive format version {manifest.get('format_version')!r}; this instance reads "
            f"version {FORMAT_VERSION} only."
        )
    return manifest


def _member_lines(zf: zipfile.ZipFile, name: str) -> Iterator[bytes]:
    with zf.open(name) as member:
        yield from member


def _verify(zf: zipfile.ZipFile, manifest: dict[str, Any]) -> None:
    """Every member's checksum and row count as the manifest says, and no other member."""
    entries = manifest.get("tables")
    if not isinstance(entries, list):
        raise ArchiveError("The manifest lists no tables.")
    listed = {MANIFEST}
    for entry in entries:
        name = entry.get("file")
        listed.add(name)
        try:
            zf.getinfo(name)
        except KeyError:
            raise ArchiveError(f"{name} is missing from the archive.") from None
        digest = hashlib.sha256()
        lines = 0
        with zf.open(name) as member:
            while block := member.read(1 << 20):
                digest.update(block)
                lines += block.count(b"\n")
        if digest.hexdigest() != entry.get("sha256"):
            raise ArchiveError(f"{name}: checksum does not match the manifest.")
        if lines != entry.get("rows"):
            raise ArchiveError(f"{name}: {lines} rows, the manifest says {entry.get('rows')}.")
    extra = sorted(set(zf.namelist()) - listed)
    if extra:
        raise ArchiveError(f"{extra[0]} is not in the manifest.")


def _check_schema(manifest: dict[str, Any], tables: dict[str, Table]) -> None:
    """The target knows every migration the source had applied, every table and column
    of the file (a column it lacks would be lost, so the file is refused)."""
    source = manifest.get("source", {}).get("migrations", {})
    here = _migrations(source)
    for app, names in source.items():
        missing = sorted(set(names) - set(here.get(app, [])))
        if missing:
            raise ArchiveError(
                f"The archive comes from a newer database schema ({app}.{missing[0]} is not "
                "applied here): migrate this instance to the source's version first."
            )
    for entry in manifest["tables"]:
        table = tables.get(entry["model"])
        if table is None:
            raise ArchiveError(f"This instance has no table {entry['model']} for its rows.")
        known = {f.name for f in table.fields}
        unknown = [name for name in entry.get("fields", []) if name not in known]
        if unknown:
            raise ArchiveError(
                f"{entry['model']}.{unknown[0]} exists in the archive but not here: its "
                "values would be lost."
            )


class _Ids:
    """Old id -> new id, per model; new ids taken from the target's sequence in batches."""

    def __init__(self) -> None:
        self.maps: dict[type[models.Model], dict[Any, int]] = defaultdict(dict)

    def ensure(self, model: type[models.Model], old_ids: Iterable[Any]) -> None:
        known = self.maps[model]
        wanted = sorted({i for i in old_ids if i is not None and i not in known})
        if wanted:
            known.update(zip(wanted, _reserve(model, len(wanted)), strict=True))

    def get(self, model: type[models.Model], old: Any) -> Any:
        return None if old is None else self.maps[model][old]


def _reserve(model: type[models.Model], n: int) -> list[int]:
    """``n`` ids of ``model``'s table that no other row will take, in ascending order."""
    pk = model._meta.pk
    assert pk is not None
    table = model._meta.db_table
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                [quote(table), pk.column, n],
            )
            return sorted(row[0] for row in cursor.fetchall())
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


def _is_auto(f: models.Field[Any, Any]) -> bool:
    return isinstance(f, models.AutoField | models.BigAutoField | models.SmallAutoField)


def club_import(
    *,
    file: IO[bytes],
    slug: str | None = None,
    name: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Restore the archive in ``file`` as a new club (under ``slug``/``name`` when given).

    Raises ArchiveError (nothing written) for a file that is not an intact archive of this
    format version, or whose schema this instance does not have; ValidationFailed for a
    slug or name already taken here."""
    started = time.monotonic()
    try:
        zf = zipfile.ZipFile(file)
    except zipfile.BadZipFile:
        raise ArchiveError("Not a zip file.") from None
    with zf:
        manifest = _read_manifest(zf)
        _verify(zf, manifest)
        tables = {t.label: t for t in club_tables()}
        _check_schema(manifest, tables)
        original = manifest.get("club", {})
        new_slug = slug or original.get("slug", "")
        new_name = name or original.get("name", "")
        try:
            validate_slug(new_slug)
        except ValidationError:
            raise invalid_field("slug", f"{new_slug!r} is not a valid slug.") from None
        if new_slug.lower() in RESERVED_SLUGS:
            raise invalid_field("slug", f"{new_slug!r} is reserved; choose another slug.")
        entries = {entry["model"]: entry for entry in manifest["tables"]}
        if entries.get(Club._meta.label_lower, {}).get("rows") != 1:
            raise ArchiveError("The archive must hold exactly one club.")
        report = ImportReport(club=new_slug, tables={})
        with transaction.atomic(durable=True):
            # Checked inside the transaction: the club's row (unique slug) is written in it.
            if Club.objects.filter(slug__iexact=new_slug).exists():
                raise invalid_field("slug", f"The slug {new_slug!r} is taken; give --slug.")
            if Club.objects.filter(name__iexact=new_name).exists():
                raise invalid_field(
                    "name", f"A club named {new_name!r} exists already; give --name."
                )
            restorer = _Restorer(
                original=original, slug=new_slug, name=new_name, report=report, progress=progress
            )
            # The file's order is the source's; the target's own order of foreign keys
            # decides here (the same tables, perhaps found in another order).
            for label, table in tables.items():
                entry = entries.get(label)
                if entry is not None:
                    report.tables[label] = restorer.table(zf, table, entry)
            club_id = restorer.ids.get(Club, next(iter(restorer.ids.maps[Club])))
            club_published_changed(club_id=club_id)
    report.seconds = time.monotonic() - started
    return report


class _Restorer:
    def __init__(
        self,
        *,
        original: dict[str, Any],
        slug: str,
        name: str,
        report: ImportReport,
        progress: Callable[[int], None] | None,
    ) -> None:
        self.original = original
        self.slug = slug
        self.name = name
        self.report = report
        self.progress = progress
        self.ids = _Ids()
        self.user_model = _user_model()
        self.users: dict[str, Any] = {}
        self.missing_users: dict[str, set[str]] = defaultdict(set)

    def _load_users(self, names: Iterable[str]) -> None:
        wanted = {n for n in names if n is not None and n not in self.users}
        if wanted:
            field_name = self.user_model.USERNAME_FIELD
            found = dict(
                self.user_model._default_manager.filter(
                    **{f"{field_name}__in": wanted}
                ).values_list(field_name, "pk")
            )
            for n in wanted:
                self.users[n] = found.get(n)

    def table(self, zf: zipfile.ZipFile, table: Table, entry: dict[str, Any]) -> int:
        model = table.model
        label = table.label
        by_name = {f.name: f for f in table.fields}
        file_fields = [name for name in entry["fields"] if name in by_name]
        pk = model._meta.pk
        assert pk is not None
        referenced = self._referenced(table)
        keep_pk = not _is_auto(pk) or referenced
        # The columns written: the file's, less an id the target's sequence gives.
        columns = [n for n in file_fields if keep_pk or n != pk.name]
        relations = {n: target for n in columns if (target := _related(by_name[n])) is not None}
        plain = {
            n: apps.get_model(target)
            for (model_label, n), target in _PLAIN_REFERENCES.items()
            if model_label == label and n in by_name
        }
        if table.tracked is not None and self._is_club_table(table.tracked):
            tracked_pk = table.tracked._meta.pk
            assert tracked_pk is not None
            plain[tracked_pk.name] = table.tracked
        json_refs = {
            n: {key: apps.get_model(target) for key, target in refs.items()}
            for (model_label, n), refs in _JSON_REFERENCES.items()
            if model_label == label and n in by_name
        }
        converters: dict[str, Callable[[Any], Any]] = {
            n: by_name[n].to_python
            for n in columns
            if isinstance(
                by_name[n],
                models.DateField | models.TimeField | models.DecimalField | models.UUIDField,
            )
        }
        count = 0
        lines = _member_lines(zf, entry["file"])
        for chunk in _chunks(lines, CHUNK):
            rows = [json.loads(line) for line in chunk]
            if referenced:
                self.ids.ensure(model, (row[pk.name] for row in rows))
            for n, target in relations.items():
                if target is self.user_model:
                    self._load_users(row.get(n) for row in rows)
                elif table.tracked is not None:
                    # An audit row may name an object deleted since (a merged player):
                    # it gets an id of its own, the same wherever it is named.
                    self._ensure(target, (row.get(n) for row in rows))
            for n, target in plain.items():
                self._ensure(target, (row.get(n) for row in rows))
            for n, refs in json_refs.items():
                for key, target in refs.items():
                    self._ensure(
                        target,
                        (row[n].get(key) for row in rows if isinstance(row.get(n), dict)),
                    )
            values = []
            for row in rows:
                out = self._row(
                    table, row, columns, by_name, relations, plain, json_refs, converters
                )
                if out is not None:
                    values.append(out)
            if values:
                try:
                    insert_rows(model, columns, values)
                except ValueError as error:
                    raise ArchiveError(f"{label}: {error}") from None
            count += len(values)
            if self.progress is not None:
                self.progress(len(rows))
        for field_name, usernames in sorted(self.missing_users.items()):
            if field_name.startswith(label + "."):
                shown = ", ".join(sorted(usernames)[:10])
                more = f" and {len(usernames) - 10} more" if len(usernames) > 10 else ""
                self.report.skipped.append(f"{field_name}: no user {shown}{more} here")
        return count

    def _is_club_table(self, model: type[models.Model]) -> bool:
        return _club_path(model) is not None and not issubclass(model, _EXCLUDED)

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

    def _ensure(self, target: type[models.Model] | None, old_ids: Iterable[Any]) -> None:
        if target is not None and self._is_club_table(target):
            self.ids.ensure(target, old_ids)

    def _row(
        self,
        table: Table,
        row: dict[str, Any],
        columns: list[str],
        by_name: dict[str, models.Field[Any, Any]],
        relations: dict[str, Any],
        plain: dict[str, type[models.Model]],
        json_refs: dict[str, dict[str, type[models.Model]]],
        converters: dict[str, Callable[[Any], Any]],
    ) -> list[Any] | None:
        model = table.model
        label = table.label
        pk = model._meta.pk
        assert pk is not None
        out: list[Any] = []
        for n in columns:
            value = row.get(n)
            if n == pk.name and value is not None and _is_auto(pk):
                value = self.ids.get(model, value)
            elif n in relations:
                target = relations[n]
                if value is None:
                    pass
                elif target is self.user_model:
                    user_id = self.users.get(value)
                    if user_id is None:
                        self.missing_users[f"{label}.{n}"].add(value)
                        if label in _ROWS_OF_A_USER and n == "user":
                            return None
                        if not by_name[n].null:
                            return None
                    value = user_id
                elif self._is_club_table(target):
                    # The club's rows were written before (tables in the order of their
                    # keys); an id that is not one of them names a row the instance
                    # shares between clubs, kept as it is.
                    value = self.ids.maps[target].get(value, value)
                # else: a row of the instance's own (not the club's): kept as it is.
            elif n in plain:
                value = self.ids.get(plain[n], value)
            elif n in converters and value is not None:
                value = converters[n](value)
            if n in json_refs and isinstance(value, dict):
                value = dict(value)
                for key, target in json_refs[n].items():
                    if isinstance(value.get(key), int):
                        value[key] = self.ids.get(target, value[key])
            if (label, n) in _RESECRETED and value:
                value = self._fresh_secret(model, n, value)
            out.append(value)
        self._rename_club(table, columns, row, out)
        return out

    def _fresh_secret(self, model: type[models.Model], name: str, value: str) -> str:
        if model._base_manager.filter(**{name: value}).exists():
            self.report.skipped.append(
                f"{model._meta.label_lower}.{name}: taken on this instance; the copy got a "
                "new one (its link does not work)"
            )
            return hashlib.sha256(secrets.token_bytes(32)).hexdigest()
        return value

    def _rename_club(
        self, table: Table, columns: list[str], row: dict[str, Any], out: list[Any]
    ) -> None:
        """The club and its own audit rows under the new slug and name (where they had
        the old ones)."""
        if table.model is not Club and table.tracked is not Club:
            return
        for n, new in (("slug", self.slug), ("name", self.name)):
            if n in columns and row.get(n) == self.original.get(n):
                out[columns.index(n)] = new
