"""Restore a club from a file written by ``export_club`` (docs/backup.md), as a new club
of this instance, in one transaction."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from players.errors import DomainError
from tournaments.services.club_archive import club_import


class Command(BaseCommand):
    help = (
        "Restore a club exported by export_club, with new ids; members are matched by "
        "username (memberships of usernames unknown here are skipped and listed)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="The archive written by export_club.")
        parser.add_argument("--slug", help="The restored club's slug (default: the file's).")
        parser.add_argument("--name", help="The restored club's name (default: the file's).")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            with open(options["file"], "rb") as file:
                report = club_import(file=file, slug=options["slug"], name=options["name"])
        except OSError as error:
            raise CommandError(f"{options['file']}: {error.strerror}") from None
        except DomainError as error:
            raise CommandError(error.message) from None
        for line in report.skipped:
            self.stdout.write(f"Not restored: {line}")
        self.stdout.write(
            f"{report.club}: {report.rows} rows in {len(report.tables)} tables restored "
            f"({report.seconds:.1f} s)."
        )
