"""The TRF16 writer: a parsed (or built) tournament back to a file every program reads."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from tournaments.interchange.records import GameResult, ParsedPlayer, ParsedTournament
from tournaments.interchange.text import one_line
from tournaments.interchange.trf.layout import FIRST_ROUND_COLUMN, WHITE_CODE_RESULT

_RESULT_CODES: dict[tuple[GameResult, bool], tuple[str, str]] = {
    (result, rated): codes for codes, (result, rated, _note) in WHITE_CODE_RESULT.items()
}
_POINTS = {"1": 2, "=": 1, "0": 0, "+": 2, "-": 0, "W": 2, "D": 1, "L": 0}
_BYE_POINTS = {"H": 1, "F": 2, "U": 2, "Z": 0}  # in half points


def write_trf(tournament: ParsedTournament) -> str:
    """The tournament as a TRF16 file, CR LF line ends (TRF's Remark 1 asks for the CR).

    Every player needs a start number and every game's players must be among them
    (:class:`ValueError` otherwise). A round in which a player has neither a game nor a bye
    is written as ``0000 - Z``. Points and rank are written as given, or computed (1 / 0.5 /
    0, byes H 0.5, F and U 1) and ranked by points then start number when absent. Besides
    TRF16's headers it writes the chief arbiter (102, from ``extra_headers``) and the
    number of rounds (142, TRF-2026; a TRF16 reader passes it by).
    """
    start_nos = [player.start_no for player in tournament.players]
    if any(number is None or not 1 <= number <= 9999 for number in start_nos):
        raise ValueError("every player needs a start number from 1 to 9999 to be written")
    blocks: dict[int, list[str]] = {
        number: ["0000 - Z"] * tournament.rounds for number in start_nos if number is not None
    }
    half_points: dict[int, int] = dict.fromkeys(blocks, 0)
    _place_games(tournament, blocks, half_points)
    _place_byes(tournament, blocks, half_points)
    ranked = sorted(blocks, key=lambda number: (-half_points[number], number))
    computed_rank = {number: place for place, number in enumerate(ranked, start=1)}
    out = _header_lines(tournament)
    for player in tournament.players:
        number = player.start_no
        assert number is not None  # checked above
        points = player.points if player.points is not None else Decimal(half_points[number]) / 2
        rank = player.rank if player.rank is not None else computed_rank[number]
        out.append(
            f"{_player_head(player, number, points, rank)}  {'  '.join(blocks[number])}".rstrip()
        )
    return "\r\n".join(out) + "\r\n"


def _place_games(
    tournament: ParsedTournament, blocks: dict[int, list[str]], half_points: dict[int, int]
) -> None:
    """Each game into both players' round blocks, its points to each."""
    rounds = tournament.rounds
    for game in tournament.games:
        white, black = game.white.start_no, game.black.start_no
        if white not in blocks or black not in blocks or game.round is None:
            raise ValueError(f"game on line {game.line} has players or a round not in the file")
        if not 1 <= game.round <= rounds:
            raise ValueError(f"game on line {game.line} is in round {game.round} of {rounds}")
        white_code, black_code = _RESULT_CODES[(GameResult(game.result), game.rated)]
        blocks[white][game.round - 1] = f"{black:>4} w {white_code}"
        blocks[black][game.round - 1] = f"{white:>4} b {black_code}"
        half_points[white] += _POINTS[white_code]
        half_points[black] += _POINTS[black_code]


def _place_byes(
    tournament: ParsedTournament, blocks: dict[int, list[str]], half_points: dict[int, int]
) -> None:
    """Each bye into its player's round block, its points to them."""
    for bye in tournament.byes:
        number = bye.player.start_no
        if number not in blocks or not 1 <= bye.round <= tournament.rounds:
            raise ValueError(f"bye on line {bye.line} has a player or round not in the file")
        blocks[number][bye.round - 1] = f"0000 - {bye.kind.value}"
        half_points[number] += _BYE_POINTS[bye.kind.value]


def _header_lines(tournament: ParsedTournament) -> list[str]:
    """The header records (012-142) and the round dates (132) when there are any."""
    # Free text goes through one_line: a line break in a name would start a record.
    out = [
        f"012 {one_line(tournament.name)}",
        f"022 {one_line(tournament.city)}",
        f"032 {one_line(tournament.federation)}",
        f"042 {_slashed(tournament.start_date)}",
        f"052 {_slashed(tournament.end_date)}",
        f"062 {len(tournament.players)}",
        f"072 {sum(1 for player in tournament.players if player.rating)}",
        f"092 {one_line(tournament.tournament_type)}",
        *(f"102 {one_line(arbiter)}" for arbiter in tournament.extra_headers.get("102", ())[:1]),
        f"122 {one_line(tournament.time_control)}",
        # TRF-2026's number of rounds; TRF16 readers take it as an unknown record.
        f"142 {tournament.rounds}",
    ]
    if any(tournament.round_dates):
        dates = "  ".join(
            day.strftime("%y/%m/%d") if day else " " * 8 for day in tournament.round_dates
        )
        out.append(f"{'132':<{FIRST_ROUND_COLUMN - 1}}{dates}")
    return out


def _player_head(player: ParsedPlayer, number: int, points: Decimal, rank: int) -> str:
    """A player line's columns before its round blocks."""
    birth = (
        player.birth_date.strftime("%Y/%m/%d")
        if player.birth_date
        else (f"{player.birth_year}/00/00" if player.birth_year else "")
    )
    return (
        f"001 {number:>4} {player.sex[:1] or ' '}{player.title[:3]:>3} "
        f"{one_line(player.name)[:33]:<33} "
        f"{player.rating or '':>4} {one_line(player.federation)[:3]:<3} "
        f"{player.fide_id or '':>11} "
        f"{birth:<10} {_points_text(points):>4} {rank:>4}"
    )


def _slashed(day: date | None) -> str:
    return day.strftime("%Y/%m/%d") if day else ""


def _points_text(points: Decimal) -> str:
    text = f"{points:.1f}"
    if len(text) > 4:
        raise ValueError(f"points {text} do not fit the four columns 81-84 of a TRF line")
    return text
