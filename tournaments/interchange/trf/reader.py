"""The TRF reader: a whole file, both sides of every game checked against each other."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy

from tournaments.interchange.records import (
    ByeKind,
    ParsedBye,
    ParsedGame,
    ParsedPlayer,
    ParsedTournament,
    ParseWarning,
    ProgressCallback,
)
from tournaments.interchange.source import (
    ErrorCollector,
    Shared,
    Source,
    open_text,
    progress_ticker,
)
from tournaments.interchange.table import RecordTable
from tournaments.interchange.trf.layout import (
    HEADER_CODES,
    NO_ROUND,
    WHITE_CODE_RESULT,
    RoundEntry,
)
from tournaments.interchange.trf.lines import header_date, parse_player_line, read_round_dates

_EXTRA_CODE = re.compile(r"[0-9]{3}|[A-Z]{2}[A-Z0-9]")


def parse_trf(source: Source, *, progress: ProgressCallback | None = None) -> ParsedTournament:
    """Read a TRF16 or TRF-2026 file.

    Returns the tournament with each game once (from the lower start number's line) and
    every bye; raises :class:`~tournaments.interchange.records.InterchangeError` listing
    every malformed line and every contradiction between two players' lines.
    ``progress`` is called with the number of lines read so far.
    """
    warnings: list[ParseWarning] = []
    errors = ErrorCollector()
    with open_text(source, legacy_fallback=True, warnings=warnings, newline=None) as text:
        records = _read_records(text, errors, warnings, progress)
    headers, players = records.headers, records.players
    start_date = header_date(headers.get("042"), errors)
    end_date = header_date(headers.get("052"), errors)
    if start_date and end_date and end_date < start_date:
        errors.add(headers["052"][0], f"end date {end_date} is before start date {start_date}")
    round_dates = read_round_dates(records.round_dates_line, errors)
    if not players:
        errors.add(0, "the file has no player lines (001)")
    # Lines with errors were left out, so pairing them up now would only add noise.
    errors.raise_if_any()

    rounds = _rounds(records, len(round_dates), warnings)
    _check_player_count(headers.get("062"), len(players), warnings, errors)
    _check_round_dates(round_dates, start_date, end_date, records.round_dates_line, warnings)
    round_dates = round_dates + (None,) * (rounds - len(round_dates))

    name = headers.get("012", (0, ""))[1]
    time_control = headers.get("122", (0, ""))[1]
    games, byes = _pair_up(
        players, records.rounds_of, rounds, round_dates, name, time_control, errors, warnings
    )
    errors.raise_if_any()
    return ParsedTournament(
        name=name,
        city=headers.get("022", (0, ""))[1],
        federation=headers.get("032", (0, ""))[1],
        start_date=start_date,
        end_date=end_date,
        rounds=rounds,
        round_dates=round_dates,
        players=tuple(players.values()),
        games=games,
        byes=tuple(byes),
        warnings=tuple(warnings),
        tournament_type=headers.get("092", (0, ""))[1],
        time_control=time_control,
        extra_headers={
            code: tuple(text for _line, text in values) for code, values in records.extra.items()
        },
        round_dates_line=records.round_dates_line[0] if records.round_dates_line else 0,
        start_date_line=headers.get("042", (0, ""))[0],
        end_date_line=headers.get("052", (0, ""))[0],
    )


@dataclass(frozen=True)
class _Records:
    """A file's records as read, line by line, before the two sides of games are paired."""

    #: code -> (line, text) of the first 012-122 header of each code
    headers: dict[str, tuple[int, str]]
    #: other codes (TRF26's, programs' XX? extensions) -> (line, text) in file order; the
    #: line for the warnings about them (142's round count)
    extra: dict[str, list[tuple[int, str]]]
    round_dates_line: tuple[int, str] | None
    players: dict[int, ParsedPlayer]
    rounds_of: dict[int, list[RoundEntry]]


def _read_records(
    text: Iterable[str],
    errors: ErrorCollector,
    warnings: list[ParseWarning],
    progress: ProgressCallback | None,
) -> _Records:
    tick = progress_ticker(progress)
    headers: dict[str, tuple[int, str]] = {}
    extra: dict[str, list[tuple[int, str]]] = defaultdict(list)
    round_dates_line: tuple[int, str] | None = None
    players: dict[int, ParsedPlayer] = {}
    rounds_of: dict[int, list[RoundEntry]] = {}
    shared = Shared()
    line_no = 0
    # Line by line from the stream: the file is never held whole.
    for line_no, raw in enumerate(text, start=1):
        tick(line_no)
        line = raw.rstrip()
        if not line or line.startswith("###"):
            continue
        code = line[:3]
        if code != "001" and code not in HEADER_CODES and not _EXTRA_CODE.fullmatch(code):
            errors.add(
                line_no,
                "not a TRF record: a line starts with a record code such as 001 or 012",
            )
            continue
        if len(line) > 3 and line[3] != " ":
            errors.add(line_no, f"column 4 must be blank after the record code {code!r}")
            continue
        if code == "001":
            parsed = parse_player_line(line, line_no, errors, warnings)
            if parsed is None:
                continue
            player, entries = parsed
            # A 99-round file of 9,999 players has a million round entries but few distinct
            # ones: one tuple each keeps the largest TRF's parse small.
            entries = shared.each(entries)
            assert player.start_no is not None  # parse_player_line guarantees it
            if player.start_no in players:
                first = players[player.start_no].line
                errors.add(
                    line_no,
                    f"start number {player.start_no} is used twice (first on line {first})",
                    first,
                )
                continue
            players[player.start_no] = player
            rounds_of[player.start_no] = entries
        elif code in HEADER_CODES:
            if code == "132":
                round_dates_line = (line_no, line)
            elif code in headers:
                warnings.append(
                    ParseWarning(line_no, f"header {code} repeated; line {headers[code][0]} used")
                )
            else:
                headers[code] = (line_no, line[4:].strip())
        else:
            extra[code].append((line_no, line[4:].strip()))
    if progress is not None:
        progress(line_no)
    return _Records(headers, extra, round_dates_line, players, rounds_of)


def _rounds(records: _Records, dated: int, warnings: list[ParseWarning]) -> int:
    """The number of rounds: the longest line, the round dates, or the declared number."""
    rounds = max(len(entries) for entries in records.rounds_of.values())
    rounds = max(rounds, dated)
    # TRF26 142 (or JaVaFo's XXR) declares the rounds: a line may stop before the last ones.
    declared_rounds = records.extra.get("142") or records.extra.get("XXR")
    if declared_rounds:
        line_no, value = declared_rounds[0]
        if value.isdigit() and int(value) >= rounds:
            rounds = int(value)
        else:
            warnings.append(
                ParseWarning(
                    line_no, f"the file declares {value!r} rounds; the lines show {rounds}"
                )
            )
    return rounds


# The order in which _pair_up gives a game's fields to the table.
#: Games handed to the table at a time (after a player's line, at least this many).
_BATCH = 4096

_GAME_FIELDS = (
    *("round", "date", "white", "black", "result", "rated", "note"),
    *("tournament", "time_control", "other_line", "site"),
)


def _paired_at_once(
    players: dict[int, ParsedPlayer],
    rounds_of: dict[int, list[RoundEntry]],
    rounds: int,
    round_dates: tuple[date | None, ...],
    tournament: str,
    time_control: str,
    warnings: list[ParseWarning],
) -> tuple[RecordTable[ParsedGame], list[ParsedBye]] | None:
    """:func:`_pair_up` on whole arrays (a player by a round), for a file whose every
    game side agrees with its opponent's: ``None`` when any does not, and the loop then
    finds and names each. Same games and byes in the same order (player by player, round
    by round): the loop's checks, a game side at a time, were a third of a 25-round
    8,000-player file's parse."""
    starts = list(players)
    if not starts or rounds == 0 or min(starts) < 1:
        return None
    # Each distinct round entry once, told apart by identity (the lines share them): its
    # opponent, colour and code.
    by_id = {id(NO_ROUND): NO_ROUND}
    for entries in rounds_of.values():
        by_id.update(zip(map(id, entries), entries, strict=True))
    index_of = {key: index for index, key in enumerate(by_id)}
    matrix = numpy.zeros((len(starts), rounds), dtype=numpy.int32)
    for row, start_no in enumerate(starts):
        entries = rounds_of[start_no]
        if entries:
            matrix[row, : len(entries)] = list(map(index_of.__getitem__, map(id, entries)))
    entries_known = list(by_id.values())
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
    # Each (code, other code) pair the results table knows: its index there, else -1.
    outcomes = list(WHITE_CODE_RESULT.items())
    pair_index = numpy.full((len(codes), len(codes)), -1, dtype=numpy.int16)
    for index, ((white_code, black_code), _) in enumerate(outcomes):
        if white_code in codes and black_code in codes:
            pair_index[codes.index(white_code), codes.index(black_code)] = index
    code, other_code = code_of[matrix], code_of[other_entry]
    if bool(((pair_index[code, other_code] < 0) & ~bye).any()):
        return None
    # Byes, in the loop's order (a warning for a second U in a round).
    byes: list[ParsedBye] = []
    refs = {start_no: player.ref() for start_no, player in players.items()}
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
    # Games, from the lower start number's line: White by colour, else the lower number.
    rows, indices = (
        found.astype(numpy.int32) for found in numpy.nonzero(~bye & (start[:, None] < opponent))
    )
    first = start[rows]
    second = opponent[rows, indices]
    black_first = colour[rows, indices] == 2
    white = numpy.where(black_first, second, first)
    black = numpy.where(black_first, first, second)
    mine, theirs = code[rows, indices], other_code[rows, indices]
    outcome = pair_index[
        numpy.where(black_first, theirs, mine), numpy.where(black_first, mine, theirs)
    ]
    if bool((outcome < 0).any()):
        return None
    # The arrays of a player by a round go before the table's columns are made (the
    # largest TRF's are a few megabytes each).
    del matrix, opponent, other, other_entry, colour, other_colour, code, other_code, clash
    del bye, mine, theirs, black_first, first
    lines_of = numpy.array([player.line for player in players.values()], dtype=numpy.int64)
    # The table straight from these columns (each field: indices into its distinct values).
    columns: dict[str, numpy.ndarray[Any, Any]] = {}
    values: dict[str, list[Any]] = {}

    def distinct(name: str, codes: numpy.ndarray[Any, Any], of: Sequence[Any]) -> None:
        # ``of[code]`` for each code, as indices into the distinct values of ``of``.
        seen: dict[Any, int] = {}
        index = numpy.array([seen.setdefault(value, len(seen)) for value in of], dtype=numpy.int32)
        columns[name] = index[codes] if len(of) else codes.astype(numpy.int32)
        values[name] = list(seen)

    distinct("round", indices, range(1, rounds + 1))
    distinct("date", indices, round_dates[:rounds])
    for name, side in (("white", white), ("black", black)):
        columns[name] = position[side].astype(numpy.int32)
        values[name] = [refs[start_no] for start_no in starts]
    for field, name in enumerate(("result", "rated", "note")):
        distinct(name, outcome, [value[field] for _, value in outcomes])
    # A TRF's place is its tournament's (022), not each game's.
    for name, value in (("tournament", tournament), ("time_control", time_control), ("site", "")):
        columns[name] = numpy.zeros(len(rows), dtype=numpy.int32)
        values[name] = [value]
    columns["other_line"] = position[second].astype(numpy.int32)
    values["other_line"] = lines_of.tolist()
    games: RecordTable[ParsedGame] = RecordTable.from_columns(
        ParsedGame, lines=lines_of[rows], columns=columns, values=values
    )
    return games, byes


def _pair_up(
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
    # Over 80 lines on purpose: one loop over every player's every round (a million game
    # sides in the largest TRF), each check inline in the order its error names it; split
    # into helpers it would make a call per game side in the parse's hottest loop.
    # One reference object per start number (``refs``): told apart by identity, cheaper
    # than hashing the reference for each of a million games.
    at_once = _paired_at_once(
        players, rounds_of, rounds, round_dates, tournament, time_control, warnings
    )
    if at_once is not None:
        return at_once
    games: RecordTable[ParsedGame] = RecordTable(ParsedGame, by_identity=("white", "black"))
    # A game's fields in ParsedGame's order, given to the table without making the record.
    assert games.fields == _GAME_FIELDS
    # The games go to the table a batch at a time (RecordTable.extend_fields).
    lines: list[int] = []
    rows: list[tuple[Any, ...]] = []
    byes: list[ParsedBye] = []
    refs = {start_no: player.ref() for start_no, player in players.items()}
    numbers = f"{min(players)}-{max(players)}"
    pab_line: dict[int, int] = {}
    for start_no, player in players.items():
        entries = rounds_of[start_no]
        line = player.line
        for index in range(rounds):
            opponent, colour, code = entries[index] if index < len(entries) else NO_ROUND
            round_no = index + 1
            if opponent == 0:
                _check_pab(code, round_no, line, pab_line, warnings)
                byes.append(
                    ParsedBye(round_no, refs[start_no], ByeKind(code), round_dates[index], line)
                )
                continue
            other = players.get(opponent)
            if other is None or opponent == start_no:
                errors.add(line, _unknown_opponent(round_no, start_no, opponent, numbers))
                continue
            other_entries = rounds_of[opponent]
            other_opponent, other_colour, other_code = (
                other_entries[index] if index < len(other_entries) else NO_ROUND
            )
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
                    tournament,
                    time_control,
                    other.line,
                    "",
                )
            )
        if len(rows) >= _BATCH:
            games.extend_fields(lines, rows)
            lines, rows = [], []
    games.extend_fields(lines, rows)
    return games, byes


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


def _check_player_count(
    header: tuple[int, str] | None,
    found: int,
    warnings: list[ParseWarning],
    errors: ErrorCollector,
) -> None:
    if header is None or not header[1]:
        return
    line_no, text = header
    if not text.isdigit():
        errors.add(line_no, f"number of players (062) {text!r} is not a number")
    elif int(text) != found:
        warnings.append(
            ParseWarning(line_no, f"header 062 says {int(text)} players; the file has {found}")
        )


def _check_round_dates(
    round_dates: tuple[date | None, ...],
    start: date | None,
    end: date | None,
    header: tuple[int, str] | None,
    warnings: list[ParseWarning],
) -> None:
    if header is None or start is None or end is None:
        return
    for round_no, day in enumerate(round_dates, start=1):
        if day is not None and not start <= day <= end:
            warnings.append(
                ParseWarning(header[0], f"round {round_no} date {day} is outside {start} to {end}")
            )
