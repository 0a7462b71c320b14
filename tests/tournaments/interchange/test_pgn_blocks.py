"""The PGN reader's header blocks are python-chess's: the same headers, block lines and
ignored (malformed) tag lines as ``chess.pgn.read_headers`` called line by line, which
the reader replaced for speed. Checked on generated files of every kind of line the rules
treat differently, read in chunks of every size."""

from __future__ import annotations

import io
from typing import TextIO

import chess.pgn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.interchange import parse_pgn, pgn_headers
from tournaments.interchange.source import open_text


class _CountingReader:
    """The reader before: python-chess's ``read_headers`` fed through ``readline``, counting
    lines, noting where each block starts and which ``[`` lines are not tags."""

    def __init__(self, text: TextIO) -> None:
        self._lines = text
        self.line_no = 0
        self.block_start = 0
        self.malformed: list[int] = []

    def readline(self) -> str:
        line = self._lines.readline()
        if line:
            self.line_no += 1
            if not self.block_start and line.strip():
                self.block_start = self.line_no
            if line.startswith("[") and not chess.pgn.TAG_REGEX.match(line):
                self.malformed.append(self.line_no)
        return line


def _reference(text: str) -> list[tuple[int, dict[str, str], list[int], int]]:
    reader = _CountingReader(open_text(text, legacy_fallback=True, warnings=[], newline=None))
    blocks: list[tuple[int, dict[str, str], list[int], int]] = []
    while True:
        reader.block_start = 0
        before = len(reader.malformed)
        headers = chess.pgn.read_headers(reader)  # type: ignore[arg-type]
        if headers is None:
            return blocks
        blocks.append(
            (reader.block_start, dict(headers), reader.malformed[before:], reader.line_no)
        )


def _blocks(text: str) -> list[tuple[int, dict[str, str], list[int], int]]:
    stream = open_text(text, legacy_fallback=True, warnings=[], newline=None)
    return [tuple(block) for block in pgn_headers.header_blocks(stream)]  # type: ignore[misc]


_LINES = [
    '[Event "Club"]',
    '[White "Adams, Peter"]',
    '[Black "Baker, Rose"]',
    '[Result "1-0"]',
    '[Date "2026.10.05"]',
    '[Round "3.1"]',
    '[Annotator "a \\"quoted\\" name"]',
    '[Site "x"] ',
    '[Odd_Name+1 "v"]',
    '[White  "two spaces"]',
    '[Event "a"] [Site "b"]',
    "[Black C]",
    "[%clk 0:01:00]",
    "[",
    '\ufeff[Event "BOM"]',
    "\ufeff",
    "",
    "   ",
    "\t",
    "% escape line",
    "; comment line",
    "1. e4 e5 2. Nf3 Nc6 1-0",
    "1. e4 { a comment",
    "still in the comment",
    "",
    "} 1-0",
    "1. d4 ; rest of the line { not a comment",
    "1. c4 {one line} *",
    "} 2. Nf3 { closed, then open again",
    "{",
    "}",
    "*",
]


@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(st.sampled_from(_LINES), max_size=40),
    ending=st.sampled_from(["\n", "\r\n", "\r"]),
    last_break=st.booleans(),
    chunk=st.sampled_from([1, 2, 5, 17, 1 << 20]),
)
def test_blocks_are_python_chess_headers(
    lines: list[str], ending: str, last_break: bool, chunk: int
) -> None:
    text = ending.join(lines) + (ending if last_break and lines else "")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pgn_headers, "_CHUNK_CHARS", chunk)
        assert _blocks(text) == _reference(text)


_TAGS = [line for line in _LINES if line.startswith("[")]


@settings(max_examples=300, deadline=None)
@given(
    games=st.lists(
        st.tuples(
            st.lists(st.sampled_from(_TAGS + _TAGS + _LINES), min_size=1, max_size=5),
            st.lists(st.sampled_from(_LINES), max_size=3),
        ),
        max_size=6,
    ),
    chunk=st.sampled_from([3, 64, 1 << 20]),
)
def test_game_shaped_files_are_python_chess_headers(
    games: list[tuple[list[str], list[str]]], chunk: int
) -> None:
    """Files shaped like games (header lines, an empty line, movetext, an empty line) with
    odd lines among them: where the reader takes a whole game at once."""
    text = "".join("\n".join([*tags, "", *moves, ""]) + "\n" for tags, moves in games)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pgn_headers, "_CHUNK_CHARS", chunk)
        assert _blocks(text) == _reference(text)


def test_plain_games_read_at_once_are_python_chess_headers() -> None:
    games = "".join(
        f'[Event "E"]\n[White "W{n}"]\n[Black "B{n}"]\n[Result "1-0"]\n\n1. e4 1-0\n\n'
        for n in range(50)
    )
    # A second empty line, a game without movetext, a game running into the next one's
    # headers after a single empty line, a last game without its closing empty line.
    text = games + '\n[Event "X"]\n\n\n[Event "Y"]\n\n[Round "2"]\n\n1-0\n\n[Event "Z"]\n\n*'
    assert _blocks(text) == _reference(text)


def test_games_are_the_same_with_and_without_the_repeated_values() -> None:
    """The second of two identical games takes its values from the first's; a forfeit
    after them is read in full."""
    game = '[Date "2026.10.01"]\n[Round "2"]\n[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1-0\n\n'
    forfeit = game.replace("]\n\n", ']\n[Termination "forfeit"]\n\n')
    parsed = parse_pgn(io.BytesIO((game + game + forfeit).encode()))
    first, second, third = parsed.games
    assert (first.round, first.date, first.white, first.result, first.rated) == (
        second.round,
        second.date,
        second.white,
        second.result,
        second.rated,
    )
    assert (second.line, third.line) == (9, 17)
    assert (third.result, third.rated, third.note) == ("+-", False, "")
