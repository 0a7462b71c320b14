"""Reading an archive within bounds, and checking it against this instance: its manifest checked field by field, each member's
checksum and row count, and its rows a bounded chunk at a time.

Nothing here trusts a size the file states: a member is read in blocks, a line is read up
to ``MAX_LINE_BYTES`` and refused past it (so a 600 MB line costs one megabyte before the
refusal), a chunk holds at most ``CHUNK`` rows and ``MAX_CHUNK_BYTES``; the zip's own
errors (a bad CRC, a truncated stream, an unknown compression) become ``ArchiveError``."""

from __future__ import annotations

import hashlib
import json
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_slug

from players.errors import invalid_field
from players.models import RESERVED_SLUGS, Club
from tournaments.services.club_archive import fast
from tournaments.services.club_archive.export import _migrations
from tournaments.services.club_archive.tables import (
    CHUNK,
    FORMAT,
    MANIFEST,
    MANIFEST_MAX_BYTES,
    MAX_CHUNK_BYTES,
    MAX_LINE_BYTES,
    MAX_MEMBER_BYTES,
    MAX_TABLE_ROWS,
    READABLE_VERSIONS,
    ArchiveError,
    Table,
)
from tournaments.services.club_archive.values import shown

# What zipfile and zlib raise for a damaged or unusual member (RuntimeError: encrypted).
ZIP_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    EOFError,
    NotImplementedError,
    RuntimeError,
    OverflowError,
)


@contextmanager
def zip_errors_refused() -> Iterator[None]:
    try:
        yield
    except ZIP_ERRORS as error:
        raise ArchiveError(f"The zip is damaged: {error}.") from None


@dataclass(frozen=True)
class Entry:
    """One table of the manifest, its fields checked."""

    model: str
    file: str
    rows: int
    sha256: str
    fields: list[str]


@dataclass(frozen=True)
class Manifest:
    slug: str
    name: str
    migrations: dict[str, list[str]]
    tables: dict[str, Entry]


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise ArchiveError(f"manifest.json: {what} must be a non-empty string.")
    return value


def _entry(raw: Any) -> Entry:
    if not isinstance(raw, dict):
        raise ArchiveError("manifest.json: each table must be an object.")
    model = _text(raw.get("model"), "a table's model")
    rows = raw.get("rows")
    if not isinstance(rows, int) or isinstance(rows, bool) or not 0 <= rows <= MAX_TABLE_ROWS:
        raise ArchiveError(
            f"manifest.json: {model}'s rows must be a count from 0 to {MAX_TABLE_ROWS}."
        )
    fields = raw.get("fields")
    if not isinstance(fields, list) or not all(isinstance(f, str) for f in fields):
        raise ArchiveError(f"manifest.json: {model}'s fields must be a list of names.")
    return Entry(
        model=model,
        file=_text(raw.get("file"), f"{model}'s file"),
        rows=rows,
        sha256=_text(raw.get("sha256"), f"{model}'s sha256"),
        fields=fields,
    )


def read_manifest(zf: zipfile.ZipFile) -> Manifest:
    raw = _raw_manifest(zf)
    club = raw.get("club")
    if not isinstance(club, dict):
        raise ArchiveError("manifest.json: club must be an object with a slug and a name.")
    migrations = _source_migrations(raw)
    tables = _table_entries(raw.get("tables"))
    return Manifest(
        slug=_text(club.get("slug"), "club.slug"),
        name=_text(club.get("name"), "club.name"),
        migrations=migrations,
        tables=tables,
    )


