"""FIDE Tournament Report File (TRF16 and TRF-2026): a strict reader and a TRF16 writer.

Source of the layout: FIDE Handbook C.04 Annex 2, "Format of TRF (Tournament Report File)",
TRF16 (C. Krause, Torino 2006; updated Tromso 13/08/2014; approved Elista 10/08/2015), and
its successor TRF26 (Handbook C.02.03 Annexure A, approved 12/05/2025), which keeps the
``001`` record and the ``012``-``132`` headers unchanged and adds records such as ``142``
(number of rounds), ``162``, ``192``, ``202``/``212``, ``222``, ``240``, ``250``, ``260``
and ``###`` comment lines. Columns are 1-based and inclusive, as in the FIDE documents.

Header records: columns 1-3 the code, free text from column 5.

====  ================================================================================
012   tournament name                    022  city
032   federation                         042  start date (TRF26: YYYY/MM/DD)
052   end date                           062  number of players (checked, warning)
072   number of rated players            092  type of tournament
122   allotted time per moves/game       132  round dates, YY/MM/DD, round r at
                                              columns 92+10(r-1) to 99+10(r-1)
====  ================================================================================

Player record ``001``:

=========  ======================================================================
1-3        ``001``
5-8        starting rank (start number), 1-9999
10         sex: ``m`` / ``w`` (``f`` read as ``w``)
11-13      title: GM, IM, WGM, FM, WIM, CM, WFM, WCM
15-47      name, "Lastname, Firstname"
49-52      FIDE rating (blank or 0: unrated)
54-56      FIDE federation
58-68      FIDE ID (11 columns, three of them reserve)
70-79      birth date YYYY/MM/DD (``YYYY`` or ``YYYY/00/00`` give the year only)
81-84      points, e.g. ``11.5``
86-89      rank
92-95      round 1: opponent's start number; ``0000`` or blank: no opponent
97         round 1: colour ``w`` / ``b``; ``-`` or blank: none
99         round 1: result code (below)
102-109    round 2 likewise (every round 10 columns further on), and so on
=========  ======================================================================

Result codes (letters case-insensitive): ``1`` ``=`` ``0`` played and rated; ``+`` ``-``
forfeit win / loss (recorded, not rated; ``-`` against ``-`` is a double forfeit);
``W`` ``D`` ``L`` the game lasted less than one move (recorded with its result, not rated);
``H`` ``F`` ``U`` ``Z`` half-point, full-point, pairing-allocated and zero-point byes;
blank means ``Z``. Byes are recorded as :class:`ParsedBye`, not games.

Strictness: the separating columns (4, 9, 14, 48, 53, 57, 69, 80, 85, 90-91 and the blanks
inside and between round blocks) must be blank, so a field shifted by one column is an
error, not a silently wrong number. Every game is described by both players' lines; the two
must name each other, have opposite colours and complementary results, or both lines are
reported. Unknown record codes of three digits or of the ``XX?``/``BB?`` extension form are
kept in :attr:`ParsedTournament.extra_headers`; anything else is an error.
"""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import date
from decimal import Decimal

from tournaments.interchange.records import (
    ByeKind,
    GameResult,
    ParsedBye,
    ParsedGame,
    ParsedPlayer,
    ParsedTournament,
    ParseWarning,
    ProgressCallback,
)
from tournaments.interchange.source import (
    ErrorCollector,
    decode_source,
    parse_iso_like_date,
    progress_ticker,
)

__all__ = ["TITLES", "parse_trf", "write_trf"]

TITLES = frozenset({"GM", "IM", "WGM", "FM", "WIM", "CM", "WFM", "WCM"})

_FIRST_ROUND_COLUMN = 92  # 1-based column of round 1's opponent number
_ROUND_WIDTH = 10

# 0-based indexes of the columns that separate the fixed fields of a 001 line.
_PLAYER_SEPARATORS = (3, 8, 13, 47, 52, 56, 68, 79, 84, 89, 90)

