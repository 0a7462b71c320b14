"""A TRF's two sides of every game paired up: on whole arrays (a player by a round) when
every side agrees with its opponent's, else a player's line at a time, naming each
disagreement."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any, NamedTuple

import numpy

from tournaments.interchange.records import (
    ByeKind,
    ParsedBye,
    ParsedGame,
    ParsedPlayer,
    ParseWarning,
    PlayerRef,
)
from tournaments.interchange.source import ErrorCollector
from tournaments.interchange.table import RecordTable
from tournaments.interchange.trf.layout import NO_ROUND, WHITE_CODE_RESULT, RoundEntry

__all__ = ["pair_up"]

# The order in which pair_up gives a game's fields to the table.
#: Games handed to the table at a time (after a player's line, at least this many).
_BATCH = 4096

_GAME_FIELDS = (
    *("round", "date", "white", "black", "result", "rated", "note"),
    *("tournament", "time_control", "other_line", "site"),
)

Array = numpy.ndarray[Any, Any]


def pair_up(
    players: dict[int, ParsedPlayer],
    rounds_of: dict[int, list[RoundEntry]],
    rounds: int,
    round_dates: tuple[date | None, ...],
    tournament: str,
    time_control: str,
    errors: ErrorCollector,
    warnings: list[ParseWarning],
) -> tuple[RecordTable[ParsedGame], list[ParsedBye]]:
    """Match both sides of every game; each game is emitted once, byes for every other round."""
    at_once = _paired_at_once(
        players, rounds_of, rounds, round_dates, tournament, time_control, warnings
    )
    if at_once is not None:
        return at_once
    games: RecordTable[ParsedGame] = RecordTable(ParsedGame, by_identity=("white", "black"))
    # A game's fields in ParsedGame's order, given to the table without making the record.
    assert games.fields == _GAME_FIELDS
    pairing = _Pairing(
        players, rounds_of, rounds, round_dates, tournament, time_control, errors, warnings
    )
    for start_no, player in players.items():
        pairing.player(start_no, player)
        if len(pairing.rows) >= _BATCH:
            games.extend_fields(pairing.lines, pairing.rows)
            pairing.lines, pairing.rows = [], []
    games.extend_fields(pairing.lines, pairing.rows)
    return games, pairing.byes


class _Pairing:
    """The loop's pairing, a player's line at a time: every check in the order its error
    names it, a game side at a time (for a file the whole arrays could not pair)."""

    def __init__(
        self,
        players: dict[int, ParsedPlayer],
        rounds_of: dict[int, list[RoundEntry]],
        rounds: int,
        round_dates: tuple[date | None, ...],
        tournament: str,
        time_control: str,
        errors: ErrorCollector,
        warnings: list[ParseWarning],
    ) -> None:
        self.players, self.rounds = players, rounds
        # A line that stops before the last rounds has no entry in them: NO_ROUND's, so
        # that a round's entry is read without checking the line's length.
        self.rounds_of = {
            start_no: entries
            if len(entries) >= rounds
            else entries + [NO_ROUND] * (rounds - len(entries))
            for start_no, entries in rounds_of.items()
        }
        self.round_dates, self.tournament, self.time_control = round_dates, tournament, time_control
        self.errors, self.warnings = errors, warnings
        # One reference object per start number: told apart by identity, cheaper than
        # hashing the reference for each of a million games.
        self.refs = {start_no: player.ref() for start_no, player in players.items()}
        self.numbers = f"{min(players)}-{max(players)}"
        self.pab_line: dict[int, int] = {}
        # The games go to the table a batch at a time (RecordTable.extend_fields).
        self.lines: list[int] = []
        self.rows: list[tuple[Any, ...]] = []
        self.byes: list[ParsedBye] = []

    def player(self, start_no: int, player: ParsedPlayer) -> None:
        """The games and byes of a player's line; a game from the lower start number's."""
        # One loop over a player's every round, each check inline: split into helpers it
        # would make a call per game side.
        players, rounds_of, refs, round_dates = (
            self.players,
            self.rounds_of,
            self.refs,
            self.round_dates,
        )
        errors, lines, rows = self.errors, self.lines, self.rows
        entries = rounds_of[start_no]
        line = player.line
        for index in range(self.rounds):
            opponent, colour, code = entries[index]
            round_no = index + 1
            if opponent == 0:
                _check_pab(code, round_no, line, self.pab_line, self.warnings)
                self.byes.append(
                    ParsedBye(round_no, refs[start_no], ByeKind(code), round_dates[index], line)
                )
                continue
            other = players.get(opponent)
            if other is None or opponent == start_no:
                errors.add(line, _unknown_opponent(round_no, start_no, opponent, self.numbers))
                continue
            other_opponent, other_colour, other_code = rounds_of[opponent][index]
            if other_opponent != start_no:
                said = _other_side(opponent, other_opponent, other_code)
                why = f"this line pairs {start_no} with {opponent}, but line {other.line} {said}"
                errors.add(line, f"round {round_no}: {why}", other.line)
                continue
            if start_no > opponent:
                continue  # checked and emitted from the opponent's (lower) line
            if (colour and colour == other_colour) or bool(colour) != bool(other_colour):
                sides = f"{start_no} ({colour or '-'}) and {opponent} ({other_colour or '-'}"
                why = f"colours of {sides}, line {other.line}) are not opposite"
                errors.add(line, f"round {round_no}: {why}", other.line)
                continue
            # The table's keys are exactly the complementary pairs, in either order.
            if (code, other_code) not in WHITE_CODE_RESULT:
                why = f"results disagree: {start_no} has {code!r}, {opponent} has {other_code!r}"
                errors.add(line, f"round {round_no}: {why} on line {other.line}", other.line)
                continue
            if colour == "b":
                white, black, white_code, black_code = opponent, start_no, other_code, code
            else:
                # No colours (allowed for forfeits only): the lower start number takes White.
                white, black, white_code, black_code = start_no, opponent, code, other_code
            result, rated, note = WHITE_CODE_RESULT[(white_code, black_code)]
            lines.append(line)
            rows.append(
                (
                    round_no,
                    round_dates[index],
                    refs[white],
                    refs[black],
                    result,
                    rated,
                    note,
                    self.tournament,
                    self.time_control,
                    other.line,
                    "",
                )
            )


class _Agreed(NamedTuple):
    """A player by a round (``start`` by player): what both sides of each game agree on."""

    start: Array
    opponent: Array
    bye: Array
    #: a start number's row (-1: none)
    position: Array
    colour: Array
    code: Array
    other_code: Array
    #: (code, other code) -> the index of the pair in ``outcomes`` (-1: not a pair)
    pair_index: Array
    outcomes: list[tuple[tuple[str, str], tuple[Any, ...]]]


def _paired_at_once(
    players: dict[int, ParsedPlayer],
    rounds_of: dict[int, list[RoundEntry]],
    rounds: int,
    round_dates: tuple[date | None, ...],
    tournament: str,
    time_control: str,
    warnings: list[ParseWarning],
) -> tuple[RecordTable[ParsedGame], list[ParsedBye]] | None:
    """:func:`pair_up` on whole arrays (a player by a round), for a file whose every
    game side agrees with its opponent's: ``None`` when any does not, and the loop then
    finds and names each. Same games and byes in the same order (player by player, round
    by round): the loop's checks, a game side at a time, were a third of a 25-round
    8,000-player file's parse."""
    starts = list(players)
    if not starts or rounds == 0 or min(starts) < 1:
        return None
    matrix, entries_known = _entry_matrix(starts, rounds_of, rounds)
    agreed = _agreed(matrix, entries_known, starts, rounds)
    if agreed is None:
        return None
    refs = {start_no: player.ref() for start_no, player in players.items()}
    byes = _byes_at_once(
        players, starts, refs, matrix, agreed.bye, entries_known, round_dates, warnings
    )
    if byes is None:
        return None
    # The arrays of a player by a round go before the table's columns are made (the
    # largest TRF's are a few megabytes each): _game_sides keeps only the games'.
    del matrix
    sides = _game_sides(agreed)
    position, outcomes = agreed.position, agreed.outcomes
    del agreed
    if sides is None:
        return None
    games = _games_table(
        sides,
        position,
        outcomes,
        players,
        starts,
        refs,
        rounds,
        round_dates,
        tournament,
        time_control,
    )
    return games, byes


