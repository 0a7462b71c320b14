"""The import services: check the role, parse the file, plan, store; one per format."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from typing import IO

from django.conf import settings

from players.bulk import gc_paused
from players.errors import ValidationFailed
from players.models import Club, RatingList, Role
from players.selectors import User, require_role
from tournaments.interchange import (
    InterchangeError,
    ParsedGames,
    ParsedTournament,
    ProgressCallback,
    parse_games_csv,
    parse_pgn,
    parse_trf,
)
from tournaments.interchange.bounds import KB, LineLengths
from tournaments.interchange.source import CHUNK_BYTES
from tournaments.interchange.table import RecordTable
from tournaments.services.imports.formats import plan_trf
from tournaments.services.imports.game_files import plan_games
from tournaments.services.imports.matching import MATCH_CHOICES
from tournaments.services.imports.report import ImportReport, LineMessage
from tournaments.services.imports.store import Store

FORMATS: tuple[str, ...] = ("trf", "pgn", "csv")


def import_file(
    *,
    format: str,
    club: Club,
    rating_list: RatingList | str,
    data: bytes | IO[bytes],
    by: User,
    dry_run: bool = False,
    match: str = "possible",
    keep_identical: bool = False,
    progress: ProgressCallback | None = None,
) -> ImportReport:
    """Import ``data`` in ``format`` (trf, pgn or csv): the three services in one.

    ``data`` is the file's bytes or a seekable binary file (an upload, a file on disk): a
    file is read in chunks, never whole, and left open for its owner.

    Raises NotFoundError / PermissionDeniedError when ``by`` may not import into the club
    (arbiter or above), ValidationFailed for an unknown format, list or ``match``;
    everything about the file itself is in the report's ``errors``. ``match`` says what a
    possible match (same name key, birth data missing on one side) becomes: the club's
    player ("possible") or a new one ("new"); the report lists them either way. Identical
    game lines of a PGN or CSV are stored once and listed (``identical_games``) unless
    ``keep_identical``.
    """
    require_role(by, club, Role.ARBITER)
    if match not in MATCH_CHOICES:
        raise ValidationFailed(
            f"match: {match!r} is not one of {', '.join(MATCH_CHOICES)}.",
            fields={"match": [f"Use one of {', '.join(MATCH_CHOICES)}."]},
        )
    if format not in FORMATS:
        raise ValidationFailed(
            f"format: {format!r} is not one of {', '.join(FORMATS)}.",
            fields={"format": [f"Use one of {', '.join(FORMATS)}."]},
        )
    the_list = _rating_list(club, rating_list)
    digest, lines = _digest(data)
    report = ImportReport(
        format=format,
        club=club.slug,
        rating_list=the_list.slug,
        digest=digest,
        dry_run=dry_run,
        match=match,
        keep_identical=keep_identical,
    )
    if lines.too_long:  # the parsers hold a line whole: refused before they read one
        report.errors = [LineMessage(lines.too_long, lines.message())]
        report.error_code = "invalid"
        return report
    # The parsed file and the plan are a few million objects alive until the commit.
    with gc_paused():
        _parse_and_store(
            format, data, club=club, the_list=the_list, by=by, report=report, progress=progress
        )
    return report


def _parse_and_store(
    format: str,
    data: bytes | IO[bytes],
    *,
    club: Club,
    the_list: RatingList,
    by: User,
    report: ImportReport,
    progress: ProgressCallback | None,
) -> None:
    """Parse, plan and store (import_file's work once the file is let in); what happened
    is in ``report``."""
    try:
        parsed: ParsedTournament | ParsedGames
        # A TRF names at most 9,999 players (four-digit start numbers).
        max_players: int = settings.IMPORT_MAX_PLAYERS
        if format == "trf":
            parsed = parse_trf(data, progress=progress)
        elif format == "pgn":
            parsed = parse_pgn(data, progress=progress, max_players=max_players)
        else:
            parsed = parse_games_csv(data, progress=progress, max_players=max_players)
    except InterchangeError as error:
        report.errors = [LineMessage(e.line, e.message, e.other_line) for e in error.errors]
        report.error_code = "invalid"
        return
    report.warnings = [LineMessage(w.line, w.message) for w in parsed.warnings]
    # The plan holds what is stored; the parsed records go before the writes begin.
    if isinstance(parsed, ParsedTournament):
        plan = plan_trf(parsed, report.digest, report)
        del parsed
    else:
        # PGN and CSV: the plan shares the parsed games' columns.
        assert isinstance(parsed.games, RecordTable)
        plan = plan_games(parsed.games, report.digest, report)
        del parsed
    if report.errors:
        report.error_code = "invalid"
        return
    Store(club=club, rating_list=the_list, by=by, plan=plan, report=report).run()


def upload_too_large(size: int) -> str:
    """Why an upload of ``size`` bytes is refused before it is read ("" when it is not):
    above the IMPORT_MAX_UPLOAD_MB setting."""
    limit_mb: int = settings.IMPORT_MAX_UPLOAD_MB
    if size > limit_mb * 1024 * 1024:
        return f"The file is larger than {limit_mb} MB."
    return ""


def _digest(data: bytes | IO[bytes]) -> tuple[str, LineLengths]:
    """The file's SHA-256 (its identity for "already imported?"), read in chunks, and its
    first line over the IMPORT_MAX_LINE_KB setting, counted in the same pass; a file is
    put back where it was for the parser."""
    lines = LineLengths(settings.IMPORT_MAX_LINE_KB * KB)
    if isinstance(data, bytes):
        lines.feed(data)
        return hashlib.sha256(data).hexdigest(), lines
    start = data.tell()
    digest = hashlib.sha256()
    while chunk := data.read(CHUNK_BYTES):
        digest.update(chunk)
        lines.feed(chunk)
    data.seek(start)
    return digest.hexdigest(), lines


def _rating_list(club: Club, rating_list: RatingList | str) -> RatingList:
    kind = rating_list.slug if isinstance(rating_list, RatingList) else rating_list
    found = RatingList.objects.filter(club=club, slug=kind).first()
    if found is None or (isinstance(rating_list, RatingList) and rating_list.pk != found.pk):
        raise ValidationFailed(
            f"list: no {kind!r} list in {club.name}.",
            fields={"list": ["No such list in this club."]},
        )
    return found


# One service per format: import_file with the format given. import_trf reads a FIDE
# TRF16/TRF-2026 file (one tournament, its players, games and byes); import_pgn the games
# of a PGN file (headers only; one tournament per Event); import_csv a CSV of games (one
# tournament per value of the tournament column).
import_trf = functools.partial(import_file, format="trf")
import_pgn = functools.partial(import_file, format="pgn")
import_csv = functools.partial(import_file, format="csv")

#: The three services by format name, for interfaces that take the format as input.
IMPORTERS: dict[str, Callable[..., ImportReport]] = {
    "trf": import_trf,
    "pgn": import_pgn,
    "csv": import_csv,
}