def _raw_manifest(zf: zipfile.ZipFile) -> dict[str, Any]:
    """The manifest's JSON, read within its bound, of this format and a version this
    instance reads."""
    try:
        info = zf.getinfo(MANIFEST)
    except KeyError:
        raise ArchiveError("Not a club archive: it has no manifest.json.") from None
    if info.file_size > MANIFEST_MAX_BYTES:
        raise ArchiveError("The manifest is too large to be a club archive's.")
    try:
        with zf.open(MANIFEST) as member:
            raw = json.loads(member.read(MANIFEST_MAX_BYTES + 1))
    except (ValueError, RecursionError):
        raise ArchiveError("The manifest is not JSON.") from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise ArchiveError("Not a club archive (the manifest names another format).")
    if raw.get("format_version") not in READABLE_VERSIONS:
        raise ArchiveError(
            f"Archive format version {shown(raw.get('format_version'))}; this instance reads "
            f"versions {', '.join(map(str, READABLE_VERSIONS))} (export the club again from "
            "its instance)."
        )
    return raw


def _source_migrations(raw: dict[str, Any]) -> dict[str, list[str]]:
    """The source's migrations: app -> the names applied there."""
    source = raw.get("source")
    migrations = source.get("migrations") if isinstance(source, dict) else None
    if not isinstance(migrations, dict) or not all(
        isinstance(names, list) and all(isinstance(n, str) for n in names)
        for names in migrations.values()
    ):
        raise ArchiveError("manifest.json: source.migrations must map apps to migrations.")
    return migrations


def _table_entries(listed: Any) -> dict[str, Entry]:
    """The tables listed, each once and in a file of its own."""
    if not isinstance(listed, list):
        raise ArchiveError("The manifest lists no tables.")
    tables: dict[str, Entry] = {}
    for entry in map(_entry, listed):
        if entry.model in tables or entry.file in {e.file for e in tables.values()}:
            raise ArchiveError(f"manifest.json: {entry.model} is listed twice.")
        tables[entry.model] = entry
    return tables


def verify(zf: zipfile.ZipFile, manifest: Manifest) -> None:
    """Every member's checksum and row count as the manifest says, and no other member;
    stops at the first line longer than ``MAX_LINE_BYTES`` or row beyond the count."""
    listed = {MANIFEST}
    for entry in manifest.tables.values():
        listed.add(entry.file)
        try:
            info = zf.getinfo(entry.file)
        except KeyError:
            raise ArchiveError(f"{entry.file} is missing from the archive.") from None
        if info.file_size > MAX_MEMBER_BYTES:
            raise ArchiveError(f"{entry.file}: larger than {MAX_MEMBER_BYTES} bytes.")
        digest = hashlib.sha256()
        lines = 0
        open_line = 0  # bytes since the last newline
        with zf.open(entry.file) as member:
            while block := member.read(MAX_LINE_BYTES):
                digest.update(block)
                first = block.find(b"\n")
                # A block is MAX_LINE_BYTES long: only the lines it cuts can be longer.
                if (open_line + first if first >= 0 else open_line + len(block)) > MAX_LINE_BYTES:
                    raise ArchiveError(
                        f"{entry.file} line {lines + 1}: longer than {MAX_LINE_BYTES} bytes."
                    )
                if first >= 0:
                    lines += block.count(b"\n")
                    open_line = len(block) - block.rfind(b"\n") - 1
                else:
                    open_line += len(block)
                if lines > entry.rows:
                    raise ArchiveError(f"{entry.file}: more rows than the manifest's {entry.rows}.")
        if digest.hexdigest() != entry.sha256:
            raise ArchiveError(f"{entry.file}: checksum does not match the manifest.")
        if lines != entry.rows or open_line:
            raise ArchiveError(f"{entry.file}: {lines} rows, the manifest says {entry.rows}.")
    extra = sorted(set(zf.namelist()) - listed)
    if extra:
        raise ArchiveError(f"{extra[0]} is not in the manifest.")