_BYE_CODES = frozenset("HFUZ")
_GAME_CODES = frozenset("10=+-WDL")
# A line's own code seen from White's side: the result, whether rated, and the note.
_WHITE_CODE_RESULT: dict[tuple[str, str], tuple[GameResult, bool, str]] = {
    ("1", "0"): (GameResult.WHITE_WINS, True, ""),
    ("0", "1"): (GameResult.BLACK_WINS, True, ""),
    ("=", "="): (GameResult.DRAW, True, ""),
    ("+", "-"): (GameResult.WHITE_WINS_FORFEIT, False, "forfeit"),
    ("-", "+"): (GameResult.BLACK_WINS_FORFEIT, False, "forfeit"),
    ("-", "-"): (GameResult.DOUBLE_FORFEIT, False, "double forfeit"),
    ("W", "L"): (GameResult.WHITE_WINS, False, "less than one move"),
    ("L", "W"): (GameResult.BLACK_WINS, False, "less than one move"),
    ("D", "D"): (GameResult.DRAW, False, "less than one move"),
}
_RESULT_CODES: dict[tuple[GameResult, bool], tuple[str, str]] = {
    (result, rated): codes for codes, (result, rated, _note) in _WHITE_CODE_RESULT.items()
}
_POINTS = {"1": 2, "=": 1, "0": 0, "+": 2, "-": 0, "W": 2, "D": 1, "L": 0}
_BYE_POINTS = {"H": 1, "F": 2, "U": 2, "Z": 0}  # in half points

_EXTRA_CODE = re.compile(r"[0-9]{3}|[A-Z]{2}[A-Z0-9]")
_POINTS_TEXT = re.compile(r"[0-9]{1,3}(\.[0-9])?")
_PLAYED_BLOCK = re.compile(r" {0,3}([0-9]{1,4}) ([wb]) ([10=+\-WDL])")
_NO_ROUND = (0, "", "Z")

# (opponent start number or 0, colour "w"/"b"/"", result code upper-case; blank -> "Z")
_RoundEntry = tuple[int, str, str]


def parse_trf(source: str | bytes, *, progress: ProgressCallback | None = None) -> ParsedTournament:
    """Read a TRF16 or TRF-2026 file.

    Returns the tournament with each game once (from the lower start number's line) and
    every bye; raises :class:`~tournaments.interchange.records.InterchangeError` listing
    every malformed line and every contradiction between two players' lines.
    ``progress`` is called with the number of lines read so far.
    """
    warnings: list[ParseWarning] = []
    errors = ErrorCollector()
    text = decode_source(source, legacy_fallback=True, warnings=warnings)
    tick = progress_ticker(progress)

    headers: dict[str, tuple[int, str]] = {}
    extra: dict[str, list[str]] = defaultdict(list)
    round_dates_line: tuple[int, str] | None = None
    players: dict[int, ParsedPlayer] = {}
    rounds_of: dict[int, list[_RoundEntry]] = {}
    line_no = 0
    for line_no, raw in enumerate(text.splitlines(), start=1):
        tick(line_no)
        line = raw.rstrip()
        if not line or line.startswith("###"):
            continue
        code = line[:3]
        if code != "001" and code not in _HEADER_CODES and not _EXTRA_CODE.fullmatch(code):
            errors.add(
                line_no,
                "not a TRF record: a line starts with a record code such as 001 or 012",
            )
            continue
        if len(line) > 3 and line[3] != " ":
            errors.add(line_no, f"column 4 must be blank after the record code {code!r}")
            continue
        if code == "001":
            parsed = _parse_player_line(line, line_no, errors, warnings)
            if parsed is None:
                continue
            player, entries = parsed
            assert player.start_no is not None  # _parse_player_line guarantees it
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
        elif code in _HEADER_CODES:
            if code == "132":
                round_dates_line = (line_no, line)
            elif code in headers:
                warnings.append(
                    ParseWarning(line_no, f"header {code} repeated; line {headers[code][0]} used")
                )
            else:
                headers[code] = (line_no, line[4:].strip())
        else:
            extra[code].append(line[4:].strip())
    if progress is not None:
        progress(line_no)

    start_date = _header_date(headers.get("042"), errors)
    end_date = _header_date(headers.get("052"), errors)
    if start_date and end_date and end_date < start_date:
        errors.add(headers["052"][0], f"end date {end_date} is before start date {start_date}")
    round_dates = _round_dates(round_dates_line, errors)
    if not players:
        errors.add(0, "the file has no player lines (001)")
    # Lines with errors were left out, so pairing them up now would only add noise.
    errors.raise_if_any()

    rounds = max(len(entries) for entries in rounds_of.values())
    rounds = max(rounds, len(round_dates))
    # TRF26 142 (or JaVaFo's XXR) declares the rounds: a line may stop before the last ones.
    declared_rounds = extra.get("142") or extra.get("XXR")
    if declared_rounds:
        value = declared_rounds[0].strip()
        if value.isdigit() and int(value) >= rounds:
            rounds = int(value)
        else:
            warnings.append(
                ParseWarning(0, f"the file declares {value!r} rounds; the lines show {rounds}")
            )
    _check_player_count(headers.get("062"), len(players), warnings, errors)
    _check_round_dates(round_dates, start_date, end_date, round_dates_line, warnings)
    round_dates = round_dates + (None,) * (rounds - len(round_dates))

    name = headers.get("012", (0, ""))[1]
    time_control = headers.get("122", (0, ""))[1]
    games, byes = _pair_up(
        players, rounds_of, rounds, round_dates, name, time_control, errors, warnings
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
        games=tuple(games),
        byes=tuple(byes),
        warnings=tuple(warnings),
        tournament_type=headers.get("092", (0, ""))[1],
        time_control=time_control,
        extra_headers={code: tuple(values) for code, values in extra.items()},
    )


