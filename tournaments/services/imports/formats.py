"""The per-format front ends: a parsed TRF, or PGN/CSV games, turned into an import's plan.

A TRF is one tournament whose players are its start numbers; PGN and CSV games name their
players (by FIDE ID or name) and their tournaments (by event). Both front ends check what
the parsers accept but the tables cannot hold, and add their errors and warnings to the
report with the file's line numbers.
"""

from __future__ import annotations

import datetime
import hashlib
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy

from players.models import Sex, Title
from players.names import name_key
from tournaments.interchange import ByeKind, ParsedGame, ParsedTournament
from tournaments.models import Result
from tournaments.services.imports.plan import (
    Person,
    Plan,
    PlannedBye,
    PlannedGame,
    PlannedTournament,
    clean_name,
)
from tournaments.services.imports.report import ByeEntry, ImportReport, LineMessage

BYE_LABELS = {
    ByeKind.HALF_POINT: "half-point bye (H)",
    ByeKind.FULL_POINT: "full-point bye (F)",
    ByeKind.PAIRING_ALLOCATED: "pairing-allocated bye (U)",
    ByeKind.ZERO_POINT: "zero-point bye or absent (Z)",
}


_MAX_ROUNDS = 99
# Bounds of the columns a PGN or CSV value lands in (the TRF's fixed widths stay inside).
_MAX_ROUND_NUMBER = 999
_MAX_NAME = 200
_MAX_FIDE_ID = 10**12


def plan_trf(parsed: ParsedTournament, digest: str, report: ImportReport) -> Plan:
    """A TRF's one tournament, its players by start number, its games and its byes."""
    tournament = _trf_tournament(parsed, digest, report)
    if tournament is None:
        return Plan([], [], [])
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
    return Plan(list(persons.values()), [tournament], games, byes)


def _trf_tournament(
    parsed: ParsedTournament, digest: str, report: ImportReport
) -> PlannedTournament | None:
    """The tournament with its dates (headers, else the round dates); None after an error."""
    dates = [day for day in parsed.round_dates if day is not None]
    start = parsed.start_date or (min(dates) if dates else None)
    end = parsed.end_date or (max(dates) if dates else None)
    if start is None or end is None:
        report.errors.append(
            LineMessage(0, "the file gives no dates: it needs 042/052 or round dates (132)")
        )
        return None
    if parsed.rounds > _MAX_ROUNDS:
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
    )


def _trf_persons(parsed: ParsedTournament, report: ImportReport) -> dict[int | None, Person]:
    persons: dict[int | None, Person] = {}
    for player in parsed.players:
        title = player.title if player.title in Title.values else ""
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
) -> list[PlannedGame]:
    """The games, dated by their round (a round without a date: the start date)."""
    start, end = tournament.start_date, tournament.end_date
    games: list[PlannedGame] = []
    undated: set[int] = set()
    outside: set[int] = set()
    for game in parsed.games:
        day = game.date
        if day is None:
            day = start
            if game.round not in undated and game.round is not None:
                undated.add(game.round)
                # Said at the 132 line, whose date is missing or unreadable (the first
                # game's line when the file has no 132).
                report.warnings.append(
                    LineMessage(
                        parsed.round_dates_line or game.line,
                        f"round {game.round} has no date (132); its games are dated {start}",
                    )
                )
        elif not start <= day <= end and game.round not in outside:
            outside.add(game.round or 0)
            report.errors.append(
                LineMessage(
                    game.line,
                    f"round {game.round} is dated {day}, outside the tournament's dates "
                    f"{start} to {end} (042/052)",
                )
            )
        games.append(
            PlannedGame(
                line=game.line,
                white=persons[game.white.start_no],
                black=persons[game.black.start_no],
                result=game.result.value,
                rated=game.rated,
                note=game.note,
                round=game.round,
                date=day,
                tournament=tournament,
            )
        )
    return games


def _check_sizes(game: ParsedGame, report: ImportReport) -> None:
    """What the parsers accept but the tables cannot hold: say which line, not a 500."""
    if game.round is not None and not 1 <= game.round <= _MAX_ROUND_NUMBER:
        report.errors.append(
            LineMessage(game.line, f"round {game.round} is out of range 1-{_MAX_ROUND_NUMBER}")
        )
    for ref in (game.white, game.black):
        if len(clean_name(ref.name)) > _MAX_NAME:
            report.errors.append(
                LineMessage(game.line, f"a player's name is longer than {_MAX_NAME} characters")
            )
        if ref.fide_id is not None and ref.fide_id > _MAX_FIDE_ID:
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


@dataclass(slots=True)
class _EventFigures:
    first_line: int
    first_day: datetime.date | None = None
    last_day: datetime.date | None = None
    rounds: int = 0

    def add(self, game: ParsedGame) -> None:
        if game.date is not None:
            if self.first_day is None or game.date < self.first_day:
                self.first_day = game.date
            if self.last_day is None or game.date > self.last_day:
                self.last_day = game.date
        if game.round is not None and game.round > self.rounds:
            self.rounds = game.round


