"""The close's write step: a plan's rows through the one bulk path (``players.bulk``):
COPY on PostgreSQL (the RatingChange rows prebuilt as COPY text), multi-row INSERTs
elsewhere; then every PlayerRating in one UPDATE ... FROM."""

from __future__ import annotations

import datetime
import json
import math
from collections.abc import Iterable, Iterator
from decimal import Decimal
from fractions import Fraction
from operator import attrgetter
from typing import Any

from django.db import connection
from django.db.models import Q
from django.utils import timezone

from players.bulk import copy_text, insert_rows
from players.models import (
    KFactorChange,
    PlayerRating,
    RatingChange,
    RatingRun,
    add_months,
    month_start,
)
from players.rating.period import PeriodPlan
from players.rating.systems import RatingSystem
from players.rating.systems.explain import State
from players.rating.types import KFactor, Number

# The RatingChange fields the close writes, in the order of the rows below.
CHANGE_FIELDS = (
    "period",
    "player",
    "rating_list",
    "run",
    "rating_before",
    "rating_after",
    "change",
    "adjustment",
    "change_unrounded",
    "k_factor",
    "k_reason",
    "games",
    "score",
    "expected",
    "event",
    "current",
    "rated_games_after",
    "reached_2400_after",
    "pool_after",
    "k_next",
    "k_next_reason",
    "last_active_month",
)
# What a plan of a system that keeps a state (RatingSystem.state_fields) writes besides;
# the other systems' rows leave these columns to their default (null).
STATE_FIELDS = ("state_before", "state_after")
K_CHANGE_FIELDS = (
    "player",
    "rating_list",
    "effective_month",
    "old_k",
    "new_k",
    "new_reason",
    "reason",
    "note",
    "run",
    "source_period",
    "current",
    "created_by",
    "created_at",
)


def _columns(model: Any, fields: Iterable[str]) -> list[str]:
    return [model._meta.get_field(name).column for name in fields]


def decimal(value: Number | None) -> Decimal | None:
    """Four decimal places for the database. Table figures are exact hundredths, which a
    float carries exactly to far more than four places; formula figures are floats."""
    if value is None:
        return None
    if isinstance(value, Fraction) and value.denominator == 1:
        return Decimal(value.numerator)
    return Decimal(f"{float(value):.4f}")


def _numeric_text(value: Number | None) -> str:
    """``decimal`` as COPY text: the very string psycopg sends for that Decimal."""
    if value is None:
        return "\\N"
    if isinstance(value, Fraction):
        numerator, denominator = value.numerator, value.denominator
        if denominator == 1:
            return str(numerator)
        # What float(Fraction) does, without the numbers.Rational detour.
        return f"{numerator / denominator:.4f}"
    return f"{float(value):.4f}"


def _int_text(value: int | None) -> str:
    return "\\N" if value is None else str(value)


def _change_rows(
    plan: PeriodPlan, period_id: int, list_id: int, run_id: int
) -> Iterator[tuple[Any, ...]]:
    for c in plan.changes:
        yield (
            period_id,
            c.player_id,
            list_id,
            run_id,
            c.rating_before,
            c.rating_after,
            c.change,
            c.adjustment,
            decimal(c.change_unrounded),
            c.k_factor,
            c.k_reason,
            c.games,
            decimal(c.score),
            decimal(c.expected),
            c.event.value,
            True,
            c.rated_games_after,
            c.reached_2400_after,
            c.pool_after,
            None if c.k_next is None else c.k_next.value,
            "" if c.k_next is None else c.k_next.reason.value,
            c.last_active_month,
        )


# What _change_lines reads of each PlannedChange, by name (one C call a row; unpacking the
# record by position would tie the line to the record's field order).
_LINE_FIELDS = attrgetter(
    *("player_id", "rating_before", "rating_after", "change", "change_unrounded"),
    *("k_factor", "k_reason", "games", "score", "expected", "event", "rated_games_after"),
    *("reached_2400_after", "pool_after", "k_next", "last_active_month", "adjustment"),
)


