"""An import's warnings and errors name the line they are about: a TRF's declared round
count (142, XXR) at its line, a tournament's refused dates at the TRF's 042 / 052 / 132
line or at the PGN or CSV game that gave the date; and games dated after tomorrow or
before 1900 are refused, naming the date, with nothing stored (TRF and PGN; CSV in
test_import_streaming.py)."""

from __future__ import annotations

import datetime

import pytest

from tests.tournaments.import_world import ImportWorld, build_import_world, counts
from tournaments.interchange import parse_trf
from tournaments.services.imports import ImportReport, import_csv, import_pgn, import_trf

pytestmark = pytest.mark.django_db

# Far enough on that it stays after tomorrow for as long as these tests live.
FUTURE = datetime.date(2099, 1, 2)


@pytest.fixture
def world() -> ImportWorld:
    return build_import_world()


def _player(number: int, name: str, blocks: list[str]) -> str:
    """A TRF16 001 line: the fields up to column 89, the round blocks from column 92."""
    head = (
        f"001 {number:>4} m    {name:<33} {1800:>4} ENG {400000 + number:>11} "
        f"{'1990/01/01':<10} {'0.0':>4} {number:>4}"
    )
    return f"{head}  {'  '.join(blocks)}".rstrip()


# Two rounds: Able beats Baker with white, then loses to him with black.
PLAYERS = [
    _player(1, "Able, Ann", ["   2 w 1", "   2 b 0"]),
    _player(2, "Baker, Bob", ["   1 b 0", "   1 w 1"]),
]


def _trf(*headers: str) -> bytes:
    return ("\n".join(["012 Lines Open", *headers, *PLAYERS]) + "\n").encode()


def _round_dates(*days: str) -> str:
    """A 132 record: round r's date (YY/MM/DD) at columns 92 + 10 (r - 1)."""
    return "132" + " " * 88 + "  ".join(days)


def _errors(report: ImportReport) -> list[tuple[int, str]]:
    return [(e.line, e.message) for e in report.errors]


# -- the declared round count ---------------------------------------------------------------


@pytest.mark.parametrize("code", ["142", "XXR"])
@pytest.mark.parametrize("declared", ["1", "two"])
def test_a_declared_round_count_the_lines_contradict_is_warned_at_its_line(
    code: str, declared: str
) -> None:
    # Line 1 the name, 2 and 3 the dates, 4 the count; the lines show two rounds.
    data = _trf("042 2026/10/03", "052 2026/10/04", f"{code} {declared}")

    parsed = parse_trf(data)

    assert [(w.line, w.message) for w in parsed.warnings] == [
        (4, f"the file declares {declared!r} rounds; the lines show 2")
    ]
    assert parsed.rounds == 2
    # The headers kept on the tournament are the texts, as before.
    assert parsed.extra_headers == {code: (declared,)}


def test_the_declared_round_count_warning_reaches_the_report_at_its_line(
    world: ImportWorld,
) -> None:
    data = _trf("042 2026/10/03", "052 2026/10/04", "132", "142 1")

    report = import_trf(club=world.club, rating_list="standard", data=data, by=world.arbiter)

    assert report.errors == []
    assert (5, "the file declares '1' rounds; the lines show 2") in [
        (w.line, w.message) for w in report.warnings
    ]


# -- a tournament's dates refused -----------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "line", "why"),
    [
        # The start date (042, line 2) before 1900; the games are dated by it.
        (("042 1899/12/31", "052 1900/01/02"), 2, "start_date: 1899-12-31 is before 1900."),
        # The end date (052, line 3) after tomorrow.
        (("042 2026/10/03", "052 2099/01/02"), 3, "end_date: 2099-01-02 is after tomorrow"),
        # No 042/052: the dates come from the round dates (132, line 2).
        ((_round_dates("99/01/02", "99/01/03"),), 2, "start_date: 2099-01-02 is after tomorrow"),
    ],
)
def test_a_trf_whose_tournament_dates_are_refused_names_the_dates_line(
    world: ImportWorld, headers: tuple[str, ...], line: int, why: str
) -> None:
    before = counts()

    report = import_trf(
        club=world.club, rating_list="standard", data=_trf(*headers), by=world.arbiter
    )

    assert report.error_code == "invalid"
    ((at, message),) = _errors(report)
    assert at == line
    assert message.startswith(why)
    assert counts() == before


