"""PGN game headers (not the moves), read as python-chess's ``chess.pgn.read_headers`` reads
them (its rules and header pattern; ``header_blocks``, proven equal to it by
tests/tournaments/interchange/test_pgn_blocks.py) but a chunk of text at a time. What the
headers mean is pgn.py's."""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator
from typing import NamedTuple, TextIO

import chess.pgn

__all__ = ["Block", "header_blocks"]


#: A header line as python-chess reads one (``chess.pgn.TAG_REGEX``): a line it does not
#: match is one python-chess ignores, and this reader reports.
_TAG = chess.pgn.TAG_REGEX
#: A run of header lines, each ending in a line break, matched at once; ``_RUN_TAG`` takes
#: each line's name and value. The same lines as ``_TAG`` (``\s`` short of the line break:
#: a line never holds one, and the text's ``\r`` are line breaks already).
_RUN = re.compile(r'(?:\[[A-Za-z0-9][A-Za-z0-9_+#=:-]*[^\S\n]+"[^\n]*"\][^\S\n]*\n)+')
_RUN_TAG = re.compile(r'\[([A-Za-z0-9][A-Za-z0-9_+#=:-]*)[^\S\n]+"([^\n]*)"\][^\S\n]*\n')
#: A header line in its plainest form (the same name and value as ``_TAG`` gives for it),
#: and the movetext lines of a game that has nothing for the movetext's rules to do: no
#: comment, no ``%`` or ``[``, not blank. A game of such lines, its headers and movetext
#: each followed by one empty line, is read without going line by line (``_plain_games``).
_PLAIN_TAG = re.compile(r'^\[([A-Za-z0-9]+) "([^"\n]*)"\]\n', re.MULTILINE)
_PLAIN_MOVES = re.compile(r"(?:[^\n{};%\[]*[^\s{};%\[][^\n{};%\[]*\n)*\n")
#: Characters that open or close a movetext comment.
_SKIP_TOKENS = chess.pgn.SKIP_MOVETEXT_REGEX
#: Characters read from the text at a time (a file is never held whole).
_CHUNK_CHARS = 1 << 20

# Where the reader is in a game: before its first line, in its headers, in its movetext.
_BEFORE, _HEADERS, _MOVES = 0, 1, 2


class Block(NamedTuple):
    """One game's headers as python-chess's ``read_headers`` returns them."""

    #: The first line of the block that is not blank (where its errors point).
    start: int
    headers: dict[str, str]
    #: The lines of the block that start with ``[`` but are not a header tag.
    malformed: list[int]
    #: The last line read for this block (its closing blank line, or the file's last).
    end: int


def header_blocks(text: TextIO) -> Iterator[Block]:
    """Every game's headers, the same as ``chess.pgn.read_headers`` called until it returns
    None, with the lines of the file that start each block and that python-chess would
    silently ignore.

    python-chess read a line at a time through ``readline`` and set up a header object per
    game: most of a 100,000-game import. This reads the text a chunk at a time, takes a run of
    header lines with one regular expression, and follows python-chess's rules line by line
    elsewhere: comment lines (``%``, ``;``) skipped, one blank line allowed between headers,
    the first line that is not a header starts the movetext, a blank line outside a ``{}``
    comment ends the game, a byte-order mark dropped from a game's first line.
    """
    reader = _BlockReader()
    for chunk, stop in _whole_lines(text):
        yield from reader.read(chunk, stop)
    if reader.state != _BEFORE:
        yield reader.block()


def _whole_lines(text: TextIO) -> Iterator[tuple[str, int]]:
    """The text a chunk at a time, each with where its last whole line ends; a line cut by
    the chunk's end waits for the next chunk, and the last chunk holds the text's end."""
    rest = ""
    while chunk := text.read(_CHUNK_CHARS):
        chunk = rest + chunk
        stop = chunk.rfind("\n") + 1
        rest = chunk[stop:]
        yield chunk, stop
    yield rest, len(rest)


def _comment_after(line: str, in_comment: bool) -> bool:
    """Whether a ``{}`` comment is open after this movetext line (a ``;`` outside one ends
    the line's tokens)."""
    for token in _SKIP_TOKENS.finditer(line):
        if token[0] == "{":
            in_comment = True
        elif not in_comment and token[0] == ";":
            break
        elif token[0] == "}":
            in_comment = False
    return in_comment


