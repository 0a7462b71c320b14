"""PGN game headers (not the moves), read as python-chess's ``chess.pgn.read_headers`` reads
them (its rules and header pattern; ``pgn_headers.header_blocks``, proven equal to it by
tests/tournaments/interchange/test_pgn_blocks.py) but a chunk of text at a time.

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

import datetime
import re
from collections.abc import Mapping
from typing import Any, TextIO

from tournaments.interchange.bounds import PlayerCount
from tournaments.interchange.pgn_headers import header_blocks
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


#: Games handed to the table at a time.
_BATCH = 4096


def parse_pgn(
    source: Source, *, progress: ProgressCallback | None = None, max_players: int | None = None
) -> ParsedGames:
    """Read every game's headers; raise ``InterchangeError`` listing all bad games, or
    at once when the file names more than ``max_players`` players (``PlayerCount``)."""
    warnings: list[ParseWarning] = []
    with open_text(source, legacy_fallback=True, warnings=warnings, newline=None) as text:
        return _parse(text, warnings, progress, PlayerCount(max_players))


def _parse(
    text: TextIO,
    warnings: list[ParseWarning],
    progress: ProgressCallback | None,
    players: PlayerCount,
) -> ParsedGames:
    errors = ErrorCollector()
    games: RecordTable[ParsedGame] = RecordTable(ParsedGame)
    skipped = 0
    next_report = PROGRESS_EVERY
    line_no = 0
    values = _Values()
    # The games go to the table a batch at a time (RecordTable.extend_fields).
    lines: list[int] = []
    rows: list[tuple[Any, ...]] = []
    for line, headers, malformed, line_no in header_blocks(text):
        for bad_line in malformed:
            errors.add(bad_line, 'malformed header tag: expected [Name "value"]')
        if progress is not None and line_no >= next_report:
            progress(line_no)
            next_report = line_no + PROGRESS_EVERY
        fields = values.game(headers, line, errors, warnings)
        if fields is not None:
            if players.over(fields[2].name, fields[3].name):
                errors.add(line, players.message())
                break
            lines.append(line)
            rows.append(fields)
            if len(rows) == _BATCH:
                games.extend_fields(lines, rows)
                lines, rows = [], []
        elif headers.get("Result", "*").strip() == "*":
            skipped += 1
    games.extend_fields(lines, rows)
    if progress is not None:
        progress(line_no)
    if not games and not skipped and not errors.errors:
        errors.add(0, "the file has no PGN games")
    errors.raise_if_any()
    return ParsedGames(games=games, warnings=tuple(warnings), skipped=skipped)


class _Values:
    """A game's fields from its headers, each distinct text read once: a file names a few
    thousand players with a few ratings, a few dozen dates and rounds. Only a value read
    without a problem is kept; a game with any problem goes through :func:`_game`, which
    reports it as it always did."""

    def __init__(self) -> None:
        self._sides: dict[tuple[str, str, str], PlayerRef] = {}
        self._days: dict[str, datetime.date] = {}
        self._rounds: dict[str, int | None] = {}
        self._texts: dict[str, str] = {}

    def game(
        self,
        headers: dict[str, str],
        line: int,
        errors: ErrorCollector,
        warnings: list[ParseWarning],
    ) -> tuple[Any, ...] | None:
        """The game's fields in ``RecordTable.fields`` order (``ParsedGame``'s but its line),
        or None when it is skipped or has errors (both reported)."""
        get = headers.get
        result = _RESULTS.get(get("Result", "*"))
        white = self._sides.get((get("White", "?"), get("WhiteFideId", ""), get("WhiteElo", "")))
        black = self._sides.get((get("Black", "?"), get("BlackFideId", ""), get("BlackElo", "")))
        day = self._days.get(get("Date", ""))
        round_text = get("Round", "?")
        if (
            result is None
            or white is None
            or black is None
            or day is None
            or round_text not in self._rounds
            or "Termination" in headers
        ):
            game = _game(headers, line, errors, warnings)
            if game is None:
                return None
            self._learn(headers, game)
            return game.fields_but_line()
        # A rated game whose every value was read before without a problem: what _game
        # would make of it.
        texts = self._texts
        event = get("Event", "")
        tournament = texts.get(event)
        if tournament is None:
            tournament = texts[event] = _known(event)
        time_text = get("TimeControl", "")
        time_control = texts.get(time_text)
        if time_control is None:
            time_control = texts[time_text] = _known(time_text)
        site_text = get("Site", "")
        site = texts.get(site_text)
        if site is None:
            site = texts[site_text] = _known(site_text)
        # ParsedGame's fields but line: round, date, white, black, result, rated, note,
        # tournament, time_control, other_line, site.
        return (
            self._rounds[round_text],
            day,
            white,
            black,
            result,
            True,
            "",
            tournament,
            time_control,
            None,
            site,
        )

    def _learn(self, headers: dict[str, str], game: ParsedGame) -> None:
        """Keep the values of a game read without a problem, for the games after it."""
        get = headers.get
        if "Termination" in headers or not game.rated:
            return  # forfeits and the like are read in full each time
        self._sides[(get("White", "?"), get("WhiteFideId", ""), get("WhiteElo", ""))] = game.white
        self._sides[(get("Black", "?"), get("BlackFideId", ""), get("BlackElo", ""))] = game.black
        date_text = get("Date", "")
        if game.date is not None and parse_iso_like_date(date_text) == game.date:
            self._days[date_text] = game.date
        self._rounds[get("Round", "?")] = game.round


def _game(
    headers: Mapping[str, str],
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
    day = _day(headers, line, errors, warnings)
    round_no = _round(headers, line, errors)
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
        site=_known(headers.get("Site", "")),
    )


def _day(
    headers: Mapping[str, str], line: int, errors: ErrorCollector, warnings: list[ParseWarning]
) -> datetime.date | None:
    """The game's Date, or its EventDate when the Date is partial (with a warning); None
    with an error when neither is a complete date."""
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
    return day


def _round(headers: Mapping[str, str], line: int, errors: ErrorCollector) -> int | None:
    """The round of a Round such as ``3`` or ``3.1``; None when unknown or (with an error)
    not a round."""
    round_text = headers.get("Round", "?").strip()
    if round_text in _UNKNOWN:
        return None
    match = _ROUND.fullmatch(round_text)
    if match is None:
        errors.add(line, f"round {round_text!r} is not a number like 3 or 3.1")
        return None
    return int(match.group(1))


def _number(headers: Mapping[str, str], tag: str, line: int, errors: ErrorCollector) -> int | None:
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
