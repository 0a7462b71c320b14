"""A COPY that runs behind its caller: one chunk written in a thread while the caller
prepares the next (``CopyBehind``).

A chunk's COPY ends by waiting for the server to insert what it was sent (its indexes,
its triggers): in a club restore, 16 of 60 seconds were that wait, with the process idle.
Handing the chunk to a thread lets the server insert while the process decodes and checks
the next chunk. The thread writes on the transaction's own psycopg connection, so its rows
are in the caller's transaction; the caller must not use the connection until ``wait``
returns (``CopyBehind`` is one writer at a time: ``write`` waits for the last chunk
first), and whatever the thread raised is raised again in the caller's thread as Django's
error (``DataError``, ``IntegrityError``), as a COPY of its own would have.

On SQLite (no COPY, one connection per thread) each chunk is written at once."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from django.db import connection, models

from players.bulk.copying import columns_text, copy_text
from players.bulk.fields import Columns, columns_of
from players.bulk.inserts import insert_rows
from players.bulk.pauses import pause_between_chunks


class CopyBehind:
    def __init__(self, model: type[models.Model], fields: Sequence[str]) -> None:
        self.model = model
        self.fields = list(fields)
        self._pool: ThreadPoolExecutor | None = None
        self._pending: Future[int] | None = None
        self._raw: Any = None
        self._cols: Columns | None = None
        if connection.vendor == "postgresql":
            connection.ensure_connection()
            self._raw = connection.connection
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="copy-behind")

    def write(self, rows: Sequence[Sequence[Any]]) -> None:
        """``rows`` written: behind the caller on PostgreSQL, at once elsewhere."""
        self.wait()
        pause_between_chunks()  # in the caller's thread, where its pause was set
        if self._pool is None:
            insert_rows(self.model, self.fields, rows)
            return
        self._pending = self._pool.submit(insert_rows, self.model, self.fields, rows, raw=self._raw)

    def write_columns(self, columns: Sequence[list[Any]]) -> None:
        """Rows kept as columns (values in the order of the fields) written: on PostgreSQL
        made COPY's text here (:func:`players.bulk.copying.columns_text`, a column at a
        time) and sent behind the caller by a thread that needs no Python step per row."""
        self.wait()
        pause_between_chunks()
        if self._pool is None:
            insert_rows(self.model, self.fields, list(zip(*columns, strict=True)))
            return
        if self._cols is None:
            self._cols = columns_of(self.model, self.fields)
        text = columns_text(self._cols, columns)
        self._pending = self._pool.submit(
            copy_text, self.model, self._cols.columns, [text], raw=self._raw
        )

    def wait(self) -> None:
        """The last chunk written (its error raised here); the connection is the caller's."""
        pending, self._pending = self._pending, None
        if pending is None:
            return
        error = pending.exception()
        if error is None:
            return
        with connection.wrap_database_errors:
            raise error

    def close(self) -> None:
        """The thread ended, after its chunk (whose error, if the caller is already
        leaving with one, is not raised over it)."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.exception()
        if self._pool is not None:
            self._pool.shutdown()


@contextmanager
def copy_behind(model: type[models.Model], fields: Sequence[str]) -> Iterator[CopyBehind]:
    """A :class:`CopyBehind` whose last chunk is written when the block ends (and whose
    thread has stopped, whatever the block raised)."""
    writer = CopyBehind(model, fields)
    try:
        yield writer
        writer.wait()
    finally:
        writer.close()