def _entry_matrix(
    starts: list[int], rounds_of: dict[int, list[RoundEntry]], rounds: int
) -> tuple[Array, list[RoundEntry]]:
    """Each distinct round entry once, told apart by identity (the lines share them), and
    a player by a round: the index of its entry (0: no entry, ``NO_ROUND``)."""
    by_id = {id(NO_ROUND): NO_ROUND}
    for entries in rounds_of.values():
        by_id.update(zip(map(id, entries), entries, strict=True))
    index_of = {key: index for index, key in enumerate(by_id)}
    matrix = numpy.zeros((len(starts), rounds), dtype=numpy.int32)
    for row, start_no in enumerate(starts):
        entries = rounds_of[start_no]
        if entries:
            matrix[row, : len(entries)] = list(map(index_of.__getitem__, map(id, entries)))
    return matrix, list(by_id.values())


def _agreed(
    matrix: Array, entries_known: list[RoundEntry], starts: list[int], rounds: int
) -> _Agreed | None:
    """What both sides of every game agree on (opponents that name each other back,
    opposite colours, complementary results), or None when any side does not."""
    # Each distinct entry's opponent, colour and code.
    opponent_of = numpy.array([entry[0] for entry in entries_known], dtype=numpy.int32)
    colours = ["", "w", "b"]
    colour_of = numpy.array([colours.index(entry[1]) for entry in entries_known], dtype=numpy.int8)
    codes = sorted({entry[2] for entry in entries_known})
    code_of = numpy.array([codes.index(entry[2]) for entry in entries_known], dtype=numpy.int16)
    opponent = opponent_of[matrix]
    bye = opponent == 0
    position = numpy.full(max(max(starts), int(opponent.max())) + 1, -1, dtype=numpy.int32)
    start = numpy.array(starts, dtype=numpy.int32)
    position[start] = numpy.arange(len(starts))
    other = position[opponent]
    if bool(((other < 0) & ~bye).any()) or bool((opponent == start[:, None]).any()):
        return None
    # The opponent's entry in the same round: it must name this player back.
    other_entry = matrix[other, numpy.arange(rounds)[None, :]]
    if bool(((opponent_of[other_entry] != start[:, None]) & ~bye).any()):
        return None
    colour, other_colour = colour_of[matrix], colour_of[other_entry]
    # The same colour on both sides, or a colour on one side only (two blank colours, a
    # forfeit's, are allowed).
    clash = ((colour == other_colour) & (colour != 0)) | ((colour == 0) != (other_colour == 0))
    if bool((clash & ~bye).any()):
        return None
    outcomes, pair_index = _pair_index(codes)
    code, other_code = code_of[matrix], code_of[other_entry]
    if bool(((pair_index[code, other_code] < 0) & ~bye).any()):
        return None
    return _Agreed(start, opponent, bye, position, colour, code, other_code, pair_index, outcomes)


