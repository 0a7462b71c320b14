"""A spreadsheet of games as CSV.

The first row names the columns (any case, any order, surrounding blanks ignored):

* required: ``date``, ``white``, ``black``, ``result``;
* optional: ``tournament``, ``round``, and, to help match players, ``white_fide_id``,
  ``black_fide_id``, ``white_rating``, ``black_rating``, ``time_control``.

Other columns are ignored with a warning. The delimiter is a comma or a semicolon (what
spreadsheets in comma-decimal locales write), chosen by which one splits the header row
into the required columns. UTF-8 with or without a byte-order mark; other encodings are an
error (a spreadsheet's "CSV UTF-8" export). Dates are year first (``2026-10-03``,
``2026/10/03``, ``2026.10.03``): day-first or month-first dates are refused because
03/04/2026 is ambiguous. Results are from White's side: ``1-0``, ``0-1``, ``1/2-1/2``,
``½-½``, ``0.5-0.5`` played and rated; ``+-``, ``-+``, ``--`` forfeits, recorded, not rated.
A row's line is the file line on which the row starts (quoted fields may span lines).
"""

from __future__ import annotations

import _csv
import csv
import itertools
import operator
from datetime import date
from typing import Any, TextIO

from tournaments.interchange.bounds import PlayerCount
from tournaments.interchange.records import (
    GameResult,
    InterchangeError,
    ParsedGame,
    ParsedGames,
    ParseError,
    ParseWarning,
    PlayerRef,
    ProgressCallback,
)
from tournaments.interchange.source import (
    ErrorCollector,
    Source,
    open_text,
    parse_iso_like_date,
    progress_ticker,
)
from tournaments.interchange.table import RecordTable

__all__ = ["CSV_RESULTS", "parse_games_csv"]

REQUIRED_COLUMNS = ("date", "white", "black", "result")
OPTIONAL_COLUMNS = (
    "tournament",
    "round",
    "white_fide_id",
    "black_fide_id",
    "white_rating",
    "black_rating",
    "time_control",
)

#: Accepted spellings, after removing blanks, mapped to the result and whether it is rated.
CSV_RESULTS: dict[str, tuple[GameResult, bool]] = {
    "1-0": (GameResult.WHITE_WINS, True),
    "0-1": (GameResult.BLACK_WINS, True),
    "1/2-1/2": (GameResult.DRAW, True),
    "½-½": (GameResult.DRAW, True),
    "0.5-0.5": (GameResult.DRAW, True),
    "+-": (GameResult.WHITE_WINS_FORFEIT, False),
    "-+": (GameResult.BLACK_WINS_FORFEIT, False),
    "--": (GameResult.DOUBLE_FORFEIT, False),
}


def parse_games_csv(
    source: Source, *, progress: ProgressCallback | None = None, max_players: int | None = None
) -> ParsedGames:
    """Read every row; raise ``InterchangeError`` listing every bad row with its line, or
    at once when the file names more than ``max_players`` players (``PlayerCount``)."""
    warnings: list[ParseWarning] = []
    with open_text(source, legacy_fallback=False, warnings=warnings, newline="") as text:
        return _parse(text, warnings, progress, PlayerCount(max_players))


def _parse(
    text: TextIO,
    warnings: list[ParseWarning],
    progress: ProgressCallback | None,
    players: PlayerCount,
) -> ParsedGames:
    errors = ErrorCollector()
    reader, header = _header(text)
    tick = progress_ticker(progress)
    columns = _columns(header, errors, warnings)
    errors.raise_if_any()

    games: RecordTable[ParsedGame] = RecordTable(ParsedGame)
    values = _Values(columns, len(header))
    # The games go to the table a batch at a time (RecordTable.extend_fields).
    lines: list[int] = []
    rows: list[tuple[Any, ...]] = []
    row_start = reader.line_num + 1
    while True:
        try:
            row = next(reader, None)
        except csv.Error as error:
            errors.add(row_start, f"not valid CSV: {error}")
            break
        if row is None:
            break
        tick(reader.line_num)
        line = row_start
        row_start = reader.line_num + 1
        if not any(cell.strip() for cell in row):
            continue  # spreadsheets leave blank rows at the end
        if len(row) > len(header):
            errors.add(line, f"{len(row)} cells but the header names {len(header)} columns")
            continue
        fields = values.game(row, line, errors)
        if fields is not None:
            if players.over(fields[2].name, fields[3].name):
                errors.add(line, players.message())
                break
            lines.append(line)
            rows.append(fields)
            if len(rows) == _BATCH:
                games.extend_fields(lines, rows)
                lines, rows = [], []
    games.extend_fields(lines, rows)
    if progress is not None:
        progress(reader.line_num)
    if not games and not errors.errors:
        errors.add(0, "the file has a header row but no games")
    errors.raise_if_any()
    return ParsedGames(games=games, warnings=tuple(warnings))


