"""A job's files: an upload copied into the Job row a slice at a time (SQLite's blob
handle, PostgreSQL's large object) and read back in slices by the job."""

from __future__ import annotations

import logging
import os
import tempfile
from typing import IO, Any

from django.db import connections, transaction
from django.db.models import (
    BinaryField,
    F,
    Func,
    IntegerField,
    QuerySet,
    Value,
)
from django.db.models.functions import Length, Substr

from players.models import Job

logger = logging.getLogger(__name__)

#: The error of a job whose worker stopped before it finished, and of one that raised
#: something other than a domain error (a bug: the log has the traceback).
WORKER_LOST = "worker_lost"
UNEXPECTED = "job_failed"


PAYLOAD_CHUNK_BYTES = 4 << 20


def _payload_store(job: Job, file: IO[bytes]) -> None:
    """Copy ``file`` (seekable) into the job's row a slice at a time, inside the caller's
    transaction. The value is one column, and neither database appends to one without
    rewriting it (``payload || slice`` would write an 800 MB list a hundred times over):
    SQLite reserves the size (``zeroblob``) and writes into it through its blob handle;
    PostgreSQL builds a large object slice by slice and copies it into the column once.
    Another database gets the file read whole."""
    file.seek(0, os.SEEK_END)
    size = file.tell()
    file.seek(0)
    mine = Job.objects.filter(pk=job.pk)
    connection = connections[mine.db]
    if connection.vendor == "sqlite":
        mine.update(payload=Func(Value(size), function="zeroblob", output_field=BinaryField()))
        with _sqlite_blob(job, alias=mine.db, readonly=False) as blob:
            while chunk := file.read(PAYLOAD_CHUNK_BYTES):
                blob.write(chunk)
    elif connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT lo_from_bytea(0, %s)", [file.read(PAYLOAD_CHUNK_BYTES)])
            (oid,) = cursor.fetchone()
            while chunk := file.read(PAYLOAD_CHUNK_BYTES):
                cursor.execute(
                    "SELECT lo_put(%s::oid, %s, %s)", [oid, file.tell() - len(chunk), chunk]
                )
            lo_get = Func(
                Value(oid),
                function="lo_get",
                template="%(function)s(%(expressions)s::oid)",
                output_field=BinaryField(),
            )
            mine.update(payload=lo_get)
            cursor.execute("SELECT lo_unlink(%s::oid)", [oid])
    else:
        mine.update(payload=file.read())


# -- running (in a worker) --------------------------------------------------------------------


def job_payload(job: Job) -> IO[bytes]:
    """The job's input file as a seekable binary file, fetched a slice at a time.

    The file is in the Job row (a worker may run on another machine); fetching the column
    whole, and then copying it into bytes, held a 50 MB upload two or three times over. The
    slices go into a temporary file (in memory while small), which the caller closes.
    """
    copy = tempfile.SpooledTemporaryFile(max_size=PAYLOAD_CHUNK_BYTES)  # noqa: SIM115 - returned open
    mine = Job.objects.filter(pk=job.pk)
    vendor = connections[mine.db].vendor
    if vendor == "postgresql":
        _payload_fetch_postgresql(mine, copy)
    elif vendor == "sqlite":
        # substr() of a blob loads the whole value first, once per slice: the blob handle
        # reads only the slice.
        if mine.filter(payload__isnull=False).exists():
            with _sqlite_blob(job, alias=mine.db, readonly=True) as blob:
                while chunk := blob.read(PAYLOAD_CHUNK_BYTES):
                    copy.write(chunk)
    else:
        size = mine.annotate(size=Length("payload")).values_list("size", flat=True).get() or 0
        for start in range(1, size + 1, PAYLOAD_CHUNK_BYTES):
            chunk = (
                mine.annotate(
                    chunk=Substr("payload", start, PAYLOAD_CHUNK_BYTES, output_field=BinaryField())
                )
                .values_list("chunk", flat=True)
                .get()
            )
            copy.write(chunk)
    copy.seek(0)
    return copy


def _sqlite_blob(job: Job, *, alias: str, readonly: bool) -> Any:
    """SQLite's handle on the job's payload (``sqlite3.Connection.blobopen``), which reads
    and writes a slice without loading the value."""
    connection = connections[alias]
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT rowid FROM {connection.ops.quote_name(Job._meta.db_table)} WHERE id = %s",  # noqa: S608 - the table's own name
            [Job._meta.pk.get_db_prep_value(job.pk, connection)],
        )
        (rowid,) = cursor.fetchone()
    return connection.connection.blobopen(Job._meta.db_table, "payload", rowid, readonly=readonly)


def _payload_fetch_postgresql(mine: QuerySet[Job], copy: IO[bytes]) -> None:
    """PostgreSQL compresses a large value, and each ``substr`` of it decompresses from the
    start: slices of an 800 MB list cost the square of its size. The value is copied once
    into a large object, read from there slice by slice, and dropped; one transaction, so a
    worker that dies meanwhile leaves no large object behind."""
    lo_from = Func(
        F("payload"),
        function="lo_from_bytea",
        template="%(function)s(0, %(expressions)s)",
        output_field=IntegerField(),
    )
    with transaction.atomic(using=mine.db), connections[mine.db].cursor() as cursor:
        oid, size = (
            mine.annotate(oid=lo_from, size=Length("payload")).values_list("oid", "size").get()
        )
        if oid is None:  # no payload
            return
        for offset in range(0, size, PAYLOAD_CHUNK_BYTES):
            cursor.execute("SELECT lo_get(%s::oid, %s, %s)", [oid, offset, PAYLOAD_CHUNK_BYTES])
            copy.write(cursor.fetchone()[0])
        cursor.execute("SELECT lo_unlink(%s::oid)", [oid])
