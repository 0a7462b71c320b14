"""A club's whole history as one file, and that file restored into any instance.

The archive is a zip: ``manifest.json`` (format and version, the club, the source's
database and applied migrations, and per table its file, row count, columns and SHA-256)
and one JSON-lines file per table, a row a line, keyed by field name. What a version
promises a reader (tables, columns, how references are written, what is left out) is in
docs/reference/backup.md; version 2 writes a run's job empty, version 1 wrote its id.

What goes in is found, not listed (``tables``): every model of the installed apps whose
rows reach the club through foreign keys (players, lists, periods, rating changes, K
history, runs, tournaments, games, byes, merges, memberships, invitations, and the audit
trail's historical tables), every concrete field of each. A column another change adds is
carried without a change here. Foreign keys are written as the exported rows' own ids;
users by username, as ids mean nothing on another instance. Left out: jobs (the queue's
records and the files uploaded to them), webhooks and their deliveries, API tokens; a
reference to one of them is written empty.

The import trusts nothing the file says (its checksums are its own: an edited file still
verifies). ``reading`` reads it within bounds: the manifest field by field, each member's
checksum and row count with no line longer than ``MAX_LINE_BYTES``, then the rows a
bounded chunk at a time. ``restore`` writes the tables in the order of their foreign keys,
in one transaction, every value through its column's check (``values``: type, length,
range, choices, so a list's kind and system are registered names): a reference names a
row of the archive written before it (mapped to a new id, ``ids``), the archive's own club,
or a user by username; an audit row may name an object deleted since, which gets a new id
that names no row. Anything else is refused with the table, the line and the field, and
nothing is written: no row can land in, or name, another club.

No role is restored (``members``). The operator names the owner (``owner``); the
archive's other memberships become invitations of those accounts to their roles, accepted
on their home pages (a membership of a username unknown here is skipped and reported). The archive's
invitations keep their rows with new secrets. Any other reference to a missing user (who
closed a period, an audit row's actor, a player's linked account) becomes empty, and is
reported. Rows go in through ``players.bulk`` (COPY on PostgreSQL) without their
``auto_now`` times being reset and without signals, so no audit row is added for what is
restored.

Speed, without a second set of rules: a chunk is first checked a column at a time
(``at_once``: the set of a column's types, its text joined once, its ids against the set
of ids written), and only where that is unsure taken a row at a time, which names the bad
line; the lines are decoded by orjson where it reads what Python's decoder reads
(``fast.lines_decode``), and each chunk's COPY runs in a thread behind the restore
(``players.bulk.copy_behind``) while the next chunk is checked.
"""

from __future__ import annotations

from tournaments.services.club_archive.export import ExportReport, club_export
from tournaments.services.club_archive.restore import club_import
from tournaments.services.club_archive.restorer import ImportReport
from tournaments.services.club_archive.tables import (
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    ArchiveError,
    Table,
    club_tables,
)

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "MANIFEST",
    "ArchiveError",
    "ExportReport",
    "ImportReport",
    "Table",
    "club_export",
    "club_import",
    "club_tables",
]
