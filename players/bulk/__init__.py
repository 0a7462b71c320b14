"""Bulk rows without model instances (COPY or multi-row INSERTs), for large bulk writes.

``Model.objects.bulk_create`` builds a model instance and prepares every field of every row
through the ORM: about 50 microseconds a row, so 100,000 imported games took half a minute.
The services validate their rows first (the same checks as always) and then hand plain
tuples to :func:`insert_rows`, which adapts only the values that need it (dates, datetimes,
JSON) and sends a few thousand rows per statement (SQLite) or streams them with COPY
(PostgreSQL, as the period close does). Fields the caller does not name get
their model default (``auto_now``/``auto_now_add`` fields the current time), so a field the
tracker adds later with a default needs no change here. Rows kept as columns (an import's
games) go through :func:`insert_columns`, which writes their audit rows in the same pass.

Between its chunks a COPY (PostgreSQL) calls the pause its caller set (:func:`between_chunks`):
a job of a lane that gives way waits there while more urgent jobs run
(players/jobs/lanes.py, docs/reference/queue.md).

The parts, each by what it decides: ``inserts`` (which way rows go in, per database),
``fields`` (what a row gets in each column, named or not), ``copying`` (COPY of rows and
of text, ids from a sequence), ``binary`` (COPY's binary format for rows kept as
columns), ``audit`` (the audit rows of rows written in bulk), ``updates`` (many rows
updated by key), ``pauses`` (between COPY chunks; the garbage collector). Callers import
from ``players.bulk``.
"""

from __future__ import annotations

from players.bulk.audit import history_rows_copy, history_rows_copy_ids
from players.bulk.behind import CopyBehind, copy_behind
from players.bulk.copying import copy_text, copy_value, ids_taken
from players.bulk.inserts import (
    insert_columns,
    insert_rows,
    insert_rows_returning_ids,
    insert_rows_sharing,
)
from players.bulk.pauses import between_chunks, gc_paused
from players.bulk.updates import update_rows

__all__ = [
    "CopyBehind",
    "between_chunks",
    "copy_behind",
    "copy_text",
    "copy_value",
    "gc_paused",
    "history_rows_copy",
    "history_rows_copy_ids",
    "ids_taken",
    "insert_columns",
    "insert_rows",
    "insert_rows_returning_ids",
    "insert_rows_sharing",
    "update_rows",
]