def _change_lines(plan: PeriodPlan, period_id: int, list_id: int, run_id: int) -> Iterator[str]:
    """The rows of ``_change_rows`` in COPY's text format, one f-string each (200,000 rows
    of a federation-sized close: per-field helper calls were half the write's Python time).

    Only integers, dates, booleans, choice values (plain words) and JSON reach here; JSON
    from json.dumps holds no tab or newline (escaped), only backslashes, which COPY needs
    doubled.
    """
    null = "\\N"
    head = f"{period_id}\t"
    ids = f"\t{list_id}\t{run_id}\t"
    dates: dict[datetime.date | None, str] = {None: null}
    # A plan shares its Fractions (one object per distinct value, elo_arrays) and its K
    # factors: each becomes text once, found again by the object's id. The dictionary
    # keeps every object it names, so an id is never reused while it is in use.
    texts: dict[int, tuple[object, str]] = {}
    k_texts: dict[int, tuple[object, str]] = {}

    def numeric(value: Number | None) -> str:
        known = texts.get(id(value))
        if known is None:
            known = texts[id(value)] = (value, _numeric_text(value))
        return known[1]

    def k_text(k_next: KFactor | None) -> str:
        known = k_texts.get(id(k_next))
        if known is None:
            text = "\\N\t" if k_next is None else f"{k_next.value}\t{k_next.reason.value}"
            known = k_texts[id(k_next)] = (k_next, text)
        return known[1]

    for (
        player_id,
        before,
        after,
        change,
        unrounded,
        k_factor,
        k_reason,
        games,
        score,
        expected,
        event,
        games_after,
        reached,
        pool,
        k_next,
        last_active,
        adjustment,
    ) in map(_LINE_FIELDS, plan.changes):
        active = dates.get(last_active)
        if active is None:
            active = dates[last_active] = last_active.isoformat()
        yield (
            f"{head}{player_id}{ids}{null if before is None else before}\t"
            f"{null if after is None else after}\t{null if change is None else change}\t"
            f"{adjustment}\t{numeric(unrounded)}\t{null if k_factor is None else k_factor}\t"
            f"{k_reason}\t{games}\t{numeric(score)}\t{numeric(expected)}\t{event}\tt\t"
            f"{games_after}\t{'t' if reached else 'f'}\t"
            f"{json.dumps(pool).replace(chr(92), chr(92) * 2) if pool else '[]'}\t"
            f"{k_text(k_next)}\t{active}\n"
        )


def _json_template(system: RatingSystem) -> str:
    """A state as JSON in COPY text, by the system's declared names: a %-template filled
    with each value's repr (json.dumps per row was most of a state's cost on a big close;
    a float's repr is its JSON)."""
    return "{" + ", ".join(f'"{name}": %r' for name in system.state_names) + "}"


def _state_text(state: State | None, template: str, names: tuple[str, ...]) -> str:
    if state is None:
        return "\\N"
    values = tuple(state.get(name) for name in names)
    if all(type(value) is float and math.isfinite(value) for value in values):
        return template % values
    return json.dumps(dict(state)).replace(chr(92), chr(92) * 2)


def _state_lines(lines: Iterator[str], plan: PeriodPlan, system: RatingSystem) -> Iterator[str]:
    """Each line of ``_change_lines`` with the state before and after (STATE_FIELDS)."""
    template, names = _json_template(system), system.state_names
    values_of = system.state_values
    if values_of is not None:
        # The system hands over the declared figures in order (Glicko-2: RD, volatility),
        # without a dict per state: a federation's close writes 400,000 of them.
        for line, change in zip(lines, plan.changes, strict=True):
            figures_before, figures_after = values_of(change)
            yield (
                f"{line[:-1]}\t{_values_text(figures_before, template, names)}"
                f"\t{_values_text(figures_after, template, names)}\n"
            )
        return
    states_of = system.states_of
    for line, change in zip(lines, plan.changes, strict=True):
        before, after = states_of(change)
        before_text = _state_text(before, template, names)
        yield f"{line[:-1]}\t{before_text}\t{_state_text(after, template, names)}\n"


