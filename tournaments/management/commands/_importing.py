"""What import_trf, import_pgn and import_csv share: arguments, progress bar, report.

A file name starting with an underscore is not a command of its own (Django's rule).
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from players.errors import DomainError
from players.models import Club
from players.rating import ListKind
from players.selectors import club_by_slug, club_first_owner, user_by_username
from tournaments.interchange import count_lines
from tournaments.management.commands._common import add_queue_argument, start_job
from tournaments.services.imports import MATCH_CHOICES, ImportReport, import_file


class ImportCommand(BaseCommand):
    format = ""

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help=f"The {self.format.upper()} file to import.")
        parser.add_argument("--club", required=True, help="The club's slug.")
        parser.add_argument(
            "--list",
            default=ListKind.STANDARD.value,
            help="The slug of the list the games are rated on (default: standard; a club's "
            "added lists by their slug).",
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="Report what would be created and matched; store nothing.",
        )
        parser.add_argument(
            "--match",
            default="possible",
            choices=MATCH_CHOICES,
            help="A possible match (same name, no birth data on one side): 'possible' uses "
            "the club's player (default), 'new' creates a new one. A dry run lists them.",
        )
        parser.add_argument(
            "--keep-identical",
            action="store_true",
            help="Store game lines identical to an earlier line too (default: once, listed).",
        )
        parser.add_argument(
            "--user",
            help="Import as this user (needs the arbiter role in the club); default: the "
            "club's first owner.",
        )
        add_queue_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        try:
            # Read as a stream (in chunks), never whole: a federation-size file stays small.
            file = path.open("rb")
        except OSError as error:
            raise CommandError(f"cannot read {path}: {error.strerror}") from None
        with file:
            self._import(path, file, options)

    def _import(self, path: Path, file: IO[bytes], options: dict[str, Any]) -> None:
        club = club_by_slug(slug=options["club"])
        if club is None:
            raise CommandError(f"no club {options['club']!r}")
        user = self._user(club, options.get("user"))
        if options["queue"]:
            params = {
                "format": self.format,
                "list": options["list"],
                "dry_run": options["dry_run"],
                "match": options["match"],
                "keep_identical": options["keep_identical"],
            }
            start_job(
                self,
                kind="import",
                club=club,
                by=user,
                params={**params, "file": path.name},
                payload=file,  # the Job row keeps the file for the worker, copied in slices
            )
            return
        lines = count_lines(file)
        show_bar = options["verbosity"] > 0
        with tqdm(
            total=lines, unit="line", desc=f"Reading {path.name}", disable=not show_bar
        ) as bar:

            def progress(done: int) -> None:
                bar.update(max(0, done - bar.n))

            try:
                report = import_file(
                    format=self.format,
                    club=club,
                    rating_list=options["list"],
                    data=file,
                    by=user,
                    dry_run=options["dry_run"],
                    match=options["match"],
                    keep_identical=options["keep_identical"],
                    progress=progress,
                )
            except DomainError as error:
                raise CommandError(error.message) from None
        self._print(report)
        if report.errors:
            listed = "\n".join(f"  {error}" for error in report.errors)
            raise CommandError(
                f"{len(report.errors)} error(s) in {path.name}; nothing was stored:\n{listed}"
            )

    def _user(self, club: Club, username: str | None) -> Any:
        return importing_user(club, username)

    def _print(self, report: ImportReport) -> None:
        out = self.stdout
        heading = "DRY RUN: nothing was stored" if report.dry_run else "Import report"
        out.write(self.style.MIGRATE_HEADING(f"{heading} ({report.format}, {report.rating_list})"))
        if report.already_imported:
            out.write(
                self.style.WARNING("Already imported: this file's games are stored; nothing new.")
            )
        self._print_games(report)
        self._print_players(report)
        if report.byes:
            out.write(f"Byes (kept with the tournament, not rated): {len(report.byes)}")
            for bye in report.byes:
                out.write(f"  line {bye.line}: round {bye.round} {bye.player}: {bye.label}")
        for warning in report.warnings:
            out.write(self.style.WARNING(f"Warning: {warning}"))
        if not report.errors:
            out.write(self.style.SUCCESS(report.summary()))

    def _print_games(self, report: ImportReport) -> None:
        """The tournaments and games: created, not rated, skipped, possibly stored before."""
        out = self.stdout
        for tournament in report.tournaments:
            ident = f"#{tournament.id} " if tournament.id else ""
            out.write(
                f"Tournament {ident}{tournament.name}: {tournament.start_date} to "
                f"{tournament.end_date}, {tournament.rounds or '-'} rounds, {tournament.games} games"
            )
        out.write(f"Games created: {report.games_created}")
        for entry in report.games_not_rated:
            out.write(
                f"  not rated (line {entry.line}): round {entry.round or '-'} {entry.white} - "
                f"{entry.black} {entry.result}: {entry.reason}"
            )
        for skipped in report.games_skipped:
            out.write(f"  skipped, {skipped}")
        for identical in report.identical_games:
            out.write(f"  possible duplicate, {identical}")
        for name, listed, count in (
            ("not rated", report.games_not_rated, report.games_not_rated_count),
            ("skipped", report.games_skipped, report.games_skipped_count),
            ("possible duplicates", report.identical_games, report.identical_games_count),
        ):
            if count > len(listed):
                out.write(f"  ... {count} games {name} in all; the first {len(listed)} listed")

    def _print_players(self, report: ImportReport) -> None:
        """The players: matched, possibly matched, created."""
        out = self.stdout
        out.write(f"Players matched: {len(report.players_matched)}")
        for player in report.players_matched:
            out.write(
                f"  line {player.line}: {player.name} -> #{player.player_id} by {player.matched_by}"
            )
        if report.possible_matches:
            out.write(
                f"Possible matches (same name, no birth data on one side): "
                f"{len(report.possible_matches)}; --match={report.match}"
            )
        for possible in report.possible_matches:
            became = "used" if possible.taken else "a new player instead"
            out.write(
                f"  line {possible.line}: {possible.name} ~ #{possible.player_id} "
                f"{possible.player_name}: {became}"
            )
        out.write(f"Players created: {len(report.players_created)}")
        for player in report.players_created:
            out.write(f"  line {player.line}: {player.name}")


def importing_user(club: Club, username: str | None) -> Any:
    """``--user``, else the club's first owner: who an import acts as."""
    if username:
        user = user_by_username(username=username)
        if user is None:
            raise CommandError(f"no user {username!r}")
        return user
    owner = club_first_owner(club=club)
    if owner is None:
        raise CommandError(f"{club.slug} has no owner; name the importing user with --user")
    return owner.user
