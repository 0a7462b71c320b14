"""Which of a federation's FIDE players the club has already, under another record.

``add_federation`` creates the federation's players the club does not have. A club player
entered without a FIDE ID is not one the club does not have: FIDE's players are matched
to the club's as a tournament file's are (``imports.matching.match_players``: by FIDE ID,
then by name key and birth year), and the import's rule for a possible match (same name
key, no birth year on one side) is the "new" one there with one difference: a possible
match is reported and nothing is created, since a FIDE list, unlike a tournament, does
not need the player now and a second record is what an officer would have to merge.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from players.models import Club, Player
from tournaments.interchange.fide_list import FideRecord
from tournaments.services.imports.matching import match_players
from tournaments.services.imports.plan import Person
from tournaments.services.imports.report import ImportReport

#: A birth year the Player model accepts (FIDE's file writes 0000 for none).
FIRST_BIRTH_YEAR = 1850


def fide_birth_year(record: FideRecord) -> int | None:
    year = record.birth_year
    return year if year is not None and year >= FIRST_BIRTH_YEAR else None


@dataclass
class FideMatches:
    #: (club player, FIDE's record): the same person by name key and birth year.
    linked: list[tuple[Player, FideRecord]] = field(default_factory=list)
    #: Possible matches, each {"player", "name", "birth_year", "fide_id", "fide_name",
    #: "fide_birth_year"}: neither linked nor created.
    doubtful: list[dict[str, Any]] = field(default_factory=list)
    #: Records matching several club players (their ids in the text): not created.
    warnings: list[str] = field(default_factory=list)
    #: The records nobody in the club is: to create.
    new: list[FideRecord] = field(default_factory=list)


def fide_players_match(*, club: Club, records: Iterable[FideRecord]) -> FideMatches:
    """Match ``records`` (FIDE IDs the club does not have) to the club's players. Two of
    FIDE's players with one club player's name key and birth year are both doubtful: the
    club's player is one of them, or neither. A few queries, none per record."""
    pending = list(records)
    persons = [
        Person(
            key=("fide_id", record.fide_id),
            name=record.name,
            line=line,
            fide_id=record.fide_id,
            birth_year=fide_birth_year(record),
        )
        for line, record in enumerate(pending, start=1)
    ]
    scratch = ImportReport(format="fide", club=club.slug, rating_list="", digest="", dry_run=True)
    match_players(club=club, persons=persons, report=scratch, match="new")
    claimed = {person.line: person.player_id for person in persons}
    found = FideMatches()
    doubtful = _doubtful(scratch, claimed, pending, found)
    ids = {pid for pid in claimed.values() if pid} | {p for ps in doubtful.values() for p in ps}
    club_players = Player.objects.in_bulk(ids)
    for person, record in zip(persons, pending, strict=True):
        if person.line in doubtful:
            found.doubtful += [
                {
                    "player": player_id,
                    "name": club_players[player_id].name,
                    "birth_year": club_players[player_id].birth_year,
                    "fide_id": record.fide_id,
                    "fide_name": record.name,
                    "fide_birth_year": person.birth_year,
                }
                for player_id in doubtful[person.line]
            ]
        elif person.player_id is not None:
            found.linked.append((club_players[person.player_id], record))
        else:
            found.new.append(record)
    return found


def _doubtful(
    scratch: ImportReport,
    claimed: dict[int, int | None],
    pending: list[FideRecord],
    found: FideMatches,
) -> dict[int, list[int]]:
    """The club players each record (by its line) may be but is not surely: the import
    matching's possible matches and the records its errors name (two records, one club
    player: both doubtful; one record, several players: a warning)."""
    doubtful: dict[int, list[int]] = {}
    for possible in scratch.possible_matches:
        doubtful.setdefault(possible.line, []).append(possible.player_id)
    for error in scratch.errors:
        if error.other_line is not None:  # two records, one club player
            player_id = claimed[error.other_line]
            assert player_id is not None
            for line in (error.other_line, error.line):
                if player_id not in doubtful.setdefault(line, []):
                    doubtful[line].append(player_id)
        else:  # one record, several club players of its name
            record = pending[error.line - 1]
            doubtful.setdefault(error.line, [])
            found.warnings.append(
                f"{record.name} (FIDE ID {record.fide_id}): {error.message}; not added."
            )
    return doubtful
