"""The tournaments app's job kinds: the period close, reopen, replay, the file imports, FIDE's
rating list and the export of a whole list's history. Each is registered with ``job_kind`` and runs the
same service (with the same checks) as before; its result is the body the API answered
synchronously, built below the HTTP layer (tournaments/services/results.py).

Adding a kind is a function here (or in any module an app's ``ready()`` imports) with the
``job_kind`` decorator, and a view or command that calls ``job_start`` (docs/developers/howto-job-kind.md).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import tempfile
from collections.abc import Iterator
from typing import Any

from django.utils import timezone

from players.errors import ConflictError, DomainError
from players.jobs import JobOutcome, JobProgress, job_kind, job_payload
from players.jobs.lanes import FILES, RATING, REPLAYS
from players.models import (
    Job,
    RatingPeriod,
    RatingRun,
    Role,
)
from players.selectors import (
    current_rows,
    list_ratings,
    parse_month,
    period_by_id,
    periods_by_ids,
    rating_list_by_id,
)
from tournaments.exports import list_history_csv
from tournaments.interchange import count_lines
from tournaments.selectors import period_changes
from tournaments.services import list_replay, period_close, period_reopen
from tournaments.services.club_archive import FORMAT_VERSION, club_export
from tournaments.services.fide_list import FideListReport, fide_list_import
from tournaments.services.imports import import_file, report_summary
from tournaments.services.results import (
    changes_body,
    close_result,
    import_outcome,
    reopen_body,
    replay_body,
)

CLOSE = "close"
REOPEN = "reopen"
REPLAY = "replay"
IMPORT = "import"
HISTORY_EXPORT = "history_export"
FIDE_LIST = "fide_list"
PERIODS = "periods"
CLUB_EXPORT = "club_export"


def _close_summary(body: dict[str, Any]) -> list[tuple[bool, str]]:
    return [
        (
            True,
            f"{body['period']}: closed. {body['games_count']} games; "
            f"{body['players']} players on the published list.",
        )
    ]


def _reopen_summary(body: dict[str, Any]) -> list[tuple[bool, str]]:
    later = ", ".join(body["needs_replay"])
    return [(True, f"{body['period']}: reopened. Needs a replay: {later}.")]


def _replay_summary(body: dict[str, Any]) -> list[tuple[bool, str]]:
    periods = ", ".join(body["periods"])
    return [(True, f"{periods}: replayed. {body['players_changed']} player(s) changed.")]


def _import_summary(body: dict[str, Any]) -> list[tuple[bool, str]]:
    return [(not body["already_imported"], report_summary(body))]


def _fide_list_summary(body: dict[str, Any]) -> list[tuple[bool, str]]:
    return [(True, FideListReport(**body).summary())]


def _export_summary(body: dict[str, Any]) -> list[tuple[bool, str]]:
    return [(True, f"{body['file']}: {body['rows']} rows.")]


def _periods_summary(body: dict[str, Any]) -> list[tuple[bool, str]]:
    return [(entry["ok"], f"{entry['period']}: {entry['text']}") for entry in body["periods"]]


def _players_on(rating_list_id: int) -> int:
    return list_ratings(rating_list=rating_list_id).count()


def _close_outcome(job: Job, run: RatingRun) -> JobOutcome:
    """The counts, the run and where to read the rows (close_result); never the rows."""
    period = period_by_id(period_id=job.params["period"]).select_related("rating_list__club").get()
    return JobOutcome(close_result(period, run))


def _close_answer(job: Job) -> dict[str, Any]:
    """The close's synchronous answer (``?wait=``, documented as CloseOutSerializer):
    every player's line, read from what the close published, in the caller's process."""
    period = period_by_id(period_id=job.params["period"]).get()
    games_count = int((job.result or {}).get("games_count", 0))
    return changes_body(period, period_changes(period), games_count)


def _close_recover(job: Job, runs: list[RatingRun]) -> JobOutcome:
    return _close_outcome(job, runs[-1])


@job_kind(
    CLOSE,
    label="Close a period",
    role=Role.OFFICER,
    lane=RATING,
    summary=_close_summary,
    recover=_close_recover,
    answer=_close_answer,
)
def close_job(job: Job, progress: JobProgress) -> JobOutcome:
    period = period_by_id(period_id=job.params["period"]).get()
    progress.total = _players_on(period.rating_list_id)
    try:
        run = period_close(
            period=period,
            by=job.created_by,  # type: ignore[arg-type]
            early=bool(job.params.get("early")),
            progress=progress.advance,
        )
    except ConflictError as conflict:
        raise with_period_status(conflict, period) from None
    return _close_outcome(job, run)


def _reopen_recover(job: Job, runs: list[RatingRun]) -> JobOutcome:
    period = period_by_id(period_id=job.params["period"]).get()
    return JobOutcome(reopen_body(period, runs[-1].periods))


@job_kind(
    REOPEN,
    label="Reopen a period",
    role=Role.OFFICER,
    lane=RATING,
    summary=_reopen_summary,
    recover=_reopen_recover,
)
def reopen_job(job: Job, progress: JobProgress) -> JobOutcome:
    period = period_by_id(period_id=job.params["period"]).get()
    try:
        run = period_reopen(period=period, by=job.created_by)  # type: ignore[arg-type]
    except ConflictError as conflict:
        raise with_period_status(conflict, period) from None
    return JobOutcome(reopen_body(period, run.periods))


def _replay_recover(job: Job, runs: list[RatingRun]) -> JobOutcome:
    return JobOutcome(replay_body(runs[-1]))


@job_kind(
    REPLAY,
    label="Replay a list",
    role=Role.OFFICER,
    lane=REPLAYS,
    summary=_replay_summary,
    recover=_replay_recover,
)
def replay_job(job: Job, progress: JobProgress) -> JobOutcome:
    rating_list = rating_list_by_id(list_id=job.params["list"]).get()
    run = list_replay(rating_list=rating_list, by=job.created_by, progress=progress.advance)  # type: ignore[arg-type]
    return JobOutcome(replay_body(run))


@contextlib.contextmanager
def _memory_returned() -> Iterator[None]:
    """What a file's job held goes back to the system when it ends, failed or not: freed
    objects leave the C allocator's heap at its peak (a worker kept 1.28 GB after a
    refused upload), and the next job of this worker may be small."""
    try:
        yield
    finally:
        gc.collect()
        # glibc: hand the heap's free pages back; elsewhere the allocator keeps what it keeps.
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).malloc_trim(0)


@job_kind(
    IMPORT,
    label="Import a tournament file",
    role=Role.ARBITER,
    lane=FILES,
    summary=_import_summary,
    template="admin/tournaments/tournament/import_report.html",
    error_fields=("file",),
)
def import_job(job: Job, progress: JobProgress) -> JobOutcome:
    """The file is read from the Job row a slice at a time, and parsed as a stream."""
    with _memory_returned(), job_payload(job) as data:
        progress.total = count_lines(data)
        report = import_file(
            format=job.params["format"],
            club=job.club,
            rating_list=job.params["list"],
            data=data,
            by=job.created_by,  # type: ignore[arg-type]
            dry_run=bool(job.params.get("dry_run")),
            match=job.params.get("match", "possible"),
            keep_identical=bool(job.params.get("keep_identical")),
            progress=progress.reach,  # the parsers report the line they reached
        )
    status, body = import_outcome(report)
    return JobOutcome(body, status=status)


@job_kind(
    FIDE_LIST,
    label="Read FIDE's rating list",
    role=Role.OFFICER,
    lane=FILES,
    summary=_fide_list_summary,
    template="admin/players/player/fide_list_report.html",
    error_fields=("file", "add_federation", "month"),
)
def fide_list_job(job: Job, progress: JobProgress) -> JobOutcome:
    """The file is read from the Job row a slice at a time (a worker may run elsewhere)
    into a seekable temporary file, which the reader streams. Progress: players read."""
    month = job.params.get("month")
    with _memory_returned(), job_payload(job) as stream:
        report = fide_list_import(
            club=job.club,
            stream=stream,
            by=job.created_by,  # type: ignore[arg-type]
            month=parse_month(month, field="month") if month else None,
            add_federation=job.params.get("add_federation", ""),
            seed_ratings=bool(job.params.get("seed_ratings")),
            dry_run=bool(job.params.get("dry_run")),
            progress=progress.reach,
        )
    return JobOutcome(report.as_dict())


@job_kind(
    HISTORY_EXPORT,
    label="Export a list's history",
    role=Role.VIEWER,
    lane=FILES,
    summary=_export_summary,
)
def history_export_job(job: Job, progress: JobProgress) -> JobOutcome:
    rating_list = rating_list_by_id(list_id=job.params["list"]).select_related("club").get()
    progress.total = current_rows(rating_list=rating_list).count()
    text = list_history_csv(rating_list=rating_list, progress=progress.advance)
    progress.done = progress.total
    name = f"{rating_list.club.slug}-{rating_list.kind}-history.csv"
    body = {
        "club": rating_list.club.slug,
        "list": rating_list.kind,
        "rows": progress.total,
        "file": name,
        "download": f"/api/v1/jobs/{job.pk}/download/",
    }
    return JobOutcome(body, output=text.encode("utf-8"), output_name=name)


@job_kind(
    CLUB_EXPORT,
    label="Export the club's whole history",
    role=Role.OWNER,
    lane=FILES,
    summary=_export_summary,
)
def club_export_job(job: Job, progress: JobProgress) -> JobOutcome:
    """The archive is built in a temporary file (spilled to disk when large), then kept
    in the job's row for its download."""
    progress.total = None
    with tempfile.TemporaryFile() as out:
        report = club_export(club=job.club, out=out, progress=progress.advance)
        out.seek(0)
        data = out.read()
    name = f"{job.club.slug}-{timezone.now():%Y-%m-%d}.club.zip"
    body = {
        "club": job.club.slug,
        "format_version": FORMAT_VERSION,
        "rows": report.rows,
        "tables": report.tables,
        "file": name,
        "bytes": len(data),
        "download": f"/api/v1/jobs/{job.pk}/download/",
    }
    return JobOutcome(body, output=data, output_name=name)


