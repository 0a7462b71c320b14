"""Importing tournament files (FIDE TRF, PGN headers, a CSV of games) into a club's list.

One service per format (:func:`import_trf`, :func:`import_pgn`, :func:`import_csv`), all
built the same way:

1. the arbiter role is checked through the selectors (404 for a private club's outsider);
2. the pure parser reads the file (``tournaments.interchange``); its errors, with line
   numbers, end the import with nothing stored;
3. in one durable transaction: "already imported?" (the file's SHA-256 on
   ``Tournament.import_digest``, and the same games already stored), closed periods,
   player matching (one query for the FIDE IDs, one for the names), then the players,
   tournaments and games through the tracker's bulk services, which validate every game
   and lock its period as a hand-entered game's would;
4. a dry run does all of that and rolls the transaction back, so its report is exactly
   what a real run would say.

Players are matched by FIDE ID, else by name and birth date (or year), else by name
alone when that is unambiguous, else created. A created player gets the rating the file
gives as their entered rating on the import's list (0 rated games: the file does not say).
Byes are not games in the tracker: they are listed in the report and not stored.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from django.db import DataError, transaction
from django.db.models.functions import Lower

from players.errors import ConflictError, DomainError, ValidationFailed
from players.models import (
    Club,
    Player,
    RatingList,
    RatingPeriod,
    Role,
    Sex,
    Title,
    month_label,
    month_start,
)
from players.selectors import User, require_role
from players.services import players_add_bulk
from tournaments.interchange import (
    ByeKind,
    InterchangeError,
    ParsedGame,
    ParsedGames,
    ParsedTournament,
    ParseError,
    ProgressCallback,
    parse_games_csv,
    parse_pgn,
    parse_trf,
)
from tournaments.models import Game, Tournament
from tournaments.services.games import games_add, tournament_add

__all__ = [
    "FORMATS",
    "ByeEntry",
    "ImportReport",
    "LineMessage",
    "NotRatedEntry",
    "PlayerEntry",
    "TournamentEntry",
    "import_csv",
    "import_file",
    "import_pgn",
    "import_trf",
]

Format = Literal["trf", "pgn", "csv"]
FORMATS: tuple[str, ...] = ("trf", "pgn", "csv")

BYE_LABELS = {
    ByeKind.HALF_POINT: "half-point bye (H)",
    ByeKind.FULL_POINT: "full-point bye (F)",
    ByeKind.PAIRING_ALLOCATED: "pairing-allocated bye (U)",
    ByeKind.ZERO_POINT: "zero-point bye or absent (Z)",
}

# Chunk size of ``__in`` lookups: well under SQLite's 32,766 bound variables.
_CHUNK = 5000
_MAX_ROUNDS = 99
# Bounds of the columns a PGN or CSV value lands in (the TRF's fixed widths stay inside).
_MAX_ROUND_NUMBER = 999
_MAX_NAME = 200
_MAX_FIDE_ID = 10**12


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
    games_created: int = 0
    games_not_rated: list[NotRatedEntry] = field(default_factory=list)
    #: Games of the file already stored (by an earlier import or by hand): not stored again.
    games_skipped: list[LineMessage] = field(default_factory=list)
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
        if self.already_imported:
            return "This file was imported already; nothing was stored."
        verb = "would create" if self.dry_run else "created"
        names = ", ".join(t.name for t in self.tournaments) or "no tournament"
        return (
            f"{'Dry run: ' if self.dry_run else ''}{names}: {verb} {self.games_created} games "
            f"({len(self.games_not_rated)} not rated), {len(self.players_created)} new players; "
            f"{len(self.players_matched)} players matched; {len(self.byes)} byes; "
            f"{len(self.games_skipped)} games already stored; {len(self.warnings)} warnings."
        )


# -- entry points -----------------------------------------------------------------------------


def import_trf(
    *,
    club: Club,
    rating_list: RatingList | str,
    data: bytes,
    by: User,
    dry_run: bool = False,
    progress: ProgressCallback | None = None,
) -> ImportReport:
    """Import a FIDE TRF16/TRF-2026 file: one tournament, its players, games and byes."""
    return import_file(
        format="trf",
        club=club,
        rating_list=rating_list,
        data=data,
        by=by,
        dry_run=dry_run,
        progress=progress,
    )


def import_pgn(
    *,
    club: Club,
    rating_list: RatingList | str,
    data: bytes,
    by: User,
    dry_run: bool = False,
    progress: ProgressCallback | None = None,
) -> ImportReport:
    """Import the games of a PGN file (headers only); one tournament per Event."""
    return import_file(
        format="pgn",
        club=club,
        rating_list=rating_list,
        data=data,
        by=by,
        dry_run=dry_run,
        progress=progress,
    )


def import_csv(
    *,
    club: Club,
    rating_list: RatingList | str,
    data: bytes,
    by: User,
    dry_run: bool = False,
    progress: ProgressCallback | None = None,
) -> ImportReport:
    """Import a CSV of games; one tournament per value of the tournament column."""
    return import_file(
        format="csv",
        club=club,
        rating_list=rating_list,
        data=data,
        by=by,
        dry_run=dry_run,
        progress=progress,
    )


def import_file(
    *,
    format: str,
    club: Club,
    rating_list: RatingList | str,
    data: bytes,
    by: User,
    dry_run: bool = False,
    progress: ProgressCallback | None = None,
) -> ImportReport:
    """Import ``data`` in ``format`` (trf, pgn or csv): the three services in one.

    Raises NotFoundError / PermissionDeniedError when ``by`` may not import into the club
    (arbiter or above), ValidationFailed for an unknown format or list; everything about
    the file itself is in the report's ``errors``.
    """
    require_role(by, club, Role.ARBITER)
    if format not in FORMATS:
        raise ValidationFailed(
            f"format: {format!r} is not one of {', '.join(FORMATS)}.",
            fields={"format": [f"Use one of {', '.join(FORMATS)}."]},
        )
    the_list = _rating_list(club, rating_list)
    digest = hashlib.sha256(data).hexdigest()
    report = ImportReport(
        format=format, club=club.slug, rating_list=the_list.kind, digest=digest, dry_run=dry_run
    )
    try:
        parsed: ParsedTournament | ParsedGames
        if format == "trf":
            parsed = parse_trf(data, progress=progress)
        elif format == "pgn":
            parsed = parse_pgn(data, progress=progress)
        else:
            parsed = parse_games_csv(data, progress=progress)
    except InterchangeError as error:
        report.errors = [LineMessage(e.line, e.message, e.other_line) for e in error.errors]
        report.error_code = "invalid"
        return report
    report.warnings = [LineMessage(w.line, w.message) for w in parsed.warnings]
    plan = (
        _plan_trf(parsed, digest, report)
        if isinstance(parsed, ParsedTournament)
        else _plan_games(parsed, digest, report)
    )
    if report.errors:
        report.error_code = "invalid"
        return report
    _Store(club=club, rating_list=the_list, by=by, plan=plan, report=report).run()
    return report


def _rating_list(club: Club, rating_list: RatingList | str) -> RatingList:
    kind = rating_list.kind if isinstance(rating_list, RatingList) else rating_list
    found = RatingList.objects.filter(club=club, kind=kind).first()
    if found is None or (isinstance(rating_list, RatingList) and rating_list.pk != found.pk):
        raise ValidationFailed(
            f"list: no {kind!r} list in {club.name}.",
            fields={"list": ["No such list in this club."]},
        )
    return found


# -- planning: the file's people, tournaments and games, before the database ---------------


@dataclass
class _Person:
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
class _PlannedTournament:
    name: str
    start_date: datetime.date
    end_date: datetime.date
    rounds: int | None
    city: str
    digest: str
    first_line: int
    obj: Tournament | None = None


@dataclass
class _PlannedGame:
    line: int
    white: _Person
    black: _Person
    result: str
    rated: bool
    note: str
    round: int | None
    date: datetime.date
    tournament: _PlannedTournament | None


@dataclass
class _Plan:
    persons: list[_Person]
    tournaments: list[_PlannedTournament]
    games: list[_PlannedGame]


@functools.lru_cache(maxsize=65536)
def _normal_name(name: str) -> str:
    return " ".join(name.split()).casefold()


def _clean_name(name: str) -> str:
    return " ".join(name.split())


def _plan_trf(parsed: ParsedTournament, digest: str, report: ImportReport) -> _Plan:
    dates = [day for day in parsed.round_dates if day is not None]
    start = parsed.start_date or (min(dates) if dates else None)
    end = parsed.end_date or (max(dates) if dates else None)
    if start is None or end is None:
        report.errors.append(
            LineMessage(0, "the file gives no dates: it needs 042/052 or round dates (132)")
        )
        return _Plan([], [], [])
    if parsed.rounds > _MAX_ROUNDS:
        report.errors.append(LineMessage(0, f"{parsed.rounds} rounds; at most 99 are kept"))
        return _Plan([], [], [])
    name = _clean_name(parsed.name)
    if not name:
        name = f"Tournament of {start:%Y-%m-%d}"
        report.warnings.append(LineMessage(0, f"the file has no name (012); named it {name!r}"))
    tournament = _PlannedTournament(
        name=name[:200],
        start_date=start,
        end_date=end,
        rounds=parsed.rounds or None,
        city=_clean_name(parsed.city)[:100],
        digest=digest,
        first_line=min((p.line for p in parsed.players), default=0),
    )
    persons: dict[int | None, _Person] = {}
    for player in parsed.players:
        title = player.title if player.title in Title.values else ""
        if player.title and not title:
            report.warnings.append(
                LineMessage(player.line, f"title {player.title!r} is not kept (not a FIDE title)")
            )
        persons[player.start_no] = _Person(
            key=("start_no", player.start_no),
            name=_clean_name(player.name),
            line=player.line,
            fide_id=player.fide_id,
            birth_date=player.birth_date,
            birth_year=player.birth_year,
            sex={"m": Sex.MALE, "w": Sex.FEMALE}.get(player.sex, ""),
            title=title,
            federation=player.federation,
            rating=player.rating,
        )
    games: list[_PlannedGame] = []
    undated: set[int] = set()
    outside: set[int] = set()
    for game in parsed.games:
        day = game.date
        if day is None:
            day = start
            if game.round not in undated and game.round is not None:
                undated.add(game.round)
                report.warnings.append(
                    LineMessage(
                        game.line,
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
            _PlannedGame(
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
    report.byes = [
        ByeEntry(
            line=bye.line,
            round=bye.round,
            player=_clean_name(bye.player.name),
            kind=bye.kind.value,
            label=BYE_LABELS[bye.kind],
        )
        for bye in parsed.byes
    ]
    _note_withdrawals(parsed, report)
    return _Plan(list(persons.values()), [tournament], games)


def _check_sizes(game: ParsedGame, report: ImportReport) -> None:
    """What the parsers accept but the tables cannot hold: say which line, not a 500."""
    if game.round is not None and not 1 <= game.round <= _MAX_ROUND_NUMBER:
        report.errors.append(
            LineMessage(game.line, f"round {game.round} is out of range 1-{_MAX_ROUND_NUMBER}")
        )
    for ref in (game.white, game.black):
        if len(_clean_name(ref.name)) > _MAX_NAME:
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
                    f"{_clean_name(player.name)} withdrew after round {last_present} "
                    f"(absent from round {last_present + 1} on)",
                )
            )


def _plan_games(parsed: ParsedGames, digest: str, report: ImportReport) -> _Plan:
    games = parsed.games
    # A name-only reference is the same person as a FIDE-ID reference of the same name when
    # exactly one FIDE ID goes with that name in the file.
    ids_by_name: dict[str, set[int]] = defaultdict(set)
    for game in games:
        for ref in (game.white, game.black):
            if ref.fide_id is not None:
                ids_by_name[_normal_name(ref.name)].add(ref.fide_id)
    persons: dict[tuple[str, Any], _Person] = {}

    def person(ref: Any, line: int) -> _Person:
        normal = _normal_name(ref.name)
        if ref.fide_id is not None:
            key: tuple[str, Any] = ("fide_id", ref.fide_id)
        elif len(ids_by_name.get(normal, ())) == 1:
            key = ("fide_id", next(iter(ids_by_name[normal])))
        else:
            key = ("name", normal)
        found = persons.get(key)
        if found is None:
            found = persons[key] = _Person(
                key=key,
                name=_clean_name(ref.name),
                line=line,
                fide_id=key[1] if key[0] == "fide_id" else None,
                rating=ref.rating,
            )
        elif found.rating is None and ref.rating is not None:
            found.rating = ref.rating
        return found

    by_event: dict[str, list[ParsedGame]] = defaultdict(list)
    for game in games:
        if game.tournament:
            by_event[_clean_name(game.tournament)].append(game)
    tournaments: dict[str, _PlannedTournament] = {}
    for index, (name, event_games) in enumerate(by_event.items()):
        days = [game.date for game in event_games if game.date is not None]
        rounds = [game.round for game in event_games if game.round is not None]
        # The first event carries the file's own digest (as a TRF's tournament does); the
        # others one derived from it and their name, unique per club like any digest.
        event_digest = (
            digest if index == 0 else hashlib.sha256(f"{digest}:{name}".encode()).hexdigest()
        )
        tournaments[name] = _PlannedTournament(
            name=name[:200],
            start_date=min(days),
            end_date=max(days),
            rounds=max(rounds) if rounds and max(rounds) <= _MAX_ROUNDS else None,
            city="",
            digest=event_digest,
            first_line=event_games[0].line,
        )
    planned: list[_PlannedGame] = []
    for game in games:
        assert game.date is not None  # PGN and CSV parsers refuse a game without a date
        planned.append(
            _PlannedGame(
                line=game.line,
                white=person(game.white, game.line),
                black=person(game.black, game.line),
                result=game.result.value,
                rated=game.rated,
                note=game.note,
                round=game.round,
                date=game.date,
                tournament=tournaments.get(_clean_name(game.tournament))
                if game.tournament
                else None,
            )
        )
        if planned[-1].white is planned[-1].black:
            report.errors.append(LineMessage(game.line, "both sides are the same player"))
        _check_sizes(game, report)
    return _Plan(list(persons.values()), list(tournaments.values()), planned)


# -- storing ---------------------------------------------------------------------------------


class _Rollback(Exception):
    """Leaves the import's transaction without committing (dry run, or errors found)."""