def _pair_index(codes: list[str]) -> tuple[list[tuple[tuple[str, str], tuple[Any, ...]]], Array]:
    """The results table's entries, and each (code, other code) pair it knows: its index
    there, else -1."""
    outcomes = list(WHITE_CODE_RESULT.items())
    pair_index = numpy.full((len(codes), len(codes)), -1, dtype=numpy.int16)
    for index, ((white_code, black_code), _) in enumerate(outcomes):
        if white_code in codes and black_code in codes:
            pair_index[codes.index(white_code), codes.index(black_code)] = index
    return outcomes, pair_index


def _byes_at_once(
    players: dict[int, ParsedPlayer],
    starts: list[int],
    refs: dict[int, PlayerRef],
    matrix: Array,
    bye: Array,
    entries_known: list[RoundEntry],
    round_dates: tuple[date | None, ...],
    warnings: list[ParseWarning],
) -> list[ParsedBye] | None:
    """Byes, in the loop's order (a warning for a second U in a round); None for a code
    that is no bye's."""
    byes: list[ParsedBye] = []
    pab_line: dict[int, int] = {}
    try:
        kinds = {e: ByeKind(entries_known[e][2]) for e in numpy.unique(matrix[bye]).tolist()}
    except ValueError:
        return None
    for row, index in zip(*numpy.nonzero(bye), strict=True):
        row, index = int(row), int(index)
        line = players[starts[row]].line
        entry_code = entries_known[matrix[row, index]][2]
        _check_pab(entry_code, index + 1, line, pab_line, warnings)
        byes.append(
            ParsedBye(
                index + 1, refs[starts[row]], kinds[matrix[row, index]], round_dates[index], line
            )
        )
    return byes


