"""PGN game headers (not the moves), read with python-chess's ``chess.pgn.read_headers``.

Tags used: Event, Date, Round, White, Black, Result, WhiteFideId, BlackFideId, WhiteElo,
BlackElo, TimeControl, and EventDate as a fallback date. Choices where a PGN is loose:

* ``Result "*"`` (unfinished or unknown) is skipped with a warning: nothing to rate, and
  a broadcast file with a game still running should not block the rest.
* A partial ``Date`` such as ``2026.10.??`` takes the ``EventDate`` when that is complete
  (with a warning); otherwise it is an error, because a game without a day cannot be put in
  a rating period.
* ``WhiteElo``/``BlackElo`` of ``0``, ``-`` or ``?`` mean unrated; any other non-number is an
  error. ``Round`` ``"?"``/``"-"`` means unknown; ``"3.1"`` (round.board) gives round 3.
* PGN has no result code for a forfeit or an unrated game; the tracker's own export marks
  them with the standard ``Termination`` tag, which other readers keep, and this reader
  reads them back: ``Termination "forfeit"`` with ``1-0``/``0-1`` is a forfeit win, with
  ``*`` a double forfeit (recorded, never rated); ``Termination "rules infraction"`` is a
  game that ended before a move (TRF ``W``/``D``/``L``): recorded with its result, not
  rated. ``"time forfeit"`` is a played game lost on time, as in the standard. Every other
  game counts as played and rated.

Each error names the line where that game's header block starts.
"""

from __future__ import annotations

import re
from typing import TextIO

import chess.pgn

from tournaments.interchange.pgn_writer import TERMINATION_BEFORE_A_MOVE, TERMINATION_FORFEIT
from tournaments.interchange.records import (
    FORFEIT_RESULTS,
    GameResult,
    ParsedGame,
    ParsedGames,
    ParseWarning,
    PlayerRef,
    ProgressCallback,
)
from tournaments.interchange.source import (
    PROGRESS_EVERY,
    ErrorCollector,
    Source,
    open_text,
    parse_iso_like_date,
)
from tournaments.interchange.table import RecordTable

__all__ = ["parse_pgn"]

_RESULTS = {
    "1-0": GameResult.WHITE_WINS,
    "0-1": GameResult.BLACK_WINS,
    "1/2-1/2": GameResult.DRAW,
}
# Termination "forfeit" with the winner's result ("*": neither player came).
_FORFEITS = {
    "1-0": GameResult.WHITE_WINS_FORFEIT,
    "0-1": GameResult.BLACK_WINS_FORFEIT,
    "*": GameResult.DOUBLE_FORFEIT,
}
_UNKNOWN = frozenset({"", "?", "-"})
_ROUND = re.compile(r"([0-9]+)(\.[0-9]+)*")


class _CountingReader:
    """A text stream for python-chess that counts lines and notes where a game's tags start.

    python-chess silently ignores a malformed ``[Tag ...]`` line; counting here lets us
    report it instead.
    """

    def __init__(self, text: TextIO) -> None:
        self._lines = text
        self.line_no = 0
        self.block_start = 0
        self.malformed: list[int] = []

    def start_block(self) -> None:
        self.block_start = 0

    def readline(self) -> str:
        line = self._lines.readline()
        if line:
            self.line_no += 1
            if not self.block_start and line.strip():
                self.block_start = self.line_no
            if line.startswith("[") and not chess.pgn.TAG_REGEX.match(line):
                self.malformed.append(self.line_no)
        return line


def parse_pgn(source: Source, *, progress: ProgressCallback | None = None) -> ParsedGames:
    """Read every game's headers; raise ``InterchangeError`` listing all bad games."""
    warnings: list[ParseWarning] = []
    with open_text(source, legacy_fallback=True, warnings=warnings, newline=None) as text:
        return _parse(_CountingReader(text), warnings, progress)