# A game's key for finding identical lines: its date, players, result, round and event.
_KEY_TYPE = numpy.dtype(
    [
        ("date", "i4"),
        ("white", "i4"),
        ("black", "i4"),
        ("result", "i1"),
        ("round", "i4"),
        ("event", "i4"),
    ]
)
_RESULT_CODES = {result: code for code, result in enumerate(Result.values)}


def plan_games(games: list[ParsedGame], digest: str, report: ImportReport) -> Plan:
    """The plan of a PGN or CSV file's games. ``games`` is consumed: each parsed game is
    dropped from the list once its planned game is made, so a file of a million games is
    not held twice (the caller lets the parse result go first)."""
    # A name-only reference is the same person as a FIDE-ID reference of the same name key
    # (any order of the parts, accents and case ignored) when exactly one FIDE ID goes with
    # that key in the file.
    ids_by_name: dict[str, set[int]] = defaultdict(set)
    for game in games:
        for ref in (game.white, game.black):
            if ref.fide_id is not None:
                ids_by_name[name_key(ref.name)].add(ref.fide_id)
    persons: dict[tuple[str, Any], Person] = {}

    def person(ref: Any, line: int) -> Person:
        normal = name_key(ref.name)
        if ref.fide_id is not None:
            key: tuple[str, Any] = ("fide_id", ref.fide_id)
        elif len(ids_by_name.get(normal, ())) == 1:
            key = ("fide_id", next(iter(ids_by_name[normal])))
        else:
            key = ("name", normal)
        found = persons.get(key)
        if found is None:
            found = persons[key] = Person(
                key=key,
                name=clean_name(ref.name),
                line=line,
                fide_id=key[1] if key[0] == "fide_id" else None,
                rating=ref.rating,
            )
        elif found.rating is None and ref.rating is not None:
            found.rating = ref.rating
        return found

    # Per event, what its tournament needs (days, rounds, first line): running figures
    # rather than lists of its games.
    events: dict[str, _EventFigures] = {}
    for game in games:
        if game.tournament:
            name = clean_name(game.tournament)
            figures = events.get(name)
            if figures is None:
                figures = events[name] = _EventFigures(first_line=game.line)
            figures.add(game)
    tournaments: dict[str, PlannedTournament] = {}
    for index, (name, figures) in enumerate(events.items()):
        # The first event carries the file's own digest (as a TRF's tournament does); the
        # others one derived from it and their name, unique per club like any digest.
        event_digest = (
            digest if index == 0 else hashlib.sha256(f"{digest}:{name}".encode()).hexdigest()
        )
        # PGN and CSV parsers refuse a game without a date.
        assert figures.first_day is not None
        assert figures.last_day is not None
        tournaments[name] = PlannedTournament(
            name=name[:200],
            start_date=figures.first_day,
            end_date=figures.last_day,
            rounds=figures.rounds if 0 < figures.rounds <= _MAX_ROUNDS else None,
            city="",
            digest=event_digest,
            first_line=figures.first_line,
        )
    planned: list[PlannedGame] = []
    games.reverse()  # popped from the end, in the file's order
    while games:
        game = games.pop()
        assert game.date is not None  # PGN and CSV parsers refuse a game without a date
        planned.append(
            PlannedGame(
                line=game.line,
                white=person(game.white, game.line),
                black=person(game.black, game.line),
                result=game.result.value,
                rated=game.rated,
                note=game.note,
                round=game.round,
                date=game.date,
                tournament=tournaments.get(clean_name(game.tournament))
                if game.tournament
                else None,
            )
        )
        if planned[-1].white is planned[-1].black:
            report.errors.append(LineMessage(game.line, "both sides are the same player"))
        _check_sizes(game, report)
    if not report.keep_identical:
        planned = _drop_identical(planned, report)
    return Plan(list(persons.values()), list(tournaments.values()), planned)


def _drop_identical(games: list[PlannedGame], report: ImportReport) -> list[PlannedGame]:
    """Identical game lines (same date, players, result, round and event) are possible
    duplicates of a copy-paste: the first is stored, the others reported.

    The games' keys go in one numpy table of small integers, whose unique rows give each
    game's first line: a dict of a million key tuples took about 190 MB."""
    if len(games) < 2:
        return games
    index_of: dict[int, int] = {}  # id() of a person or tournament -> a small number

    def number(thing: object) -> int:
        return index_of.setdefault(id(thing), len(index_of))

    keys = numpy.fromiter(
        (
            (
                game.date.toordinal(),
                number(game.white),
                number(game.black),
                _RESULT_CODES[game.result],
                game.round or 0,
                -1 if game.tournament is None else number(game.tournament),
            )
            for game in games
        ),
        dtype=_KEY_TYPE,
        count=len(games),
    )
    _, first, group = numpy.unique(keys, return_index=True, return_inverse=True)
    del keys
    first_of = first[group.ravel()]
    duplicates = numpy.flatnonzero(first_of != numpy.arange(len(games)))
    if not len(duplicates):
        return games
    for position in duplicates.tolist():
        game, original = games[position], games[int(first_of[position])]
        report.identical_games.append(
            LineMessage(
                game.line,
                f"{game.white.name} - {game.black.name} {game.result} is identical to "
                f"line {original.line}: stored once (keep_identical stores both)",
                original.line,
            )
        )
    dropped = set(duplicates.tolist())
    return [game for position, game in enumerate(games) if position not in dropped]