_HEADER_CODES = frozenset({"012", "022", "032", "042", "052", "062", "072", "092", "122", "132"})


def _parse_player_line(
    line: str, line_no: int, errors: ErrorCollector, warnings: list[ParseWarning]
) -> tuple[ParsedPlayer, list[_RoundEntry]] | None:
    """One 001 line, or None after reporting what is wrong with it."""
    bad = len(errors.errors)
    for index in _PLAYER_SEPARATORS:
        if index < len(line) and line[index] != " ":
            errors.add(
                line_no,
                f"column {index + 1} must be blank: a field is shifted out of its columns",
            )
            return None
    padded = line.ljust(89)
    start_text = padded[4:8].strip()
    if not start_text.isdigit() or int(start_text) == 0:
        errors.add(line_no, f"start number (columns 5-8) {start_text!r} is not a number 1-9999")
        return None
    start_no = int(start_text)

    sex = padded[9].lower()
    if sex == "f":
        sex = "w"
    elif sex == " ":
        sex = ""
    elif sex not in "mw":
        errors.add(line_no, f"sex (column 10) {padded[9]!r} is not m or w")
    title = padded[10:13].strip().upper()
    if title and title not in TITLES:
        warnings.append(ParseWarning(line_no, f"unknown title {title!r} (columns 11-13) kept"))
    name = padded[14:47].strip()
    if not name:
        errors.add(line_no, "name (columns 15-47) is empty")
    rating = _optional_number(padded[48:52], "FIDE rating (columns 49-52)", line_no, errors)
    federation = padded[53:56].strip().upper()
    if federation and not (len(federation) == 3 and federation.isalpha()):
        errors.add(line_no, f"federation (columns 54-56) {federation!r} is not a 3-letter code")
    fide_id = _optional_number(padded[57:68], "FIDE ID (columns 58-68)", line_no, errors)
    birth_date, birth_year = _birth(padded[69:79], line_no, errors)
    points: Decimal | None = None
    points_text = padded[80:84].strip()
    if points_text:
        if _POINTS_TEXT.fullmatch(points_text):
            points = Decimal(points_text)
        else:
            errors.add(line_no, f"points (columns 81-84) {points_text!r} are not like 11.5")
    rank = _optional_number(padded[85:89], "rank (columns 86-89)", line_no, errors)

    entries: list[_RoundEntry] = []
    played = _PLAYED_BLOCK.fullmatch
    for round_no, start in enumerate(range(_FIRST_ROUND_COLUMN - 1, len(line), _ROUND_WIDTH), 1):
        # Fast path for the usual block, a game against a real opponent; the full check
        # below handles everything else and words the errors.
        match = played(line, start, start + 8)
        if match is not None and not line[start + 8 : start + _ROUND_WIDTH].strip():
            opponent = int(match[1])
            if opponent:
                entries.append((opponent, match[2], match[3]))
                continue
        entry = _parse_round(line[start : start + _ROUND_WIDTH], round_no, line_no, errors)
        if entry is not None:
            entries.append(entry)
    if len(errors.errors) > bad:
        return None
    player = ParsedPlayer(
        start_no=start_no,
        name=name,
        fide_id=fide_id,
        birth_date=birth_date,
        birth_year=birth_year,
        sex=sex,
        title=title,
        federation=federation,
        rating=rating,
        line=line_no,
        points=points,
        rank=rank,
    )
    return player, entries


