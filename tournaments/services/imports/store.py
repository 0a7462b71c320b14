"""Writing an import's plan: one durable transaction, rolled back for a dry run or an error.

Inside it: "already imported?" (the digests, then the same games already stored), closed
periods, player matching, then the players, tournaments and games through the tracker's
bulk services, which validate every game and lock its period as a hand-entered game's
would. A service's ``[index].field`` error is reported at the file line of that item.
"""

from __future__ import annotations

import datetime
import re
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

import numpy
from django.db import DataError, transaction

from players.bulk import insert_rows
from players.errors import ConflictError, DomainError
from players.models import Club, RatingList, RatingPeriod, month_label
from players.models.audit import Via, audit_context
from players.selectors import User
from players.services import club_published_changed, players_add_bulk
from tournaments.models import Tournament, TournamentBye
from tournaments.services.entries import tournament_entries_add
from tournaments.services.game_checks import DistinctValues
from tournaments.services.game_columns import GameColumns
from tournaments.services.games import games_add
from tournaments.services.imports.matching import drop_stored_games, match_players
from tournaments.services.imports.plan import (
    Person,
    Plan,
    PlannedGames,
    PlannedTournament,
    period_month,
)
from tournaments.services.imports.report import (
    REPORT_MAX_LINES,
    ImportReport,
    LineMessage,
    NotRatedEntry,
    PlayerEntry,
    TournamentEntry,
)
from tournaments.services.tournaments import tournament_add


