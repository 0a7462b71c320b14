"""Period close, preview and replay: the only code that writes ratings.

A close is three steps, each in its own module: read (``read.py``: queries -> the
period's plain inputs), plan (the list's rating system, ``players.rating.systems``: pure,
inputs -> a plan of immutable records) and write (``write.py``: the plan's rows through
the one bulk path). This module ties them together, in one transaction:

1. lock the RatingList row, then the RatingPeriod row (``select_for_update(no_key=True)``,
   always in this order, so two closes of one list queue up and a game write waits);
2. refuse a closed period (ConflictError: already closed), a reopened one (replay it), an
   earlier period of the list that has games and is not closed, or a later closed one;
3. read, plan, write; mark the period closed and record the RatingRun.

Preview reads and plans only. Replay reads, plans and writes each period to recompute, in
order, each one starting from the rows the previous one just wrote.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from django.db import transaction
from django.utils import timezone

from players.bulk import gc_paused
from players.errors import ConflictError, month_not_over
from players.models import (
    Player,
    PlayerRating,
    RatingList,
    RatingPeriod,
    RatingRun,
    Role,
    month_label,
)
from players.names import display_name
from players.rating.period import PeriodInputs, PeriodPlan, PlayerStart, UnknownPlayers
from players.rating.systems import system_for
from players.selectors import User, require_role
from players.services import club_published_changed, players_enter_list
from players.webhooks import events_emit
from tournaments.models import Game
from tournaments.services.close.read import beside_possible, read_inputs
from tournaments.services.close.report import ReplayReport, close_report, close_summary
from tournaments.services.close.start import StartRows
from tournaments.services.close.write import (
    date_entry_k_changes,
    insert_changes,
    insert_k_changes,
    retire_current,
    undate_entry_k_changes,
    update_player_ratings,
    write_plan,
)

Progress = Callable[[int], None]


def system_plan(inputs: PeriodInputs, *, progress: Progress | None = None) -> PeriodPlan:
    """The plan of the list's rating system for ``inputs``; pure (no database access).
    Raises UnknownPlayers for games of players the list lacks. The one place a close, a
    preview and a replay compute their plan."""
    return system_for(inputs.settings.system).plan_period(inputs, progress=progress)


def compute_plan(inputs: PeriodInputs, *, progress: Progress | None = None) -> PeriodPlan:
    """``system_plan``, with a game of a player who is not on the list refused
    (ConflictError naming them), never planned with a state made up for them."""
    try:
        return system_plan(inputs, progress=progress)
    except UnknownPlayers as error:
        raise _not_on_the_list(error.player_ids) from None


def _plan_with_every_player(
    inputs: PeriodInputs,
    *,
    rating_list: RatingList,
    period: RatingPeriod,
    by: User | None,
    progress: Progress | None,
) -> PeriodPlan:
    """``compute_plan``; a list that lacks players of the club who play in the period (a
    list created before lists took in the club's players) takes them in first, as new
    players (``players_enter_list``), and the period is read again. Writes: the caller
    owns the transaction (a preview rolls it back)."""
    try:
        return system_plan(inputs, progress=progress)
    except UnknownPlayers as error:
        if not players_enter_list(rating_list=rating_list, player_ids=error.player_ids, by=by):
            raise _not_on_the_list(error.player_ids) from None
    return compute_plan(read_inputs(rating_list=rating_list, period=period), progress=progress)


def _not_on_the_list(player_ids: Sequence[int]) -> ConflictError:
    """Every player of a club is entered on each of its lists (players.services.entries);
    a list created before lists took in the club's players may lack some."""
    names = dict(Player.objects.filter(pk__in=player_ids[:10]).values_list("pk", "name"))
    shown = ", ".join(f"{names.get(pid, '?')} (id {pid})" for pid in player_ids[:10])
    more = f" and {len(player_ids) - 10} more" if len(player_ids) > 10 else ""
    message = f"Games of players who are not on the list: {shown}{more}."
    return ConflictError(message, fields={"players": [message]})


# -- the services ---------------------------------------------------------------------------


def _check_order(rating_list: RatingList, period: RatingPeriod) -> None:
    earlier = (
        RatingPeriod.objects.filter(rating_list=rating_list, month__lt=period.month)
        .exclude(status=RatingPeriod.Status.CLOSED)
        .filter(games__isnull=False)
        .order_by("month")
        .values_list("month", flat=True)
        .first()
    )
    if earlier is not None:
        raise ConflictError(
            f"Close {month_label(earlier)} first: periods close in order, and it has games.",
            fields={"period": [f"{month_label(earlier)} is not closed."]},
        )
    later = (
        RatingPeriod.objects.filter(rating_list=rating_list, month__gt=period.month)
        .exclude(status=RatingPeriod.Status.OPEN)
        .order_by("month")
        .values_list("month", flat=True)
        .first()
    )
    if later is not None:
        raise ConflictError(
            f"{month_label(later)} is already closed; a period cannot close after a later one.",
            fields={"period": [f"{month_label(later)} is closed."]},
        )


def _lock(rating_list: RatingList, period: RatingPeriod) -> tuple[RatingList, RatingPeriod]:
    # Fixed order: the list, then the period. A close of the same list waits here; a game
    # write waits on the period row.
    locked_list = RatingList.objects.select_for_update(no_key=True).get(pk=rating_list.pk)
    locked_period = RatingPeriod.objects.select_for_update(no_key=True).get(pk=period.pk)
    return locked_list, locked_period


def period_preview(
    *,
    period: RatingPeriod,
    by: User | None = None,
    progress: Progress | None = None,
    start: StartRows | None = None,
    starts: dict[int, PlayerStart] | None = None,
) -> PeriodPlan:
    """What closing ``period`` would write, computed from the same reads; writes nothing.
    ``start``: the period's start rows as the caller kept them (the live figures), and
    ``starts`` the players' starts made from them (``starts_kept``)."""
    plan, _ = preview_and_inputs(
        period=period, by=by, progress=progress, start=start, starts=starts
    )
    return plan


def preview_and_inputs(
    *,
    period: RatingPeriod,
    by: User | None = None,
    progress: Progress | None = None,
    start: StartRows | None = None,
    starts: dict[int, PlayerStart] | None = None,
) -> tuple[PeriodPlan, PeriodInputs | None]:
    """``period_preview``'s plan and the inputs it was planned from (None when the list
    had to take in players for it: those inputs name players a preview lets go again)."""
    rating_list = RatingList.objects.select_related("club").get(pk=period.rating_list_id)
    if by is not None:
        require_role(by, rating_list.club, Role.VIEWER)
    untouched = beside_possible()
    with gc_paused(), transaction.atomic():
        inputs = read_inputs(
            rating_list=rating_list, period=period, untouched=untouched, start=start, starts=starts
        )
        try:
            return system_plan(inputs, progress=progress), inputs
        except UnknownPlayers:
            plan = _plan_with_every_player(
                inputs, rating_list=rating_list, period=period, by=by, progress=progress
            )
        finally:
            # A preview writes nothing: players a list took in for it (above) are let go.
            transaction.set_rollback(True)
        return plan, None


def preview_inputs(
    *,
    rating_list: RatingList,
    period: RatingPeriod,
    start: StartRows,
    starts: dict[int, PlayerStart] | None,
) -> PeriodInputs:
    """The inputs ``period_preview`` reads for ``period`` of ``rating_list`` (the live
    figures plan a few players of them again, players.rating.replan); writes nothing."""
    untouched = beside_possible()
    with transaction.atomic():
        return read_inputs(
            rating_list=rating_list, period=period, untouched=untouched, start=start, starts=starts
        )


def check_month_over(period: RatingPeriod, *, early: bool) -> None:
    """Refuse the close of a month that has not ended unless ``early`` says it is meant:
    games may still come in, and undoing a published list takes a reopen and a replay."""
    if not early and not period.month_over():
        raise month_not_over(label=period.label, last_day=period.last_day.isoformat())


def period_close(
    *,
    period: RatingPeriod,
    by: User,
    early: bool = False,
    progress: Progress | None = None,
) -> RatingRun:
    """Close ``period`` (rating officer): publish every player's new rating and K.

    Atomic and idempotent: a second close of a closed period raises ConflictError and
    changes nothing. A month that has not ended is refused (MonthNotOverError) unless
    ``early``.
    """
    rating_list = RatingList.objects.select_related("club").get(pk=period.rating_list_id)
    require_role(by, rating_list.club, Role.OFFICER)
    # Outside any transaction yet: the read may use a second connection (read.py).
    untouched = beside_possible()
    with gc_paused(), transaction.atomic(durable=True):
        locked_list, locked = _lock(rating_list, period)
        if locked.status == RatingPeriod.Status.CLOSED:
            raise ConflictError(
                f"Period {locked.label} is already closed.", fields={"period": ["Already closed."]}
            )
        if locked.status == RatingPeriod.Status.NEEDS_REPLAY:
            raise ConflictError(
                f"Period {locked.label} was reopened: replay the list.",
                fields={"period": ["Needs replay."]},
            )
        _check_order(locked_list, locked)
        check_month_over(locked, early=early)
        started = timezone.now()
        clock = time.perf_counter()
        # Nothing written yet (the locks change no row): ``untouched`` holds.
        inputs = read_inputs(rating_list=locked_list, period=locked, untouched=untouched)
        seconds = {"read": time.perf_counter() - clock}
        clock = time.perf_counter()
        plan = _plan_with_every_player(
            inputs, rating_list=locked_list, period=locked, by=by, progress=progress
        )
        del inputs  # the games can go before the writes start
        seconds["compute"] = time.perf_counter() - clock
        clock = time.perf_counter()
        run = RatingRun.objects.create(
            rating_list=locked_list,
            kind=RatingRun.Kind.CLOSE,
            by_id=by.pk,
            started=started,
            periods=[locked.label],
        )
        write_plan(
            plan,
            period_id=locked.pk,
            list_id=locked_list.pk,
            run_id=run.pk,
            by_id=by.pk,
            system=locked_list.rating_system,
        )
        date_entry_k_changes(period_id=locked.pk, list_id=locked_list.pk, month=locked.month)
        _mark_closed(locked, by)
        seconds["write"] = time.perf_counter() - clock
        summary = close_summary(plan)
        del plan  # before gc_paused ends: see there
        run.finished = timezone.now()
        run.players_changed = summary["players_changed"]
        run.report = close_report(summary)
        # Where a big close spends its time, for whoever watches it grow.
        run.summary = {**summary, "seconds": {k: round(v, 3) for k, v in seconds.items()}}
        run.save()
        period.status = locked.status
        period.closed_by_id = locked.closed_by_id
        period.closed_at = locked.closed_at
        club_published_changed(club_id=locked_list.club_id)
        # One task after the commit (webhooks, members' emails): nothing per member here.
        events_emit(
            club_id=locked_list.club_id,
            events=("period.closed", "list.published"),
            list_id=locked_list.pk,
            period_id=locked.pk,
            run_id=run.pk,
        )
    return run


def _mark_closed(period: RatingPeriod, by: User) -> None:
    period.status = RatingPeriod.Status.CLOSED
    period.closed_by_id = by.pk
    period.closed_at = timezone.now()
    period.save(update_fields=["status", "closed_by", "closed_at"])


def replay_targets(periods: Sequence[RatingPeriod]) -> list[RatingPeriod]:
    """From the first to the last period needing replay, in order; an open period with
    games between them is closed with them (it could not be closed on its own)."""
    flagged = [p for p in periods if p.status == RatingPeriod.Status.NEEDS_REPLAY]
    if not flagged:
        return []
    first, last = flagged[0].month, flagged[-1].month
    return [
        p
        for p in periods
        if first <= p.month <= last
        and (p.status != RatingPeriod.Status.OPEN or getattr(p, "has_games", False))
    ]


def list_replay(
    *,
    rating_list: RatingList,
    by: User,
    progress: Progress | None = None,
    dry_run: bool = False,
) -> RatingRun:
    """Recompute every reopened period of the list in order (rating officer).

    Each period starts from the rows the previous one just wrote; the rows it replaces
    stay with ``current=False``. The run's report lists every player whose published
    rating changed: player, period, old -> new. ``dry_run`` does all of it, then rolls
    back and returns the (unsaved) run with its report.
    """
    rating_list = RatingList.objects.select_related("club").get(pk=rating_list.pk)
    require_role(by, rating_list.club, Role.OFFICER)
    with gc_paused(), transaction.atomic(durable=True):
        locked_list = RatingList.objects.select_for_update(no_key=True).get(pk=rating_list.pk)
        periods = list(
            RatingPeriod.objects.select_for_update(no_key=True)
            .filter(rating_list=locked_list)
            .order_by("month")
        )
        with_games = set(
            Game.objects.filter(rating_list=locked_list)
            .values_list("period_id", flat=True)
            .distinct()
        )
        for p in periods:
            p.has_games = p.pk in with_games  # type: ignore[attr-defined]
        targets = replay_targets(periods)
        if not targets:
            raise ConflictError("Nothing to replay: no period of the list was reopened.")
        started = timezone.now()
        run = RatingRun.objects.create(
            rating_list=locked_list,
            kind=RatingRun.Kind.REPLAY,
            by_id=by.pk,
            started=started,
            periods=[p.label for p in targets],
        )
        report = ReplayReport(
            names={
                player_id: display_name(name, locked_list.name_order)
                for player_id, name in PlayerRating.objects.filter(
                    rating_list=locked_list
                ).values_list("player_id", "player__name")
            }
        )
        # Where a replay spends its time, summed over its periods (as a close records).
        seconds = dict.fromkeys(("retire", "read", "compute", "write", "report"), 0.0)
        undate_entry_k_changes(
            list_id=locked_list.pk, first=targets[0].month, last=targets[-1].month
        )
        for target in targets:
            replayed = _replay_period(target, locked_list, run, by, progress, seconds)
            clock = time.perf_counter()
            report.add(target.label, replayed)
            seconds["report"] += time.perf_counter() - clock
        clock = time.perf_counter()
        update_player_ratings(
            list_id=locked_list.pk,
            period_id=targets[-1].pk,
            stateful=locked_list.rating_system.keeps_state,
        )
        seconds["write"] += time.perf_counter() - clock
        run.finished = timezone.now()
        run.players_changed = len(report.changed_players)
        run.summary = {
            **report.summary(),
            "seconds": {k: round(v, 3) for k, v in seconds.items()},
        }
        run.report = report.text()
        run.save()
        if dry_run:
            transaction.set_rollback(True)
        else:
            club_published_changed(club_id=locked_list.club_id)
            events_emit(
                club_id=locked_list.club_id,
                events=("period.replayed", "list.published"),
                list_id=locked_list.pk,
                period_id=targets[0].pk,
                run_id=run.pk,
            )
    return run


def _replay_period(
    target: RatingPeriod,
    rating_list: RatingList,
    run: RatingRun,
    by: User,
    progress: Progress | None,
    seconds: dict[str, float],
) -> tuple[dict[int, int | None], PeriodPlan]:
    """Recompute one period of a replay: its current rows become history, the plan's rows
    are written in their place. Returns the ratings published before, and the plan; adds
    each step's time to ``seconds``."""
    clock = time.perf_counter()
    old = retire_current(period_id=target.pk)
    seconds["retire"] += time.perf_counter() - clock
    clock = time.perf_counter()
    inputs = read_inputs(rating_list=rating_list, period=target)
    seconds["read"] += time.perf_counter() - clock
    clock = time.perf_counter()
    plan = compute_plan(inputs, progress=progress)
    del inputs
    seconds["compute"] += time.perf_counter() - clock
    clock = time.perf_counter()
    ids = {"period_id": target.pk, "list_id": rating_list.pk, "run_id": run.pk}
    insert_changes(plan, **ids, system=rating_list.rating_system)
    insert_k_changes(plan, **ids, by_id=by.pk)
    date_entry_k_changes(period_id=target.pk, list_id=rating_list.pk, month=target.month)
    _mark_closed(target, by)
    seconds["write"] += time.perf_counter() - clock
    return old, plan