def _header(text: TextIO) -> tuple[_csv.Reader, list[str]]:
    """The rows' reader, on the delimiter the header row shows, and the header row;
    ``InterchangeError`` when there is none."""
    header_line = text.readline()
    delimiter = _delimiter(header_line.partition("\n")[0])
    # The header line read for the delimiter goes back in front of the rest of the stream.
    reader = csv.reader(itertools.chain((header_line,), text), delimiter=delimiter, strict=True)
    try:
        header = next(reader, None)
    except csv.Error as error:
        raise InterchangeError(
            [ParseError(1, f"the header row is not valid CSV: {error}")]
        ) from error
    if header is None or not any(cell.strip() for cell in header):
        raise InterchangeError(
            [ParseError(1, "the file is empty: the first row must name the columns")]
        )
    return reader, header


def _delimiter(header_line: str) -> str:
    """Semicolon when it, and not the comma, splits the header into the required columns."""

    def names(delimiter: str) -> set[str]:
        return {cell.strip().strip('"').lower() for cell in header_line.split(delimiter)}

    if set(REQUIRED_COLUMNS) <= names(";") and not set(REQUIRED_COLUMNS) <= names(","):
        return ";"
    return ","


def _columns(
    header: list[str], errors: ErrorCollector, warnings: list[ParseWarning]
) -> list[tuple[str, int]]:
    known = set(REQUIRED_COLUMNS) | set(OPTIONAL_COLUMNS)
    columns: list[tuple[str, int]] = []
    seen: set[str] = set()
    for index, cell in enumerate(header):
        name = cell.strip().lower().replace(" ", "_")
        if name in seen:
            errors.add(1, f"column {name!r} appears twice")
        elif name in known:
            columns.append((name, index))
            seen.add(name)
        elif name:
            warnings.append(ParseWarning(1, f"column {cell.strip()!r} is not used"))
    missing = [name for name in REQUIRED_COLUMNS if name not in seen]
    if missing:
        errors.add(
            1,
            f"missing column(s) {', '.join(missing)}; the header row needs "
            f"{', '.join(REQUIRED_COLUMNS)}",
        )
    return columns


#: Games handed to the table at a time.
_BATCH = 4096
#: The columns a game is read from, in the order :class:`_Values` picks them from a row.
_CELLS = REQUIRED_COLUMNS + OPTIONAL_COLUMNS


