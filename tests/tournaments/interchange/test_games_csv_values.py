"""The CSV reader reads each distinct cell text once (``_Values``): its games and errors are
those of reading every row in full (``_game`` on each row's cells, the reader before),
on generated files whose values repeat, valid and not."""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.interchange import InterchangeError, ParsedGame, parse_games_csv
from tournaments.interchange.games_csv import _columns, _game
from tournaments.interchange.source import ErrorCollector


def _reference(text: str) -> tuple[list[ParsedGame], list[tuple[int, str]]]:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=",", strict=True)
    header = next(reader)
    errors = ErrorCollector()
    columns = _columns(header, errors, [])
    games = []
    row_start = reader.line_num + 1
    for row in reader:
        line, row_start = row_start, reader.line_num + 1
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(header):
            errors.add(line, f"{len(row)} cells but the header names {len(header)} columns")
            continue
        cells = {name: row[index].strip() if index < len(row) else "" for name, index in columns}
        game = _game(cells, line, errors)
        if game is not None:
            games.append(game)
    return games, [(e.line, e.message) for e in errors.errors]


def _parsed(text: str) -> tuple[list[ParsedGame], list[tuple[int, str]]]:
    try:
        return list(parse_games_csv(text).games), []
    except InterchangeError as error:
        return [], [(e.line, e.message) for e in error.errors]


_COLUMNS = ["date", "white", "black", "result", "round", "white_rating", "tournament"]
_CELLS = {
    "date": ["2026-10-01", " 2026-10-01 ", "2026/10/02", "01.10.2026", ""],
    "white": ["Adams, P", "adams, p", " Baker ", ""],
    "black": ["Baker", "ADAMS, P", "Cole"],
    "result": ["1-0", " 1 - 0 ", "½-½", "+-", "--", "2-0"],
    "round": ["1", " 2 ", "", "x"],
    "white_rating": ["1800", "", "18x0", "0"],
    "tournament": ["Open", " Open ", ""],
}


@settings(max_examples=300, deadline=None)
@given(
    rows=st.lists(
        st.tuples(*(st.sampled_from(_CELLS[name]) for name in _COLUMNS)),
        min_size=1,
        max_size=30,
    ),
    short=st.booleans(),
)
def test_games_and_errors_are_those_of_reading_every_row(
    rows: list[tuple[str, ...]], short: bool
) -> None:
    lines = [",".join(_COLUMNS)]
    for row in rows:
        cells = [f'"{cell}"' for cell in row]
        # A row may leave its last (optional) cells out.
        lines.append(",".join(cells[:-2] if short and row[-1] == "" else cells))
    text = "\n".join(lines) + "\n"
    games, errors = _reference(text)
    if errors:
        assert _parsed(text) == ([], errors)
    else:
        assert _parsed(text) == (games, [])


def test_values_read_before_are_still_checked_together() -> None:
    """Each of the last two rows has only values read before in good rows."""
    text = (
        "date,white,black,result,round\n2026-10-01,A,B,1-0,1\n2026-10-01,a,B,0-1,x\n"
        "2026-10-01,a,B,0-1,2\n2026-10-01,A,a,1-0,1\n2026-10-01,A,B,1-0,x\n"
    )
    with pytest.raises(InterchangeError) as caught:
        parse_games_csv(text)
    assert [(e.line, e.message) for e in caught.value.errors] == [
        (3, "round 'x' is not a whole number"),
        (5, "'A' cannot play themselves"),
        (6, "round 'x' is not a whole number"),
    ]
