"""The TRF reader: a whole file, both sides of every game checked against each other."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from tournaments.interchange.records import (
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
from tournaments.interchange.trf.layout import (
    HEADER_CODES,
    RoundEntry,
)
from tournaments.interchange.trf.lines import header_date, parse_player_line, read_round_dates
from tournaments.interchange.trf.pairing import pair_up

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
    games, byes = pair_up(
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


@dataclass
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

    def add_header(self, code: str, line_no: int, line: str, warnings: list[ParseWarning]) -> None:
        """A header line (012-132) or another code's: the first of each header counts."""
        if code not in HEADER_CODES:
            self.extra[code].append((line_no, line[4:].strip()))
        elif code == "132":
            self.round_dates_line = (line_no, line)
        elif code in self.headers:
            first = self.headers[code][0]
            warnings.append(ParseWarning(line_no, f"header {code} repeated; line {first} used"))
        else:
            self.headers[code] = (line_no, line[4:].strip())


def _read_records(
    text: Iterable[str],
    errors: ErrorCollector,
    warnings: list[ParseWarning],
    progress: ProgressCallback | None,
) -> _Records:
    tick = progress_ticker(progress)
    records = _Records({}, defaultdict(list), None, {}, {})
    players, rounds_of = records.players, records.rounds_of
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
        else:
            records.add_header(code, line_no, line, warnings)
    if progress is not None:
        progress(line_no)
    return records


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
