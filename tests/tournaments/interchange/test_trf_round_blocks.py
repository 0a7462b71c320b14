"""A TRF player line whose round blocks are all games read at once (``_ALL_PLAYED``) gives
what reading it block by block gives: the same player, entries and errors, on generated
lines of usual and unusual blocks."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.interchange.records import ParseError, ParseWarning
from tournaments.interchange.source import ErrorCollector
from tournaments.interchange.trf import lines as trf_lines

_HEAD = "001    1 m GM Petrov, Ivan                      2580 RUS     4100011 1985/03/14  8.5    1"
_BLOCKS = [
    "  12 w 1  ",
    "   3 b 0  ",
    "1234 w =  ",
    "  12 b +  ",
    "   7 w W  ",
    "   7 b -  ",
    "   0 w 1  ",  # a game against nobody
    "0000 - Z  ",
    "     - H  ",
    "     - U  ",
    "  12 W 1  ",  # upper-case colour
    " 12  w 1  ",  # shifted opponent
    "  12 w 1 x",  # something in the block's last columns
    "  x2 w 1  ",
    "  12 w ?  ",
]


def _read(line: str) -> tuple[object, list[ParseError], list[ParseWarning]]:
    errors, warnings = ErrorCollector(), list[ParseWarning]()
    parsed = trf_lines.parse_player_line(line, 7, errors, warnings)
    return parsed, errors.errors, warnings


@settings(max_examples=300, deadline=None)
@given(
    blocks=st.lists(st.sampled_from(_BLOCKS[:6] * 4 + _BLOCKS), max_size=12),
    cut=st.integers(min_value=0, max_value=3),
)
def test_a_line_read_at_once_is_the_line_read_block_by_block(blocks: list[str], cut: int) -> None:
    line = (_HEAD.ljust(91) + "".join(blocks)).rstrip()
    if blocks and cut:
        line = line[:-cut]  # a last block cut short
    at_once = _read(line)
    if all(block in _BLOCKS[:6] for block in blocks) and not cut:
        assert at_once[0] is not None  # a good line
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(trf_lines, "_ALL_PLAYED", re.compile(r"(?!)"))  # never matches
        assert at_once == _read(line)


def test_a_line_of_games_is_read_at_once() -> None:
    line = _HEAD.ljust(91) + "  12 w 1     3 b =  1234 w -"
    parsed = _read(line)[0]
    assert parsed is not None
    assert parsed[1] == [(12, "w", "1"), (3, "b", "="), (1234, "w", "-")]  # type: ignore[index]
