"""Bounds on what an upload can make a reader hold: a ZIP's declared contents, line lengths.

An upload is untrusted. A 1 MB ZIP can declare (and hold) a gigabyte; a text without a line
break is one line, which a line reader holds whole; a ZIP's central directory is read whole
when the archive is opened, one object per member. Each check here looks at what the file
declares, or counts as it streams, and says what is over which limit before the reader
holds it. Pure: no Django, no database; the callers pass the limits (from settings).
"""

from __future__ import annotations

import os
import struct
import zipfile
from dataclasses import dataclass
from typing import IO

__all__ = ["LineLengths", "PlayerCount", "ZipLimits", "size_text", "zip_problem"]

KB = 1024
MB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class ZipLimits:
    """What a ZIP upload may declare: its first member's unpacked size (bytes), the ratio of
    unpacked to packed size, and the number of members."""

    max_unpacked: int
    max_ratio: float
    max_members: int

    @property
    def max_directory(self) -> int:
        """The central directory's largest size: a member's record is 46 bytes and its name
        (FIDE's are short); 1 KB a member leaves room for long names and extra fields."""
        return self.max_members * KB


_END = b"PK\x05\x06"
_END_SIZE = 22
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_END = b"PK\x06\x06"


def _directory_size(stream: IO[bytes]) -> tuple[int, int] | None:
    """(members, bytes) of the central directory as the end record declares them (ZIP64's
    when the plain record says so), found as :mod:`zipfile` finds it; None when there is
    none. Read before :class:`zipfile.ZipFile` opens the archive, which reads the whole
    directory, one object per member."""
    stream.seek(0, os.SEEK_END)
    end = stream.tell()
    length = min(end, _END_SIZE + 0xFFFF)  # the record and the longest comment
    stream.seek(end - length)
    tail = stream.read(length)
    at = len(tail) - _END_SIZE if tail[-_END_SIZE:].startswith(_END) else tail.rfind(_END)
    if at < 0 or len(tail) - at < _END_SIZE:
        return None
    members, size = struct.unpack("<HI", tail[at + 10 : at + 16])
    locator = at - 20
    if (members == 0xFFFF or size == 0xFFFFFFFF) and tail[locator : locator + 4] == _ZIP64_LOCATOR:
        (record_at,) = struct.unpack("<Q", tail[locator + 8 : locator + 16])
        stream.seek(record_at)
        record = stream.read(56)
        if record[:4] == _ZIP64_END and len(record) == 56:
            members, size = struct.unpack("<QQ", record[32:48])
    return members, size


def zip_problem(stream: IO[bytes], limits: ZipLimits) -> str:
    """What about the ZIP ``stream`` (seekable, starting with ``PK``) is over ``limits``,
    by what it declares ("" when nothing is); nothing is unpacked, and the stream is put
    back at its start. The declared unpacked size is also what :mod:`zipfile` unpacks at
    most (it stops a member at its declared size), so it bounds the reading too."""
    try:
        declared = _directory_size(stream)
        if declared is None:
            return "a damaged ZIP file: no end of central directory record"
        members, size = declared
        if members > limits.max_members:
            return f"the ZIP file holds {members} files; the limit is {limits.max_members} files"
        if size > limits.max_directory:
            return (
                f"the ZIP file's directory is {size} bytes; the limit is "
                f"{size_text(limits.max_directory)} ({limits.max_members} files)"
            )
        stream.seek(0)
        try:
            infos = [info for info in zipfile.ZipFile(stream).infolist() if not info.is_dir()]
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as error:
            return f"a damaged ZIP file: {error}"
        if not infos:
            return "the ZIP file is empty"
        first = infos[0]
        if first.file_size > limits.max_unpacked:
            return (
                f"the ZIP file's {first.filename} unpacks to {_mb(first.file_size)} MB; "
                f"the limit is {_mb(limits.max_unpacked)} MB"
            )
        packed = max(first.compress_size, 1)
        if first.file_size / packed > limits.max_ratio:
            return (
                f"the ZIP file's {first.filename} unpacks to {first.file_size // packed} "
                f"times its packed size; the limit is {limits.max_ratio:g} times"
            )
        return ""
    finally:
        stream.seek(0)


def _mb(size: int) -> str:
    return f"{size / MB:.0f}" if size >= MB else f"{size / MB:.2f}"


class LineLengths:
    """The first line longer than ``limit`` bytes of a file fed a chunk at a time: one
    ``split`` per chunk (in C), never a line held whole."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.line = 1  # the line the next chunk's first byte is on
        self._run = 0  # bytes of that line before the chunk
        #: The 1-based number of the first line over the limit; 0 while none is.
        self.too_long = 0

    def feed(self, chunk: bytes) -> int:
        """Count ``chunk``; the first line over the limit so far (0: none)."""
        if self.too_long:
            return self.too_long
        breaks = chunk.count(b"\n")
        if not breaks:
            self._run += len(chunk)
            if self._run > self.limit:
                self.too_long = self.line
            return self.too_long
        if self._run + len(chunk) > self.limit:  # only then can a line in it be too long
            lengths = [len(part) for part in chunk.split(b"\n")]
            lengths[0] += self._run
            for index, length in enumerate(lengths):
                if length > self.limit:
                    self.too_long = self.line + index
                    return self.too_long
        self._run = len(chunk) - chunk.rfind(b"\n") - 1
        self.line += breaks
        return 0

    def message(self) -> str:
        """Why the line is refused (its number is the caller's to say)."""
        return f"longer than {size_text(self.limit)} (the limit of a line)"


def size_text(size: int) -> str:
    """A limit as the messages say it: "4 KB", or bytes when it is not whole kilobytes."""
    return f"{size // KB} KB" if size % KB == 0 else f"{size} bytes"


class PlayerCount:
    """The distinct players a games file (PGN, CSV) names, counted while it streams.

    What an import holds grows with the players it names far more than with its games (a
    game is about 45 bytes in the parsed table; a player never seen before is matched,
    planned and created: about 2.5 KB): a 56 MB PGN naming a million players took a
    worker past 1 GB. A file over ``limit`` is refused at the first game that passes it,
    before the rest is read. ``limit`` None: no bound."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self._names: set[str] = set()

    def over(self, white: str, black: str) -> bool:
        """Count one game's players; whether the file now names more than the limit."""
        if self.limit is None:
            return False
        self._names.add(white)
        self._names.add(black)
        return len(self._names) > self.limit

    def message(self) -> str:
        return (
            f"the file names more than {self.limit} players, the limit of one import; "
            "split it into smaller files"
        )
