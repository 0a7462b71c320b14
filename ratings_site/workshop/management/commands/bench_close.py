"""Benchmark the period close on a federation-sized list, against PostgreSQL's floor.

Generates (``ratings_site/workshop/bench_data.py``) a club whose standard list has
``--players`` players and ``--games`` games in one month (default 200,000 and 1,000,000;
``BENCH_SCALE=small`` or ``--scale small``: 1%), runs ``VACUUM (ANALYZE)`` on what it
generated (autovacuum is off on our benchmark machines; production's would have done both,
and without statistics the planner guesses an empty table), then measures the preview, a
naive close (an ORM loop, one player at a time, on a slice, rolled back), the real close
twice and the floor three times. Prints one JSON object per line: ``{"name", "players",
"games", "seconds", "peak_mb", ...}``.

The floor is the time PostgreSQL alone needs to move the rows the close moves: COPY out
what the close reads, COPY in the rows it wrote, UPDATE the rows it updates, rolled back;
the new rows' foreign key checks are timed apart (``check_foreign_keys``), not in it
(``ratings_site/workshop/bench_floor.py`` says exactly what, and why). ``ratio_vs_floor`` on the
``close`` line is the best close's seconds over the best floor's; the preview, which only
reads and computes, gets ``ratio_vs_floor_reads`` against the floor's COPY-out parts.

A period closes once, so between two closes the benchmark undoes the first (``reset``
in that module: the period's rows deleted, PlayerRating put back as it was, the tables
vacuumed), so each close meets the same tables. The order is close, floor, floor, close,
floor: interleaved, so a busy spell on the shared machine does not fall on one side
only. Each run has its own line (``close_run``, ``floor_run``); the ``close`` and
``floor`` lines give the best of them (``seconds``) with every run's seconds in ``runs``.
SQLite has no floor: the ``floor`` line says why in ``skipped``.

On PostgreSQL each measured phase runs in a forked child process, so ``peak_mb`` is that
phase's own peak resident memory (the child's maxrss, which includes the interpreter and
Django); the ``close`` line gives the higher of its two runs. On SQLite the phases run in
this process and ``peak_mb`` is the process peak so far. ``cpu_seconds`` is this process's
CPU time (the database server's is not included): on a busy machine it says more about
one core's work than the wall-clock ``seconds``.
"""

from __future__ import annotations

import functools
import json
import os
import resource
import time
from collections.abc import Callable
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import connection, connections, transaction
from django.db.models import Q
from django.utils import timezone

from players import rating as engine
from players.models import (
    Club,
    KFactorChange,
    Player,
    PlayerRating,
    RatingChange,
    RatingList,
    RatingPeriod,
    RatingRun,
)
from players.rating.period import GAME_RESULTS
from players.services import k_for
from ratings_site.workshop import bench_floor
from ratings_site.workshop.bench_data import MONTH, generate
from tournaments.models import Game
from tournaments.services import period_close, period_preview

FULL = {"players": 200_000, "games": 1_000_000}


def peak_mb() -> float:
    # Linux reports ru_maxrss in kilobytes.
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def naive_close(*, rating_list: RatingList, period: RatingPeriod, by: Any, slice_size: int) -> int:
    """The close written the obvious way, for comparison: per player a query for the
    state, one for the games, one per game for the opponent, one insert, one update.
    Rolled back."""
    rules = rating_list.rules()
    with transaction.atomic(durable=True):
        run = RatingRun.objects.create(
            rating_list=rating_list,
            kind=RatingRun.Kind.CLOSE,
            by=by,
            started=timezone.now(),
            periods=[period.label],
        )
        done = 0
        for rating in PlayerRating.objects.filter(
            rating_list=rating_list, rating__isnull=False
        ).order_by("pk")[:slice_size]:
            player = Player.objects.get(pk=rating.player_id)
            inputs = []
            for game in Game.objects.filter(period=period).filter(
                Q(white_id=player.pk) | Q(black_id=player.pk)
            ):
                white_score, black_score, played = GAME_RESULTS[game.result]
                is_white = game.white_id == player.pk
                opponent = PlayerRating.objects.get(
                    rating_list=rating_list,
                    player_id=game.black_id if is_white else game.white_id,
                )
                score = white_score if is_white else black_score
                inputs.append(
                    engine.GameInput(
                        opponent.rating, engine.parse_result(score), played and game.rated
                    )
                )
            state = engine.PlayerState(
                rating.rating, rating.rated_games, player.birth_year, rating.reached_2400
            )
            k = k_for(
                rating_list=rating_list,
                state=state,
                k_override=rating.k_override,
                period_year=period.month.year,
            )
            assert rating.rating is not None
            change = engine.period_change(
                rating=rating.rating, games=inputs, k=k.value, rules=rules
            )
            RatingChange.objects.create(
                period=period,
                player=player,
                rating_list=rating_list,
                run=run,
                rating_before=rating.rating,
                rating_after=change.new_rating,
                change=change.change,
                k_factor=change.k,
                k_reason=k.reason,
                games=change.games_count,
                event="rated",
            )
            rating.rating = change.new_rating
            rating.save()
            done += 1
        transaction.set_rollback(True)
    return done