def _parse_round(
    block: str, round_no: int, line_no: int, errors: ErrorCollector
) -> _RoundEntry | None:
    """One round's ten columns: opponent (4), blank, colour, blank, result, two blanks."""
    first = _FIRST_ROUND_COLUMN + (round_no - 1) * _ROUND_WIDTH
    where = f"round {round_no} (columns {first}-{first + 7})"
    block = block.ljust(_ROUND_WIDTH)
    if block[4] != " " or block[6] != " " or block[8:] != "  ":
        errors.add(line_no, f"{where}: {block.rstrip()!r} is not 'NNNN c r' in its columns")
        return None
    opponent_text = block[:4].strip()
    if not opponent_text:
        opponent = 0
    elif opponent_text.isdigit():
        opponent = int(opponent_text)
    else:
        errors.add(line_no, f"{where}: opponent {opponent_text!r} is not a start number")
        return None
    colour = block[5].lower()
    if colour in " -":
        colour = ""
    elif colour not in "wb":
        errors.add(line_no, f"{where}: colour {block[5]!r} is not w, b or -")
        return None
    raw_code = block[7]
    code = raw_code.upper()
    if code == " ":
        code = "Z"
    if code not in _BYE_CODES and code not in _GAME_CODES:
        errors.add(line_no, f"{where}: unknown result code {raw_code!r}")
        return None
    if opponent == 0:
        if code in _GAME_CODES:
            errors.add(line_no, f"{where}: result {raw_code!r} needs an opponent")
            return None
        if colour:
            errors.add(line_no, f"{where}: a bye ({code}) has no colour, found {colour!r}")
            return None
        return _NO_ROUND if code == "Z" else (0, "", code)
    if code in _BYE_CODES:
        if raw_code == " ":
            errors.add(
                line_no,
                f"{where}: paired with {opponent} but no result (round not finished?)",
            )
        else:
            errors.add(line_no, f"{where}: a bye ({code}) cannot have an opponent ({opponent})")
        return None
    if not colour and code not in "+-":
        errors.add(line_no, f"{where}: a played game needs a colour, w or b")
        return None
    return (opponent, colour, code)


