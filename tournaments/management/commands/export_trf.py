"""`manage.py export_trf --tournament ID [--output FILE]`: a tournament as a TRF16 file."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from players.errors import DomainError
from tournaments.exports import tournament_trf
from tournaments.management.commands.export_list import _deliver
from tournaments.selectors import tournament_find


class Command(BaseCommand):
    help = "Write a tournament and its games as a FIDE TRF16 file."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tournament", type=int, required=True, help="The tournament's id.")
        parser.add_argument("--output", "-o", help="Write to this file instead of stdout.")

    def handle(self, *args: Any, **options: Any) -> None:
        tournament = tournament_find(tournament_id=options["tournament"])
        if tournament is None:
            raise CommandError(f"no tournament {options['tournament']}")
        try:
            text = tournament_trf(tournament=tournament)
        except DomainError as error:
            raise CommandError(error.message) from None
        _deliver(self, text, options["output"])
