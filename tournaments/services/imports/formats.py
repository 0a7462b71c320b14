"""The TRF front end: a parsed TRF turned into an import's plan (PGN and CSV games:
:mod:`.game_files`).

A TRF is one tournament whose players are its start numbers. Both front ends check what
the parsers accept but the tables cannot hold, and add their errors and warnings to the
report with the file's line numbers.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from operator import itemgetter

import numpy

from players.models import Sex, Title
from tournaments.interchange import ByeKind, ParsedGame, ParsedTournament
from tournaments.interchange.table import RecordTable
from tournaments.services.imports.plan import (
    Person,
    Plan,
    PlannedBye,
    PlannedGame,
    PlannedGames,
    PlannedTournament,
    clean_name,
    planned_games,
)
from tournaments.services.imports.report import ByeEntry, ImportReport, LineMessage

BYE_LABELS = {
    ByeKind.HALF_POINT: "half-point bye (H)",
    ByeKind.FULL_POINT: "full-point bye (F)",
    ByeKind.PAIRING_ALLOCATED: "pairing-allocated bye (U)",
    ByeKind.ZERO_POINT: "zero-point bye or absent (Z)",
}


MAX_ROUNDS = 99
# Bounds of the columns a PGN or CSV value lands in (the TRF's fixed widths stay inside).
MAX_ROUND_NUMBER = 999
MAX_NAME = 200
MAX_FIDE_ID = 10**12


def plan_trf(parsed: ParsedTournament, digest: str, report: ImportReport) -> Plan:
    """A TRF's one tournament, its players by start number, its games and its byes."""
    tournament = _trf_tournament(parsed, digest, report)
    if tournament is None:
        return Plan([], [], planned_games())
    persons = _trf_persons(parsed, report)
    games = _trf_games(parsed, persons, tournament, report)
    report.byes = [
        ByeEntry(
            line=bye.line,
            round=bye.round,
            player=clean_name(bye.player.name),
            kind=bye.kind.value,
            label=BYE_LABELS[bye.kind],
        )
        for bye in parsed.byes
    ]
    _note_withdrawals(parsed, report)
    byes = [
        PlannedBye(bye.line, persons[bye.player.start_no], bye.round, bye.kind.value)
        for bye in parsed.byes
    ]
    return Plan(list(persons.values()), [tournament], games, byes, entry_list=True)


def _trf_tournament(
    parsed: ParsedTournament, digest: str, report: ImportReport
) -> PlannedTournament | None:
    """The tournament with its dates (headers, else the round dates); None after an error."""
    start, end = _trf_dates(parsed)
    if start is None or end is None:
        report.errors.append(
            LineMessage(0, "the file gives no dates: it needs 042/052 or round dates (132)")
        )
        return None
    if parsed.rounds > MAX_ROUNDS:
        report.errors.append(LineMessage(0, f"{parsed.rounds} rounds; at most 99 are kept"))
        return None
    name = clean_name(parsed.name)
    if not name:
        name = f"Tournament of {start:%Y-%m-%d}"
        report.warnings.append(LineMessage(0, f"the file has no name (012); named it {name!r}"))
    return PlannedTournament(
        name=name[:200],
        start_date=start,
        end_date=end,
        rounds=parsed.rounds or None,
        city=clean_name(parsed.city)[:100],
        digest=digest,
        first_line=min((p.line for p in parsed.players), default=0),
        headers={
            "federation": parsed.federation[:3],
            "tournament_type": parsed.tournament_type,
            "time_control": parsed.time_control,
            "arbiter": (parsed.extra_headers.get("102") or ("",))[0],
        },
        date_lines={
            "start_date": parsed.start_date_line if parsed.start_date else parsed.round_dates_line,
            "end_date": parsed.end_date_line if parsed.end_date else parsed.round_dates_line,
        },
    )


def _trf_dates(parsed: ParsedTournament) -> tuple[date | None, date | None]:
    """The tournament's first and last day: its headers' (042/052), else the round dates'."""
    dates = [day for day in parsed.round_dates if day is not None]
    start = parsed.start_date or (min(dates) if dates else None)
    end = parsed.end_date or (max(dates) if dates else None)
    return start, end


# Built once: an enum's ``values`` makes a new list on every access (8,000 players).
_TITLES = frozenset(Title.values)


def _trf_persons(parsed: ParsedTournament, report: ImportReport) -> dict[int | None, Person]:
    persons: dict[int | None, Person] = {}
    for player in parsed.players:
        title = player.title if player.title in _TITLES else ""
        if player.title and not title:
            report.warnings.append(
                LineMessage(player.line, f"title {player.title!r} is not kept (not a FIDE title)")
            )
        persons[player.start_no] = Person(
            key=("start_no", player.start_no),
            name=clean_name(player.name),
            line=player.line,
            fide_id=player.fide_id,
            birth_date=player.birth_date,
            birth_year=player.birth_year,
            sex={"m": Sex.MALE, "w": Sex.FEMALE}.get(player.sex, ""),
            title=title,
            federation=player.federation,
            rating=player.rating,
        )
    return persons