def row_chunks(zf: zipfile.ZipFile, entry: Entry) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """The member's rows, ``CHUNK`` rows or ``MAX_CHUNK_BYTES`` at a time, each chunk with
    its first line's number; a line that is too long, is not JSON or is not an object is
    refused by number."""
    lines: list[bytes] = []
    size = 0
    number = 0
    for line in _lines(zf, entry):
        number += 1
        lines.append(line)
        size += len(line)
        if len(lines) == CHUNK or size >= MAX_CHUNK_BYTES:
            yield number - len(lines) + 1, _decoded(entry, number - len(lines) + 1, lines)
            lines, size = [], 0
    if lines:
        yield number - len(lines) + 1, _decoded(entry, number - len(lines) + 1, lines)


# Bytes read from a member at once: split into lines by one call (``readline`` per line
# was a tenth of a restore).
_BLOCK = 1024 * 1024


def _lines(zf: zipfile.ZipFile, entry: Entry) -> Iterator[bytes]:
    """The member's lines without their line breaks; one longer than ``MAX_LINE_BYTES``
    or not ended by a line break is refused by its number. What is held at once is a
    block and the start of one line (at most ``MAX_LINE_BYTES``)."""
    number = 0
    rest = b""
    with zf.open(entry.file) as member:
        while block := member.read(_BLOCK):
            lines = (rest + block).split(b"\n")
            rest = lines.pop()
            if lines and max(map(len, lines)) > MAX_LINE_BYTES:
                long = next(i for i, line in enumerate(lines) if len(line) > MAX_LINE_BYTES)
                _too_long(entry, number + long + 1)
            if len(rest) > MAX_LINE_BYTES:
                _too_long(entry, number + len(lines) + 1)
            number += len(lines)
            yield from lines
    if rest:
        _too_long(entry, number + 1)


def _too_long(entry: Entry, number: int) -> None:
    raise ArchiveError(
        f"{entry.model} line {number}: longer than {MAX_LINE_BYTES} bytes or cut off."
    )


def _decoded(entry: Entry, first: int, lines: list[bytes]) -> list[dict[str, Any]]:
    try:
        rows = fast.lines_decode(lines)
    except (ValueError, RecursionError):
        rows = []
        for number, line in enumerate(lines, first):  # which line: decoded one at a time
            try:
                rows.append(json.loads(line))
            except (ValueError, RecursionError):
                raise ArchiveError(f"{entry.model} line {number}: not JSON.") from None
    if not {dict}.issuperset(map(type, rows)):
        for number, row in enumerate(rows, first):
            if not isinstance(row, dict):
                raise ArchiveError(f"{entry.model} line {number}: a row must be a JSON object.")
    return rows


def check_schema(manifest: Manifest, tables: dict[str, Table]) -> None:
    """The target knows every migration the source had applied, every table and column
    of the file (a column it lacks would be lost, so the file is refused)."""
    here = _migrations(manifest.migrations)
    for app, names in manifest.migrations.items():
        missing = sorted(set(names) - set(here.get(app, [])))
        if missing:
            raise ArchiveError(
                f"The archive comes from a newer database schema ({app}.{missing[0]} is not "
                "applied here): migrate this instance to the source's version first."
            )
    for entry in manifest.tables.values():
        table = tables.get(entry.model)
        if table is None:
            raise ArchiveError(f"This instance has no table {entry.model} for its rows.")
        known = {f.name for f in table.fields}
        unknown = [name for name in entry.fields if name not in known]
        if unknown:
            raise ArchiveError(
                f"{entry.model}.{unknown[0]} exists in the archive but not here: its "
                "values would be lost."
            )
    club = manifest.tables.get(Club._meta.label_lower)
    if club is None or club.rows != 1:
        raise ArchiveError("The archive must hold exactly one club.")


def new_names(manifest: Manifest, slug: str | None, name: str | None) -> tuple[str, str]:
    new_slug = slug or manifest.slug
    new_name = name or manifest.name
    try:
        validate_slug(new_slug)
    except ValidationError:
        raise invalid_field("slug", f"{shown(new_slug)} is not a valid slug.") from None
    if new_slug.lower() in RESERVED_SLUGS:
        raise invalid_field("slug", f"{new_slug!r} is reserved; choose another slug.")
    return new_slug, new_name
