"""`manage.py import_fide_list FILE --club SLUG [--dry-run] [--month YYYY-MM]
[--add-federation XXX] [--seed-ratings] [--user NAME] [--queue]`: FIDE's monthly rating
list, here with a progress bar or (--queue) as a job a worker runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from players.errors import DomainError
from players.models import Club
from players.selectors import club_by_slug, parse_month
from tournaments.management.commands._common import add_queue_argument, start_job
from tournaments.management.commands._importing import importing_user
from tournaments.services.fide_list import FideListReport, fide_list_import


class Command(BaseCommand):
    help = "Read FIDE's rating list (TXT or XML, plain or zipped) into a club (docs/reference/file-formats.md)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="players_list_foa.txt, players_list_xml_foa.xml or a ZIP")
        parser.add_argument("--club", required=True, help="The club's slug.")
        parser.add_argument("--dry-run", action="store_true", help="Report; store nothing.")
        parser.add_argument("--month", help="The list's month, YYYY-MM (default: this month).")
        parser.add_argument(
            "--add-federation", default="", help="Also create this federation's players (XXX)."
        )
        parser.add_argument(
            "--seed-ratings",
            action="store_true",
            help="Start players unrated on a club's Elo list at their FIDE rating of that kind.",
        )
        parser.add_argument(
            "--user", help="Act as this user (rating officer); default: the club's first owner."
        )
        add_queue_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        club = club_by_slug(slug=options["club"])
        if club is None:
            raise CommandError(f"no club {options['club']!r}")
        user = importing_user(club, options.get("user"))
        if options["queue"]:
            self._queue(path, club, user, options)
            return
        try:
            month = parse_month(options["month"], field="month") if options["month"] else None
            with (
                path.open("rb") as stream,
                tqdm(
                    unit=" players", desc=f"Reading {path.name}", disable=options["verbosity"] < 1
                ) as bar,
            ):

                def progress(done: int) -> None:
                    bar.update(max(0, done - bar.n))

                report = fide_list_import(
                    club=club,
                    stream=stream,
                    by=user,
                    month=month,
                    add_federation=options["add_federation"],
                    seed_ratings=options["seed_ratings"],
                    dry_run=options["dry_run"],
                    progress=progress,
                )
        except OSError as error:
            raise CommandError(f"cannot read {path}: {error.strerror}") from None
        except DomainError as error:
            raise CommandError(error.message) from None
        self._print(report)

    def _queue(self, path: Path, club: Club, user: Any, options: dict[str, Any]) -> None:
        try:
            month = parse_month(options["month"], field="month") if options["month"] else None
            file = path.open("rb")
        except OSError as error:
            raise CommandError(f"cannot read {path}: {error.strerror}") from None
        except DomainError as error:
            raise CommandError(error.message) from None
        params = {
            "month": f"{month:%Y-%m}" if month else None,
            "add_federation": options["add_federation"],
            "seed_ratings": options["seed_ratings"],
            "dry_run": options["dry_run"],
            "file": path.name,
        }
        with file:  # copied into the job's row a slice at a time
            start_job(self, kind="fide_list", club=club, by=user, params=params, payload=file)

    def _print(self, report: FideListReport) -> None:
        out = self.stdout
        for entry in report.updated:
            out.write(f"  updated #{entry['player']} {entry['name']}: {', '.join(entry['fields'])}")
        for entry in report.disagreements:
            out.write(
                self.style.WARNING(
                    f"  disagrees ({entry['what']}): #{entry['player']} {entry['name']} "
                    f"({entry['birth_year'] or '-'}) / FIDE {entry['fide_name']} "
                    f"({entry['fide_birth_year'] or '-'})"
                )
            )
        for entry in report.added:
            out.write(f"  added {entry['name']} (FIDE ID {entry['fide_id']})")
        for entry in report.matched:
            out.write(
                f"  matched #{entry['player']} {entry['name']}: FIDE ID {entry['fide_id']} "
                f"({entry['fide_name']})"
            )
        for entry in report.possible_matches:
            out.write(
                self.style.WARNING(
                    f"  possible match, not added: {entry['fide_name']} (FIDE ID "
                    f"{entry['fide_id']}) / #{entry['player']} {entry['name']} (born "
                    f"{entry['birth_year'] or '-'} / FIDE {entry['fide_birth_year'] or '-'})"
                )
            )
        for entry in report.seeded:
            out.write(f"  seeded {entry['name']} on {entry['list']}: {entry['rating']}")
        for entry in report.not_in_list:
            out.write(f"  not in the list: #{entry['player']} {entry['name']} ({entry['fide_id']})")
        for warning in report.warnings:
            out.write(self.style.WARNING(f"Warning: {warning}"))
        out.write(self.style.SUCCESS(report.summary()))