class _GameItems(Sequence[Mapping[str, Any]]):
    """The planned games as games_add's items, each built when it is read: a list of
    100,000 dicts was a large part of an import's memory, and games_add reads each item
    once or twice and keeps only its validated tuple."""

    _FIELDS = ("date", "white", "black", "result", "tournament", "round", "rated")

    def __init__(self, games: PlannedGames, rating_list: RatingList) -> None:
        self._games = games
        self._list = rating_list

    def __len__(self) -> int:
        return len(self._games)

    @overload
    def __getitem__(self, index: int) -> Mapping[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Mapping[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> Mapping[str, Any] | Sequence[Mapping[str, Any]]:
        if isinstance(index, slice):
            return [self[position] for position in range(*index.indices(len(self)))]
        game = self._games[index]
        return self._item(*(getattr(game, name) for name in self._FIELDS))

    def __iter__(self) -> Iterator[Mapping[str, Any]]:
        # Read from the columns with each player's and tournament's id looked up once per
        # distinct value: no planned game object is made on the way.
        games = self._games
        ids = {
            "white": [person.player_id for person in games.values("white")],
            "black": [person.player_id for person in games.values("black")],
            "tournament": [t.obj.pk if t and t.obj else None for t in games.values("tournament")],
        }
        slug = self._list.slug
        for day, white, black, result, tournament, round_, rated in games.rows(
            *self._FIELDS, through=ids
        ):
            yield {
                "list": slug,
                "date": day,
                "white": white,
                "black": black,
                "result": result,
                "tournament": tournament,
                "round": round_,
                "rated": rated,
            }

    def columns(self) -> GameColumns:
        """The items as columns (games_add checks them a distinct value at a time): the
        planned games' own columns, each player and tournament as its id."""
        games = self._games
        values: dict[str, Sequence[Any]] = {
            "list": [self._list.slug],
            "white": [person.player_id for person in games.values("white")],
            "black": [person.player_id for person in games.values("black")],
            "tournament": [t.obj.pk if t and t.obj else None for t in games.values("tournament")],
        }
        codes = {"list": numpy.broadcast_to(numpy.int32(0), (len(games),))}
        for name in self._FIELDS:
            codes[name] = games.column(name)
            if name not in values:
                values[name] = games.values(name)
        return GameColumns(size=len(games), values=values, codes=codes)

    def distinct_values(self) -> DistinctValues:
        """The players, tournaments and (list, tournament, date) the items name, from the
        columns: games_add's first look at the items without building them."""
        games = self._games

        def used(name: str) -> list[Any]:
            values = games.values(name)
            return [values[index] for index in numpy.unique(games.column(name)).tolist()]

        players = {person.player_id for person in (*used("white"), *used("black"))}
        tournaments = games.values("tournament")
        days = games.values("date")
        pairs = numpy.unique(
            games.column("tournament").astype(numpy.int64) * len(days) + games.column("date")
        ).tolist()
        keys = set()
        for pair in pairs:
            tournament = tournaments[pair // len(days)]
            keys.add(
                (
                    self._list.slug,
                    tournament.obj.pk if tournament and tournament.obj else None,
                    days[pair % len(days)],
                )
            )
        return DistinctValues(
            player_ids=players,
            tournament_ids={t.obj.pk if t and t.obj else None for t in used("tournament")},
            keys=keys,
        )

    def _item(
        self,
        date: datetime.date,
        white: Person,
        black: Person,
        result: str,
        tournament: PlannedTournament | None,
        round_: int | None,
        rated: bool,
    ) -> Mapping[str, Any]:
        return {
            "list": self._list.slug,
            "date": date,
            "white": white.player_id,
            "black": black.player_id,
            "result": result,
            "tournament": tournament.obj.pk if tournament and tournament.obj else None,
            "round": round_,
            "rated": rated,
        }


class _Rollback(Exception):
    """Leaves the import's transaction without committing (dry run, or errors found)."""


class Store:
    def __init__(
        self,
        *,
        club: Club,
        rating_list: RatingList,
        by: User,
        plan: Plan,
        report: ImportReport,
    ) -> None:
        self.club = club
        self.rating_list = rating_list
        self.by = by
        self.plan = plan
        self.report = report
        # The file lines of the items handed to the current bulk service, so that its
        # "[index].field" errors can point at a line.
        self._item_lines: Sequence[int] | numpy.ndarray[Any, Any] = []
        # The tournament being created, so that a refusal of its dates can point at the
        # line that gave them.
        self._tournament: PlannedTournament | None = None

    def run(self) -> None:
        report = self.report
        try:
            # Every audit row the import writes says "import" and who imported.
            with (
                audit_context(via=Via.IMPORT, user_id=self.by.pk),
                transaction.atomic(durable=True),
            ):
                self._store()
                if report.errors or report.dry_run or report.already_imported:
                    raise _Rollback
                club_published_changed(club_id=self.club.pk)
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
        """The file line behind a service's ``[index].field`` error, when it names one, or
        behind a tournament's refused date."""
        if self._tournament is not None:
            for key in error.fields:
                if key in ("start_date", "end_date"):
                    return self._date_line(self._tournament, key)
        for key in error.fields:
            match = re.match(r"\[(\d+)\]", key)
            if match and int(match[1]) < len(self._item_lines):
                return int(self._item_lines[int(match[1])])
        return 0

    def _date_line(self, tournament: PlannedTournament, key: str) -> int:
        """A TRF's 042/052/132 line; else the first game of the event on that day (a PGN's
        or CSV's event runs from its first game's day to its last's)."""
        if key in tournament.date_lines:
            return tournament.date_lines[key]
        day = tournament.start_date if key == "start_date" else tournament.end_date
        for planned, date, line in self.plan.games.rows("tournament", "date", "line"):
            if planned is tournament and date == day:
                return int(line)
        return tournament.first_line

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
        match_players(club=self.club, persons=plan.persons, report=report, match=report.match)
        if report.errors:
            return
        games = drop_stored_games(
            club=self.club, rating_list=self.rating_list, games=plan.games, report=report
        )
        if plan.games and not games:
            report.already_imported = True
            return
        self._create_players()
        for tournament in plan.tournaments:
            self._tournament = tournament
            tournament.obj = tournament_add(
                club=self.club,
                name=tournament.name,
                rating_list=self.rating_list,
                start_date=tournament.start_date,
                end_date=tournament.end_date,
                rounds=tournament.rounds,
                city=tournament.city,
                import_digest=tournament.digest,
                **tournament.headers,
            )
        self._tournament = None
        self._store_byes()
        self._store_entries()
        self._item_lines = games.column("line")
        report.games_created = games_add(club=self.club, games=_GameItems(games, self.rating_list))
        rated = numpy.array(games.values("rated"), dtype=bool)[games.column("rated")]
        not_rated = numpy.flatnonzero(~rated)
        report.games_not_rated_count = len(not_rated)
        listed = numpy.zeros(len(rated), dtype=bool)
        listed[not_rated[:REPORT_MAX_LINES]] = True
        # Read from the columns of those games (a CSV's 20,000 forfeits: no planned game
        # made for each).
        report.games_not_rated = [
            NotRatedEntry(
                line=line,
                round=round_,
                white=white.name,
                black=black.name,
                result=result,
                reason=note or "not rated",
            )
            for line, round_, white, black, result, note in games.select(listed).rows(
                "line", "round", "white", "black", "result", "note"
            )
        ]
        # Games per tournament, counted on the column (index 0 is "no tournament").
        counts = dict(
            zip(
                (id(t) for t in games.values("tournament")),
                numpy.bincount(
                    games.column("tournament"), minlength=len(games.values("tournament"))
                ).tolist(),
                strict=True,
            )
        )
        report.tournaments = [
            TournamentEntry(
                id=t.obj.pk if t.obj else None,
                name=t.name,
                start_date=t.start_date,
                end_date=t.end_date,
                rounds=t.rounds,
                city=t.city,
                games=counts.get(id(t), 0),
            )
            for t in plan.tournaments
        ]

    def _store_byes(self) -> None:
        """A TRF's byes, kept with its tournament (not rated; part of the standings)."""
        byes = self.plan.byes
        if not byes or not self.plan.tournaments:
            return
        tournament = self.plan.tournaments[0].obj
        assert tournament is not None  # created just before
        insert_rows(
            TournamentBye,
            ("tournament", "player", "round", "kind"),
            ((tournament.pk, bye.person.player_id, bye.round, bye.kind) for bye in byes),
        )

    def _store_entries(self) -> None:
        """A TRF's player lines: the tournament's entry list (the forecasts' field), so a
        file exported by the pairing program before round 1 gives the forecast."""
        plan = self.plan
        if not plan.entry_list or not plan.tournaments:
            return
        tournament = plan.tournaments[0].obj
        assert tournament is not None  # created just before
        ids = [p.player_id for p in plan.persons if p.player_id is not None]
        tournament_entries_add(tournament=tournament, player_ids=ids)

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
        months: dict[tuple[int, datetime.date], datetime.date] = {}
        for tournament, day, line in self.plan.games.rows("tournament", "date", "line"):
            key = (id(tournament), day)
            month = months.get(key)
            if month is None:
                month = months[key] = period_month(tournament, day)
            lines[month].append(line)
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
                    "ratings": [{"list": self.rating_list.slug, "rating": p.rating}]
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