def _pair_up(
    players: dict[int, ParsedPlayer],
    rounds_of: dict[int, list[_RoundEntry]],
    rounds: int,
    round_dates: tuple[date | None, ...],
    tournament: str,
    time_control: str,
    errors: ErrorCollector,
    warnings: list[ParseWarning],
) -> tuple[list[ParsedGame], list[ParsedBye]]:
    """Match both sides of every game; each game is emitted once, byes for every other round."""
    games: list[ParsedGame] = []
    byes: list[ParsedBye] = []
    refs = {start_no: player.ref() for start_no, player in players.items()}
    lowest, highest = min(players), max(players)
    pab_line: dict[int, int] = {}
    for start_no, player in players.items():
        entries = rounds_of[start_no]
        line = player.line
        for index in range(rounds):
            opponent, colour, code = entries[index] if index < len(entries) else _NO_ROUND
            round_no = index + 1
            if opponent == 0:
                if code == "U":
                    if round_no in pab_line:
                        warnings.append(
                            ParseWarning(
                                line,
                                f"round {round_no}: second pairing-allocated bye (U); "
                                f"the first is on line {pab_line[round_no]}",
                            )
                        )
                    pab_line.setdefault(round_no, line)
                byes.append(
                    ParsedBye(round_no, refs[start_no], ByeKind(code), round_dates[index], line)
                )
                continue
            other = players.get(opponent)
            if other is None or opponent == start_no:
                errors.add(
                    line,
                    f"round {round_no}: opponent {opponent} is "
                    + (
                        "the player themselves"
                        if opponent == start_no
                        else f"not a start number in this file ({lowest}-{highest})"
                    ),
                )
                continue
            other_entries = rounds_of[opponent]
            other_opponent, other_colour, other_code = (
                other_entries[index] if index < len(other_entries) else _NO_ROUND
            )
            if other_opponent != start_no:
                said = (
                    f"pairs {opponent} with {other_opponent}"
                    if other_opponent
                    else f"gives {opponent} no opponent ({other_code})"
                )
                errors.add(
                    line,
                    f"round {round_no}: this line pairs {start_no} with {opponent}, "
                    f"but line {other.line} {said}",
                    other.line,
                )
                continue
            if start_no > opponent:
                continue  # checked and emitted from the opponent's (lower) line
            if (colour and colour == other_colour) or bool(colour) != bool(other_colour):
                errors.add(
                    line,
                    f"round {round_no}: colours of {start_no} ({colour or '-'}) and "
                    f"{opponent} ({other_colour or '-'}, line {other.line}) are not opposite",
                    other.line,
                )
                continue
            # The table's keys are exactly the complementary pairs, in either order.
            if (code, other_code) not in _WHITE_CODE_RESULT:
                errors.add(
                    line,
                    f"round {round_no}: results disagree: {start_no} has {code!r}, "
                    f"{opponent} has {other_code!r} on line {other.line}",
                    other.line,
                )
                continue
            if colour == "b":
                white, black, white_code, black_code = opponent, start_no, other_code, code
            else:
                # No colours (allowed for forfeits only): the lower start number takes White.
                white, black, white_code, black_code = start_no, opponent, code, other_code
            result, rated, note = _WHITE_CODE_RESULT[(white_code, black_code)]
            games.append(
                ParsedGame(
                    round=round_no,
                    date=round_dates[index],
                    white=refs[white],
                    black=refs[black],
                    result=result,
                    rated=rated,
                    note=note,
                    line=line,
                    tournament=tournament,
                    time_control=time_control,
                    other_line=other.line,
                )
            )
    return games, byes


def _optional_number(text: str, what: str, line_no: int, errors: ErrorCollector) -> int | None:
    text = text.strip()
    if not text:
        return None
    if not text.isdigit():
        errors.add(line_no, f"{what} {text!r} is not a number")
        return None
    return int(text) or None


def _birth(text: str, line_no: int, errors: ErrorCollector) -> tuple[date | None, int | None]:
    text = text.strip()
    if not text:
        return None, None
    if len(text) == 4 and text.isdigit():
        return None, int(text)
    if len(text) == 10 and text[4:] in ("/00/00", "-00-00", ".00.00") and text[:4].isdigit():
        return None, int(text[:4])
    born = parse_iso_like_date(text)
    if born is None:
        errors.add(line_no, f"birth date (columns 70-79) {text!r} is not YYYY/MM/DD")
        return None, None
    return born, born.year


def _header_date(header: tuple[int, str] | None, errors: ErrorCollector) -> date | None:
    """042/052: TRF26 writes YYYY/MM/DD; TRF16 left it free, so DD.MM.YYYY and YY/MM/DD too."""
    if header is None or not header[1]:
        return None
    line_no, text = header
    parsed = parse_iso_like_date(text) or _short_date(text) or _dotted_day_first(text)
    if parsed is None:
        errors.add(line_no, f"date {text!r} is not YYYY/MM/DD")
    return parsed


def _short_date(text: str) -> date | None:
    """YY/MM/DD, the form of the 132 round dates (years 2000-2099)."""
    if len(text) != 8 or text[2] != "/" or text[5] != "/":
        return None
    parts = text[:2], text[3:5], text[6:]
    if not all(part.isdigit() for part in parts):
        return None
    try:
        return date(2000 + int(parts[0]), int(parts[1]), int(parts[2]))
    except ValueError:
        return None


def _dotted_day_first(text: str) -> date | None:
    """DD.MM.YYYY, which Central-European programs write; dots mean day first everywhere."""
    if len(text) != 10 or text[2] != "." or text[5] != ".":
        return None
    return parse_iso_like_date(f"{text[6:]}.{text[3:5]}.{text[:2]}")


