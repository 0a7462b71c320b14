"""One line of a TRF at a time: a player's 001 record with its round blocks, and dates."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

from tournaments.interchange.records import ParsedPlayer, ParseWarning
from tournaments.interchange.source import ErrorCollector, parse_iso_like_date
from tournaments.interchange.trf.layout import (
    BYE_CODES,
    FIRST_ROUND_COLUMN,
    GAME_CODES,
    NO_ROUND,
    PLAYER_SEPARATORS,
    ROUND_WIDTH,
    TITLES,
    RoundEntry,
)

_POINTS_TEXT = re.compile(r"[0-9]{1,3}(\.[0-9])?")
_PLAYED_BLOCK = re.compile(r" {0,3}([0-9]{1,4}) ([wb]) ([10=+\-WDL])")
#: A line's round blocks (padded to whole blocks) when every one is such a game, blanks in
#: its last two columns: the opponent's four columns are blanks then digits.
_ALL_PLAYED = re.compile(r"(?:(?: {3}[0-9]| {2}[0-9]{2}| [0-9]{3}|[0-9]{4}) [wb] [10=+\-WDL]  )*")
_PLAYED_FIELDS = re.compile(r" {0,3}([0-9]{1,4}) ([wb]) ([10=+\-WDL])  ")


def parse_player_line(
    line: str, line_no: int, errors: ErrorCollector, warnings: list[ParseWarning]
) -> tuple[ParsedPlayer, list[RoundEntry]] | None:
    """One 001 line, or None after reporting what is wrong with it."""
    bad = len(errors.errors)
    if _shifted(line, line_no, errors):
        return None
    padded = line.ljust(89)
    start_text = padded[4:8].strip()
    if not start_text.isdigit() or int(start_text) == 0:
        errors.add(line_no, f"start number (columns 5-8) {start_text!r} is not a number 1-9999")
        return None
    player = _player(padded, int(start_text), line_no, errors, warnings)
    entries = _all_played(line)
    if entries is not None:
        # As it always was: a line of games only is kept even when one of its other
        # fields was reported (the file is refused for that error all the same).
        return player, entries
    entries = _round_entries(line, line_no, errors)
    if len(errors.errors) > bad:
        return None
    return player, entries


def _shifted(line: str, line_no: int, errors: ErrorCollector) -> bool:
    """Whether a column that separates two fields is not blank (reported)."""
    for index in PLAYER_SEPARATORS:
        if index < len(line) and line[index] != " ":
            errors.add(
                line_no,
                f"column {index + 1} must be blank: a field is shifted out of its columns",
            )
            return True
    return False


def _player(
    padded: str,
    start_no: int,
    line_no: int,
    errors: ErrorCollector,
    warnings: list[ParseWarning],
) -> ParsedPlayer:
    """The player of a 001 line padded to its rank's column, each bad field reported."""
    sex = _sex(padded[9], line_no, errors)
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
    points = _points(padded[80:84], line_no, errors)
    rank = _optional_number(padded[85:89], "rank (columns 86-89)", line_no, errors)
    return ParsedPlayer(
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


def _sex(column: str, line_no: int, errors: ErrorCollector) -> str:
    """m or w (f read as w), blank as ""; anything else reported (and kept)."""
    sex = column.lower()
    if sex == "f":
        return "w"
    if sex == " ":
        return ""
    if sex not in "mw":
        errors.add(line_no, f"sex (column 10) {column!r} is not m or w")
    return sex


def _points(columns: str, line_no: int, errors: ErrorCollector) -> Decimal | None:
    points_text = columns.strip()
    if not points_text:
        return None
    if _POINTS_TEXT.fullmatch(points_text):
        return Decimal(points_text)
    errors.add(line_no, f"points (columns 81-84) {points_text!r} are not like 11.5")
    return None


def _all_played(line: str) -> list[RoundEntry] | None:
    """The round entries when every round is a game against an opponent written the usual
    way (a Swiss's 001 lines but for byes): the blocks read by one regular expression, the
    opponents turned to numbers in C. None for any other line (read block by block)."""
    rounds = line[FIRST_ROUND_COLUMN - 1 :]
    rounds = rounds.ljust(-(-len(rounds) // ROUND_WIDTH) * ROUND_WIDTH)
    if not _ALL_PLAYED.fullmatch(rounds):
        return None
    blocks = _PLAYED_FIELDS.findall(rounds)
    if not blocks:
        return []
    opponents, colours, codes = zip(*blocks, strict=True)
    numbers = list(map(int, opponents))
    if 0 in numbers:
        return None
    return list(zip(numbers, colours, codes, strict=True))


def _round_entries(line: str, line_no: int, errors: ErrorCollector) -> list[RoundEntry]:
    """A line's round entries block by block, each bad block reported and left out."""
    entries: list[RoundEntry] = []
    played = _PLAYED_BLOCK.fullmatch
    for round_no, start in enumerate(range(FIRST_ROUND_COLUMN - 1, len(line), ROUND_WIDTH), 1):
        # Fast path for the usual block, a game against a real opponent; the full check
        # below handles everything else and words the errors.
        match = played(line, start, start + 8)
        if match is not None and not line[start + 8 : start + ROUND_WIDTH].strip():
            opponent = int(match[1])
            if opponent:
                entries.append((opponent, match[2], match[3]))
                continue
        entry = _parse_round(line[start : start + ROUND_WIDTH], round_no, line_no, errors)
        if entry is not None:
            entries.append(entry)
    return entries


def _parse_round(
    block: str, round_no: int, line_no: int, errors: ErrorCollector
) -> RoundEntry | None:
    """One round's ten columns: opponent (4), blank, colour, blank, result, two blanks."""
    first = FIRST_ROUND_COLUMN + (round_no - 1) * ROUND_WIDTH
    where = f"round {round_no} (columns {first}-{first + 7})"
    fields = _round_fields(block.ljust(ROUND_WIDTH), where, line_no, errors)
    if fields is None:
        return None
    opponent, colour, code, raw_code = fields
    if opponent == 0:
        if code in GAME_CODES:
            errors.add(line_no, f"{where}: result {raw_code!r} needs an opponent")
            return None
        if colour:
            errors.add(line_no, f"{where}: a bye ({code}) has no colour, found {colour!r}")
            return None
        return NO_ROUND if code == "Z" else (0, "", code)
    if code in BYE_CODES:
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


def _round_fields(
    block: str, where: str, line_no: int, errors: ErrorCollector
) -> tuple[int, str, str, str] | None:
    """A round block's opponent (0: none), colour ("" for none), result code (a blank:
    Z) and the code as written, each read on its own; None when one is bad (reported)."""
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
    if code not in BYE_CODES and code not in GAME_CODES:
        errors.add(line_no, f"{where}: unknown result code {raw_code!r}")
        return None
    return opponent, colour, code, raw_code


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


def header_date(header: tuple[int, str] | None, errors: ErrorCollector) -> date | None:
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


def read_round_dates(
    header: tuple[int, str] | None, errors: ErrorCollector
) -> tuple[date | None, ...]:
    if header is None:
        return ()
    line_no, line = header
    dates: list[date | None] = []
    for round_no, start in enumerate(range(FIRST_ROUND_COLUMN - 1, len(line), ROUND_WIDTH), 1):
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
