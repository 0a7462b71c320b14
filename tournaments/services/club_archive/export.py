"""A club's history written as one archive (``club_export``)."""

from __future__ import annotations

import datetime
import hashlib
import json
import time
import uuid
import zipfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import IO, Any

from django.db import connection, models, transaction
from django.db.migrations.recorder import MigrationRecorder
from django.utils import timezone

from players.models import Club
from tournaments.services.club_archive.tables import (
    CHUNK,
    FORMAT,
    FORMAT_VERSION,
    LEFT_OUT,
    MANIFEST,
    Table,
    _related,
    _user_model,
    club_tables,
)

# --- export -----------------------------------------------------------------------------


def _encode(value: Any) -> Any:
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, Decimal | uuid.UUID):
        return str(value)
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    raise TypeError(f"{type(value).__name__} cannot be written to a club archive")


def _migrations(labels: Iterable[str]) -> dict[str, list[str]]:
    applied = MigrationRecorder(connection).applied_migrations()
    wanted = set(labels)
    found: dict[str, list[str]] = defaultdict(list)
    for app, name in applied:
        if app in wanted:
            found[app].append(name)
    return {app: sorted(names) for app, names in sorted(found.items())}


@dataclass
class ExportReport:
    club: str
    tables: dict[str, int]
    seconds: float = 0.0

    @property
    def rows(self) -> int:
        return sum(self.tables.values())


class _Usernames:
    """Usernames by user id, read a chunk's worth at a time and remembered."""

    def __init__(self) -> None:
        self.model = _user_model()
        self.known: dict[Any, str] = {}

    def load(self, ids: Iterable[Any]) -> None:
        missing = {i for i in ids if i is not None and i not in self.known}
        if missing:
            self.known.update(
                self.model._default_manager.filter(pk__in=missing).values_list(
                    "pk", self.model.USERNAME_FIELD
                )
            )


def club_export(
    *, club: Club, out: IO[bytes], progress: Callable[[int], None] | None = None
) -> ExportReport:
    """Write ``club``'s archive to ``out`` (a writable, seekable binary file).

    One read transaction (repeatable read on PostgreSQL when not nested) so that a close
    committing meanwhile is either wholly in the file or not at all. Rows are read in
    chunks (a server-side cursor on PostgreSQL): memory does not grow with the history."""
    started = time.monotonic()
    tables = club_tables()
    with transaction.atomic():
        if connection.vendor == "postgresql" and len(connection.atomic_blocks) == 1:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        manifest_tables = []
        counts: dict[str, int] = {}
        usernames = _Usernames()
        user_model = usernames.model
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as zf:
            for table in tables:
                rows, digest = _export_table(zf, table, club, usernames, user_model, progress)
                counts[table.label] = rows
                manifest_tables.append(
                    {
                        "model": table.label,
                        "file": table.file,
                        "rows": rows,
                        "sha256": digest,
                        "fields": [f.name for f in table.fields],
                    }
                )
            manifest = {
                "format": FORMAT,
                "format_version": FORMAT_VERSION,
                "exported_at": timezone.now().isoformat(),
                "club": {"slug": club.slug, "name": club.name},
                "source": {
                    "database": connection.vendor,
                    "migrations": _migrations(t.model._meta.app_label for t in tables),
                },
                "tables": manifest_tables,
            }
            zf.writestr(MANIFEST, json.dumps(manifest, indent=1, sort_keys=True))
    return ExportReport(club=club.slug, tables=counts, seconds=time.monotonic() - started)


def _export_table(
    zf: zipfile.ZipFile,
    table: Table,
    club: Club,
    usernames: _Usernames,
    user_model: type[models.Model],
    progress: Callable[[int], None] | None,
) -> tuple[int, str]:
    fields = table.fields
    names = [f.name for f in fields]
    user_columns = [
        i for i, f in enumerate(fields) if f.is_relation and f.related_model is user_model
    ]
    # A run's job (and whatever else the archive leaves out) is not the club's history:
    # its id would name nothing on the target, so it is written empty.
    left_out = [i for i, f in enumerate(fields) if (target := _related(f)) and target in LEFT_OUT]
    query = (
        table.model._base_manager.filter(**{table.club_path: club.pk})
        .order_by("pk")
        .values_list(*[f.attname for f in fields])
    )
    digest = hashlib.sha256()
    rows = 0
    with zf.open(table.file, "w", force_zip64=True) as member:
        for chunk in _chunks(query.iterator(chunk_size=CHUNK), CHUNK):
            if user_columns:
                usernames.load(row[i] for row in chunk for i in user_columns)
            lines = []
            for row in chunk:
                values = list(row)
                for i in user_columns:
                    if values[i] is not None:
                        values[i] = usernames.known.get(values[i])
                for i in left_out:
                    values[i] = None
                lines.append(json.dumps(dict(zip(names, values, strict=True)), default=_encode))
            data = ("\n".join(lines) + "\n").encode("utf-8")
            member.write(data)
            digest.update(data)
            rows += len(chunk)
            if progress is not None:
                progress(len(chunk))
    return rows, digest.hexdigest()


def _chunks(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    chunk: list[Any] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