def _round_dates(header: tuple[int, str] | None, errors: ErrorCollector) -> tuple[date | None, ...]:
    if header is None:
        return ()
    line_no, line = header
    dates: list[date | None] = []
    for round_no, start in enumerate(range(_FIRST_ROUND_COLUMN - 1, len(line), _ROUND_WIDTH), 1):
        text = line[start : start + 8].strip()
        if not text:
            dates.append(None)
            continue
        parsed = _short_date(text)
        if parsed is None:
            first = start + 1
            errors.add(
                line_no,
                f"round {round_no} date (columns {first}-{first + 7}) {text!r} is not YY/MM/DD",
            )
        dates.append(parsed)
    while dates and dates[-1] is None:
        dates.pop()
    return tuple(dates)


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


def write_trf(tournament: ParsedTournament) -> str:
    """The tournament as a TRF16 file, CR LF line ends (TRF's Remark 1 asks for the CR).

    Every player needs a start number and every game's players must be among them
    (:class:`ValueError` otherwise). A round in which a player has neither a game nor a bye
    is written as ``0000 - Z``. Points and rank are written as given, or computed (1 / 0.5 /
    0, byes H 0.5, F and U 1) and ranked by points then start number when absent. Extra
    TRF26 records are not written: the output is plain TRF16, which every program reads.
    """
    start_nos = [player.start_no for player in tournament.players]
    if any(number is None or not 1 <= number <= 9999 for number in start_nos):
        raise ValueError("every player needs a start number from 1 to 9999 to be written")
    rounds = tournament.rounds
    blocks: dict[int, list[str]] = {
        number: ["0000 - Z"] * rounds for number in start_nos if number is not None
    }
    half_points: dict[int, int] = dict.fromkeys(blocks, 0)
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
    for bye in tournament.byes:
        number = bye.player.start_no
        if number not in blocks or not 1 <= bye.round <= rounds:
            raise ValueError(f"bye on line {bye.line} has a player or round not in the file")
        blocks[number][bye.round - 1] = f"0000 - {bye.kind.value}"
        half_points[number] += _BYE_POINTS[bye.kind.value]

    ranked = sorted(blocks, key=lambda number: (-half_points[number], number))
    computed_rank = {number: place for place, number in enumerate(ranked, start=1)}
    out = [
        f"012 {tournament.name}",
        f"022 {tournament.city}",
        f"032 {tournament.federation}",
        f"042 {_slashed(tournament.start_date)}",
        f"052 {_slashed(tournament.end_date)}",
        f"062 {len(tournament.players)}",
        f"072 {sum(1 for player in tournament.players if player.rating)}",
        f"092 {tournament.tournament_type}",
        f"122 {tournament.time_control}",
    ]
    if any(tournament.round_dates):
        dates = "  ".join(
            day.strftime("%y/%m/%d") if day else " " * 8 for day in tournament.round_dates
        )
        out.append(f"{'132':<{_FIRST_ROUND_COLUMN - 1}}{dates}")
    for player in tournament.players:
        number = player.start_no
        assert number is not None  # checked above
        points = player.points if player.points is not None else Decimal(half_points[number]) / 2
        rank = player.rank if player.rank is not None else computed_rank[number]
        birth = (
            player.birth_date.strftime("%Y/%m/%d")
            if player.birth_date
            else (f"{player.birth_year}/00/00" if player.birth_year else "")
        )
        head = (
            f"001 {number:>4} {player.sex[:1] or ' '}{player.title[:3]:>3} {player.name[:33]:<33} "
            f"{player.rating or '':>4} {player.federation[:3]:<3} {player.fide_id or '':>11} "
            f"{birth:<10} {_points_text(points):>4} {rank:>4}"
        )
        out.append(f"{head}  {'  '.join(blocks[number])}".rstrip())
    return "\r\n".join(out) + "\r\n"


def _slashed(day: date | None) -> str:
    return day.strftime("%Y/%m/%d") if day else ""


def _points_text(points: Decimal) -> str:
    text = f"{points:.1f}"
    if len(text) > 4:
        raise ValueError(f"points {text} do not fit the four columns 81-84 of a TRF line")
    return text
