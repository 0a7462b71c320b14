"""The answers of the period and import jobs: plain JSON values built below the HTTP layer.

A job's result is stored on its Job row and read back by the API (``?wait=``, the job's
page), the admin and scripts; the worker that builds it must not import the API to do so
(an import-linter contract in pyproject.toml holds this). The API's out-serializers
(``tournaments/api/periods.py``) describe these same shapes in the schema, and the API
answers a preview with ``changes_body`` too; tests/tournaments/test_job_results.py holds the
bodies equal to what those serializers give.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from players.errors import ConflictError, ValidationFailed
from players.models import RatingPeriod, RatingRun
from tournaments.services.imports import ImportReport


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def _whole(value: Any) -> int | None:
    return None if value is None else int(value)


def change_row(change: Any) -> dict[str, Any]:
    """One player's line of a close or a preview: a stored RatingChange or a plan's
    PlannedChange (both carry these attributes)."""
    return {
        "player": change.player_id,
        "rating_before": _whole(change.rating_before),
        "rating_after": _whole(change.rating_after),
        "change": _whole(change.change),
        "adjustment": int(change.adjustment),
        "change_unrounded": _number(change.change_unrounded),
        "k_factor": _whole(change.k_factor),
        "k_reason": str(change.k_reason),
        "games": int(change.games),
        "score": float(change.score),
        "expected_score": float(change.expected),
        "event": str(change.event),
    }


def changes_body(period: RatingPeriod, changes: Iterable[Any], games_count: int) -> dict[str, Any]:
    """A close's answer (and a preview's): the period, its status and every player's line."""
    return {
        "period": period.label,
        "status": str(period.status),
        "games_count": games_count,
        "changes": [change_row(change) for change in changes],
    }


def changes_path(period: RatingPeriod) -> str:
    """The paged list of what the period's close published (the API's period changes
    endpoint), built without the URLconf: a worker never loads the HTTP layer."""
    rating_list = period.rating_list
    return (
        f"/api/v1/clubs/{rating_list.club.slug}/lists/{rating_list.kind}/periods/"
        f"{period.label}/changes/"
    )


def close_result(period: RatingPeriod, run: RatingRun) -> dict[str, Any]:
    """A close job's stored result: what the caller needs to go on, not the 200,000 rows
    (those are read a page at a time from ``changes``; the synchronous answer of
    ``?wait=`` reads them from the database, ``changes_body``)."""
    summary = run.summary or {}
    rating_list = period.rating_list
    return {
        "period": period.label,
        "status": str(period.status),
        "games_count": int(summary.get("games", 0)),
        "players": int(summary.get("players", 0)),
        "players_changed": int(run.players_changed),
        "run": run.pk,
        "changes": changes_path(period),
        "ratings": (
            f"/api/v1/clubs/{rating_list.club.slug}/lists/{rating_list.kind}/ratings/"
            f"?period={period.label}"
        ),
    }


def reopen_body(period: RatingPeriod, needs_replay: list[str]) -> dict[str, Any]:
    return {
        "period": period.label,
        "status": str(period.status),
        "needs_replay": [str(label) for label in needs_replay],
    }


def replay_body(run: RatingRun) -> dict[str, Any]:
    return {
        "periods": [str(label) for label in run.periods],
        "players_changed": int(run.players_changed),
        "report": str(run.report),
    }


def import_outcome(report: ImportReport) -> tuple[int, dict[str, Any]]:
    """The import's answer: (201 stored / 200 dry run or imported already, the report), or
    the file's errors raised as the domain error the API answers (400, or 409 for games of
    a closed period), each error in ``fields.file`` as "line N: message"."""
    if report.errors:
        code = report.error_code or "invalid"
        kind = ConflictError if code == "conflict" else ValidationFailed
        raise kind(
            f"The file has {len(report.errors)} error(s); nothing was stored. {report.errors[0]}",
            fields={"file": [str(e) for e in report.errors]},
        )
    return (201 if report.stored else 200), report.as_dict()
