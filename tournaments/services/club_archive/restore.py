"""An archive restored as a new club of any instance (``club_import``).

The file is checked whole first (its manifest, digests and schema), then its tables are
written in one transaction, in this instance's order of foreign keys, each through
``restorer.Restorer``: every value of every row is taken through one check per column, a
reference mapped to a row of the archive written before it or resolved by name, anything
else refused with the table, the line and the field. Nothing a row names can be another
club's: the only club a row may name is the archive's own, and the only ids it may name
are the archive's, mapped to new ones."""

from __future__ import annotations

import time
import zipfile
from collections.abc import Callable
from typing import IO, Any

from django.db import DatabaseError, transaction

from players.errors import invalid_field
from players.models import Club
from players.services import club_published_changed
from tournaments.services.club_archive.reading import (
    Manifest,
    check_schema,
    new_names,
    read_manifest,
    verify,
    zip_errors_refused,
)
from tournaments.services.club_archive.restorer import ImportReport, Restorer
from tournaments.services.club_archive.tables import (
    ArchiveError,
    Table,
    club_tables,
)
from tournaments.services.club_archive.values import shown
from tournaments.services.club_archive.writing import first_line


def club_import(
    *,
    file: IO[bytes],
    slug: str | None = None,
    name: str | None = None,
    owner: Any = None,
    progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Restore the archive in ``file`` as a new club (under ``slug``/``name`` when given),
    owned by ``owner`` (a user, or None for a club without members until its invitations
    are accepted): the archive's memberships become invitations, no role is restored.

    Raises ArchiveError (nothing written) for a file that is not an intact archive of this
    format version, whose schema this instance does not have, or one of whose rows names
    something that is not the archive's; ValidationFailed for a slug or name already
    taken here."""
    started = time.monotonic()
    with zip_errors_refused():
        try:
            zf = zipfile.ZipFile(file)
        except zipfile.BadZipFile:
            raise ArchiveError("Not a zip file.") from None
        with zf:
            manifest = read_manifest(zf)
            verify(zf, manifest)
            tables = {t.label: t for t in club_tables()}
            check_schema(manifest, tables)
            new_slug, new_name = new_names(manifest, slug, name)
            report = ImportReport(club=new_slug, tables={})
            try:
                _write(zf, manifest, tables, new_slug, new_name, owner, report, progress)
            except DatabaseError as error:
                # What the checks above cannot see (a unique pair of columns, a check
                # constraint): the whole transaction is gone, nothing is written.
                raise ArchiveError(
                    f"The rows break a rule of this database: {first_line(error)}"
                ) from None
    report.seconds = time.monotonic() - started
    return report


def _write(
    zf: zipfile.ZipFile,
    manifest: Manifest,
    tables: dict[str, Table],
    new_slug: str,
    new_name: str,
    owner: Any,
    report: ImportReport,
    progress: Callable[[int], None] | None,
) -> None:
    with transaction.atomic(durable=True):
        # Checked inside the transaction: the club's row (unique slug) is written in it.
        if Club.objects.filter(slug__iexact=new_slug).exists():
            raise invalid_field("slug", f"The slug {new_slug!r} is taken; give --slug.")
        if Club.objects.filter(name__iexact=new_name).exists():
            raise invalid_field(
                "name", f"A club named {shown(new_name)} exists already; give --name."
            )
        restorer = Restorer(manifest=manifest, slug=new_slug, name=new_name, report=report)
        # The file's order is the source's; the target's own order of foreign keys
        # decides here (the same tables, perhaps found in another order).
        for label, table in tables.items():
            entry = manifest.tables.get(label)
            if entry is not None:
                report.tables[label] = restorer.table(zf, table, entry, progress)
        restorer.members(owner)
        club_published_changed(club_id=restorer.club_id()[1])
