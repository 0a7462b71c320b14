"""Reading an uploaded file's text, collecting problems and reporting progress.

Shared by the TRF, PGN and CSV parsers so that each one decodes, counts lines and stops
after too many errors in the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from tournaments.interchange.records import (
    InterchangeError,
    ParseError,
    ParseWarning,
    ProgressCallback,
)

#: After this many errors a parser stops: the user fixes the first ones and tries again, and a
#: completely wrong file does not build a million-entry report.
MAX_ERRORS = 200

#: How often (in lines) a parser calls its progress callback.
PROGRESS_EVERY = 5000


def decode_source(
    source: str | bytes, *, legacy_fallback: bool, warnings: list[ParseWarning]
) -> str:
    """The file's text, without a byte-order mark.

    Bytes are read as UTF-8. With ``legacy_fallback`` (TRF and PGN, whose specifications
    name no encoding and whose pairing programs often write Windows-1252) bytes that are not
    UTF-8 are read as Windows-1252 with a warning; otherwise (CSV) they are an error naming
    the line of the first bad byte.
    """
    if isinstance(source, str):
        return source.removeprefix("\ufeff")
    try:
        return source.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = source.count(b"\n", 0, error.start) + 1
        if not legacy_fallback:
            raise InterchangeError(
                [ParseError(line, "the file is not UTF-8 text; save it as UTF-8 (CSV UTF-8)")]
            ) from error
        warnings.append(
            ParseWarning(line, "the file is not UTF-8; read it as Windows-1252 (Western European)")
        )
        return source.decode("cp1252", errors="replace")


class ErrorCollector:
    """Gathers errors; raises :class:`InterchangeError` once there are too many or at the end."""

    def __init__(self) -> None:
        self.errors: list[ParseError] = []

    def add(self, line: int, message: str, other_line: int | None = None) -> None:
        self.errors.append(ParseError(line, message, other_line))
        if len(self.errors) >= MAX_ERRORS:
            self.errors.append(ParseError(line, f"stopped after {MAX_ERRORS} errors"))
            raise InterchangeError(self.errors)

    def raise_if_any(self) -> None:
        if self.errors:
            raise InterchangeError(self.errors)


def progress_ticker(progress: ProgressCallback | None) -> Callable[[int], None]:
    """A function to call with the current line number on every line; it calls ``progress``
    only every :data:`PROGRESS_EVERY` lines, so the hook costs nothing per line."""
    if progress is None:
        return _ignore
    hook = progress

    def tick(line: int) -> None:
        if line % PROGRESS_EVERY == 0:
            hook(line)

    return tick


def _ignore(line: int) -> None:
    return None


def parse_iso_like_date(text: str) -> date | None:
    """A year-first date: ``YYYY-MM-DD``, ``YYYY/MM/DD`` or ``YYYY.MM.DD``; None if malformed.

    Day-first and month-first spellings are refused on purpose: 03/04/2026 means a different
    day in Europe and in the USA, and a rating lands in the wrong period without anyone
    noticing.
    """
    text = text.strip()
    if len(text) != 10 or text[4] not in "-/." or text[7] != text[4]:
        return None
    if text[4] == "-" and text[:4].isdigit():
        try:  # the C parser, for the common ISO spelling
            return date.fromisoformat(text)
        except ValueError:
            return None
    year, month, day = text[:4], text[5:7], text[8:10]
    if not (year.isdigit() and month.isdigit() and day.isdigit()):
        return None
    try:
        return date(int(year), int(month), int(day))
    except ValueError:
        return None