def measure(name: str, phase: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run ``phase`` (in a forked child on PostgreSQL) -> its figures with seconds, peak_mb.

    A phase that times only part of its work (the floor) returns its own ``seconds``.
    """
    if connection.vendor != "postgresql":
        started, cpu = time.perf_counter(), time.process_time()
        figures = phase()
        return {
            "name": name,
            "seconds": round(time.perf_counter() - started, 3),
            "cpu_seconds": round(time.process_time() - cpu, 3),
            **figures,
            "peak_mb": peak_mb(),
            "peak_scope": "process",
        }
    for conn in connections.all():
        conn.close()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: measure, report through the pipe, leave without cleanup
        os.close(read)
        try:
            started, cpu = time.perf_counter(), time.process_time()
            figures = phase()
            report: dict[str, Any] = {
                "name": name,
                "seconds": round(time.perf_counter() - started, 3),
                "cpu_seconds": round(time.process_time() - cpu, 3),
                **figures,
                "peak_mb": peak_mb(),
                "peak_scope": "phase",
            }
        except BaseException as exc:  # reported to the parent, which raises
            report = {"name": name, "error": repr(exc)}
        os.write(write, json.dumps(report).encode())
        os._exit(0)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 65536):
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    result: dict[str, Any] = json.loads(b"".join(chunks))
    if "error" in result:
        raise RuntimeError(f"{name} failed: {result['error']}")
    return result


# -- the run --------------------------------------------------------------------------------


def _closes_and_floors(
    *,
    rating_list: RatingList,
    period: RatingPeriod,
    user: Any,
    size: dict[str, int],
    emit: Callable[[str], None],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Close twice and measure the floor three times, interleaved; one line per run."""
    on_postgres = connection.vendor == "postgresql"
    closes: list[dict[str, Any]] = []
    floors: list[dict[str, Any]] = []
    payload = ""

    def close() -> dict[str, Any]:
        run = period_close(period=period, by=user)
        return {**size, "players_changed": run.players_changed, "steps": run.summary["seconds"]}

    def floor_phase() -> dict[str, Any]:
        return {
            **size,
            **bench_floor.floor(rating_list=rating_list, period=period, payload_path=payload),
        }

    def written() -> int:
        return RatingChange.objects.filter(period=period, current=True).count()

    schedule = ["close", "floor", "floor", "close", "floor"] if on_postgres else ["close"] * 2
    try:
        for step, name in enumerate(schedule):
            if name == "close":
                line = {**measure("close_run", close), "run": len(closes) + 1}
                line["changes_written"] = written()
                closes.append(line)
                if on_postgres and not payload:
                    payload = bench_floor.capture_changes(period)
            else:
                line = {**measure("floor_run", floor_phase), "run": len(floors) + 1}
                # The floor rolled back: the period has no rows, as before it.
                line["changes_after_rollback"] = written()
                floors.append(line)
            emit(json.dumps(line))
            if step == len(schedule) - 1:
                break
            if name == "close":
                bench_floor.reset(rating_list, period)
            else:  # nothing to undo, only the dead rows to clean
                bench_floor.vacuum_analyze(bench_floor.CLOSE_TOUCHES)
    finally:
        if payload:
            os.unlink(payload)
    return closes, floors


def run_benchmark(
    *,
    players: int,
    games: int,
    naive_slice: int,
    seed: int = 2026,
    quiet: bool = False,
    keep: bool = False,
    emit: Callable[[str], None] = print,
    system: str = "fide",
) -> list[dict[str, Any]]:
    """Generate, measure, print the JSON lines; drop the generated club unless ``keep``.

    ``system``: the list's rating system (``glicko2``: the same players and games on a
    Glicko-2 list, every player at the list's starting RD; each line says its system).
    The naive close and the floor stay the FIDE list's baselines."""
    started = time.perf_counter()
    emit = functools.partial(_with_system, emit, system)
    rating_list, user = generate(players=players, games=games, seed=seed, quiet=quiet)
    if system != rating_list.system:
        RatingList.objects.filter(pk=rating_list.pk).update(system=system)
        rating_list.refresh_from_db()
    period = RatingPeriod.objects.get(rating_list=rating_list, month=MONTH)
    clock = time.perf_counter()
    bench_floor.vacuum_analyze(bench_floor.GENERATED)
    lines: list[dict[str, Any]] = [
        {
            "name": "generate",
            "players": players,
            "games": games,
            "seconds": round(time.perf_counter() - started, 3),
            "analyze_seconds": round(time.perf_counter() - clock, 3),
            "analyzed": [m._meta.db_table for m in bench_floor.GENERATED],
            "peak_mb": peak_mb(),
        }
    ]
    emit(json.dumps(lines[-1]))
    size = {"players": players, "games": games}

    def preview() -> dict[str, Any]:
        plan = period_preview(period=period)
        return {**size, "changes": len(plan.changes)}

    def naive() -> dict[str, Any]:
        done = naive_close(rating_list=rating_list, period=period, by=user, slice_size=naive_slice)
        return {"players": done, "games": games}

    preview_line = measure("preview", preview)
    naive_line = measure("naive_close_slice", naive)
    bench_floor.snapshot(rating_list)
    try:
        closes, floors = _closes_and_floors(
            rating_list=rating_list, period=period, user=user, size=size, emit=emit
        )
    finally:
        bench_floor.drop_snapshot(rating_list)
    summaries = bench_floor.summaries(preview_line, naive_line, closes, floors, size)
    for line in summaries:
        emit(json.dumps(line))
    lines += [*closes, *floors, *summaries]
    if not keep:
        drop_club(rating_list.club)
    return lines


def _with_system(emit: Callable[[str], None], system: str, line: str) -> None:
    emit(json.dumps({**json.loads(line), "system": system}))


class Command(BaseCommand):
    help = "Generate a federation-sized list; time preview, close, a naive close and the floor."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--scale",
            choices=["full", "small"],
            default=os.environ.get("BENCH_SCALE", "full"),
            help="full: 200,000 players and 1,000,000 games; small: 1%%",
        )
        parser.add_argument("--players", type=int, help="override the number of players")
        parser.add_argument("--games", type=int, help="override the number of games")
        parser.add_argument(
            "--naive-slice",
            type=int,
            default=200,
            help="players closed the naive way (rolled back)",
        )
        parser.add_argument("--keep", action="store_true", help="keep the generated club")
        parser.add_argument(
            "--system", choices=["fide", "glicko2"], default="fide", help="the list's system"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        factor = 100 if options["scale"] == "small" else 1
        players = options["players"] or FULL["players"] // factor
        games = options["games"] or FULL["games"] // factor
        quiet = options["verbosity"] == 0
        run_benchmark(
            players=players,
            games=games,
            naive_slice=options["naive_slice"],
            quiet=quiet,
            keep=options["keep"],
            emit=self.stdout.write,
            system=options["system"],
        )


def drop_club(club: Club) -> None:
    """Delete the generated club fast (cascades through 1,000,000 games are slow)."""
    with transaction.atomic():
        for model in (RatingChange, KFactorChange):
            model.objects.filter(rating_list__club=club)._raw_delete(connection.alias)
        Game.objects.filter(club=club)._raw_delete(connection.alias)
        PlayerRating.objects.filter(rating_list__club=club)._raw_delete(connection.alias)
        Player.objects.filter(club=club)._raw_delete(connection.alias)
        club.delete()