class _Store:
    def __init__(
        self,
        *,
        club: Club,
        rating_list: RatingList,
        by: User,
        plan: _Plan,
        report: ImportReport,
    ) -> None:
        self.club = club
        self.rating_list = rating_list
        self.by = by
        self.plan = plan
        self.report = report
        # The file lines of the items handed to the current bulk service, so that its
        # "[index].field" errors can point at a line.
        self._item_lines: list[int] = []

    def run(self) -> None:
        report = self.report
        try:
            with transaction.atomic(durable=True):
                self._store()
                if report.errors or report.dry_run or report.already_imported:
                    raise _Rollback
        except _Rollback:
            pass
        except DomainError as error:
            report.errors.append(LineMessage(self._line_of(error), error.message))
            report.error_code = "conflict" if isinstance(error, ConflictError) else "invalid"
        except DataError as error:
            # A value the checks above let through but a column cannot hold; the
            # transaction is rolled back like any other refusal.
            first = str(error).strip().splitlines()[0] if str(error).strip() else "out of range"
            report.errors.append(LineMessage(0, f"the database refused a value: {first}"))
            report.error_code = "invalid"
        if report.errors:
            report.error_code = report.error_code or "invalid"
            report.games_created = 0
            report.players_created = []
            report.tournaments = []
        if report.dry_run:
            # Rows of a dry run were rolled back: their ids would point at nothing.
            report.players_created = [
                PlayerEntry(e.line, e.name, e.fide_id, None) for e in report.players_created
            ]
            report.tournaments = [
                TournamentEntry(None, t.name, t.start_date, t.end_date, t.rounds, t.city, t.games)
                for t in report.tournaments
            ]

    def _line_of(self, error: DomainError) -> int:
        """The file line behind a service's ``[index].field`` error, when it names one."""
        for key in error.fields:
            match = re.match(r"\[(\d+)\]", key)
            if match and int(match[1]) < len(self._item_lines):
                return self._item_lines[int(match[1])]
        return 0

    def _store(self) -> None:
        plan, report = self.plan, self.report
        digests = [t.digest for t in plan.tournaments] or [report.digest]
        if Tournament.objects.filter(club=self.club, import_digest__in=digests).exists():
            report.already_imported = True
            return
        self._check_periods()
        if report.errors:
            report.error_code = "conflict"
            return
        self._match_players()
        if report.errors:
            return
        games = self._drop_stored_games()
        if plan.games and not games:
            report.already_imported = True
            return
        self._create_players()
        for tournament in plan.tournaments:
            tournament.obj = tournament_add(
                club=self.club,
                name=tournament.name,
                rating_list=self.rating_list,
                start_date=tournament.start_date,
                end_date=tournament.end_date,
                rounds=tournament.rounds,
                city=tournament.city,
                import_digest=tournament.digest,
            )
        self._item_lines = [game.line for game in games]
        report.games_created = games_add(
            club=self.club,
            games=[
                {
                    "list": self.rating_list,
                    "date": game.date,
                    "white": game.white.player_id,
                    "black": game.black.player_id,
                    "result": game.result,
                    "tournament": game.tournament.obj if game.tournament else None,
                    "round": game.round,
                    "rated": game.rated,
                }
                for game in games
            ],
        )
        report.games_not_rated = [
            NotRatedEntry(
                line=game.line,
                round=game.round,
                white=game.white.name,
                black=game.black.name,
                result=game.result,
                reason=game.note or "not rated",
            )
            for game in games
            if not game.rated
        ]
        counts = Counter(id(game.tournament) for game in games if game.tournament)
        report.tournaments = [
            TournamentEntry(
                id=t.obj.pk if t.obj else None,
                name=t.name,
                start_date=t.start_date,
                end_date=t.end_date,
                rounds=t.rounds,
                city=t.city,
                games=counts[id(t)],
            )
            for t in plan.tournaments
        ]

    def _check_periods(self) -> None:
        """Refuse games of closed periods up front, naming the lines (the game services
        refuse them too, under their period lock)."""
        closed = set(
            RatingPeriod.objects.filter(
                rating_list=self.rating_list, status=RatingPeriod.Status.CLOSED
            ).values_list("month", flat=True)
        )
        if not closed:
            return
        latest = max(closed)
        lines: dict[datetime.date, list[int]] = defaultdict(list)
        for game in self.plan.games:
            lines[_period_month(game)].append(game.line)
        for month in sorted(lines):
            if month in closed:
                why = f"period {month_label(month)} is closed; reopen it to add games"
            elif month < latest:
                why = (
                    f"period {month_label(latest)} is closed already; games of "
                    f"{month_label(month)} would change it (reopen {month_label(month)} first)"
                )
            else:
                continue
            shown = ", ".join(str(line) for line in lines[month][:10])
            more = f" and {len(lines[month]) - 10} more" if len(lines[month]) > 10 else ""
            self.report.errors.append(
                LineMessage(
                    lines[month][0],
                    f"{len(lines[month])} game(s) on lines {shown}{more}: {why}",
                )
            )

    def _match_players(self) -> None:
        persons, report = self.plan.persons, self.report
        rows: dict[int, tuple[int, str, datetime.date | None, int | None, int | None]] = {}
        fide_ids = sorted({p.fide_id for p in persons if p.fide_id is not None})
        for chunk in _chunks(fide_ids):
            for found in Player.objects.filter(club=self.club, fide_id__in=chunk).values_list(
                "id", "name", "birth_date", "birth_year", "fide_id"
            ):
                rows[found[0]] = found
        by_fide = {row[4]: row for row in rows.values()}
        unmatched = [p for p in persons if p.fide_id is None or p.fide_id not in by_fide]
        by_name: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
        lowered = sorted({p.name.lower() for p in unmatched})
        for chunk in _chunks(lowered):
            for named in (
                Player.objects.filter(club=self.club)
                .annotate(lowered=Lower("name"))
                .filter(lowered__in=chunk)
                .values_list("id", "name", "birth_date", "birth_year", "fide_id")
            ):
                by_name[_normal_name(named[1])].append(named)
        taken: dict[int, _Person] = {}
        for person in persons:
            how = ""
            row: tuple[Any, ...] | None = by_fide.get(person.fide_id)
            if row is not None:
                how = "fide_id"
            else:
                row, how = self._match_by_name(person, by_name.get(_normal_name(person.name), []))
            if row is None:
                continue
            if row[0] in taken:
                report.errors.append(
                    LineMessage(
                        person.line,
                        f"{person.name} and {taken[row[0]].name} (line {taken[row[0]].line}) "
                        f"both match club player #{row[0]} {row[1]!r}; give them FIDE IDs or "
                        "birth dates",
                        taken[row[0]].line,
                    )
                )
                continue
            taken[row[0]] = person
            person.player_id = row[0]
            if how != "fide_id" and person.fide_id is not None:
                report.warnings.append(
                    LineMessage(
                        person.line,
                        f"{person.name} matched by name; the club has no FIDE ID "
                        f"{person.fide_id} on record for them",
                    )
                )
            report.players_matched.append(
                PlayerEntry(person.line, person.name, person.fide_id, row[0], how)
            )

    def _match_by_name(
        self, person: _Person, candidates: list[tuple[Any, ...]]
    ) -> tuple[tuple[Any, ...] | None, str]:
        # A club player with another FIDE ID is another person, whatever the name.
        candidates = [
            row
            for row in candidates
            if person.fide_id is None or row[4] is None or row[4] == person.fide_id
        ]
        compatible = [row for row in candidates if _birth_agrees(person, row)]
        has_birth = person.birth_date is not None or person.birth_year is not None
        exact = [row for row in compatible if has_birth and (row[2] or row[3])]
        if len(exact) == 1:
            return exact[0], "name_birth"
        pool = exact or compatible
        if len(pool) == 1:
            return pool[0], "name"
        if len(pool) > 1:
            self.report.errors.append(
                LineMessage(
                    person.line,
                    f"{len(pool)} club players are named {person.name!r} "
                    f"(#{', #'.join(str(row[0]) for row in pool)}); give a FIDE ID or birth "
                    "date to say which",
                )
            )
        return None, ""

    def _drop_stored_games(self) -> list[_PlannedGame]:
        """The file's games minus those the club has stored already (same list, date,
        players, result and round): a re-import in another format stores nothing twice."""
        games = self.plan.games
        known = [g for g in games if g.white.player_id and g.black.player_id]
        if not known:
            return list(games)
        ids = sorted(
            {g.white.player_id or 0 for g in known} | {g.black.player_id or 0 for g in known}
        )
        stored: Counter[tuple[Any, ...]] = Counter()
        first, last = min(g.date for g in known), max(g.date for g in known)
        for chunk in _chunks(ids):
            rows = Game.objects.filter(
                club=self.club,
                rating_list=self.rating_list,
                date__range=(first, last),
                white_id__in=chunk,
            ).values_list("date", "white_id", "black_id", "result", "round")
            stored.update(rows)
        if not stored:
            return list(games)
        kept: list[_PlannedGame] = []
        for game in games:
            key = (game.date, game.white.player_id, game.black.player_id, game.result, game.round)
            if stored[key] > 0:
                stored[key] -= 1
                self.report.games_skipped.append(
                    LineMessage(
                        game.line, f"{game.white.name} - {game.black.name} is stored already"
                    )
                )
            else:
                kept.append(game)
        return kept

    def _create_players(self) -> None:
        new = [p for p in self.plan.persons if p.player_id is None]
        self._item_lines = [p.line for p in new]
        created = players_add_bulk(
            club=self.club,
            by=self.by,
            players=[
                {
                    "name": p.name,
                    "birth_date": p.birth_date,
                    "birth_year": p.birth_year,
                    "sex": p.sex,
                    "federation": p.federation,
                    "title": p.title,
                    "fide_id": p.fide_id,
                    "ratings": [{"list": self.rating_list.kind, "rating": p.rating}]
                    if p.rating is not None
                    else [],
                }
                for p in new
            ],
        )
        for person, player in zip(new, created, strict=True):
            person.player_id = player.pk
        self.report.players_created = [
            PlayerEntry(p.line, p.name, p.fide_id, p.player_id) for p in new
        ]


def _period_month(game: _PlannedGame) -> datetime.date:
    return month_start(game.tournament.end_date if game.tournament else game.date)


def _birth_agrees(person: _Person, row: tuple[Any, ...]) -> bool:
    _id, _name, birth_date, birth_year, _fide = row
    if person.birth_date is not None and birth_date is not None:
        return bool(person.birth_date == birth_date)
    if person.birth_year is not None and birth_year is not None:
        return bool(person.birth_year == birth_year)
    return True


def _chunks(values: Sequence[Any]) -> Iterable[Sequence[Any]]:
    for start in range(0, len(values), _CHUNK):
        yield values[start : start + _CHUNK]


#: The three services by format name, for interfaces that take the format as input.
IMPORTERS: dict[str, Callable[..., ImportReport]] = {
    "trf": import_trf,
    "pgn": import_pgn,
    "csv": import_csv,
}
