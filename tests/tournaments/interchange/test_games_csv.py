"""CSV of games: header detection, delimiters, BOM, result spellings, errors with lines."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from tournaments.interchange import GameResult, InterchangeError, parse_games_csv

FILES = Path(__file__).parent.parent / "files"


def test_good_file_semicolons_bom_crlf() -> None:
    parsed = parse_games_csv((FILES / "games_good.csv").read_bytes())
    rows = [
        (g.line, g.date, g.white.name, g.black.name, g.result, g.rated, g.note, g.round)
        for g in parsed.games
    ]
    assert rows == [
        (2, date(2026, 10, 1), "Adams, Peter", "Baker, Rose", GameResult.WHITE_WINS, True, "", 1),
        (3, date(2026, 10, 1), "Clark, Tom", "Davis, Sam", GameResult.DRAW, True, "", 1),
        (4, date(2026, 10, 8), "Baker, Rose", "Clark, Tom", GameResult.DRAW, True, "", 2),
        (
            5,
            date(2026, 10, 8),
            "Davis, Sam",
            "Adams, Peter",
            GameResult.WHITE_WINS_FORFEIT,
            False,
            "forfeit",
            2,
        ),
        (6, date(2026, 10, 15), "Adams, Peter", "Clark, Tom", GameResult.DRAW, True, "", 3),
        (
            7,
            date(2026, 10, 15),
            "Müller, Jörg",
            "Baker, Rose",
            GameResult.DOUBLE_FORFEIT,
            False,
            "double forfeit",
            3,
        ),
    ]
    assert {g.tournament for g in parsed.games} == {"October Ladder"}
    assert parsed.warnings == ()


def test_bad_rows_are_all_reported() -> None:
    with pytest.raises(InterchangeError) as caught:
        parse_games_csv((FILES / "games_bad.csv").read_bytes())
    assert [(e.line, e.message) for e in caught.value.errors] == [
        (3, "date '01/10/2026' is not a year-first date like 2026-10-03"),
        (4, "result '2-0' is not one of 1-0, 0-1, 1/2-1/2, ½-½, 0.5-0.5, +-, -+, --"),
        (5, "round 'two' is not a whole number"),
    ]


def test_missing_column() -> None:
    with pytest.raises(InterchangeError) as caught:
        parse_games_csv((FILES / "games_missing_column.csv").read_bytes())
    assert [(e.line, e.message) for e in caught.value.errors] == [
        (1, "missing column(s) result; the header row needs date, white, black, result")
    ]


def test_optional_columns_any_case_and_unknown_columns_warn() -> None:
    text = (
        "Result,DATE,Black,White,White FIDE ID,black_rating,Notes\n"
        '0-1,2026/10/02,"Baker, Rose","Adams, Peter",400500,1850,good game\n'
    )
    parsed = parse_games_csv(text)
    [game] = parsed.games
    assert (game.white.name, game.white.fide_id, game.black.rating, game.date) == (
        "Adams, Peter",
        400500,
        1850,
        date(2026, 10, 2),
    )
    assert (game.result, game.round, game.tournament) == (GameResult.BLACK_WINS, None, "")
    assert [(w.line, w.message) for w in parsed.warnings] == [(1, "column 'Notes' is not used")]


def test_quoted_cell_spanning_lines_keeps_the_starting_line() -> None:
    text = 'date,white,black,result\n2026-10-01,"Adams,\nPeter",B,1-0\n2026-10-01,C,D,x\n'
    with pytest.raises(InterchangeError) as caught:
        parse_games_csv(text)
    assert [(e.line, e.message) for e in caught.value.errors] == [
        (4, "result 'x' is not one of 1-0, 0-1, 1/2-1/2, ½-½, 0.5-0.5, +-, -+, --")
    ]


def test_not_utf8_is_an_error_with_its_line() -> None:
    data = "date,white,black,result\n2026-10-01,Müller,B,1-0\n".encode("cp1252")
    with pytest.raises(InterchangeError) as caught:
        parse_games_csv(data)
    assert [(e.line, e.message) for e in caught.value.errors] == [
        (2, "the file is not UTF-8 text; save it as UTF-8 (CSV UTF-8)")
    ]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("2026-10-01,A,A,1-0", "'A' cannot play themselves"),
        ("2026-10-01,,B,1-0", "white and black need a player name"),
        ("2026-02-30,A,B,1-0", "date '2026-02-30' is not a year-first date like 2026-10-03"),
        ("2026-10-01,A,B,1-0,extra", "5 cells but the header names 4 columns"),
    ],
)
def test_row_errors(row: str, message: str) -> None:
    with pytest.raises(InterchangeError) as caught:
        parse_games_csv(f"date,white,black,result\n{row}\n")
    assert [(e.line, e.message) for e in caught.value.errors] == [(2, message)]


def test_empty_and_header_only() -> None:
    with pytest.raises(InterchangeError, match="the first row must name the columns"):
        parse_games_csv(b"")
    with pytest.raises(InterchangeError, match="a header row but no games"):
        parse_games_csv("date,white,black,result\n")
