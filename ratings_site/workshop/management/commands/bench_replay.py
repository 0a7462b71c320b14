"""Benchmark a year's replay against the twelve closes it redoes.

Generates (``ratings_site/workshop/bench_data.py``) a club whose standard list has
``--players`` players and ``--games`` games in each of ``--months`` months (default 20,000
players, 100,000 games a month, 12 months: a tenth of the federation size;
``BENCH_SCALE=small`` or ``--scale small``: 1/50 of that), analyses it, then closes the
months one by one, each timed (``close_month`` lines; ``closes`` sums them). Then it
reopens the first month and replays the year, twice (``replay_run`` lines); before each
replay the touched tables are vacuumed and analysed, untimed, as autovacuum would have
done in production between a close and a correction weeks later. The ``replay`` line
gives the best run and ``ratio_vs_closes``: the replay's seconds over the twelve closes'
sum, the figure to compare from run to run (both sides ran in this process, on the same
tables, so a busy machine moves them together).

Each close and replay runs through ``measure`` (a forked child on PostgreSQL), so
``peak_mb`` is that phase's own peak resident memory.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from players.models import RatingPeriod
from ratings_site.workshop import bench_floor
from ratings_site.workshop.bench_data import generate
from ratings_site.workshop.management.commands.bench_close import drop_club, measure, peak_mb
from tournaments.services import list_replay, period_close, period_reopen

FULL = {"players": 20_000, "games": 100_000, "months": 12}
SMALL_FACTOR = 50


def run_benchmark(
    *,
    players: int,
    games: int,
    months: int,
    seed: int = 2026,
    quiet: bool = False,
    replays: int = 2,
    emit: Callable[[str], None] = print,
) -> list[dict[str, Any]]:
    """Generate, close every month, replay the year ``replays`` times; print JSON lines."""
    # Over 80 lines on purpose: the benchmark's script, read top to bottom (generate, the
    # twelve closes, the replays, the summary line), each step printing its own line.
    started = time.perf_counter()
    rating_list, user = generate(
        players=players, games=games, seed=seed, quiet=quiet, months=months
    )
    bench_floor.vacuum_analyze(bench_floor.GENERATED)
    size = {"players": players, "games_per_month": games, "months": months}
    lines: list[dict[str, Any]] = [
        {
            "name": "generate",
            **size,
            "seconds": round(time.perf_counter() - started, 3),
            "peak_mb": peak_mb(),
            "peak_scope": "process",
        }
    ]
    emit(json.dumps(lines[-1]))
    periods = list(RatingPeriod.objects.filter(rating_list=rating_list).order_by("month"))
    assert len(periods) == months, "one generated period a month"

    closes: list[dict[str, Any]] = []
    for period in periods:

        def close(period: RatingPeriod = period) -> dict[str, Any]:
            run = period_close(period=period, by=user)
            return {
                "month": period.label,
                "players_changed": run.players_changed,
                "steps": run.summary["seconds"],
            }

        closes.append(measure("close_month", close))
        emit(json.dumps({**closes[-1], **size}))
    closes_seconds = round(sum(line["seconds"] for line in closes), 3)
    lines += closes
    lines.append(
        {
            "name": "closes",
            **size,
            "seconds": closes_seconds,
            "cpu_seconds": round(sum(line["cpu_seconds"] for line in closes), 3),
            # Each step summed over the months, to set beside the replay's own steps.
            "steps": {
                step: round(sum(line["steps"][step] for line in closes), 3)
                for step in closes[0]["steps"]
            },
            "peak_mb": max(line["peak_mb"] for line in closes),
        }
    )
    emit(json.dumps(lines[-1]))

    runs: list[dict[str, Any]] = []
    for number in range(1, replays + 1):
        period_reopen(period=periods[0], by=user)
        bench_floor.vacuum_analyze(bench_floor.CLOSE_TOUCHES)

        def replay() -> dict[str, Any]:
            run = list_replay(rating_list=rating_list, by=user)
            return {
                "periods": len(run.periods),
                "players_changed": run.players_changed,
                "steps": run.summary["seconds"],
            }

        line = {**measure("replay_run", replay), "run": number, **size}
        line["ratio_vs_closes"] = round(line["seconds"] / closes_seconds, 2)
        runs.append(line)
        emit(json.dumps(line))
    lines += runs
    best = min(runs, key=lambda line: line["seconds"])
    lines.append(
        {
            "name": "replay",
            **size,
            "seconds": best["seconds"],
            "runs": [line["seconds"] for line in runs],
            "closes_seconds": closes_seconds,
            "ratio_vs_closes": round(best["seconds"] / closes_seconds, 2),
            "peak_mb": max(line["peak_mb"] for line in runs),
        }
    )
    emit(json.dumps(lines[-1]))
    drop_club(rating_list.club)
    return lines


class Command(BaseCommand):
    help = "Close a generated year month by month, then replay it; print the ratio."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--scale",
            choices=["full", "small"],
            default=os.environ.get("BENCH_SCALE", "full"),
            help="full: 20,000 players, 100,000 games a month, 12 months; small: 1/50",
        )
        parser.add_argument("--players", type=int, help="override the number of players")
        parser.add_argument("--games", type=int, help="override the games per month")
        parser.add_argument("--months", type=int, default=FULL["months"])
        parser.add_argument("--replays", type=int, default=2)

    def handle(self, *args: Any, **options: Any) -> None:
        factor = SMALL_FACTOR if options["scale"] == "small" else 1
        run_benchmark(
            players=options["players"] or FULL["players"] // factor,
            games=options["games"] or FULL["games"] // factor,
            months=options["months"],
            replays=options["replays"],
            quiet=options["verbosity"] == 0,
            emit=self.stdout.write,
        )