class _BlockReader:
    """python-chess's header rules over whole lines, keeping where it is between chunks: the
    plain game at once, else a line at a time by what the reader is in (before a game, its
    headers, its movetext)."""

    def __init__(self) -> None:
        self.line_no = 0
        self.state = _BEFORE
        self.first = True  # the next line is the first one read for this block
        self.start = 0
        self.headers: dict[str, str] = {}
        self.malformed: list[int] = []
        self.empty_lines = 0
        self.in_comment = False

    def block(self) -> Block:
        return Block(self.start, self.headers, self.malformed, self.line_no)

    def read(self, chunk: str, stop: int) -> Iterator[Block]:
        """The blocks that end in ``chunk`` up to ``stop``."""
        position = 0
        while position < stop:
            if self.state == _BEFORE and chunk.startswith("[", position):
                after = yield from self._plain_games(chunk, position, stop)
                if after != position:
                    position = after
                    continue
            if self.state == _MOVES:
                position, block = self._movetext_lines(chunk, position, stop)
            else:
                position, block = self._line(chunk, position, stop)
            if block is not None:
                yield block

    def _plain_games(self, chunk: str, position: int, stop: int) -> Generator[Block, None, int]:
        """The games from ``position`` on that are in their plainest form (header lines,
        an empty line, movetext lines, an empty line), each at once; returns where the
        first other line starts."""
        begin = position
        line_no, start, malformed = self.line_no, self.start, self.malformed
        while chunk.startswith("[", position):
            blank = chunk.find("\n\n", position, stop)
            if blank < 0:
                break
            tags = _PLAIN_TAG.findall(chunk, position, blank + 1)
            if len(tags) != chunk.count("\n", position, blank + 1):
                break
            moves = _PLAIN_MOVES.match(chunk, blank + 2, stop)
            if moves is None:
                break
            first_line = line_no + 1
            line_no += chunk.count("\n", position, moves.end())
            yield Block(start or first_line, dict(tags), malformed, line_no)
            start, malformed = 0, []
            position = moves.end()
        if position != begin:
            self.line_no, self.start, self.malformed, self.first = line_no, start, malformed, True
        return position

    def _line(self, chunk: str, position: int, stop: int) -> tuple[int, Block | None]:
        """Where reading goes on after the line at ``position`` before a game or in its
        headers (a run of header lines is taken at once), and the block it ends, if any."""
        end = chunk.find("\n", position, stop)
        if end < 0:
            end = stop  # the text's last line, without a line break
        raw = chunk[position:end]
        line_start, position = position, end + 1
        self.line_no += 1
        if not self.start and raw.strip():
            self.start = self.line_no
        line = raw
        if self.state == _BEFORE:
            started = self._game_start(raw)
            if started is None:
                return position, None
            line = started
        if self.state == _HEADERS:
            after = self._header(line, raw, chunk, line_start, position, stop)
            if after is not None:
                return after, None
        return position, self._movetext(line, raw)

    def _game_start(self, raw: str) -> str | None:
        """The line that starts the game's headers, or None for a line skipped before it."""
        line = raw
        if self.first:
            line = raw.lstrip("\ufeff")
            self.first = False
        if not line or line.isspace() or line[0] in "%;":
            return None
        self.state, self.headers, self.empty_lines = _HEADERS, {}, 0
        return line

    def _header(
        self, line: str, raw: str, chunk: str, line_start: int, following: int, stop: int
    ) -> int | None:
        """Where reading goes on after a line of the headers (a run of header lines is
        taken at once), or None when the line starts the movetext."""
        if line[:1] in ("%", ";"):
            return following
        if self.empty_lines < 1 and (not line or line.isspace()):
            self.empty_lines += 1
            return following
        if line[:1] != "[":
            self.state, self.in_comment = _MOVES, False
            return None
        self.empty_lines = 0
        if line is raw and (run := _RUN.match(chunk, line_start, stop)):
            # This line and the header lines after it, at once.
            tags = _RUN_TAG.findall(chunk, line_start, run.end())
            self.headers.update(tags)
            self.line_no += len(tags) - 1
            return run.end()
        if match := _TAG.match(line):
            self.headers[match[1]] = match[2]
        elif raw[:1] == "[":
            self.malformed.append(self.line_no)
        return following

    def _movetext(self, line: str, raw: str) -> Block | None:
        """The block a blank line outside a comment ends, else None: the movetext's first
        line (the one that ended the headers; ``_movetext_lines`` reads the others). The
        movetext is skipped: python-chess's fast path for a game it does not build."""
        if not self.in_comment:
            if not line or line.isspace():
                return self._ended()
            if line[0] == "%":
                return None
        if "{" in line or "}" in line or ";" in line:
            self.in_comment = _comment_after(line, self.in_comment)
        if raw[:1] == "[" and not _TAG.match(raw):
            self.malformed.append(self.line_no)
        return None

    def _movetext_lines(self, chunk: str, position: int, stop: int) -> tuple[int, Block | None]:
        """Where the movetext's lines from ``position`` end, and the block that a blank line
        outside a comment ends (None: the chunk ended first). The same rules as
        ``_movetext`` in one loop, without a call per line: the movetext is most of a
        game's lines. Its lines are never a block's first (``start`` is set)."""
        line_no, in_comment = self.line_no, self.in_comment
        while position < stop:
            end = chunk.find("\n", position, stop)
            if end < 0:
                end = stop  # the text's last line, without a line break
            line = chunk[position:end]
            position = end + 1
            line_no += 1
            if not in_comment:
                if not line or line.isspace():
                    self.line_no = line_no
                    return position, self._ended()
                if line[0] == "%":
                    continue
            if ";" in line:
                in_comment = _comment_after(line, in_comment)
            elif (opened := line.rfind("{")) != (closed := line.rfind("}")):
                # Without a ";" the last brace decides (none: both -1, nothing changes).
                in_comment = opened > closed
            if line[:1] == "[" and not _TAG.match(line):
                self.malformed.append(line_no)
        self.line_no, self.in_comment = line_no, in_comment
        return position, None

    def _ended(self) -> Block:
        """The block a blank line ended; the next line starts a new one."""
        block = self.block()
        self.state, self.first, self.start, self.malformed = _BEFORE, True, 0, []
        return block