@job_kind(
    PERIODS,
    label="Close or reopen periods",
    role=Role.OFFICER,
    lane=RATING,
    summary=_periods_summary,
)
def periods_job(job: Job, progress: JobProgress) -> JobOutcome:
    """The admin's action on several periods: each in list and month order (a close needs
    the earlier months closed); a refusal is that period's line and the others go on."""
    periods = list(periods_by_ids(ids=job.params["periods"]).order_by("rating_list", "month"))
    progress.total = len(periods)
    closing = job.params["action"] == "close"
    done = "closed" if closing else "reopened"
    entries = []
    for period in periods:
        try:
            if closing:
                period_close(
                    period=period,
                    by=job.created_by,  # type: ignore[arg-type]
                    early=bool(job.params.get("early")),
                )
            else:
                period_reopen(period=period, by=job.created_by)  # type: ignore[arg-type]
        except DomainError as error:
            entries.append({"period": period.label, "ok": False, "text": error.message})
        else:
            entries.append({"period": period.label, "ok": True, "text": f"{done}."})
        progress.advance()
    return JobOutcome({"action": job.params["action"], "periods": entries})


def with_period_status(conflict: ConflictError, period: RatingPeriod) -> ConflictError:
    """The 409 names the period's status so a script can tell "already closed" from
    "close the earlier month first"."""
    current = period_by_id(period_id=period.pk).values_list("status", flat=True).get()
    fields: dict[str, list[str]] = dict(conflict.fields)
    fields["status"] = [current]
    # The same class: its code (month_not_over, conflict) is what a script reads.
    return type(conflict)(conflict.message, fields=fields)