def _values_text(
    values: tuple[float | None, ...] | None, template: str, names: tuple[str, ...]
) -> str:
    """``_state_text`` of the state whose declared figures are ``values``."""
    if values is None:
        return "\\N"
    for value in values:
        if type(value) is not float or not math.isfinite(value):
            return json.dumps(dict(zip(names, values, strict=True))).replace(chr(92), chr(92) * 2)
    return template % values


def _state_rows(
    rows: Iterator[tuple[Any, ...]], plan: PeriodPlan, system: RatingSystem
) -> Iterator[tuple[Any, ...]]:
    for row, change in zip(rows, plan.changes, strict=True):
        yield (*row, *system.states_of(change))


def insert_changes(
    plan: PeriodPlan, *, period_id: int, list_id: int, run_id: int, system: RatingSystem
) -> None:
    stateful = system.keeps_state
    fields = (*CHANGE_FIELDS, *STATE_FIELDS) if stateful else CHANGE_FIELDS
    if connection.vendor == "postgresql":
        lines = _change_lines(plan, period_id, list_id, run_id)
        if stateful:
            lines = _state_lines(lines, plan, system)
        copy_text(RatingChange, _columns(RatingChange, fields), lines)
    else:
        rows = _change_rows(plan, period_id, list_id, run_id)
        if stateful:
            rows = _state_rows(rows, plan, system)
        insert_rows(RatingChange, fields, rows)


def insert_k_changes(
    plan: PeriodPlan, *, period_id: int, list_id: int, run_id: int, by_id: int | None
) -> None:
    if not plan.k_changes:
        return
    effective: datetime.date = plan.next_month
    now = timezone.now()
    if connection.vendor == "postgresql":
        # COPY text too: a month where many players turn 19 or reach 30 games has tens of
        # thousands of K changes.
        middle = f"\t{list_id}\t{effective.isoformat()}\t"
        tail = f"\t\t{run_id}\t{period_id}\tt\t{_int_text(by_id)}\t{now.isoformat()}\n"
        copy_text(
            KFactorChange,
            _columns(KFactorChange, K_CHANGE_FIELDS),
            (
                f"{k.player_id}{middle}{_int_text(k.old.value if k.old is not None else None)}"
                f"\t{k.new.value}\t{k.new.reason.value}\t{k.reason.value}{tail}"
                for k in plan.k_changes
            ),
        )
        return
    insert_rows(
        KFactorChange,
        K_CHANGE_FIELDS,
        (
            (
                k.player_id,
                list_id,
                effective,
                k.old.value if k.old is not None else None,
                k.new.value,
                k.new.reason.value,
                k.reason.value,
                "",
                run_id,
                period_id,
                True,
                by_id,
                now,
            )
            for k in plan.k_changes
        ),
    )


