"""A club's whole history as one file, and that file restored into any instance.

The archive is a zip: ``manifest.json`` (format and version, the club, the source's
database and applied migrations, and per table its file, row count, columns and SHA-256)
and one JSON-lines file per table, a row a line, keyed by field name.

What goes in is found, not listed: every model of the installed apps whose rows reach
the club through foreign keys (players, lists, periods, rating changes, K history, runs,
tournaments, games, byes, merges, memberships, invitations, and the audit trail's
historical tables), every concrete field of each. A column another change adds is carried
without a change here. Foreign keys are written as the exported rows' own ids; users
(members, who closed a period, the audit's actor) by username, as ids mean nothing on
another instance. Left out: jobs (the queue's records and the files uploaded to them) and
API tokens (secrets of the users, who are not part of the club).

The import reads the file twice: first every member's checksum and row count against the
manifest (nothing is written from a file that does not match), then the rows, table by
table in the order of their foreign keys, in one transaction. Every id is new: ids are
taken from the target's sequences a chunk at a time, and each reference (foreign keys,
the audit rows' object ids, the merges' duplicate ids) is mapped through the same
table, so a deleted player's audit rows and merge record still name one id. Rows go in
through ``players.bulk.insert_rows`` (COPY on PostgreSQL) without their ``auto_now``
times being reset and without signals, so no audit row is added for what is restored.

Users are matched by username; a membership or invitation whose user does not exist on
the target is skipped and reported (accounts are not created for people who did not sign
up here: an owner invites them again); any other reference to a missing user (who closed
a period, an audit row's actor, a player's linked account) becomes empty, and is reported.
"""

from __future__ import annotations

from tournaments.services.club_archive.export import ExportReport, club_export
from tournaments.services.club_archive.restore import ImportReport, club_import
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
