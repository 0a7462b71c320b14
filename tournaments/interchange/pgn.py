"""PGN game headers (not the moves), read as python-chess's ``chess.pgn.read_headers`` reads
them (its rules and header pattern; ``_blocks``, proven equal to it by
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
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple, TextIO

import chess.pgn

from tournaments.interchange.bounds import PlayerCount
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


#: A header line as python-chess reads one (``chess.pgn.TAG_REGEX``): a line it does not
#: match is one python-chess ignores, and this reader reports.
_TAG = chess.pgn.TAG_REGEX
#: A run of header lines, each ending in a line break, matched at once; ``_RUN_TAG`` takes
#: each line's name and value. The same lines as ``_TAG`` (``\s`` short of the line break:
#: a line never holds one, and the text's ``\r`` are line breaks already).
_RUN = re.compile(r'(?:\[[A-Za-z0-9][A-Za-z0-9_+#=:-]*[^\S\n]+"[^\n]*"\][^\S\n]*\n)+')
_RUN_TAG = re.compile(r'\[([A-Za-z0-9][A-Za-z0-9_+#=:-]*)[^\S\n]+"([^\n]*)"\][^\S\n]*\n')
#: A header line in its plainest form (the same name and value as ``_TAG`` gives for it),
#: and the movetext lines of a game that has nothing for the movetext's rules to do: no
#: comment, no ``%`` or ``[``, not blank. A game of such lines, its headers and movetext
#: each followed by one empty line, is read without going line by line (``_blocks``).
_PLAIN_TAG = re.compile(r'^\[([A-Za-z0-9]+) "([^"\n]*)"\]\n', re.MULTILINE)
_PLAIN_MOVES = re.compile(r"(?:[^\n{};%\[]*[^\s{};%\[][^\n{};%\[]*\n)*\n")
#: Characters that open or close a movetext comment.
_SKIP_TOKENS = chess.pgn.SKIP_MOVETEXT_REGEX
#: Characters read from the text at a time (a file is never held whole).
_CHUNK_CHARS = 1 << 20

#: Games handed to the table at a time.
_BATCH = 4096

# Where the reader is in a game: before its first line, in its headers, in its movetext.
_BEFORE, _HEADERS, _MOVES = 0, 1, 2


class _Block(NamedTuple):
    """One game's headers as python-chess's ``read_headers`` returns them."""

    #: The first line of the block that is not blank (where its errors point).
    start: int
    headers: dict[str, str]
    #: The lines of the block that start with ``[`` but are not a header tag.
    malformed: list[int]
    #: The last line read for this block (its closing blank line, or the file's last).
    end: int


def _blocks(text: TextIO) -> Iterator[_Block]:
    """Every game's headers, the same as ``chess.pgn.read_headers`` called until it returns
    None, with the lines of the file that start each block and that python-chess would
    silently ignore.

    python-chess read a line at a time through ``readline`` and set up a header object per
    game: most of a 100,000-game import. This reads the text a chunk at a time, takes a run of
    header lines with one regular expression, and follows python-chess's rules line by line
    elsewhere: comment lines (``%``, ``;``) skipped, one blank line allowed between headers,
    the first line that is not a header starts the movetext, a blank line outside a ``{}``
    comment ends the game, a byte-order mark dropped from a game's first line.
    """
    line_no = 0
    state = _BEFORE
    first = True  # the next line is the first one read for this block
    start = 0
    headers: dict[str, str] = {}
    malformed: list[int] = []
    empty_lines = 0
    in_comment = False
    rest = ""
    at_end = False
    while not at_end:
        chunk = text.read(_CHUNK_CHARS)
        if chunk:
            chunk = rest + chunk
            stop = chunk.rfind("\n") + 1  # whole lines only; the rest waits for more
            rest = chunk[stop:]
        else:
            chunk, stop, rest, at_end = rest, len(rest), "", True
        position = 0
        while position < stop:
            if state == _BEFORE and chunk.startswith("[", position):
                # The plain game, at once: its header lines, an empty line, movetext
                # lines, an empty line.
                blank = chunk.find("\n\n", position, stop)
                if blank >= 0:
                    tags = _PLAIN_TAG.findall(chunk, position, blank + 1)
                    if len(tags) == chunk.count("\n", position, blank + 1) and (
                        moves := _PLAIN_MOVES.match(chunk, blank + 2, stop)
                    ):
                        first_line = line_no + 1
                        line_no += chunk.count("\n", position, moves.end())
                        yield _Block(start or first_line, dict(tags), malformed, line_no)
                        first, start, malformed = True, 0, []
                        position = moves.end()
                        continue
            newline = chunk.find("\n", position, stop)
            following = newline + 1 if newline >= 0 else stop
            raw = chunk[position : newline if newline >= 0 else stop]
            line_start = position
            position = following
            line_no += 1
            if not start and raw.strip():
                start = line_no
            line = raw
            if state == _BEFORE:
                if first:
                    line = raw.lstrip("\ufeff")
                    first = False
                if not line or line.isspace() or line[0] in "%;":
                    continue
                state, headers, empty_lines = _HEADERS, {}, 0
            if state == _HEADERS:
                if line[:1] in ("%", ";"):
                    continue
                if empty_lines < 1 and (not line or line.isspace()):
                    empty_lines += 1
                    continue
                if line[:1] == "[":
                    empty_lines = 0
                    if line is raw and (run := _RUN.match(chunk, line_start, stop)):
                        # This line and the header lines after it, at once.
                        tags = _RUN_TAG.findall(chunk, line_start, run.end())
                        headers.update(tags)
                        line_no += len(tags) - 1
                        position = run.end()
                        continue
                    if match := _TAG.match(line):
                        headers[match[1]] = match[2]
                    elif raw[:1] == "[":
                        malformed.append(line_no)
                    continue
                state, in_comment = _MOVES, False
            # The movetext, skipped: python-chess's fast path for a game it does not build.
            if not in_comment:
                if not line or line.isspace():
                    yield _Block(start, headers, malformed, line_no)
                    state, first, start, malformed = _BEFORE, True, 0, []
                    continue
                if line[0] == "%":
                    continue
            if "{" in line or "}" in line or ";" in line:
                for token in _SKIP_TOKENS.finditer(line):
                    if token[0] == "{":
                        in_comment = True
                    elif not in_comment and token[0] == ";":
                        break
                    elif token[0] == "}":
                        in_comment = False
            if raw[:1] == "[" and not _TAG.match(raw):
                malformed.append(line_no)
    if state != _BEFORE:
        yield _Block(start, headers, malformed, line_no)


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
    for line, headers, malformed, line_no in _blocks(text):
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
        site=_known(headers.get("Site", "")),
    )


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
