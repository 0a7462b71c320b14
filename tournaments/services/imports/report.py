"""What an import did (or, in a dry run, would do): the report and its entries."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from tournaments.interchange import ParseError

# An error or warning at a 1-based file line (0: the file as a whole): the parsers' type,
# so parse errors and the import's own messages travel in one shape.
LineMessage = ParseError


@dataclass(frozen=True, slots=True)
class PlayerEntry:
    """A player of the file and the club player it became (None in a dry run if created)."""

    line: int
    name: str
    fide_id: int | None
    player_id: int | None
    #: "fide_id", "name_birth" or "name" for a matched player; "" for a created one.
    matched_by: str = ""


@dataclass(frozen=True, slots=True)
class PossibleMatch:
    """A player of the file whose name key equals a club player's, with birth data missing
    on one side: perhaps the same person. ``taken``: the import used the club's player
    (``match="possible"``) rather than creating a new one (``match="new"``)."""

    line: int
    name: str
    player_id: int
    player_name: str
    taken: bool


@dataclass(frozen=True, slots=True)
class NotRatedEntry:
    line: int
    round: int | None
    white: str
    black: str
    result: str
    reason: str


@dataclass(frozen=True, slots=True)
class ByeEntry:
    line: int
    round: int
    player: str
    kind: str
    label: str


@dataclass(frozen=True, slots=True)
class TournamentEntry:
    id: int | None
    name: str
    start_date: datetime.date
    end_date: datetime.date
    rounds: int | None
    city: str
    games: int


#: A report lists at most this many entries of each per-game list (games not rated,
#: identical game lines, games already stored); its ``*_count`` fields give the totals. A
#: re-import of 580,000 games listed each one: hundreds of MB in the worker and in the
#: job's row, for a list nobody reads to its end.
REPORT_MAX_LINES = 1000


@dataclass
class ImportReport:
    """What an import did (or, in a dry run, would do). ``as_dict()`` gives the JSON."""

    format: str
    club: str
    rating_list: str
    digest: str
    dry_run: bool
    tournaments: list[TournamentEntry] = field(default_factory=list)
    players_matched: list[PlayerEntry] = field(default_factory=list)
    players_created: list[PlayerEntry] = field(default_factory=list)
    #: Same name key, birth data missing on one side: listed whatever ``match`` chose.
    possible_matches: list[PossibleMatch] = field(default_factory=list)
    #: "possible": a possible match is the club's player; "new": it gets a new record.
    match: str = "possible"
    games_created: int = 0
    games_not_rated: list[NotRatedEntry] = field(default_factory=list)
    games_not_rated_count: int = 0
    #: Game lines identical to an earlier line of the file (PGN/CSV): possible duplicates,
    #: stored once unless ``keep_identical``.
    identical_games: list[LineMessage] = field(default_factory=list)
    identical_games_count: int = 0
    keep_identical: bool = False
    #: Games of the file already stored (by an earlier import or by hand): not stored again.
    games_skipped: list[LineMessage] = field(default_factory=list)
    games_skipped_count: int = 0
    byes: list[ByeEntry] = field(default_factory=list)
    warnings: list[LineMessage] = field(default_factory=list)
    errors: list[LineMessage] = field(default_factory=list)
    already_imported: bool = False
    #: "invalid" (the file or its data) or "conflict" (a closed period); "" without errors.
    error_code: str = ""

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def stored(self) -> bool:
        return self.ok and not self.dry_run and not self.already_imported

    @property
    def tournament(self) -> TournamentEntry | None:
        """The tournament when the file made exactly one (always so for a TRF)."""
        return self.tournaments[0] if len(self.tournaments) == 1 else None

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["tournament"] = asdict(self.tournament) if self.tournament else None
        data["stored"] = self.stored
        for entry in (data["tournament"], *data["tournaments"]):
            if entry is not None:
                entry["start_date"] = entry["start_date"].isoformat()
                entry["end_date"] = entry["end_date"].isoformat()
        return data

    def summary(self) -> str:
        """One paragraph for a human (command output, admin message)."""
        if self.errors:
            return (
                f"{len(self.errors)} error(s); nothing was stored. "
                + "; ".join(str(error) for error in self.errors[:10])
                + (f" (and {len(self.errors) - 10} more)" if len(self.errors) > 10 else "")
            )
        return report_summary(self.as_dict())


def report_summary(report: Mapping[str, Any]) -> str:
    """The summary of a report without errors, from its ``as_dict()`` form (which is also
    an import job's result)."""
    if report["already_imported"]:
        return "This file was imported already; nothing was stored."
    verb = "would create" if report["dry_run"] else "created"
    names = ", ".join(t["name"] for t in report["tournaments"]) or "no tournament"
    match = report.get("match", "possible")
    return (
        f"{'Dry run: ' if report['dry_run'] else ''}{names}: {verb} {report['games_created']} "
        f"games ({_count(report, 'games_not_rated')} not rated), "
        f"{len(report['players_created'])} new players; "
        f"{len(report['players_matched'])} players matched "
        f"({len(report.get('possible_matches', []))} possible matches, "
        f"{'taken' if match == 'possible' else 'created anew'}); {len(report['byes'])} byes; "
        f"{_count(report, 'games_skipped')} games already stored; "
        f"{_count(report, 'identical_games')} identical game lines"
        f"{' kept' if report.get('keep_identical') else ' stored once'}; "
        f"{len(report['warnings'])} warnings."
    )


def _count(report: Mapping[str, Any], name: str) -> int:
    """The total of a per-game list (its first REPORT_MAX_LINES entries are listed); a
    job's result stored before the totals has only the list."""
    return int(report.get(f"{name}_count") or len(report.get(name, [])))
