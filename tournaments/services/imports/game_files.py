"""The PGN and CSV front end: a file's games, which name their players (by FIDE ID or
name) and their tournaments (by event), turned into an import's plan.

Column by column: a 50 MB file holds about a million games but a few thousand players and
a few dozen events, so each player reference and each event is resolved once, and the
planned games are the parse's own columns with the players and events put in (a
:class:`~tournaments.interchange.table.RecordTable` sharing them), not a second million
objects.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from datetime import date
from typing import Any

import numpy

from players.names import name_key
from tournaments.interchange import ParsedGame, PlayerRef
from tournaments.interchange.table import RecordTable
from tournaments.services.imports.formats import (
    MAX_FIDE_ID,
    MAX_NAME,
    MAX_ROUND_NUMBER,
    MAX_ROUNDS,
    check_sizes,
)
from tournaments.services.imports.plan import (
    Person,
    Plan,
    PlannedGame,
    PlannedGames,
    PlannedTournament,
    clean_name,
)
from tournaments.services.imports.report import REPORT_MAX_LINES, ImportReport, LineMessage

#: A round too large to keep, for the per-event maximum (NumPy holds no arbitrary integers).
_ROUND_CEILING = MAX_ROUND_NUMBER + 1


def plan_games(games: RecordTable[ParsedGame], digest: str, report: ImportReport) -> Plan:
    """The plan of a PGN or CSV file's games (in the file's order)."""
    persons, white, black = _persons(games)
    tournaments, event_of_game = _tournaments(games, digest)
    planned: PlannedGames = RecordTable.from_columns(
        PlannedGame,
        lines=games.column("line"),
        columns={
            "white": white,
            "black": black,
            "tournament": event_of_game + 1,  # 0: no event
            **{name: games.column(name) for name in ("result", "rated", "note", "round", "date")},
        },
        values={
            "white": persons,
            "black": persons,
            "tournament": [None, *tournaments],
            "result": [result.value for result in games.values("result")],
            **{name: games.values(name) for name in ("rated", "note", "round", "date")},
        },
    )
    _check(games, white == black, report)
    if not report.keep_identical:
        planned = _drop_identical(planned, report)
    return Plan(persons, tournaments, planned)


def _persons(
    games: RecordTable[ParsedGame],
) -> tuple[list[Person], numpy.ndarray[Any, Any], numpy.ndarray[Any, Any]]:
    """The file's persons in the order the file first names them, and each game's white
    and black person as indices into them.

    A name-only reference is the same person as a FIDE-ID reference of the same name key
    (any order of the parts, accents and case ignored) when exactly one FIDE ID goes with
    that key in the file."""
    sides = {side: games.values(side) for side in ("white", "black")}
    keys = _person_keys(sides)
    lines = games.column("line")
    persons: dict[tuple[str, Any], Person] = {}
    for position, _order, ref in _firsts(games, sides):
        key = keys[ref]
        person = persons.get(key)
        if person is None:
            persons[key] = Person(
                key=key,
                name=clean_name(ref.name),
                line=int(lines[position]),
                fide_id=key[1] if key[0] == "fide_id" else None,
                rating=ref.rating,
            )
        elif person.rating is None and ref.rating is not None:
            person.rating = ref.rating
    index_of = {key: index for index, key in enumerate(persons)}
    columns = []
    for side, refs in sides.items():
        mapping = numpy.array([index_of[keys[ref]] for ref in refs], dtype=numpy.int32)
        columns.append(mapping[games.column(side)])
    return list(persons.values()), columns[0], columns[1]


def _person_keys(sides: dict[str, list[PlayerRef]]) -> dict[PlayerRef, tuple[str, Any]]:
    """Each reference's person: its FIDE ID, the one FIDE ID its name key goes with in
    the file, else its name key."""
    normals = {ref: name_key(ref.name) for refs in sides.values() for ref in refs}
    ids_by_name: dict[str, set[int]] = defaultdict(set)
    for ref, normal in normals.items():
        if ref.fide_id is not None:
            ids_by_name[normal].add(ref.fide_id)
    keys: dict[PlayerRef, tuple[str, Any]] = {}
    for ref, normal in normals.items():
        if ref.fide_id is not None:
            keys[ref] = ("fide_id", ref.fide_id)
        elif len(ids_by_name.get(normal, ())) == 1:
            keys[ref] = ("fide_id", next(iter(ids_by_name[normal])))
        else:
            keys[ref] = ("name", normal)
    return keys


def _firsts(
    games: RecordTable[ParsedGame], sides: dict[str, list[PlayerRef]]
) -> list[tuple[int, int, PlayerRef]]:
    """Each reference's first game (white's side before black's within a game): the order
    in which persons are met, their line and their first known rating."""
    firsts: list[tuple[int, int, PlayerRef]] = []
    for order, refs in enumerate(sides.values()):
        found, first = numpy.unique(
            games.column("white" if order == 0 else "black"), return_index=True
        )
        for index, position in zip(found.tolist(), first.tolist(), strict=True):
            firsts.append((position, order, refs[index]))
    firsts.sort(key=lambda first: first[:2])
    return firsts


def _tournaments(
    games: RecordTable[ParsedGame], digest: str
) -> tuple[list[PlannedTournament], numpy.ndarray[Any, Any]]:
    """The file's events, in the order first met, and each game's event as an index into
    them (-1: none). An event's dates run from its first game's day to its last's."""
    event_names, event = _events(games)
    if not event_names:
        return [], event
    ordinals = numpy.array([day.toordinal() for day in games.values("date")], numpy.int64)
    rounds = numpy.array(
        [min(value or 0, _ROUND_CEILING) for value in games.values("round")], numpy.int64
    )
    count = len(event_names)
    in_event = numpy.flatnonzero(event >= 0)
    of = event[in_event]
    first = numpy.full(count, len(games), numpy.int64)
    numpy.minimum.at(first, of, in_event)
    day = ordinals[games.column("date")[in_event]]
    first_day = numpy.full(count, numpy.iinfo(numpy.int64).max)
    numpy.minimum.at(first_day, of, day)
    last_day = numpy.zeros(count, numpy.int64)
    numpy.maximum.at(last_day, of, day)
    most_rounds = numpy.zeros(count, numpy.int64)
    numpy.maximum.at(most_rounds, of, rounds[games.column("round")[in_event]])
    lines = games.column("line")
    sites = games.values("site")
    first_site = _first_sites(games, event, in_event, count)
    tournaments = []
    # The events' numbers follow the file: the first spelling of each is met in order.
    for index, name in enumerate(event_names):
        # The first event carries the file's own digest (as a TRF's tournament does); the
        # others one derived from it and their name, unique per club like any digest.
        event_digest = (
            digest if index == 0 else hashlib.sha256(f"{digest}:{name}".encode()).hexdigest()
        )
        figures = int(most_rounds[index])
        tournaments.append(
            PlannedTournament(
                name=name[:200],
                start_date=date.fromordinal(int(first_day[index])),
                end_date=date.fromordinal(int(last_day[index])),
                rounds=figures if 0 < figures <= MAX_ROUNDS else None,
                city=clean_name(sites[first_site[index]])[:100] if first_site[index] >= 0 else "",
                digest=event_digest,
                first_line=int(lines[first[index]]),
            )
        )
    return tournaments, event


