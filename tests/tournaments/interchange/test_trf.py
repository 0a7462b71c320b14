"""The TRF reader and writer against hand-made files shaped like real pairing-program output."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from tournaments.interchange import (
    ByeKind,
    GameResult,
    InterchangeError,
    ParsedTournament,
    parse_trf,
    write_trf,
)

FILES = Path(__file__).parent.parent / "files"


def _read(name: str) -> bytes:
    return (FILES / name).read_bytes()


def _player(number: int, name: str, blocks: list[str], rating: int = 1800) -> str:
    """A 001 line in TRF16 columns (used for small inline cases)."""
    head = (
        f"001 {number:>4} m    {name:<33} {rating:>4} ENG {400000 + number:>11} "
        f"{'1990/01/01':<10} {'0.0':>4} {number:>4}"
    )
    return f"{head}  {'  '.join(blocks)}".rstrip()


def _games(tournament: ParsedTournament) -> set[tuple[object, ...]]:
    return {
        (g.round, g.date, g.white.start_no, g.black.start_no, g.result, g.rated, g.note)
        for g in tournament.games
    }


@pytest.fixture(scope="module")
def swiss() -> ParsedTournament:
    return parse_trf(_read("swiss_9_rounds.trf"))


def test_swiss_header(swiss: ParsedTournament) -> None:
    assert swiss.name == "Riverton Autumn Open 2026"
    assert swiss.city == "Riverton"
    assert swiss.federation == "ENG"
    assert (swiss.start_date, swiss.end_date) == (date(2026, 10, 3), date(2026, 11, 28))
    assert swiss.rounds == 9
    assert swiss.round_dates[0] == date(2026, 10, 3)
    assert swiss.round_dates[8] == date(2026, 11, 28)
    assert swiss.tournament_type == "Swiss Dutch"
    assert swiss.time_control == "90 min/40 moves + 30 min + 30 sec/move"
    assert swiss.extra_headers == {"102": ("IA Jane Arbiter",)}
    assert swiss.warnings == ()


def test_swiss_players(swiss: ParsedTournament) -> None:
    assert [p.start_no for p in swiss.players] == list(range(1, 13))
    petrov = swiss.players[0]
    assert (petrov.name, petrov.title, petrov.sex, petrov.federation) == (
        "Petrov, Ivan",
        "GM",
        "m",
        "RUS",
    )
    assert (petrov.rating, petrov.fide_id, petrov.birth_date) == (2580, 4100011, date(1985, 3, 14))
    assert (petrov.points, petrov.rank, petrov.line) == (Decimal("8.5"), 1, 12)
    nowak = swiss.players[2]
    assert (nowak.title, nowak.sex) == ("WGM", "w")
    rossi = swiss.players[4]  # "1979/00/00": only the year is known
    assert (rossi.birth_date, rossi.birth_year) == (None, 1979)
    novak = swiss.players[10]  # no FIDE ID, unrated, no birth date
    assert (novak.name, novak.fide_id, novak.rating, novak.birth_year) == (
        "Novak, Tomas",
        None,
        None,
        None,
    )


def test_swiss_each_game_once_from_the_lower_line(swiss: ParsedTournament) -> None:
    assert len(swiss.games) == 48  # 6+6+5+6+5+5+5+5+5 boards
    pairs = [(g.round, frozenset((g.white.start_no, g.black.start_no))) for g in swiss.games]
    assert len(set(pairs)) == len(pairs)
    first = next(g for g in swiss.games if g.round == 1 and g.white.start_no == 1)
    assert (first.black.start_no, first.result, first.rated, first.note) == (
        7,
        GameResult.WHITE_WINS,
        True,
        "",
    )
    assert (first.line, first.other_line, first.date) == (12, 18, date(2026, 10, 3))
    assert first.tournament == "Riverton Autumn Open 2026"
    assert first.white.fide_id == 4100011
    assert first.black.name == "Horvath, Bence"


def test_swiss_colours_follow_the_lines(swiss: ParsedTournament) -> None:
    # Round 1: "8 b 1" on Schmidt's line means Kowalski had White and lost.
    game = next(
        g for g in swiss.games if g.round == 1 and 2 in (g.white.start_no, g.black.start_no)
    )
    assert (game.white.start_no, game.black.start_no, game.result) == (8, 2, GameResult.BLACK_WINS)
    draw = next(g for g in swiss.games if g.round == 2 and g.white.start_no == 4)
    assert (draw.black.start_no, draw.result) == (3, GameResult.DRAW)


def test_swiss_unplayed_games_are_recorded_not_rated(swiss: ParsedTournament) -> None:
    unrated = {
        (g.round, g.white.start_no, g.black.start_no, g.result, g.note)
        for g in swiss.games
        if not g.rated
    }
    assert unrated == {
        (2, 11, 8, GameResult.WHITE_WINS_FORFEIT, "forfeit"),
        (3, 10, 7, GameResult.BLACK_WINS, "less than one move"),
        (4, 11, 12, GameResult.DRAW, "less than one move"),
        (7, 12, 8, GameResult.DOUBLE_FORFEIT, "double forfeit"),
        (8, 8, 1, GameResult.BLACK_WINS_FORFEIT, "forfeit"),
    }


def test_swiss_byes_and_withdrawal(swiss: ParsedTournament) -> None:
    byes = {(b.round, b.player.start_no, b.kind) for b in swiss.byes}
    assert byes == {
        (3, 8, ByeKind.HALF_POINT),
        (3, 11, ByeKind.ZERO_POINT),  # a blank block in the middle of the line
        (5, 11, ByeKind.PAIRING_ALLOCATED),
        (5, 7, ByeKind.FULL_POINT),
        (6, 5, ByeKind.PAIRING_ALLOCATED),
        (7, 10, ByeKind.PAIRING_ALLOCATED),
        (8, 12, ByeKind.HALF_POINT),
        (9, 7, ByeKind.PAIRING_ALLOCATED),
        # Smith withdrew after round 5: his line simply ends.
        (6, 9, ByeKind.ZERO_POINT),
        (7, 9, ByeKind.ZERO_POINT),
        (8, 9, ByeKind.ZERO_POINT),
        (9, 9, ByeKind.ZERO_POINT),
    }
    smith_games = [g for g in swiss.games if 9 in (g.white.start_no, g.black.start_no)]
    assert max(g.round or 0 for g in smith_games) == 5
    half_bye = next(b for b in swiss.byes if b.player.start_no == 8)
    assert (half_bye.date, half_bye.line, half_bye.player.name) == (
        date(2026, 10, 17),
        19,
        "Kowalski, Jan",
    )


def test_round_robin_trf26() -> None:
    rr = parse_trf(_read("round_robin_trf26.trf"))
    assert (rr.name, rr.rounds, len(rr.players), len(rr.byes)) == (
        "Nordic Club Masters 2026",
        5,
        6,
        0,
    )
    assert len(rr.games) == 15
    pairs = {frozenset((g.white.start_no, g.black.start_no)) for g in rr.games}
    assert len(pairs) == 15  # everyone met everyone once
    assert all(g.rated for g in rr.games)
    assert rr.extra_headers["192"] == ("FIDE_ROUNDROBIN",)
    assert rr.extra_headers["142"] == ("5",)
    assert rr.extra_headers["222"] == ("5400+30",)
    assert rr.round_dates == (
        date(2026, 10, 16),
        date(2026, 10, 16),
        date(2026, 10, 17),
        date(2026, 10, 17),
        date(2026, 10, 18),
    )
    last = next(g for g in rr.games if g.round == 5 and g.white.start_no == 5)
    assert (last.black.start_no, last.result, last.date) == (
        1,
        GameResult.BLACK_WINS,
        date(2026, 10, 18),
    )
    lindqvist = rr.players[1]
    assert (lindqvist.title, lindqvist.sex, lindqvist.rating) == ("WIM", "w", 2215)


def test_contradiction_names_both_lines() -> None:
    with pytest.raises(InterchangeError) as caught:
        parse_trf(_read("trf_contradiction.trf"))
    [error] = caught.value.errors
    assert (error.line, error.other_line) == (9, 10)
    assert error.message == "round 2: results disagree: 3 has '1', 4 has '1' on line 10"


def test_broken_file_reports_every_bad_line() -> None:
    with pytest.raises(InterchangeError) as caught:
        parse_trf(_read("trf_broken.trf"))
    found = [(e.line, e.message) for e in caught.value.errors]
    assert found == [
        (4, "date '2026/13/45' is not YYYY/MM/DD"),
        (8, "column 53 must be blank: a field is shifted out of its columns"),
        (10, "round 2 (columns 102-109): unknown result code 'X'"),
    ]


def test_opponent_out_of_range() -> None:
    with pytest.raises(InterchangeError) as caught:
        parse_trf(_read("trf_bad_opponent.trf"))
    messages = {(e.line, e.message) for e in caught.value.errors}
    assert (10, "round 1: opponent 15 is not a start number in this file (1-4)") in messages
    # Baker's line still says she played Davis, which Davis's line no longer confirms.
    assert (8, "round 1: this line pairs 2 with 4, but line 10 pairs 4 with 15") in messages


@pytest.mark.parametrize(
    ("blocks_1", "blocks_2", "expected"),
    [
        (
            ["   2 w 1"],
            ["   1 w 0"],
            "round 1: colours of 1 (w) and 2 (w, line 3) are not opposite",
        ),
        (
            ["   2 w 1"],
            ["0000 - H"],
            "round 1: this line pairs 1 with 2, but line 3 gives 2 no opponent (H)",
        ),
        (["   2 w +"], ["   1 b +"], "round 1: results disagree: 1 has '+', 2 has '+' on line 3"),
        (["   2 w W"], ["   1 b 0"], "round 1: results disagree: 1 has 'W', 2 has '0' on line 3"),
    ],
)
def test_lines_that_disagree(blocks_1: list[str], blocks_2: list[str], expected: str) -> None:
    text = "\n".join(["012 Test", _player(1, "One, A", blocks_1), _player(2, "Two, B", blocks_2)])
    with pytest.raises(InterchangeError) as caught:
        parse_trf(text)
    assert caught.value.errors[0].message == expected


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        ("0000 w H", "round 1 (columns 92-99): a bye (H) has no colour, found 'w'"),
        ("   2 w  ", "round 1 (columns 92-99): paired with 2 but no result (round not finished?)"),
        ("   2 w H", "round 1 (columns 92-99): a bye (H) cannot have an opponent (2)"),
        ("0000 - 1", "round 1 (columns 92-99): result '1' needs an opponent"),
        ("   2 - 1", "round 1 (columns 92-99): a played game needs a colour, w or b"),
        ("  x2 w 1", "round 1 (columns 92-99): opponent 'x2' is not a start number"),
        ("   2 q 1", "round 1 (columns 92-99): colour 'q' is not w, b or -"),
        ("   2 w 1x", "round 1 (columns 92-99): '   2 w 1x' is not 'NNNN c r' in its columns"),
    ],
)
def test_malformed_round_blocks(block: str, expected: str) -> None:
    text = "\n".join(
        ["012 Test", _player(1, "One, A", [block]), _player(2, "Two, B", ["   1 b 0"])]
    )
    with pytest.raises(InterchangeError) as caught:
        parse_trf(text)
    assert (caught.value.errors[0].line, caught.value.errors[0].message) == (2, expected)


def test_forfeit_without_colours_gives_white_to_the_lower_number() -> None:
    text = "\n".join([_player(1, "One, A", ["   2 - -"]), _player(2, "Two, B", ["   1 - +"])])
    [game] = parse_trf(text).games
    assert (game.white.start_no, game.result, game.rated) == (
        1,
        GameResult.BLACK_WINS_FORFEIT,
        False,
    )


def test_lowercase_codes_and_case_insensitive_letters() -> None:
    text = "\n".join([_player(1, "One, A", ["   2 W d"]), _player(2, "Two, B", ["   1 B D"])])
    [game] = parse_trf(text).games
    assert (game.result, game.rated, game.note) == (GameResult.DRAW, False, "less than one move")


def test_duplicate_start_number_and_unknown_record() -> None:
    text = "\n".join(
        [_player(1, "One, A", []), _player(1, "Again, B", []), "hello world", "XXR 9", "013 Team"]
    )
    with pytest.raises(InterchangeError) as caught:
        parse_trf(text)
    assert [(e.line, e.message, e.other_line) for e in caught.value.errors] == [
        (2, "start number 1 is used twice (first on line 1)", 1),
        (3, "not a TRF record: a line starts with a record code such as 001 or 012", None),
    ]


def test_extension_records_are_kept() -> None:
    text = "\n".join(["XXR 3", "XXC white1", "013 Team A", _player(1, "One, A", [])])
    parsed = parse_trf(text)
    assert parsed.extra_headers == {"XXR": ("3",), "XXC": ("white1",), "013": ("Team A",)}
    # XXR declares three rounds; a line without round blocks is absent (Z) in all of them.
    assert parsed.rounds == 3
    assert [(b.round, b.kind) for b in parsed.byes] == [
        (1, ByeKind.ZERO_POINT),
        (2, ByeKind.ZERO_POINT),
        (3, ByeKind.ZERO_POINT),
    ]


def test_windows_1252_file_is_read_with_a_warning() -> None:
    text = "\n".join(
        [
            "012 Café Open",
            _player(1, "Müller, Jörg", ["   2 w 1"]),
            _player(2, "Two, B", ["   1 b 0"]),
        ]
    )
    parsed = parse_trf(text.encode("cp1252"))
    assert parsed.name == "Café Open"
    assert parsed.players[0].name == "Müller, Jörg"
    assert [w.message for w in parsed.warnings] == [
        "the file is not UTF-8; read it as Windows-1252 (Western European)"
    ]


def test_header_count_mismatch_is_a_warning() -> None:
    text = "\n".join(
        ["062 5", _player(1, "One, A", ["   2 w 1"]), _player(2, "Two, B", ["   1 b 0"])]
    )
    parsed = parse_trf(text)
    assert [(w.line, w.message) for w in parsed.warnings] == [
        (1, "header 062 says 5 players; the file has 2")
    ]


def test_progress_is_reported_with_lines_read() -> None:
    calls: list[int] = []
    parse_trf(_read("swiss_9_rounds.trf"), progress=calls.append)
    assert calls == [23]  # 11 header lines + 12 players, reported once at the end


@pytest.mark.parametrize("name", ["swiss_9_rounds.trf", "round_robin_trf26.trf"])
def test_round_trip_recreates_the_same_games(name: str) -> None:
    original = parse_trf(_read(name))
    written = write_trf(original)
    assert written.count("\r\n") == len(written.splitlines())  # every line ends in CR LF
    again = parse_trf(written)
    assert _games(again) == _games(original)
    assert {(b.round, b.player.start_no, b.kind) for b in again.byes} == {
        (b.round, b.player.start_no, b.kind) for b in original.byes
    }
    assert [(p.start_no, p.name, p.fide_id, p.rating, p.birth_year) for p in again.players] == [
        (p.start_no, p.name, p.fide_id, p.rating, p.birth_year) for p in original.players
    ]
    assert (again.name, again.start_date, again.end_date, again.round_dates) == (
        original.name,
        original.start_date,
        original.end_date,
        original.round_dates,
    )


def test_writer_computes_points_and_rank_when_absent() -> None:
    parsed = parse_trf(_read("swiss_9_rounds.trf"))
    bare = ParsedTournament(
        name=parsed.name,
        city="",
        federation="",
        start_date=None,
        end_date=None,
        rounds=parsed.rounds,
        round_dates=(),
        players=tuple(replace(p, points=None, rank=None) for p in parsed.players),
        games=parsed.games,
        byes=parsed.byes,
        warnings=(),
    )
    again = parse_trf(write_trf(bare))
    # The file's own points (written by hand) match the writer's sum of results and byes.
    assert [p.points for p in again.players] == [p.points for p in parsed.players]
    assert [p.rank for p in again.players] == [p.rank for p in parsed.players]


def test_writer_refuses_a_player_without_start_number() -> None:
    parsed = parse_trf(_read("round_robin_trf26.trf"))
    broken = ParsedTournament(
        name="x",
        city="",
        federation="",
        start_date=None,
        end_date=None,
        rounds=1,
        round_dates=(),
        players=(replace(parsed.players[0], start_no=None),),
        games=(),
        byes=(),
        warnings=(),
    )
    with pytest.raises(ValueError, match="start number"):
        write_trf(broken)


def test_writer_lays_out_the_same_columns_as_the_hand_made_file() -> None:
    original = (FILES / "swiss_9_rounds.trf").read_text().splitlines()
    written = write_trf(parse_trf(_read("swiss_9_rounds.trf"))).splitlines()
    hand = [line for line in original if line.startswith("001")]
    ours = [line for line in written if line.startswith("001")]
    # Smith (9) withdrew and Novak (11) has a blank round: the writer spells those "0000 - Z".
    assert ours[8].endswith("  ".join(["0000 - Z"] * 4))
    assert ours[10][111:119] == "0000 - Z"  # round 3, columns 112-119
    assert [line for i, line in enumerate(ours) if i not in (8, 10)] == [
        line for i, line in enumerate(hand) if i not in (8, 10)
    ]
    assert next(line for line in written if line.startswith("132")) == next(
        line for line in original if line.startswith("132")
    )


def test_crlf_line_ends_read_the_same() -> None:
    plain = parse_trf(_read("swiss_9_rounds.trf"))
    crlf = parse_trf(_read("swiss_9_rounds.trf").replace(b"\n", b"\r\n"))
    assert _games(crlf) == _games(plain)
    assert crlf.players == plain.players


def _everything(tournament: ParsedTournament) -> tuple[object, ...]:
    """All a parse gives, in order: each game's every field and line, each bye, the
    warnings."""
    games = tournament.games
    return (
        [(g.line, *(getattr(g, name) for name in games.fields)) for g in games],  # type: ignore[attr-defined]
        [(b.round, b.player, b.kind, b.date, b.line) for b in tournament.byes],
        tournament.warnings,
    )


def _two_pab_file() -> bytes:
    """Five players: two pairing-allocated byes in round 1 (a warning), a forfeit without
    colours, a withdrawal (the line ends early), a half-point bye."""
    lines = [
        "012 Two byes",
        "042 2026/03/01",
        "052 2026/03/02",
        _player(1, "One", ["   3 w 1", "   2 w +", "0000 - H"]),
        _player(2, "Two", ["0000 - U", "   1 b -", "   3 b 0"]),
        _player(3, "Three", ["   1 b 0", "   4   +", "   2 w 1"]),
        _player(4, "Four", ["0000 - U", "   3   -"]),
        _player(5, "Five", ["0000 - Z", "0000 - F", "0000 - H"]),
    ]
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize(
    "data",
    [_read("swiss_9_rounds.trf"), _read("round_robin_trf26.trf"), _two_pab_file()],
    ids=["swiss", "round robin", "byes and forfeits"],
)
def test_pairing_on_whole_arrays_gives_what_the_loop_gives(
    data: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tournaments.interchange.trf import pairing

    whole_arrays = pairing._paired_at_once
    answered: list[bool] = []

    def watched(*args: object) -> object:
        result = whole_arrays(*args)  # type: ignore[arg-type]
        answered.append(result is not None)
        return result

    monkeypatch.setattr(pairing, "_paired_at_once", watched)
    at_once = parse_trf(data)
    assert answered == [True]  # the arrays paired this file, not the loop
    monkeypatch.setattr(pairing, "_paired_at_once", lambda *args: None)
    one_side_at_a_time = parse_trf(data)

    assert _everything(at_once) == _everything(one_side_at_a_time)
    assert len(at_once.games) > 0


def test_a_file_whose_sides_disagree_is_refused_as_the_loop_refuses_it() -> None:
    lines = [
        "012 Disagree",
        _player(1, "One", ["   2 w 1"]),
        _player(2, "Two", ["   1 w 0"]),  # both White
    ]
    with pytest.raises(InterchangeError) as refused:
        parse_trf(("\n".join(lines) + "\n").encode())
    assert "are not opposite" in str(refused.value)
