"""PGN headers read with python-chess: values, partial dates, unfinished games, line numbers."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from tournaments.interchange import GameResult, InterchangeError, PlayerRef, parse_pgn

FILES = Path(__file__).parent.parent / "files"


def test_good_file() -> None:
    parsed = parse_pgn((FILES / "games_good.pgn").read_bytes())
    assert len(parsed.games) == 3
    first, second, third = parsed.games
    assert first.white == PlayerRef(name="Adams, Peter", fide_id=400500, rating=1900)
    assert first.black == PlayerRef(name="Baker, Rose", fide_id=400510, rating=1850)
    assert (first.result, first.rated, first.date, first.round, first.line) == (
        GameResult.WHITE_WINS,
        True,
        date(2026, 10, 5),
        1,
        1,
    )
    assert (first.tournament, first.time_control) == ("Riverton Club Championship 2026", "5400+30")
    # "2026.10.??" falls back to the complete EventDate; BlackElo "-" means unrated.
    assert (second.date, second.line, second.result) == (date(2026, 10, 5), 16, GameResult.DRAW)
    assert (second.white.fide_id, second.black.rating) == (None, None)
    assert (third.round, third.result, third.line, third.time_control) == (
        2,
        GameResult.BLACK_WINS,
        30,
        "",
    )
    # The unfinished game ("*") is skipped and said so.
    assert parsed.skipped == 1
    assert [(w.line, w.message) for w in parsed.warnings] == [
        (16, "date '2026.10.??' is incomplete; used EventDate 2026-10-05"),
        (44, "Davis, Sam - Adams, Peter: result '*' (unfinished): skipped"),
    ]


def test_bad_file_reports_each_game_at_its_header_line() -> None:
    with pytest.raises(InterchangeError) as caught:
        parse_pgn((FILES / "games_bad.pgn").read_bytes())
    assert [(e.line, e.message) for e in caught.value.errors] == [
        (1, "result '2-0' is not 1-0, 0-1, 1/2-1/2 or *"),
        (10, "date '2026.10.??' is not a complete YYYY.MM.DD date"),
        (19, "the Black tag (player name) is missing"),
        (19, "WhiteElo '18x0' is not a number"),
    ]


def test_malformed_tag_is_reported_not_ignored() -> None:
    text = '[Event "X"]\n[Date "2026.10.01"]\n[White "A, B"]\n[Black C]\n[Result "1-0"]\n\n1-0\n'
    with pytest.raises(InterchangeError) as caught:
        parse_pgn(text)
    messages = [(e.line, e.message) for e in caught.value.errors]
    assert (4, 'malformed header tag: expected [Name "value"]') in messages
    assert (1, "the Black tag (player name) is missing") in messages


def test_round_text_that_is_not_a_number() -> None:
    text = '[Date "2026.10.01"]\n[Round "final"]\n[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1-0\n'
    with pytest.raises(InterchangeError) as caught:
        parse_pgn(text)
    assert [e.message for e in caught.value.errors] == [
        "round 'final' is not a number like 3 or 3.1"
    ]


def test_empty_file() -> None:
    with pytest.raises(InterchangeError) as caught:
        parse_pgn("")
    assert [e.message for e in caught.value.errors] == ["the file has no PGN games"]


def test_progress_reports_the_last_line() -> None:
    calls: list[int] = []
    parse_pgn((FILES / "games_good.pgn").read_bytes(), progress=calls.append)
    assert calls == [52]
