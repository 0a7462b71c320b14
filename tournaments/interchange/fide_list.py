"""FIDE's monthly rating list, read as it is downloaded: TXT or XML, plain or zipped.

* TXT (``players_list_foa.txt``): fixed columns. The offsets are taken from the header
  line (``ID Number  Name  Fed Sex Tit WTit OTit FOA SRtng SGm SK RRtng RGm Rk BRtng BGm
  BK B-day Flag``): each field runs from its label's column to the next label's.
* XML (``players_list_xml_foa.xml``): ``<playerslist><player><fideid>..</fideid><name>..
  </name><country>..</country><sex>..</sex><title/><w_title/><o_title/><foa_title/>
  <rating/><games/><k/><rapid_rating/>...<blitz_k/><birthday/><flag/></player>...``,
  streamed in 1 MB chunks and cut at each ``</player>``; a player's ID (and country) is
  found by pattern, and only the players wanted are parsed as XML (ElementTree), so the
  file is never loaded whole nor parsed whole. An upload is untrusted: a DOCTYPE (where
  entities are declared; FIDE's file has none) is refused before anything is parsed.
* Either inside a ZIP archive (FIDE's download): the first member is read as a stream.

An upload is untrusted, and every read is bounded (``FideLimits``, from settings): a ZIP's
declared members, unpacked size and ratio are checked before anything is unpacked
(``bounds.zip_problem``), a TXT line is read at most ``max_line`` characters at a time, and
an XML element (a ``<player>``, the prolog, anything between two players) may be at most
``max_element`` bytes. The XML is scanned once, each byte looked at a bounded number of
times: no path is quadratic in the file's size.

The list has about 1.9 million players; a club wants a few thousand of them. ``wanted``
picks by FIDE ID (and ``federation`` adds a whole federation) before the rest of a line is
parsed, so reading costs little more than scanning the text. Pure: no Django, no database.
"""

from __future__ import annotations

import functools
import io
import re
import zipfile
import zlib
from collections.abc import Callable, Container, Iterator
from dataclasses import dataclass, field
from typing import IO
from xml.etree.ElementTree import ParseError, fromstring

from tournaments.interchange.bounds import KB, MB, ZipLimits, size_text, zip_problem

__all__ = ["FideLimits", "FideListError", "FideRecord", "read_fide_list"]

#: Called with the number of players read so far (every 50,000 and at the end).
FideProgress = Callable[[int], None]
_PROGRESS_EVERY = 50_000


class FideListError(ValueError):
    """The file is not one of FIDE's list formats (or is damaged)."""


@dataclass(frozen=True, slots=True)
class FideRecord:
    """One player of FIDE's list."""

    fide_id: int
    name: str
    federation: str
    #: "M" or "F" as FIDE writes it; "" when blank.
    sex: str
    title: str
    women_title: str
    standard: int | None
    rapid: int | None
    blitz: int | None
    birth_year: int | None
    #: FIDE's flag column: "i" inactive, "w" woman, "wi" both.
    flag: str


@dataclass(frozen=True, slots=True)
class FideLimits:
    """How much an upload may make the reader hold (the defaults are the settings')."""

    zip: ZipLimits = field(
        default_factory=lambda: ZipLimits(max_unpacked=900 * MB, max_ratio=100, max_members=16)
    )
    #: Characters of one TXT line (FIDE's are about 160).
    max_line: int = 4 * KB
    #: Bytes of one XML element: a <player> (FIDE's are about 500), the prolog before the
    #: root element, or whatever stands between two players' ends.
    max_element: int = 64 * KB


def read_fide_list(
    stream: IO[bytes],
    *,
    wanted: Container[int],
    federation: str = "",
    progress: FideProgress | None = None,
    limits: FideLimits | None = None,
) -> Iterator[FideRecord]:
    """The records of ``stream`` whose FIDE ID is in ``wanted`` or whose federation is
    ``federation``, in file order. ``stream`` must be seekable when it is a ZIP. Raises
    FideListError for a file that is not FIDE's list or is over ``limits``."""
    limits = limits or FideLimits()
    head = stream.read(512)
    stream.seek(0)
    if not head.startswith(b"PK"):
        yield from _read_plain(stream, head, wanted, federation, progress, limits)
        return
    if problem := zip_problem(stream, limits.zip):
        raise FideListError(problem)
    try:
        archive = zipfile.ZipFile(stream)
        first = next(info for info in archive.infolist() if not info.is_dir())
        # Opened twice: once to see what it holds, once to stream it (a member cannot seek).
        with archive.open(first) as peek:
            head = peek.read(512)
        with archive.open(first) as member:
            yield from _read_plain(member, head, wanted, federation, progress, limits)
    except (zipfile.BadZipFile, EOFError, zlib.error, NotImplementedError) as error:
        # A member that does not unpack (or stops early, or fails its CRC) is damaged.
        raise FideListError(f"a damaged ZIP file: {error}") from None


