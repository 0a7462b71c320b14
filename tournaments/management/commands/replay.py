"""Replay every reopened period of a club's list."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from players.errors import DomainError
from players.models import list_kind_values
from players.rating import ListKind
from tournaments.management.commands._common import (
    acting_user,
    add_queue_argument,
    domain_error,
    rating_list_for,
    start_job,
)
from tournaments.services import list_replay


class Command(BaseCommand):
    help = "Recompute the reopened periods of a list in order; --dry-run rolls back."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--club", required=True, help="club slug")
        parser.add_argument("--list", default=ListKind.STANDARD.value, choices=list_kind_values())
        parser.add_argument("--dry-run", action="store_true", help="compute, report, roll back")
        parser.add_argument("--user", help="act as this user (default: the first superuser)")
        add_queue_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        rating_list = rating_list_for(options["club"], options["list"])
        user = acting_user(options["user"])
        if options["queue"]:
            if options["dry_run"]:
                raise CommandError("--dry-run runs here; leave out --queue.")
            start_job(
                self, kind="replay", club=rating_list.club, by=user, params={"list": rating_list.pk}
            )
            return
        try:
            with tqdm(
                unit="player", disable=options["verbosity"] == 0 or None, desc="replaying"
            ) as bar:
                run = list_replay(
                    rating_list=rating_list,
                    by=user,
                    progress=bar.update,
                    dry_run=options["dry_run"],
                )
        except DomainError as exc:
            raise domain_error(exc) from exc
        self.stdout.write(run.report)
        if options["dry_run"]:
            self.stdout.write("Dry run: everything was rolled back; nothing changed.")
        else:
            self.stdout.write(
                self.style.SUCCESS(
                    f"Replayed {', '.join(run.periods)}: {run.players_changed} players changed."
                )
            )