def _pgn(*games: tuple[str, str]) -> bytes:
    """Games of one event, each (date, black) against Able; 7 lines a game."""
    blocks = [
        f'[Event "Lines Cup"]\n[Date "{day}"]\n[White "Able, Ann"]\n[Black "{black}"]\n'
        '[Result "1-0"]\n\n1-0\n'
        for day, black in games
    ]
    return "\n".join(blocks).encode()


@pytest.mark.parametrize(
    ("dates", "line", "why"),
    [
        # The event starts with the second game (its block starts on line 9).
        (("1900.01.05", "1899.12.30"), 9, "start_date: 1899-12-30 is before 1900."),
        # It ends with the second game of three (line 9), not the last one (line 17).
        (("2026.01.05", "2099.01.02", "2026.01.06"), 9, "end_date: 2099-01-02 is after tomorrow"),
    ],
)
def test_a_pgn_events_refused_dates_name_the_game_that_gave_them(
    world: ImportWorld, dates: tuple[str, ...], line: int, why: str
) -> None:
    data = _pgn(*((day, f"Black, Number {index}") for index, day in enumerate(dates)))
    before = counts()

    report = import_pgn(club=world.club, rating_list="standard", data=data, by=world.arbiter)

    assert report.error_code == "invalid"
    ((at, message),) = _errors(report)
    assert at == line
    assert message.startswith(why)
    assert counts() == before


def test_a_csv_events_refused_date_names_the_game_that_gave_it(world: ImportWorld) -> None:
    data = (
        b"date,white,black,result,tournament\n"
        b"2026-01-05,Able,Baker,1-0,Ladder\n"
        b"1899-12-31,Able,Clark,1-0,Ladder\n"
        b"2026-01-06,Able,Dunn,0-1,Ladder\n"
    )
    before = counts()

    report = import_csv(club=world.club, rating_list="standard", data=data, by=world.arbiter)

    ((at, message),) = _errors(report)
    assert (at, message) == (3, "start_date: 1899-12-31 is before 1900.")
    assert counts() == before


# -- game dates out of bounds (TRF and PGN) -------------------------------------------------


def test_a_pgn_game_after_tomorrow_is_refused_naming_its_date(world: ImportWorld) -> None:
    # Without an event the game is no tournament's: the games service refuses its date.
    data = (
        b'[Date "2026.01.05"]\n[White "Able, Ann"]\n[Black "Baker, Bob"]\n[Result "1-0"]\n\n1-0\n'
        b'\n[Date "2099.01.02"]\n[White "Able, Ann"]\n[Black "Clark, Cy"]\n[Result "0-1"]\n\n0-1\n'
    )
    before = counts()

    report = import_pgn(club=world.club, rating_list="standard", data=data, by=world.arbiter)

    assert report.error_code == "invalid"
    ((at, message),) = _errors(report)
    assert at == 8
    assert message.startswith("[1].date: 2099-01-02 is after tomorrow")
    assert counts() == before


def test_a_pgn_game_before_1900_is_refused_naming_its_date(world: ImportWorld) -> None:
    data = (
        b'[Date "1899.12.31"]\n[White "Able, Ann"]\n[Black "Baker, Bob"]\n[Result "1-0"]\n\n1-0\n'
    )
    before = counts()

    report = import_pgn(club=world.club, rating_list="standard", data=data, by=world.arbiter)

    assert _errors(report) == [(1, "[0].date: 1899-12-31 is before 1900.")]
    assert counts() == before


def test_a_trf_round_after_tomorrow_is_refused_naming_its_date(world: ImportWorld) -> None:
    # The 052 date is the tournament's; a round dated after it (and after tomorrow) is the
    # players' lines' error, at the first player line playing in it.
    data = _trf("042 2026/10/03", "052 2026/10/04", _round_dates("26/10/03", "99/10/04"))
    before = counts()

    report = import_trf(club=world.club, rating_list="standard", data=data, by=world.arbiter)

    assert report.error_code == "invalid"
    ((at, message),) = _errors(report)
    assert at == 5
    assert "dated 2099-10-04" in message
    assert counts() == before