def update_player_ratings(*, list_id: int, period_id: int, stateful: bool = False) -> int:
    """Copy each player's state after the period onto PlayerRating in one statement
    (``stateful``: the list's system keeps a state beside the rating, copied too)."""
    target = PlayerRating._meta.db_table
    source = RatingChange._meta.db_table
    state = "state = rc.state_after, " if stateful else ""
    sql = (
        f"UPDATE {target} SET rating = rc.rating_after, rated_games = rc.rated_games_after, "  # noqa: S608
        f"{state}"
        "reached_2400 = rc.reached_2400_after, pool = rc.pool_after, k_factor = rc.k_next, "
        f"k_reason = rc.k_next_reason, updated = %s FROM {source} AS rc "
        f"WHERE rc.period_id = %s AND rc.current = %s AND rc.player_id = {target}.player_id "
        f"AND {target}.rating_list_id = %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [timezone.now(), period_id, True, list_id])
        return int(cursor.rowcount)


def _update_returning() -> bool:
    # SQLite has UPDATE ... RETURNING from 3.35, the same release as INSERT ... RETURNING.
    return connection.vendor == "postgresql" or (
        connection.vendor == "sqlite" and connection.features.can_return_columns_from_insert
    )


def retire_current(*, period_id: int) -> dict[int, int | None]:
    """A replay's first step for one period: its current rows (and the K changes it
    caused) become history -> each player's rating as published before. One UPDATE ...
    RETURNING marks and reads the rows in a single pass where the database can (PostgreSQL,
    SQLite 3.35+); reading them first, then updating, walked the period's rows twice."""
    table = connection.ops.quote_name(RatingChange._meta.db_table)
    KFactorChange.objects.filter(source_period_id=period_id, current=True).update(current=False)
    if not _update_returning():
        current = RatingChange.objects.filter(period_id=period_id, current=True)
        old = dict(current.values_list("player_id", "rating_after"))
        current.update(current=False)
        return old
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET current = %s WHERE period_id = %s AND current = %s "  # noqa: S608
            "RETURNING player_id, rating_after",
            [False, period_id, True],
        )
        return dict(cursor.fetchall())


def date_entry_k_changes(*, period_id: int, list_id: int, month: datetime.date) -> int:
    """Move the K rows entered when players joined (no old K, no close, no run) back to
    ``month`` for the players whose K this period's close applied first: those with games
    in it, or whose K it changed. A player is entered with the list's next month, but
    their first games may count in an earlier open period; the row then read as if that
    K came after the close's own change (docs/tasks/rating-officers-month.md, the K history)."""
    rated_here = RatingChange.objects.filter(period_id=period_id, current=True, games__gt=0)
    changed_here = KFactorChange.objects.filter(source_period_id=period_id, current=True)
    return (
        KFactorChange.objects.filter(
            rating_list_id=list_id,
            old_k__isnull=True,
            source_period__isnull=True,
            run__isnull=True,
            current=True,
            effective_month__gt=month,
        )
        .filter(
            Q(player_id__in=rated_here.values("player_id"))
            | Q(player_id__in=changed_here.values("player_id"))
        )
        .update(effective_month=month)
    )


def undate_entry_k_changes(*, list_id: int, first: datetime.date, last: datetime.date) -> int:
    """Before a replay of the months ``first`` to ``last``: the K rows entered when players
    joined that the earlier closes of those months moved back (``date_entry_k_changes``)
    go back to the month they were entered with (the list's next period then:
    ``next_period_month``, rebuilt from the list's runs started before the row was
    written), so each replayed close moves them again by what it now rates, as a fresh
    close would. A handful of rows: the players who joined before those closes."""
    rows = KFactorChange.objects.filter(
        rating_list_id=list_id,
        old_k__isnull=True,
        source_period__isnull=True,
        run__isnull=True,
        current=True,
        effective_month__gte=first,
        effective_month__lte=last,
    ).only("id", "created_at", "effective_month")
    runs = list(RatingRun.objects.filter(rating_list_id=list_id).values_list("started", "periods"))
    moved = 0
    for row in rows:
        before = [
            month for started, periods in runs if started <= row.created_at for month in periods
        ]
        entered = (
            add_months(datetime.date.fromisoformat(f"{max(before)}-01"), 1)
            if before
            else month_start(timezone.localdate(row.created_at))
        )
        if entered != row.effective_month:
            row.effective_month = entered
            row.save(update_fields=["effective_month"])
            moved += 1
    return moved


def write_plan(
    plan: PeriodPlan,
    *,
    period_id: int,
    list_id: int,
    run_id: int,
    by_id: int | None,
    system: RatingSystem,
) -> None:
    insert_changes(plan, period_id=period_id, list_id=list_id, run_id=run_id, system=system)
    insert_k_changes(plan, period_id=period_id, list_id=list_id, run_id=run_id, by_id=by_id)
    update_player_ratings(list_id=list_id, period_id=period_id, stateful=system.keeps_state)
