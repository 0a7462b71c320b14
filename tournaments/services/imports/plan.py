"""The plan of an import: the file's people, tournaments and games, before the database.

The per-format front ends (:mod:`.formats`) build it from a parsed file; matching
(:mod:`.matching`) fills in the club players; the store (:mod:`.store`) writes it.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

from players.models import month_start
from tournaments.interchange.table import RecordTable
from tournaments.models import Tournament


@dataclass
class Person:
    """One player of the file (a TRF start number, or a PGN/CSV name or FIDE ID)."""

    key: tuple[str, Any]
    name: str
    line: int
    fide_id: int | None = None
    birth_date: datetime.date | None = None
    birth_year: int | None = None
    sex: str = ""
    title: str = ""
    federation: str = ""
    rating: int | None = None
    player_id: int | None = None


@dataclass
class PlannedTournament:
    name: str
    start_date: datetime.date
    end_date: datetime.date
    rounds: int | None
    city: str
    digest: str
    first_line: int
    obj: Tournament | None = None
    #: TRF headers kept on the tournament: federation, tournament_type, time_control, arbiter.
    headers: dict[str, str] = field(default_factory=dict)
    #: A TRF's lines that gave the dates ("start_date"/"end_date" -> the 042, 052 or 132
    #: line), for a refusal of them; a PGN's or CSV's dates are its games', found then.
    date_lines: dict[str, int] = field(default_factory=dict)


@dataclass(slots=True)
class PlannedGame:
    line: int
    white: Person
    black: Person
    result: str
    rated: bool
    note: str
    round: int | None
    date: datetime.date
    tournament: PlannedTournament | None


@dataclass(slots=True)
class PlannedBye:
    """A TRF bye (H, F, U, Z): stored with the tournament, never rated."""

    line: int
    person: Person
    round: int
    kind: str


#: The plan's games, column by column (a file may hold a million): persons and
#: tournaments are the plan's own objects, so they are told apart by identity.
PlannedGames = RecordTable[PlannedGame]


PLANNED_BY_IDENTITY = ("white", "black", "tournament")


def planned_games() -> PlannedGames:
    return RecordTable(PlannedGame, by_identity=PLANNED_BY_IDENTITY)


@dataclass
class Plan:
    persons: list[Person]
    tournaments: list[PlannedTournament]
    games: PlannedGames
    byes: list[PlannedBye] = field(default_factory=list)
    #: A TRF: its player lines are the tournament's entry list (TournamentEntry).
    entry_list: bool = False


def clean_name(name: str) -> str:
    return " ".join(name.split())


def period_month(tournament: PlannedTournament | None, date: datetime.date) -> datetime.date:
    """A game's period: its tournament's end month, else its own (as the game services say)."""
    return month_start(tournament.end_date if tournament else date)
