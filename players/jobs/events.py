"""Waking whoever waits for the queue: PostgreSQL's LISTEN/NOTIFY, a short poll elsewhere.

Two channels: ``jobs_queued`` (a job was queued; its payload is the job's id) wakes the
workers, ``jobs_finished`` (a job succeeded or failed; the job's id) wakes the API calls
that wait for that job (``?wait=``). A NOTIFY is sent in the transaction that queues or
finishes the job, so PostgreSQL delivers it at that commit, never before the row is
visible, and never for a job whose transaction rolled back.

A listener is a dedicated psycopg connection in autocommit (the connection Django's ORM
uses may be inside a transaction, where notifications would wait for its end). Anything
else (SQLite, a listener that cannot connect) answers ``None``: the caller polls every
``POLL_SECONDS``, which is what keeps a pickup or an answer within 100 ms there too.
Notifications are a wake-up call, not the record: the caller reads the Job row each time.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import psycopg
from django.db import DEFAULT_DB_ALIAS, connections
from psycopg import sql

logger = logging.getLogger(__name__)

QUEUED = "jobs_queued"
FINISHED = "jobs_finished"
#: The poll where nothing notifies: a worker's look at the queue, a waiting call's read of
#: its job (a small indexed read each time).
POLL_SECONDS = 0.05


def notifies(using: str = DEFAULT_DB_ALIAS) -> bool:
    """Whether the database delivers notifications (PostgreSQL)."""
    return connections[using].vendor == "postgresql"


def job_event(channel: str, job_id: str, *, using: str = DEFAULT_DB_ALIAS) -> None:
    """NOTIFY ``channel`` with the job's id, in the caller's transaction (delivered at its
    commit; at once in autocommit). Nothing on a database without notifications."""
    if not notifies(using):
        return
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT pg_notify(%s, %s)", [channel, job_id])


class Listener:
    """A dedicated connection that LISTENs on one channel."""

    def __init__(self, connection: psycopg.Connection[Any], channel: str) -> None:
        self._connection = connection
        self.channel = channel
        self._broken = False

    @property
    def broken(self) -> bool:
        return self._broken

    def wait(self, timeout: float, *, payload: str | None = None) -> bool:
        """Block up to ``timeout`` seconds for a notification (for ``payload`` only, when
        given); whether one came. Notifications already delivered return at once."""
        if self._broken:
            time.sleep(min(POLL_SECONDS, max(timeout, 0.0)))
            return False
        deadline = time.monotonic() + timeout
        try:
            while (remaining := deadline - time.monotonic()) > 0:
                for note in self._connection.notifies(timeout=remaining, stop_after=1):
                    if payload is None or note.payload == payload:
                        return True
        except psycopg.Error:
            # The server restarted or the connection dropped: poll from now on.
            logger.warning("LISTEN %s lost its connection; polling instead", self.channel)
            self._broken = True
        return False

    def close(self) -> None:
        with suppress(psycopg.Error):
            self._connection.close()


def open_listener(channel: str, *, using: str = DEFAULT_DB_ALIAS) -> Listener | None:
    """A Listener on ``channel``, or None where the database has no notifications or the
    connection fails (the caller then polls; a worker logs why)."""
    if not notifies(using):
        return None
    try:
        # Django's own parameters (host, database, user, options), not its wrapper: a
        # pool (OPTIONS "pool") would lend this long-lived connection from its own.
        raw = psycopg.connect(**connections[using].get_connection_params(), autocommit=True)
        raw.execute(sql.SQL("LISTEN {}").format(sql.Identifier(channel)))
    except Exception:
        logger.warning("Cannot LISTEN on %s; polling instead", channel, exc_info=True)
        return None
    return Listener(raw, channel)


@contextmanager
def listening(channel: str, *, using: str = DEFAULT_DB_ALIAS) -> Iterator[Listener | None]:
    listener = open_listener(channel, using=using)
    try:
        yield listener
    finally:
        if listener is not None:
            listener.close()