def _read_plain(
    stream: IO[bytes],
    head: bytes,
    wanted: Container[int],
    federation: str,
    progress: FideProgress | None,
    limits: FideLimits,
) -> Iterator[FideRecord]:
    if head.lstrip(b"\xef\xbb\xbf \r\n\t").startswith(b"<"):
        yield from _read_xml(stream, wanted, federation, progress, limits.max_element)
    else:
        yield from _read_txt(stream, wanted, federation, progress, limits.max_line)


# -- TXT ---------------------------------------------------------------------------------------

_LABELS = re.compile(r"ID Number|\S+")
_TXT_FIELDS = {
    "ID Number": "fide_id",
    "Name": "name",
    "Fed": "federation",
    "Sex": "sex",
    "Tit": "title",
    "WTit": "women_title",
    "SRtng": "standard",
    "RRtng": "rapid",
    "BRtng": "blitz",
    "B-day": "birth_year",
    "Flag": "flag",
}


def _columns(header: str) -> dict[str, slice]:
    labels = [(match.group(), match.start()) for match in _LABELS.finditer(header)]
    found: dict[str, slice] = {}
    for index, (label, begin) in enumerate(labels):
        end = labels[index + 1][1] if index + 1 < len(labels) else None
        if label in _TXT_FIELDS:
            found[_TXT_FIELDS[label]] = slice(begin, end)
    missing = {"fide_id", "name", "federation"} - found.keys()
    if missing:
        raise FideListError(
            "line 1: not FIDE's TXT list header (no "
            + ", ".join(label for label, name in _TXT_FIELDS.items() if name in missing)
            + ")"
        )
    return found


