"""Reading an uploaded file's text, collecting problems and reporting progress.

Shared by the TRF, PGN and CSV parsers so that each one decodes, counts lines and stops
after too many errors in the same way.
"""

from __future__ import annotations

import codecs
import io
from collections.abc import Callable
from datetime import date
from typing import IO, Any, TextIO, TypeVar

from tournaments.interchange.records import (
    InterchangeError,
    ParseError,
    ParseWarning,
    ProgressCallback,
)

_T = TypeVar("_T")

#: After this many errors a parser stops: the user fixes the first ones and tries again, and a
#: completely wrong file does not build a million-entry report.
MAX_ERRORS = 200

#: How often (in lines) a parser calls its progress callback.
PROGRESS_EVERY = 5000


#: Bytes read from the file at a time: a file is never read whole, so a 50 MB upload
#: costs a few of these, not the file's size several times over.
CHUNK_BYTES = 1 << 20

#: What a parser reads: the file's text, its bytes, or a binary file open for reading
#: (an upload, a file on disk, a job's stored input). A binary file must be seekable: the
#: encoding is settled in a first pass before the parser's own pass.
Source = str | bytes | IO[bytes]


def open_text(
    source: Source, *, legacy_fallback: bool, warnings: list[ParseWarning], newline: str | None
) -> TextIO:
    """The file's text as a stream of lines, without a byte-order mark; never read whole.

    Bytes are read as UTF-8. With ``legacy_fallback`` (TRF and PGN, whose specifications
    name no encoding and whose pairing programs often write Windows-1252) bytes that are not
    UTF-8 are read as Windows-1252 with a warning; otherwise (CSV) they are an error naming
    the line of the first bad byte. ``newline`` is :class:`io.TextIOWrapper`'s (``""`` for
    the csv module, None to read ``\r\n`` and ``\r`` as line ends).
    """
    if isinstance(source, str):
        if "\0" in source:
            _refuse_nul(source.count("\n", 0, source.index("\0")) + 1)
        return io.StringIO(source.removeprefix("\ufeff"), newline=newline)
    stream: IO[bytes] = io.BytesIO(source) if isinstance(source, bytes) else source
    start = stream.tell()
    bad_line, nul_line = _first_bad_lines(stream)
    stream.seek(start)
    if nul_line:
        _refuse_nul(nul_line)
    encoding = "utf-8-sig"
    if bad_line:
        if not legacy_fallback:
            raise InterchangeError(
                [ParseError(bad_line, "the file is not UTF-8 text; save it as UTF-8 (CSV UTF-8)")]
            )
        warnings.append(
            ParseWarning(
                bad_line, "the file is not UTF-8; read it as Windows-1252 (Western European)"
            )
        )
        encoding = "cp1252"
    # The wrapper must not close the caller's file when it is collected.
    return io.TextIOWrapper(
        io.BufferedReader(_Unclosed(stream), CHUNK_BYTES),
        encoding=encoding,
        errors="replace",
        newline=newline,
    )


def count_lines(stream: IO[bytes]) -> int:
    """How many lines a binary file has (a last line without a line break counts), read
    in chunks; the file is put back where it was. For progress bars."""
    start = stream.tell()
    lines = 0
    last = b"\n"
    while chunk := stream.read(CHUNK_BYTES):
        lines += chunk.count(b"\n")
        last = chunk[-1:]
    stream.seek(start)
    return lines + (0 if last == b"\n" else 1)


def _refuse_nul(line: int) -> None:
    # No text format of ours holds a NUL, and no database text column takes one
    # (PostgreSQL refuses it): a name with one could be neither stored nor reported.
    raise InterchangeError([ParseError(line, "the file holds a NUL byte: it is not a text file")])


def _first_bad_lines(stream: IO[bytes]) -> tuple[int, int]:
    """The 1-based lines of the first byte that is not UTF-8 and of the first NUL byte;
    0 for none. One pass over the file, a chunk at a time."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    lines = 0
    bad_utf8 = nul = 0
    while chunk := stream.read(CHUNK_BYTES):
        if not nul and (at := chunk.find(b"\0")) >= 0:
            nul = lines + chunk.count(b"\n", 0, at) + 1
        if not bad_utf8:
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as error:
                bad_utf8 = lines + chunk.count(b"\n", 0, max(0, error.start)) + 1
        if nul:
            break  # the file is refused whatever its encoding
        lines += chunk.count(b"\n")
    if not bad_utf8 and not nul:
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            bad_utf8 = lines + 1
    return bad_utf8, nul


class _Unclosed(io.RawIOBase):
    """A binary file seen through a wrapper that leaves it open: closing the text stream
    over an upload must not close the upload, which its owner still reads or deletes."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._stream.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


class Shared:
    """One object for each distinct value a parser produces (a player's reference, a date,
    an event's name): a file of 150,000 games names a few thousand players, and holding
    each game's own copies of them was most of an import's memory."""

    def __init__(self) -> None:
        self._seen: dict[Any, Any] = {}

    def __call__(self, value: _T) -> _T:
        found: _T = self._seen.setdefault(value, value)
        return found

    def each(self, values: list[_T]) -> list[_T]:
        """``[self(value) for value in values]``, the look-ups made in C."""
        return list(map(self._seen.setdefault, values, values))


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