def _parse(
    reader: _CountingReader, warnings: list[ParseWarning], progress: ProgressCallback | None
) -> ParsedGames:
    errors = ErrorCollector()
    games: RecordTable[ParsedGame] = RecordTable(ParsedGame)
    skipped = 0
    next_report = PROGRESS_EVERY
    while True:
        reader.start_block()
        malformed_before = len(reader.malformed)
        # python-chess only needs readline(); the reader is not a full TextIO.
        headers = chess.pgn.read_headers(reader)  # type: ignore[arg-type]
        if headers is None:
            break
        line = reader.block_start
        for bad_line in reader.malformed[malformed_before:]:
            errors.add(bad_line, 'malformed header tag: expected [Name "value"]')
        if progress is not None and reader.line_no >= next_report:
            progress(reader.line_no)
            next_report = reader.line_no + PROGRESS_EVERY
        game = _game(headers, line, errors, warnings)
        if game is not None:
            games.append(game)
        elif headers.get("Result", "*").strip() == "*":
            skipped += 1
    if progress is not None:
        progress(reader.line_no)
    if not games and not skipped and not errors.errors:
        errors.add(0, "the file has no PGN games")
    errors.raise_if_any()
    return ParsedGames(games=games, warnings=tuple(warnings), skipped=skipped)


def _game(
    headers: chess.pgn.Headers,
    line: int,
    errors: ErrorCollector,
    warnings: list[ParseWarning],
) -> ParsedGame | None:
    """The game, or None when it is skipped (with a warning) or has errors (reported)."""
    bad = len(errors.errors)
    white_name = headers.get("White", "?").strip()
    black_name = headers.get("Black", "?").strip()
    for side, name in (("White", white_name), ("Black", black_name)):
        if name in _UNKNOWN:
            errors.add(line, f"the {side} tag (player name) is missing")
    result_text = headers.get("Result", "*").strip()
    termination = headers.get("Termination", "").strip().casefold()
    forfeit: GameResult | None = None
    if termination == TERMINATION_FORFEIT:
        forfeit = _FORFEITS.get(result_text)
        if forfeit is None:
            errors.add(line, f"a forfeit's result {result_text!r} is not 1-0, 0-1 or *")
            return None
    elif result_text == "*":
        warnings.append(
            ParseWarning(line, f"{white_name} - {black_name}: result '*' (unfinished): skipped")
        )
        return None
    result = forfeit or _RESULTS.get(result_text)
    if result is None:
        errors.add(line, f"result {result_text!r} is not 1-0, 0-1, 1/2-1/2 or *")
    day = parse_iso_like_date(headers.get("Date", ""))
    if day is None:
        event_day = parse_iso_like_date(headers.get("EventDate", ""))
        date_text = headers.get("Date", "")
        if event_day is not None:
            day = event_day
            warnings.append(
                ParseWarning(line, f"date {date_text!r} is incomplete; used EventDate {day}")
            )
        else:
            errors.add(line, f"date {date_text!r} is not a complete YYYY.MM.DD date")
    round_text = headers.get("Round", "?").strip()
    round_no: int | None = None
    if round_text not in _UNKNOWN:
        match = _ROUND.fullmatch(round_text)
        if match is None:
            errors.add(line, f"round {round_text!r} is not a number like 3 or 3.1")
        else:
            round_no = int(match.group(1))
    white = PlayerRef(
        name=white_name,
        fide_id=_number(headers, "WhiteFideId", line, errors),
        rating=_number(headers, "WhiteElo", line, errors),
    )
    black = PlayerRef(
        name=black_name,
        fide_id=_number(headers, "BlackFideId", line, errors),
        rating=_number(headers, "BlackElo", line, errors),
    )
    if len(errors.errors) > bad or result is None or day is None:
        return None
    return ParsedGame(
        round=round_no,
        date=day,
        white=white,
        black=black,
        result=result,
        rated=result not in FORFEIT_RESULTS and termination != TERMINATION_BEFORE_A_MOVE,
        note="",
        line=line,
        tournament=_known(headers.get("Event", "")),
        time_control=_known(headers.get("TimeControl", "")),
    )


def _number(headers: chess.pgn.Headers, tag: str, line: int, errors: ErrorCollector) -> int | None:
    text = headers.get(tag, "").strip()
    if text in _UNKNOWN:
        return None
    if not text.isdigit():
        errors.add(line, f"{tag} {text!r} is not a number")
        return None
    return int(text) or None


def _known(text: str) -> str:
    text = text.strip()
    return "" if text in _UNKNOWN else text