def _number(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isdigit() and int(text) > 0 else None


def _read_txt(
    stream: IO[bytes],
    wanted: Container[int],
    federation: str,
    progress: FideProgress | None,
    max_line: int,
) -> Iterator[FideRecord]:
    text = io.TextIOWrapper(stream, encoding="utf-8", errors="replace", newline=None)
    # Each line read at most one character past the limit: a file without a line break
    # is never held whole.
    lines = iter(functools.partial(text.readline, max_line + 1), "")
    header = next(lines, "")
    if len(header) > max_line:
        raise _line_too_long(0, max_line)
    cols = _columns(header.lstrip("\ufeff").rstrip("\n"))
    id_col, fed_col = cols["fide_id"], cols["federation"]
    count = 0
    for count, line in enumerate(lines, start=1):
        if progress is not None and count % _PROGRESS_EVERY == 0:
            progress(count)
        if len(line) > max_line:
            raise _line_too_long(count, max_line)
        # The ID first: most lines end here, before anything else is sliced.
        raw_id = line[id_col].strip()
        if not raw_id.isdigit():
            continue
        fide_id = int(raw_id)
        if fide_id not in wanted and not (federation and line[fed_col].strip() == federation):
            continue

        def field(name: str, line: str = line) -> str:
            where = cols.get(name)
            return line[where].strip() if where is not None else ""

        yield FideRecord(
            fide_id=fide_id,
            name=field("name"),
            federation=field("federation"),
            sex=field("sex"),
            title=field("title"),
            women_title=field("women_title"),
            standard=_number(field("standard")),
            rapid=_number(field("rapid")),
            blitz=_number(field("blitz")),
            birth_year=_number(field("birth_year")),
            flag=field("flag"),
        )
    if progress is not None:
        progress(count)


def _line_too_long(index: int, max_line: int) -> FideListError:
    return FideListError(
        f"line {index + 1} is longer than {size_text(max_line)} (the limit of a line)"
    )


# -- XML ---------------------------------------------------------------------------------------


_ROOT_START = re.compile(rb"<[A-Za-z_]")
_CHUNK = 1 << 20


def _element_too_large(what: str, max_element: int) -> FideListError:
    return FideListError(
        f"not FIDE's XML list: {what} is larger than {size_text(max_element)} "
        "(the limit of an element)"
    )


def _xml_chunks(stream: IO[bytes], max_element: int) -> Iterator[bytes]:
    """The file in chunks, after checking its prolog: a DOCTYPE (the only place entities
    can be declared, and FIDE's list has none) is refused, so the C parser never expands
    an entity of an untrusted upload. The prolog may be ``max_element`` bytes at most, and
    each chunk is searched once (a prolog searched whole at every chunk was quadratic)."""
    prolog = b""
    while True:
        chunk = stream.read(_CHUNK)
        searched = max(0, len(prolog) - 1)
        prolog += chunk
        root = _ROOT_START.search(prolog, searched)
        if root is None and len(prolog) > max_element:
            raise _element_too_large("the prolog before the root element", max_element)
        if root is not None or not chunk:
            end = root.start() if root is not None else len(prolog)
            if end > max_element:
                raise _element_too_large("the prolog before the root element", max_element)
            if b"<!DOCTYPE" in prolog[:end].upper():
                raise FideListError("the XML declares a DOCTYPE; FIDE's list has none")
            break
    yield prolog
    while chunk := stream.read(_CHUNK):
        yield chunk


_PLAYER_END = b"</player>"
_FIDE_ID = re.compile(rb"<fideid>\s*(\d+)\s*</fideid>")
_COUNTRY = re.compile(rb"<country>\s*([A-Za-z]{3})\s*</country>")


def _xml_blocks(stream: IO[bytes], max_element: int) -> Iterator[bytes]:
    """Each ``...</player>`` block (without its end tag), in file order; what follows the
    last one must hold no ``<player>``. A block may be ``max_element`` bytes at most, so
    the part kept between chunks is bounded and each byte is copied a bounded number of
    times (kept whole until its ``</player>``, a file without one was quadratic)."""
    pending = b""
    for chunk in _xml_chunks(stream, max_element):
        blocks = (pending + chunk).split(_PLAYER_END)
        pending = blocks.pop()
        if len(pending) > max_element:
            raise _element_too_large("an element without its </player>", max_element)
        for block in blocks:
            if len(block) > max_element:
                raise _element_too_large("a <player> element", max_element)
            yield block
    if b"<player>" in pending:
        raise FideListError("not well-formed XML: the file ends inside a <player> element")


def _read_xml(
    stream: IO[bytes],
    wanted: Container[int],
    federation: str,
    progress: FideProgress | None,
    max_element: int,
) -> Iterator[FideRecord]:
    """Player by player: each ``<player>...</player>`` block's ID (and country) is found
    with a pattern, and only the blocks wanted are parsed as XML. Parsing all 1.9 million
    players' 20 elements each took minutes; the scan takes seconds."""
    count = 0
    country = federation.encode()
    for count, block in enumerate(_xml_blocks(stream, max_element), start=1):
        if progress is not None and count % _PROGRESS_EVERY == 0:
            progress(count)
        found = _FIDE_ID.search(block)
        if found is None:
            continue
        if int(found[1]) not in wanted:
            fed = _COUNTRY.search(block) if country else None
            if fed is None or fed[1] != country:
                continue
        record = _xml_record(_player_values(block), wanted, federation)
        if record is not None:
            yield record
    if progress is not None:
        progress(count)


def _player_values(block: bytes) -> dict[str, str]:
    """The child elements of one ``<player>`` block (entities and CDATA as XML has them)."""
    start = block.rfind(b"<player>")
    if start < 0:
        raise FideListError("not well-formed XML: </player> without <player>")
    try:
        element = fromstring(block[start:] + _PLAYER_END)  # noqa: S314 - no DOCTYPE (checked)
    except ParseError as error:
        raise FideListError(f"not well-formed XML: {error}") from None
    return {child.tag: child.text or "" for child in element}


def _xml_record(
    values: dict[str, str], wanted: Container[int], federation: str
) -> FideRecord | None:
    raw_id = values.get("fideid", "").strip()
    if not raw_id.isdigit():
        return None
    fide_id = int(raw_id)
    country = values.get("country", "").strip()
    if fide_id not in wanted and not (federation and country == federation):
        return None
    return FideRecord(
        fide_id=fide_id,
        name=values.get("name", "").strip(),
        federation=country,
        sex=values.get("sex", "").strip(),
        title=values.get("title", "").strip(),
        women_title=values.get("w_title", "").strip(),
        standard=_number(values.get("rating", "")),
        rapid=_number(values.get("rapid_rating", "")),
        blitz=_number(values.get("blitz_rating", "")),
        birth_year=_number(values.get("birthday", "")),
        flag=values.get("flag", "").strip(),
    )