def _events(games: RecordTable[ParsedGame]) -> tuple[list[str], numpy.ndarray[Any, Any]]:
    """The events' names in the order first met, and each game's event as an index into
    them (-1: none)."""
    names = [clean_name(text) if text else "" for text in games.values("tournament")]
    event_names = list(dict.fromkeys(name for name in names if name))
    number = {name: index for index, name in enumerate(event_names)}
    event_of_text = numpy.array([number.get(name, -1) for name in names] or [-1], numpy.int32)
    return event_names, event_of_text[games.column("tournament")]


def _first_sites(
    games: RecordTable[ParsedGame],
    event: numpy.ndarray[Any, Any],
    in_event: numpy.ndarray[Any, Any],
    count: int,
) -> numpy.ndarray[Any, Any]:
    """Each event's place: the first of its games' sites the file gives (PGN's Site), as
    an index into the sites (-1: none)."""
    site_of = games.column("site")
    has_site = numpy.array([bool(text) for text in games.values("site")] or [False], bool)[site_of]
    sited = in_event[has_site[in_event]][::-1]
    # Assigned last to first: a repeated index keeps the last write, the event's first site.
    first_site = numpy.full(count, -1, numpy.int64)
    first_site[event[sited]] = site_of[sited]
    return first_site


def _check(
    games: RecordTable[ParsedGame], same: numpy.ndarray[Any, Any], report: ImportReport
) -> None:
    """Games whose two sides are one person, and what the tables cannot hold (a round, a
    name or a FIDE ID too large), each at its line in the file's order."""

    def too_large(ref: PlayerRef) -> bool:
        return len(clean_name(ref.name)) > MAX_NAME or (
            ref.fide_id is not None and ref.fide_id > MAX_FIDE_ID
        )

    bad = same.copy()
    round_bad = [
        value is not None and not 1 <= value <= MAX_ROUND_NUMBER for value in games.values("round")
    ]
    for name, flags in (
        ("round", round_bad),
        ("white", [too_large(ref) for ref in games.values("white")]),
        ("black", [too_large(ref) for ref in games.values("black")]),
    ):
        if any(flags):
            bad |= numpy.array(flags, dtype=bool)[games.column(name)]
    for position in numpy.flatnonzero(bad).tolist():
        game = games[position]
        if same[position]:
            report.errors.append(LineMessage(game.line, "both sides are the same player"))
        check_sizes(game, report)


def _drop_identical(games: PlannedGames, report: ImportReport) -> PlannedGames:
    """Identical game lines (same date, players, result, round and event) are possible
    duplicates of a copy-paste: the first is stored, the others reported.

    On the columns: one stable sort of the games by their key puts identical lines side
    by side, in the file's order, so each group's first is the line that is kept."""
    if len(games) < 2:
        return games
    keys = [
        games.column(name) for name in ("tournament", "round", "result", "black", "white", "date")
    ]
    order = numpy.lexsort(keys)  # stable: equal keys stay in the file's order
    starts = numpy.zeros(len(order), dtype=bool)
    starts[0] = True
    for key in keys:
        ordered = key[order]
        starts[1:] |= ordered[1:] != ordered[:-1]
    del ordered
    group = numpy.cumsum(starts) - 1
    first = numpy.empty(len(order), dtype=numpy.int64)
    first[order] = order[starts][group]
    del order, starts, group
    keep = first == numpy.arange(len(first))
    if keep.all():
        return games
    lines = games.column("line")
    repeated = numpy.flatnonzero(~keep)
    report.identical_games_count += len(repeated)
    for position in repeated[: REPORT_MAX_LINES - len(report.identical_games)].tolist():
        game, original = games[position], int(lines[first[position]])
        report.identical_games.append(
            LineMessage(
                game.line,
                f"{game.white.name} - {game.black.name} {game.result} is identical to "
                f"line {original}: stored once (keep_identical stores both)",
                original,
            )
        )
    return games.select(keep)