class _Values:
    """A row's game fields, each distinct cell text read once: a file names a few thousand
    players, a few dozen dates, rounds and results. Only a value read without a problem is
    kept; a row with anything new goes through :func:`_game`, which reports its problems
    as it always did."""

    def __init__(self, columns: list[tuple[str, int]], width: int) -> None:
        index = dict(columns)
        # A missing column is read from one empty cell past the row's end (``_padded``).
        self._width = width
        self._pick = operator.itemgetter(*(index.get(name, width) for name in _CELLS))
        self._columns = columns
        self._days: dict[str, date] = {}
        # (name, FIDE ID, rating) as written -> the side and its name casefolded.
        self._sides: dict[tuple[str, str, str], tuple[PlayerRef, str]] = {}
        self._results: dict[str, tuple[GameResult, bool, str]] = {}
        self._rounds: dict[str, int | None] = {}
        self._texts: dict[str, str] = {}

    def game(self, row: list[str], line: int, errors: ErrorCollector) -> tuple[Any, ...] | None:
        """The game's fields in ``RecordTable.fields`` order (``ParsedGame``'s but its line),
        or None when the row has errors (reported)."""
        row.extend([""] * (self._width + 1 - len(row)))
        (
            day_text,
            white_text,
            black_text,
            result_text,
            event,
            round_text,
            white_fide,
            black_fide,
            white_rating,
            black_rating,
            time_text,
        ) = self._pick(row)
        day = self._days.get(day_text)
        white = self._sides.get((white_text, white_fide, white_rating))
        black = self._sides.get((black_text, black_fide, black_rating))
        outcome = self._results.get(result_text)
        round_no = self._rounds.get(round_text, _UNREAD)
        if (
            day is None
            or white is None
            or black is None
            or outcome is None
            or round_no is _UNREAD
            or white[1] == black[1]
        ):
            cells = {name: row[index].strip() for name, index in self._columns}
            game = _game(cells, line, errors)
            if game is None:
                return None
            # Every value of the row was read without a problem: kept for the rows after.
            self._days[day_text] = game.date  # type: ignore[assignment]  # a game has one
            self._sides[(white_text, white_fide, white_rating)] = (
                game.white,
                game.white.name.casefold(),
            )
            self._sides[(black_text, black_fide, black_rating)] = (
                game.black,
                game.black.name.casefold(),
            )
            self._results[result_text] = (game.result, game.rated, game.note)
            self._rounds[round_text] = game.round
            return game.fields_but_line()
        texts = self._texts
        tournament = texts.get(event)
        if tournament is None:
            tournament = texts[event] = event.strip()
        time_control = texts.get(time_text)
        if time_control is None:
            time_control = texts[time_text] = time_text.strip()
        result, rated, note = outcome
        # ParsedGame's fields but line: round, date, white, black, result, rated, note,
        # tournament, time_control, other_line, site (a CSV has none).
        return (
            round_no,
            day,
            white[0],
            black[0],
            result,
            rated,
            note,
            tournament,
            time_control,
            None,
            "",
        )


#: A round not read yet (None is a round left blank).
_UNREAD: Any = object()


def _game(cells: dict[str, str], line: int, errors: ErrorCollector) -> ParsedGame | None:
    bad = len(errors.errors)
    day = parse_iso_like_date(cells["date"])
    if day is None:
        errors.add(line, f"date {cells['date']!r} is not a year-first date like 2026-10-03")
    white, black = cells["white"], cells["black"]
    if not white or not black:
        errors.add(line, "white and black need a player name")
    elif white.casefold() == black.casefold():
        errors.add(line, f"{white!r} cannot play themselves")
    outcome = CSV_RESULTS.get("".join(cells["result"].split()))
    if outcome is None:
        errors.add(
            line,
            f"result {cells['result']!r} is not one of {', '.join(CSV_RESULTS)}",
        )
    round_no = _number(cells, "round", line, errors)
    white_ref = PlayerRef(
        name=white,
        fide_id=_number(cells, "white_fide_id", line, errors),
        rating=_number(cells, "white_rating", line, errors),
    )
    black_ref = PlayerRef(
        name=black,
        fide_id=_number(cells, "black_fide_id", line, errors),
        rating=_number(cells, "black_rating", line, errors),
    )
    if len(errors.errors) > bad or outcome is None:
        return None
    result, rated = outcome
    return ParsedGame(
        round=round_no,
        date=day,
        white=white_ref,
        black=black_ref,
        result=result,
        rated=rated,
        note=""
        if rated
        else ("double forfeit" if result == GameResult.DOUBLE_FORFEIT else "forfeit"),
        line=line,
        tournament=cells.get("tournament", ""),
        time_control=cells.get("time_control", ""),
    )


def _number(cells: dict[str, str], column: str, line: int, errors: ErrorCollector) -> int | None:
    text = cells.get(column, "")
    if not text:
        return None
    if not text.isdigit():
        errors.add(line, f"{column} {text!r} is not a whole number")
        return None
    return int(text) or None
