"""Restore a club from a file written by ``export_club`` (docs/reference/backup.md), as a new club
of this instance, in one transaction."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from players.errors import DomainError
from players.selectors import user_by_username
from tournaments.services.club_archive import club_import


class Command(BaseCommand):
    help = (
        "Restore a club exported by export_club, with new ids. No role is restored: --owner "
        "names the one owner; the archive's members are invited to their roles (those whose "
        "username is unknown here are listed as skipped)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="The archive written by export_club.")
        parser.add_argument("--slug", help="The restored club's slug (default: the file's).")
        parser.add_argument("--name", help="The restored club's name (default: the file's).")
        parser.add_argument(
            "--owner",
            help="The username who owns the restored club (default: no one until an "
            "invited owner accepts).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        owner = None
        if options["owner"]:
            owner = user_by_username(username=options["owner"])
            if owner is None:
                raise CommandError(f"--owner: no user {options['owner']!r} here.")
        try:
            with open(options["file"], "rb") as file:
                report = club_import(
                    file=file, slug=options["slug"], name=options["name"], owner=owner
                )
        except OSError as error:
            raise CommandError(f"{options['file']}: {error.strerror}") from None
        except DomainError as error:
            # One line: a message names the table, line and field; never a traceback.
            raise CommandError(" ".join(error.message.split())) from None
        if report.owner:
            self.stdout.write(f"Owner: {report.owner}")
        for line in report.invited:
            self.stdout.write(f"Invited: {line}")
        for line in report.skipped:
            self.stdout.write(f"Not restored: {line}")
        self.stdout.write(
            f"{report.club}: {report.rows} rows in {len(report.tables)} tables restored "
            f"({report.seconds:.1f} s)."
        )