def _trf_games(
    parsed: ParsedTournament,
    persons: dict[int | None, Person],
    tournament: PlannedTournament,
    report: ImportReport,
) -> PlannedGames:
    """The games, dated by their round (a round without a date: the start date), on the
    parse's columns: a round's dates are checked once, at its first game."""
    games = parsed.games
    assert isinstance(games, RecordTable)  # parse_trf keeps its games in columns
    _check_round_dates(parsed, games, tournament, report)
    start, lines, days = tournament.start_date, games.column("line"), games.values("date")
    people = list(persons.values())
    number = {id(person): index for index, person in enumerate(people)}
    sides = {
        side: numpy.array(
            [number[id(persons[ref.start_no])] for ref in games.values(side)] or [0],
            numpy.int32,
        )[games.column(side)]
        for side in ("white", "black")
    }
    dated = [start if day is None else day for day in days]
    return RecordTable.from_columns(
        PlannedGame,
        lines=lines,
        columns={
            **sides,
            "tournament": numpy.zeros(len(games), numpy.int32),
            **{name: games.column(name) for name in ("result", "rated", "note", "round", "date")},
        },
        values={
            "white": people,
            "black": people,
            "tournament": [tournament],
            "result": [result.value for result in games.values("result")],
            "date": dated,
            **{name: games.values(name) for name in ("rated", "note", "round")},
        },
    )


def _check_round_dates(
    parsed: ParsedTournament,
    games: RecordTable[ParsedGame],
    tournament: PlannedTournament,
    report: ImportReport,
) -> None:
    """Each round's date, once, at its round's first game: a round without one is dated
    at the start (a warning), a date outside the tournament's is an error."""
    start, end = tournament.start_date, tournament.end_date
    lines, rounds, days = games.column("line"), games.values("round"), games.values("date")
    undated: set[int] = set()
    outside: set[int] = set()
    # Each distinct (round, date) at its first game, in the file's order.
    pairs, firsts = numpy.unique(
        games.column("round").astype(numpy.int64) * max(len(days), 1) + games.column("date"),
        return_index=True,
    )
    for pair, first in sorted(zip(pairs.tolist(), firsts.tolist(), strict=True), key=itemgetter(1)):
        round_no, day, line = (
            rounds[pair // max(len(days), 1)],
            days[pair % max(len(days), 1)],
            int(lines[first]),
        )
        if day is None:
            if round_no not in undated and round_no is not None:
                undated.add(round_no)
                # Said at the 132 line, whose date is missing or unreadable (the first
                # game's line when the file has no 132).
                report.warnings.append(
                    LineMessage(
                        parsed.round_dates_line or line,
                        f"round {round_no} has no date (132); its games are dated {start}",
                    )
                )
        elif not start <= day <= end and round_no not in outside:
            outside.add(round_no or 0)
            report.errors.append(
                LineMessage(
                    line,
                    f"round {round_no} is dated {day}, outside the tournament's dates "
                    f"{start} to {end} (042/052)",
                )
            )


def check_sizes(game: ParsedGame, report: ImportReport) -> None:
    """What the parsers accept but the tables cannot hold: say which line, not a 500."""
    if game.round is not None and not 1 <= game.round <= MAX_ROUND_NUMBER:
        report.errors.append(
            LineMessage(game.line, f"round {game.round} is out of range 1-{MAX_ROUND_NUMBER}")
        )
    for ref in (game.white, game.black):
        if len(clean_name(ref.name)) > MAX_NAME:
            report.errors.append(
                LineMessage(game.line, f"a player's name is longer than {MAX_NAME} characters")
            )
        if ref.fide_id is not None and ref.fide_id > MAX_FIDE_ID:
            report.errors.append(LineMessage(game.line, f"{ref.fide_id} is not a FIDE ID"))


def _note_withdrawals(parsed: ParsedTournament, report: ImportReport) -> None:
    """A player whose last rounds are all absences (Z) withdrew; worth a line in the report."""
    absent: dict[int, set[int]] = defaultdict(set)
    for bye in parsed.byes:
        if bye.kind == ByeKind.ZERO_POINT and bye.player.start_no is not None:
            absent[bye.player.start_no].add(bye.round)
    for player in parsed.players:
        rounds = absent.get(player.start_no or 0, set())
        last_present = parsed.rounds
        while last_present in rounds:
            last_present -= 1
        if 0 < last_present < parsed.rounds:
            report.warnings.append(
                LineMessage(
                    player.line,
                    f"{clean_name(player.name)} withdrew after round {last_present} "
                    f"(absent from round {last_present + 1} on)",
                )
            )