class _GameSides(NamedTuple):
    """Each game once: its player row and round, White's and Black's start numbers, the
    lower number's opponent and the index of its result in the results table."""

    rows: Array
    indices: Array
    white: Array
    black: Array
    second: Array
    outcome: Array


def _game_sides(agreed: _Agreed) -> _GameSides | None:
    """Games, from the lower start number's line: White by colour, else the lower number."""
    start, opponent, code, other_code = (
        agreed.start,
        agreed.opponent,
        agreed.code,
        agreed.other_code,
    )
    rows, indices = (
        found.astype(numpy.int32)
        for found in numpy.nonzero(~agreed.bye & (start[:, None] < opponent))
    )
    first = start[rows]
    second = opponent[rows, indices]
    black_first = agreed.colour[rows, indices] == 2
    white = numpy.where(black_first, second, first)
    black = numpy.where(black_first, first, second)
    mine, theirs = code[rows, indices], other_code[rows, indices]
    outcome = agreed.pair_index[
        numpy.where(black_first, theirs, mine), numpy.where(black_first, mine, theirs)
    ]
    if bool((outcome < 0).any()):
        return None
    return _GameSides(rows, indices, white, black, second, outcome)


def _games_table(
    sides: _GameSides,
    position: Array,
    outcomes: list[tuple[tuple[str, str], tuple[Any, ...]]],
    players: dict[int, ParsedPlayer],
    starts: list[int],
    refs: dict[int, PlayerRef],
    rounds: int,
    round_dates: tuple[date | None, ...],
    tournament: str,
    time_control: str,
) -> RecordTable[ParsedGame]:
    """The games' table straight from their columns (each field: indices into its
    distinct values)."""
    lines_of = numpy.array([player.line for player in players.values()], dtype=numpy.int64)
    columns: dict[str, Array] = {}
    values: dict[str, list[Any]] = {}

    def distinct(name: str, codes: Array, of: Sequence[Any]) -> None:
        # ``of[code]`` for each code, as indices into the distinct values of ``of``.
        seen: dict[Any, int] = {}
        index = numpy.array([seen.setdefault(value, len(seen)) for value in of], dtype=numpy.int32)
        columns[name] = index[codes] if len(of) else codes.astype(numpy.int32)
        values[name] = list(seen)

    distinct("round", sides.indices, range(1, rounds + 1))
    distinct("date", sides.indices, round_dates[:rounds])
    for name, side in (("white", sides.white), ("black", sides.black)):
        columns[name] = position[side].astype(numpy.int32)
        values[name] = [refs[start_no] for start_no in starts]
    for field, name in enumerate(("result", "rated", "note")):
        distinct(name, sides.outcome, [value[field] for _, value in outcomes])
    # A TRF's place is its tournament's (022), not each game's.
    for name, value in (("tournament", tournament), ("time_control", time_control), ("site", "")):
        columns[name] = numpy.zeros(len(sides.rows), dtype=numpy.int32)
        values[name] = [value]
    columns["other_line"] = position[sides.second].astype(numpy.int32)
    values["other_line"] = lines_of.tolist()
    return RecordTable.from_columns(
        ParsedGame, lines=lines_of[sides.rows], columns=columns, values=values
    )


def _unknown_opponent(round_no: int, start_no: int, opponent: int, numbers: str) -> str:
    if opponent == start_no:
        return f"round {round_no}: opponent {opponent} is the player themselves"
    return f"round {round_no}: opponent {opponent} is not a start number in this file ({numbers})"


def _other_side(opponent: int, other_opponent: int, other_code: str) -> str:
    """What the opponent's line says instead of pairing them back."""
    if other_opponent:
        return f"pairs {opponent} with {other_opponent}"
    return f"gives {opponent} no opponent ({other_code})"


def _check_pab(
    code: str, round_no: int, line: int, pab_line: dict[int, int], warnings: list[ParseWarning]
) -> None:
    """A round has one pairing-allocated bye (U) at most; a second one is worth a warning."""
    if code != "U":
        return
    if round_no in pab_line:
        warnings.append(
            ParseWarning(
                line,
                f"round {round_no}: second pairing-allocated bye (U); "
                f"the first is on line {pab_line[round_no]}",
            )
        )
    pab_line.setdefault(round_no, line)
