"""`manage.py export_list --club SLUG --list standard [--period YYYY-MM] [--format csv|txt]`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from players.errors import DomainError
from players.models import list_kind_values
from players.rating import ListKind
from players.selectors import club_by_slug, rating_list_get
from tournaments.exports import LIST_FORMATS, export_period, list_export


class Command(BaseCommand):
    help = "Write a published rating list as CSV or FIDE-style fixed-width text."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--club", required=True, help="The club's slug.")
        parser.add_argument("--list", default=ListKind.STANDARD.value, choices=list_kind_values())
        parser.add_argument(
            "--period", help="The closed period YYYY-MM (default: the latest published list)."
        )
        parser.add_argument("--format", default="csv", choices=LIST_FORMATS)
        parser.add_argument("--output", "-o", help="Write to this file instead of stdout.")

    def handle(self, *args: Any, **options: Any) -> None:
        club = club_by_slug(slug=options["club"])
        if club is None:
            raise CommandError(f"no club {options['club']!r}")
        try:
            rating_list = rating_list_get(club=club, kind=options["list"])
            period = export_period(rating_list=rating_list, month=options["period"])
            text = list_export(rating_list=rating_list, period=period, format=options["format"])
        except DomainError as error:
            raise CommandError(error.message) from None
        _deliver(self, text, options["output"])


def _deliver(command: BaseCommand, text: str, output: str | None) -> None:
    if output:
        Path(output).write_text(text, encoding="utf-8", newline="")
        command.stderr.write(f"Wrote {output}")
    else:
        command.stdout.write(text, ending="")
