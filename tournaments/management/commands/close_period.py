"""Close (or with --dry-run preview) one period of a club's list."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from players.errors import DomainError
from players.models import RatingChange, list_kind_values
from players.rating import ListKind
from players.rating.period import PeriodPlan
from players.selectors import list_ratings, parse_month, period_get
from tournaments.management.commands._common import (
    acting_user,
    add_queue_argument,
    domain_error,
    rating_list_for,
    start_job,
)
from tournaments.services import check_month_over, period_close, period_preview


def changes_table(plan: PeriodPlan, names: dict[int, str], limit: int) -> list[str]:
    """The plan's players who played or whose rating changed, as aligned text rows."""
    header = f"{'player':<30} {'before':>6} {'after':>6} {'change':>7} {'K':>3} {'games':>5}  event"
    rows = [header, "-" * len(header)]
    shown = [c for c in plan.changes if c.games or c.changed]
    for change in shown[:limit]:
        rows.append(
            f"{names.get(change.player_id, str(change.player_id))[:30]:<30} "
            f"{_cell(change.rating_before):>6} {_cell(change.rating_after):>6} "
            f"{_signed(change.change):>7} {_cell(change.k_factor):>3} {change.games:>5}  "
            f"{RatingChange.Event(change.event).label}"
        )
    if len(shown) > limit:
        rows.append(f"... and {len(shown) - limit} more (use --limit)")
    return rows


def _cell(value: int | None) -> str:
    return "-" if value is None else str(value)


def _signed(value: int | None) -> str:
    return "-" if value is None else f"{value:+d}"


class Command(BaseCommand):
    help = "Close a rating period (publish the new list); --dry-run shows what it would write."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--club", required=True, help="club slug")
        parser.add_argument("--list", default=ListKind.STANDARD.value, choices=list_kind_values())
        parser.add_argument("--period", required=True, help="YYYY-MM")
        parser.add_argument("--dry-run", action="store_true", help="preview; write nothing")
        parser.add_argument(
            "--early",
            action="store_true",
            help="close a month that has not ended yet (refused without it)",
        )
        parser.add_argument("--user", help="act as this user (default: the first superuser)")
        parser.add_argument("--limit", type=int, default=100, help="rows in the dry-run table")
        add_queue_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        rating_list = rating_list_for(options["club"], options["list"])
        user = acting_user(options["user"])
        total = list_ratings(rating_list=rating_list).count()
        quiet = options["verbosity"] == 0 or None  # None: tqdm hides itself off a terminal
        try:
            period = period_get(rating_list=rating_list, month=parse_month(options["period"]))
            if options["queue"]:
                if options["dry_run"]:
                    raise CommandError("--dry-run runs here; leave out --queue.")
                check_month_over(period, early=options["early"])
                start_job(
                    self,
                    kind="close",
                    club=rating_list.club,
                    by=user,
                    params={"period": period.pk, "early": options["early"]},
                )
                return
            with tqdm(total=total, unit="player", disable=quiet, desc="computing") as bar:
                if not options["dry_run"]:
                    run = period_close(
                        period=period, by=user, early=options["early"], progress=bar.update
                    )
                    self.stdout.write(self.style.SUCCESS(run.report))
                    return
                plan = period_preview(period=period, by=user, progress=bar.update)
        except DomainError as exc:
            raise domain_error(exc) from exc
        names = dict(list_ratings(rating_list=rating_list).values_list("player_id", "player__name"))
        for row in changes_table(plan, names, options["limit"]):
            self.stdout.write(row)
        events = ", ".join(f"{n} {e}" for e, n in sorted(plan.counts_by_event().items()))
        self.stdout.write(
            f"Dry run of {plan.period}: {plan.games_count} games, {len(plan.changes)} "
            f"players ({events}), {plan.players_changed} ratings would change, "
            f"{len(plan.k_changes)} K changes. Nothing was written."
        )
