"""Write a club's whole history to one file (docs/reference/backup.md): a zip of JSON lines with a
manifest, which ``import_club`` restores on any instance."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from players.selectors import club_by_slug
from tournaments.services.club_archive import club_export


class Command(BaseCommand):
    help = "Export a club's whole history (lists, players, games, periods, runs, audit) to FILE."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("club", help="The club's slug.")
        parser.add_argument("--output", "-o", required=True, help="The file to write (.zip).")

    def handle(self, *args: Any, **options: Any) -> None:
        club = club_by_slug(slug=options["club"])
        if club is None:
            raise CommandError(f"No club with slug {options['club']!r}.")
        path = Path(options["output"])
        # Written beside the target and renamed at the end: an interrupted export leaves
        # no half file under the name a restore would read.
        partial = path.with_name(path.name + ".partial")
        try:
            with partial.open("wb") as out:
                report = club_export(club=club, out=out)
            partial.replace(path)
        finally:
            partial.unlink(missing_ok=True)
        self.stdout.write(
            f"{club.slug}: {report.rows} rows in {len(report.tables)} tables written to "
            f"{path} ({path.stat().st_size} bytes, {report.seconds:.1f} s)."
        )
