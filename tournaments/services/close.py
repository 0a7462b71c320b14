"""Period close, preview and replay: the only code that writes ratings.

Order of a close (all inside one ``transaction.atomic(durable=True)``):

1. lock the RatingList row, then the RatingPeriod row (``select_for_update(no_key=True)``,
   always in this order, so two closes of one list queue up and a game write waits);
2. refuse a closed period (ConflictError: already closed), a reopened one (replay it), an
   earlier period of the list that has games and is not closed, or a later closed one;
3. read, in a fixed number of queries: the players on the list, their state at the start
   of the period (the previous closed period's RatingChange rows, else the rating the
   club entered), the period's games, its tournaments' start months and, for tournaments
   that started in an earlier month, the list published before that month;
4. compute the plan in memory with the rules engine (``compute_plan``: pure, no queries);
5. write: the RatingRun, RatingChange rows (COPY on PostgreSQL, bulk_create elsewhere),
   KFactorChange rows, one UPDATE ... FROM for every PlayerRating, the period's status.

Preview runs steps 3 and 4 only. Replay runs 3 to 5 for each period to recompute, in
order, each one starting from the rows the previous one just wrote.
"""

from __future__ import annotations

import datetime
import gc
import json
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any, cast

import numpy as np
from django.contrib.postgres.aggregates import ArrayAgg
from django.db import connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

from players import rating as engine
from players.models import (
    RATING_MIN,
    KFactorChange,
    ListKind,
    PlayerRating,
    RatingList,
    Role,
)
from players.rating.bulk import table_period_sums
from players.selectors import User, require_role
from players.services import k_for
from ratings_site.errors import ConflictError
from tournaments.models import (
    RESULT_SCORES,
    Game,
    RatingChange,
    RatingPeriod,
    RatingRun,
    Tournament,
    add_months,
    month_label,
)
from tournaments.selectors import ratings_in_force, with_fixed_start

Progress = Callable[[int], None]
GameColumns = tuple[list[int], list[int], list[str], list[bool], list[int | None]]
Event = RatingChange.Event

# FIDE 8.2: games toward a first rating may be pooled over at most 26 months.
POOL_MONTHS = 26
WRITE_BATCH = 5000
_SCORES = {"1": Fraction(1), "1/2": Fraction(1, 2), "0": Fraction(0)}


# Not frozen: a frozen dataclass sets each field through object.__setattr__, and the
# close builds one of these per player of the list (nothing mutates them).
@dataclass(slots=True)
class PlayerStart:
    """A player's state at the start of a period, as the close reads it."""

    rating: int | None
    rated_games: int
    reached_2400: bool
    pool: list[dict[str, Any]]
    birth_year: int | None
    k_override: int | None
    # None: the player's first period on the list.
    last_active: datetime.date | None = None
    # The officer's override in force for the next period (k_override: this period's).
    k_override_next: int | None = None


@dataclass(slots=True)
class PlannedChange:
    """What the close writes for one player (one RatingChange row)."""

    player_id: int
    rating_before: int | None
    rating_after: int | None
    change: int | None
    change_unrounded: engine.Number | None
    k_factor: int | None
    k_reason: str
    games: int
    score: Fraction
    expected: engine.Number
    event: str
    rated_games_after: int
    reached_2400_after: bool
    pool_after: list[dict[str, Any]]
    k_next: engine.KFactor
    last_active_month: datetime.date | None = None
    # FIDE's one-off adjustment of 1 March 2024, already inside rating_after.
    adjustment: int = 0

    @property
    def changed(self) -> bool:
        return self.rating_after != self.rating_before


@dataclass(frozen=True)
class PlannedKChange:
    player_id: int
    old: engine.KFactor | None
    new: engine.KFactor
    reason: engine.KChangeReason


@dataclass
class ClosePlan:
    """Exactly what closing a period writes; ``period_preview`` returns it unwritten."""

    rating_list_id: int
    period_id: int
    period: str
    next_month: datetime.date
    games_count: int
    changes: list[PlannedChange] = field(default_factory=list)
    k_changes: list[PlannedKChange] = field(default_factory=list)

    @property
    def players_changed(self) -> int:
        return sum(1 for change in self.changes if change.changed)

    @property
    def players_adjusted(self) -> int:
        return sum(1 for change in self.changes if change.adjustment)

    def counts_by_event(self) -> dict[str, int]:
        counts: dict[str, int] = defaultdict(int)
        for change in self.changes:
            counts[change.event] += 1
        return dict(counts)


@dataclass
class CloseInputs:
    """Everything compute_plan needs, read in a fixed number of queries."""

    rating_list: RatingList
    period: RatingPeriod
    starts: dict[int, PlayerStart]
    # player id -> the rating in force at the period's start (tournaments.selectors
    # .ratings_in_force: a fixed starting rating for the unrated, where the list has one)
    start_ratings: dict[int, int | None]
    # One list per column: white, black, result, rated, tournament id or None.
    games: GameColumns
    # tournament id -> (start date, end date)
    tournaments: dict[int, tuple[datetime.date, datetime.date]]
    # start month of a tournament begun before the period -> player id -> rating in force
    ratings_at: dict[datetime.date, dict[int, int | None]]
    # Rapid and blitz: player id -> the standard rating in force at the period's start, for
    # the players unrated on the list who count as rated with it (their K depends on it).
    standard_ratings: dict[int, int] = field(default_factory=dict)


@contextmanager
def _gc_paused() -> Iterator[None]:
    """A federation-sized close allocates millions of small objects that all live until
    it ends; the cyclic garbage collector would walk them again and again for nothing
    (it doubled the close's CPU time at 200,000 players)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# -- reading --------------------------------------------------------------------------------


def _closed_before(
    rating_list: RatingList, month: datetime.date
) -> list[tuple[int, datetime.date]]:
    return list(
        RatingPeriod.objects.filter(
            rating_list=rating_list, month__lt=month, status=RatingPeriod.Status.CLOSED
        )
        .order_by("-month")
        .values_list("id", "month")
    )


def _column_lists(queryset: QuerySet[Any], *fields: str) -> list[list[Any]]:
    """One list per field of the rows of ``queryset``, in a single query.

    On PostgreSQL the rows come as one array per column: decoding a million games as
    arrays takes half the time of a million row tuples. The columns line up because all
    the array_agg of one query advance together on each input row.
    """
    if connection.vendor != "postgresql":
        rows = list(queryset.values_list(*fields))
        return [list(column) for column in zip(*rows, strict=True)] or [[] for _ in fields]
    arrays = queryset.aggregate(**{f"c{i}": ArrayAgg(name) for i, name in enumerate(fields)})
    return [arrays[f"c{i}"] or [] for i in range(len(fields))]


def _columns(queryset: QuerySet[Any], *fields: str) -> list[tuple[Any, ...]]:
    """The rows of ``fields``, in a single query (``_column_lists``, zipped)."""
    return list(zip(*_column_lists(queryset, *fields), strict=True))


def _overrides_in_force(
    rating_list: RatingList, months: tuple[datetime.date, datetime.date]
) -> dict[int, tuple[int | None, int | None]]:
    """Player id -> the officer's K override in force in each of ``months`` (None: the
    rules' K), for every player whose override was ever set or lifted on the list.

    An override applies from its effective month on, until lifted: the latest
    k_override_set row (a KFactorChange of an override run) effective at or before the
    month; MANUAL sets K, any other reason lifts it. One query, over override rows only,
    so a replay of an earlier month does not use an override set after it. Players
    absent here keep PlayerRating.k_override (set without history, e.g. by hand).
    """
    rows = (
        KFactorChange.objects.filter(
            rating_list=rating_list,
            current=True,
            source_period__isnull=True,
            run__kind=RatingRun.Kind.OVERRIDE,
        )
        .order_by("player_id", "effective_month", "id")
        .values_list("player_id", "effective_month", "new_k", "new_reason")
    )
    in_force: dict[int, list[int | None]] = {}
    for player_id, effective, new_k, new_reason in rows:
        values = in_force.setdefault(player_id, [None] * len(months))
        value = new_k if new_reason == engine.KReason.MANUAL else None
        for index, month in enumerate(months):
            if effective <= month:
                values[index] = value
    return {pid: (values[0], values[1]) for pid, values in in_force.items()}


def read_inputs(*, rating_list: RatingList, period: RatingPeriod) -> CloseInputs:
    month = period.month
    closed = _closed_before(rating_list, month)
    previous_id = closed[0][0] if closed else None

    entries = _columns(
        PlayerRating.objects.filter(rating_list=rating_list),
        "player_id",
        "entry_rating",
        "entry_rated_games",
        "entry_reached_2400",
        "k_override",
        "player__birth_year",
        "entry_month",
    )
    previous: dict[int, tuple[Any, ...]] = {}
    pools: dict[int, list[dict[str, Any]]] = {}
    if previous_id is not None:
        after = RatingChange.objects.filter(period_id=previous_id, current=True)
        for state in _columns(
            after,
            "player_id",
            "rating_after",
            "rated_games_after",
            "reached_2400_after",
            "last_active_month",
        ):
            previous[state[0]] = state
        # Only players still collecting games toward a first rating have a pool.
        pools = dict(after.exclude(pool_after=[]).values_list("player_id", "pool_after"))

    next_month = add_months(month, 1)
    overrides = _overrides_in_force(rating_list, (month, next_month))

    games = cast(
        GameColumns,
        tuple(
            _column_lists(
                Game.objects.filter(period=period),
                "white_id",
                "black_id",
                "result",
                "rated",
                "tournament_id",
            )
        ),
    )
    # Only a player whose entry month is still to come needs it (listed early because
    # they play this month): most months have none, and this is two million set adds.
    playing: set[int] = set()
    if any(row[6] is not None and row[6] > month for row in entries):
        playing.update(games[0])
        playing.update(games[1])

    starts: dict[int, PlayerStart] = {}
    for player_id, e_rating, e_games, e_2400, override, birth_year, e_month in entries:
        if not (e_month is None or e_month <= month or player_id in playing):
            continue
        prev = previous.get(player_id)
        override_now, override_next = overrides.get(player_id, (override, override))
        if prev is not None:
            starts[player_id] = PlayerStart(
                prev[1],
                prev[2],
                prev[3],
                pools.get(player_id, []),
                birth_year,
                override_now,
                prev[4],
                override_next,
            )
        else:
            starts[player_id] = PlayerStart(
                e_rating, e_games, e_2400, [], birth_year, override_now, None, override_next
            )

    tournaments = {
        tid: (start, end)
        for tid, start, end in Tournament.objects.filter(
            rating_list=rating_list, end_date__gte=month, end_date__lt=next_month
        ).values_list("id", "start_date", "end_date")
    }
    # A tournament that began in an earlier month is scored with the list in force at its
    # start; every other game with the list in force at the period's start, which the
    # states above already hold.
    early_months = sorted({start.replace(day=1) for start, _ in tournaments.values()} - {month})
    in_force = ratings_in_force(
        lists={rating_list.pk: rating_list},
        months=[(rating_list.pk, month), *((rating_list.pk, m) for m in early_months)],
        known={(rating_list.pk, month): {pid: start.rating for pid, start in starts.items()}},
        fixed_start=False,
    )
    # Before the fixed starting rating is applied, a rating in force for a player unrated
    # on the list can only be their standard rating.
    at_start = in_force[(rating_list.pk, month)]
    standard_ratings = (
        {}
        if rating_list.kind == ListKind.STANDARD
        else {
            pid: rating
            for pid, rating in at_start.items()
            if rating is not None and starts[pid].rating is None
        }
    )
    start_ratings = with_fixed_start(rating_list, at_start)
    ratings_at = {
        m: with_fixed_start(rating_list, in_force[(rating_list.pk, m)]) for m in early_months
    }
    return CloseInputs(
        rating_list,
        period,
        starts,
        start_ratings,
        games,
        tournaments,
        ratings_at,
        standard_ratings,
    )


# -- computing ------------------------------------------------------------------------------


def compute_plan(inputs: CloseInputs, *, progress: Progress | None = None) -> ClosePlan:
    """The period's new ratings, K factors and K changes; pure (no database access).

    Per game: scored with the ratings in force at the start of its tournament; a
    player's own rating for the difference is the one at the tournament's start, or (FIDE
    8.2.4: rated since, but unrated for the opponents) the one at the period's start.
    Rated players: K from the state at the period's start, the engine's period change over
    all their games (700 cap, rounded once), then the floor. Unrated players: their games
    join the pool and the engine decides whether a first rating is due. Then each player's
    K for the next period, and a KFactorChange wherever its value or reason changed.
    """
    rating_list = inputs.rating_list
    period = inputs.period
    month = period.month
    next_month = add_months(month, 1)
    rules = rating_list.rules()
    floor = rating_list.floor
    starts = inputs.starts
    # The ratings in force (ratings_in_force): on a fixed-start list an unrated player
    # already counts at the starting rating, for themselves and for their opponents.
    start_rating = inputs.start_ratings
    views = inputs.ratings_at
    standard_ratings = inputs.standard_ratings

    rated_games: dict[int, list[engine.GameInput]] = defaultdict(list)
    # Rare: games whose own rating for the difference is not the period-start rating.
    other_groups: dict[int, dict[int, list[engine.GameInput]]] = defaultdict(
        lambda: defaultdict(list)
    )
    # Unrated players: event key -> (order key, [[opponent, score, played]]).
    new_events: dict[int, dict[str, tuple[tuple[Any, ...], list[list[Any]]]]] = defaultdict(dict)
    label = period.label
    month_event = (f"m{label}", (month, 1, 0))
    # tournament id -> (the ratings in force at its start, its event key and order)
    tournament_view = {
        tid: (
            start_rating if began.replace(day=1) == month else views[began.replace(day=1)],
            (f"t{tid}", (began, 0, tid)),
        )
        for tid, (began, _) in inputs.tournaments.items()
    }
    # GameInput objects are shared: a month has few distinct (opponent, score, played).
    # One cache per (score, played), keyed by the opponent's rating.
    caches: dict[tuple[str, bool], dict[int | None, engine.GameInput]] = {}
    sides: dict[tuple[str, bool], tuple[Any, ...]] = {}
    for result, (white_score, black_score, played) in RESULT_SCORES.items():
        for rated in (True, False):
            counted = played and rated
            sides[(result, rated)] = (
                white_score,
                black_score,
                counted,
                caches.setdefault((white_score, counted), {}),
                caches.setdefault((black_score, counted), {}),
            )

    def pooled(
        player: int,
        opponent: int | None,
        score: str,
        played: bool,
        event: tuple[str, tuple[Any, ...]],
    ) -> None:
        events = new_events[player]
        key, order = event
        if key not in events:
            events[key] = (order, [])
        events[key][1].append([opponent, score, played])

    def grouped(player: int, own_view: int, opponent: int | None, score: str, played: bool) -> None:
        other_groups[player][own_view].append(engine.GameInput(opponent, _SCORES[score], played))

    def side(
        player: int,
        own: int | None,
        own_view: int | None,
        opponent: int | None,
        score: str,
        played: bool,
        cache: dict[int | None, engine.GameInput],
        event: tuple[str, tuple[Any, ...]],
    ) -> None:
        """One player's side of a game: toward a first rating, with the period-start
        rating, or (rated since the tournament began) in a group of its own."""
        if own is None:
            pooled(player, opponent, score, played, event)
        elif own_view is None or own_view == own:
            item = cache.get(opponent)
            if item is None:
                item = cache[opponent] = engine.GameInput(opponent, _SCORES[score], played)
            rated_games[player].append(item)
        else:
            grouped(player, own_view, opponent, score, played)

    columns = inputs.games
    games_count = len(columns[0])
    rows: Iterable[tuple[int, int, str, bool, int | None]]
    sums: dict[int, engine.PeriodSums] = {}
    if rules.method is engine.ExpectedMethod.FIDE_TABLE and games_count:
        # Most games at once, in arrays; the loop below takes the rest.
        this_month = {tid for tid, (began, _) in inputs.tournaments.items() if began >= month}
        sums, rest = _table_sums(columns, start_rating, this_month, rules)
        rows = (
            (columns[0][i], columns[1][i], columns[2][i], columns[3][i], columns[4][i])
            for i in rest
        )
    else:
        rows = zip(*columns, strict=True)

    # Formula lists, and the games the arrays leave out.
    for white, black, result, rated, tournament_id in rows:
        white_score, black_score, played, white_cache, black_cache = sides[result, rated]
        white_own = start_rating[white]
        black_own = start_rating[black]
        if tournament_id is None:
            # Scored with the period-start ratings, which are each side's own rating too.
            white_view, black_view, event = white_own, black_own, month_event
        else:
            view, event = tournament_view[tournament_id]
            white_view = view.get(white)
            black_view = view.get(black)
        side(white, white_own, white_view, black_view, white_score, played, white_cache, event)
        side(black, black_own, black_view, white_view, black_score, played, black_cache, event)

    plan = ClosePlan(
        rating_list_id=rating_list.pk,
        period_id=period.pk,
        period=label,
        next_month=next_month,
        games_count=games_count,
    )
    oldest_pool_month = month_label(add_months(month, 1 - POOL_MONTHS))
    # The close that publishes the list of 1 March 2024 applies FIDE's one-off adjustment.
    adjusting = rating_list.adjust_march_2024 and next_month == engine.ADJUSTED_LIST
    first_minimum = floor if floor is not None else RATING_MIN
    done = 0
    for player_id in sorted(starts):
        start = starts[player_id]
        state = engine.PlayerState(
            start.rating, start.rated_games, start.birth_year, start.reached_2400
        )
        standard = standard_ratings.get(player_id)
        k = k_for(
            rating_list=rating_list,
            state=state,
            k_override=start.k_override,
            period_year=month.year,
            standard_rating=standard,
        )
        own = start_rating[player_id]
        if own is not None:
            planned = _rated(
                player_id,
                start,
                own,
                k,
                rated_games.get(player_id, ()),
                other_groups.get(player_id),
                rules,
                floor,
                sums.get(player_id),
            )
        else:
            planned = _unrated(
                player_id,
                start,
                new_events.get(player_id),
                label,
                oldest_pool_month,
                first_minimum,
            )
        if adjusting and planned.rating_after is not None:
            planned.adjustment = engine.march_2024_adjustment(planned.rating_after)
            planned.rating_after += planned.adjustment
        after = engine.PlayerState(
            planned.rating_after,
            planned.rated_games_after,
            start.birth_year,
            planned.reached_2400_after,
        )
        # Still unrated here: the standard rating of this period's start is the best the
        # close knows for the next one (whose close reads the one then in force).
        k_next = k_for(
            rating_list=rating_list,
            state=after,
            k_override=start.k_override_next,
            period_year=next_month.year,
            standard_rating=standard,
        )
        planned.k_next = k_next
        planned.last_active_month = (
            month if planned.games or start.last_active is None else start.last_active
        )
        plan.changes.append(planned)
        reason = engine.k_change_reason(
            k,
            k_next,
            still_junior_age=engine.junior_age(start.birth_year, period_year=next_month.year),
        )
        # An override set or lifted from the next month is in the K history already (the
        # officer's own KFactorChange row).
        if reason is not None and start.k_override == start.k_override_next:
            plan.k_changes.append(PlannedKChange(player_id, k, k_next, reason))
        done += 1
        if progress is not None and done % 1000 == 0:
            progress(1000)
    if progress is not None and done % 1000:
        progress(done % 1000)
    return plan


_NO_K = engine.KFactor(0, engine.KReason.STANDARD)
_HALVES = {"1": 2, "1/2": 1, "0": 0}
_RESULT_CODES = {result: code for code, result in enumerate(RESULT_SCORES)}
# By result code: white's and black's score in halves, and whether the game was played.
_WHITE_HALVES = np.array([_HALVES[w] for w, _, _ in RESULT_SCORES.values()], dtype=np.int64)
_BLACK_HALVES = np.array([_HALVES[b] for _, b, _ in RESULT_SCORES.values()], dtype=np.int64)
_PLAYED = np.array([played for _, _, played in RESULT_SCORES.values()], dtype=np.bool_)


def _table_sums(
    columns: GameColumns,
    start_rating: Mapping[int, int | None],
    this_month: set[int],
    rules: engine.RatingRules,
) -> tuple[dict[int, engine.PeriodSums], list[int]]:
    """The period's games between two rated players scored with the period-start ratings
    (no tournament, or one begun this month), added up per player by the rules engine in
    arrays (``table_period_sums``). Returns the sums by player id, and the positions of
    the other games (an unrated side, a tournament begun earlier), left to the loop.
    """
    white_col, black_col, result_col, rated_col, tournament_col = columns
    count = len(white_col)
    ids = sorted(start_rating)
    id_array = np.array(ids, dtype=np.int64)
    own = np.array([-1 if (r := start_rating[pid]) is None else r for pid in ids], dtype=np.int64)

    # Player id -> position in ids: a direct table when the ids are dense enough (ids of
    # one list usually are), else a binary search.
    low, high = (ids[0], ids[-1]) if ids else (0, -1)
    table: np.ndarray[Any, np.dtype[np.intp]] | None = None
    if high - low < 4 * len(ids) + 1_000_000:
        table = np.full(high - low + 1, -1, dtype=np.intp)
        table[id_array - low] = np.arange(len(ids), dtype=np.intp)

    def positions(column: list[int]) -> np.ndarray[Any, np.dtype[np.intp]]:
        values = np.array(column, dtype=np.int64)
        if table is not None:
            inside = (values >= low) & (values <= high)
            found = np.full(len(values), -1, dtype=np.intp)
            found[inside] = table[values[inside] - low]
            missing = found < 0
        else:
            found = np.searchsorted(id_array, values)
            missing = found >= len(ids)
            missing[~missing] = id_array[found[~missing]] != values[~missing]
        if missing.any():
            # As the loop would: a game's player must be on the list.
            raise KeyError(int(values[missing][0]))
        return found

    white, black = positions(white_col), positions(black_col)
    codes = np.fromiter((_RESULT_CODES[r] for r in result_col), dtype=np.intp, count=count)
    white_own, black_own = own[white], own[black]
    simple = (white_own >= 0) & (black_own >= 0)
    if any(t is not None for t in tournament_col):
        simple &= np.fromiter(
            (t is None or t in this_month for t in tournament_col), dtype=np.bool_, count=count
        )
    chosen = np.flatnonzero(simple)
    codes = codes[chosen]
    counted = _PLAYED[codes] & np.array(rated_col, dtype=np.bool_)[chosen]
    totals = table_period_sums(
        player=np.concatenate((white[chosen], black[chosen])),
        own=np.concatenate((white_own[chosen], black_own[chosen])),
        opponent=np.concatenate((black_own[chosen], white_own[chosen])),
        score_halves=np.concatenate((_WHITE_HALVES[codes], _BLACK_HALVES[codes])),
        played=np.concatenate((counted, counted)),
        players=len(ids),
        rules=rules,
    )
    sums = {
        pid: engine.PeriodSums(games, halves, expected)
        for pid, games, halves, expected in zip(
            ids,
            totals.games.tolist(),
            totals.score_halves.tolist(),
            totals.expected_hundredths.tolist(),
            strict=True,
        )
        if games
    }
    return sums, np.flatnonzero(~simple).tolist()


def _rated(
    player_id: int,
    start: PlayerStart,
    own: int,
    k: engine.KFactor,
    games: Sequence[engine.GameInput],
    others: Mapping[int, list[engine.GameInput]] | None,
    rules: engine.RatingRules,
    floor: int | None,
    sums: engine.PeriodSums | None = None,
) -> PlannedChange:
    """``sums``: the player's games already added up in arrays (``_table_sums``), all
    scored with ``own``; ``games`` and ``others`` hold the rest."""
    if not others:
        result = engine.period_change(
            rating=own, games=games, k=k.value, rules=rules, keep_lines=False, start=sums
        )
        count, k_used = result.games_count, result.k
        score, expected = result.score, result.expected
        unrounded: engine.Number = result.change_unrounded
        change = result.change
    else:
        # A tournament begun before a list on which this player's rating changed: its
        # games use the older own rating. The engine computes each group; the 700 cap
        # and the single rounding still apply to the whole period.
        groups = [(own, list(games), sums), *((r, g, None) for r, g in others.items())]
        first = [
            engine.period_change(
                rating=r, games=g, k=k.value, rules=rules, keep_lines=False, start=base
            )
            for r, g, base in groups
        ]
        count = sum(part.games_count for part in first)
        k_used = engine.cap_k(k.value, count)
        parts = [
            engine.period_change(
                rating=r, games=g, k=k_used, rules=rules, keep_lines=False, start=base
            )
            for r, g, base in groups
        ]
        score = sum((part.score for part in parts), Fraction(0))
        expected = sum(part.expected for part in parts)
        unrounded = sum(part.change_unrounded for part in parts)
        change = engine.round_half_away(unrounded)
    if count == 0:
        return PlannedChange(
            player_id,
            start.rating,
            start.rating,
            0 if start.rating is not None else None,
            0 if start.rating is not None else None,
            k.value,
            k.reason,
            0,
            Fraction(0),
            0,
            Event.NO_RATED_GAMES,
            start.rated_games,
            start.reached_2400,
            start.pool,
            _NO_K,
        )
    new_rating = engine.apply_floor(own + change, floor)
    if start.rating is None:
        event = Event.FIRST_RATING if new_rating is not None else Event.BELOW_FLOOR
    else:
        event = Event.RATED if new_rating is not None else Event.BELOW_FLOOR
    return PlannedChange(
        player_id,
        start.rating,
        new_rating,
        change,
        unrounded,
        k_used,
        k.reason,
        count,
        score,
        expected,
        event,
        start.rated_games + count,
        start.reached_2400 or (new_rating is not None and new_rating >= 2400),
        [],
        _NO_K,
    )


def _pool_game_order(game: list[Any]) -> tuple[Any, ...]:
    opponent, score, played = game
    return (opponent is None, opponent or 0, score, played)


def _unrated(
    player_id: int,
    start: PlayerStart,
    events: Mapping[str, tuple[tuple[Any, ...], list[list[Any]]]] | None,
    label: str,
    oldest_pool_month: str,
    minimum: int,
) -> PlannedChange:
    if not events:
        return PlannedChange(
            player_id,
            None,
            None,
            None,
            None,
            None,
            "",
            0,
            Fraction(0),
            0,
            Event.NO_RATED_GAMES,
            start.rated_games,
            start.reached_2400,
            start.pool,
            _NO_K,
        )
    pool = [event for event in start.pool if event["month"] >= oldest_pool_month]
    for key, (_, games) in sorted(events.items(), key=lambda item: item[1][0]):
        # The database returns a period's games in no fixed order (an edited game moves);
        # sorting keeps the stored pool identical however the games were entered.
        games.sort(key=_pool_game_order)
        pool.append({"event": key, "month": label, "games": games})
    first = engine.first_rating(
        [
            [engine.GameInput(opp, _SCORES[score], played) for opp, score, played in event["games"]]
            for event in pool
        ],
        minimum=minimum,
    )
    this_period = [
        (opp, _SCORES[score])
        for _, games in events.values()
        for opp, score, played in games
        if played and opp is not None
    ]
    if first.rating is not None:
        return PlannedChange(
            player_id,
            None,
            first.rating,
            None,
            None,
            None,
            "",
            first.games_counted,
            first.score,
            0,
            Event.FIRST_RATING,
            start.rated_games + first.games_counted,
            start.reached_2400 or first.rating >= 2400,
            [],
            _NO_K,
        )
    return PlannedChange(
        player_id,
        None,
        None,
        None,
        None,
        None,
        "",
        len(this_period),
        sum((score for _, score in this_period), Fraction(0)),
        0,
        Event.NOT_YET_RATED,
        start.rated_games,
        start.reached_2400,
        pool,
        _NO_K,
    )


# -- writing --------------------------------------------------------------------------------


def _decimal(value: engine.Number | None) -> Decimal | None:
    """Four decimal places for the database. Table figures are exact hundredths, which a
    float carries exactly to far more than four places; formula figures are floats."""
    if value is None:
        return None
    if isinstance(value, Fraction) and value.denominator == 1:
        return Decimal(value.numerator)
    return Decimal(f"{float(value):.4f}")


_CHANGE_COLUMNS = (
    "period_id",
    "player_id",
    "rating_list_id",
    "run_id",
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


def _change_rows(plan: ClosePlan, run: RatingRun) -> Iterable[tuple[Any, ...]]:
    for c in plan.changes:
        yield (
            plan.period_id,
            c.player_id,
            plan.rating_list_id,
            run.pk,
            c.rating_before,
            c.rating_after,
            c.change,
            c.adjustment,
            _decimal(c.change_unrounded),
            c.k_factor,
            c.k_reason,
            c.games,
            _decimal(c.score),
            _decimal(c.expected),
            c.event,
            True,
            c.rated_games_after,
            c.reached_2400_after,
            c.pool_after,
            c.k_next.value,
            c.k_next.reason.value,
            c.last_active_month,
        )


def _numeric_text(value: engine.Number | None) -> str:
    """``_decimal`` as COPY text: the very string psycopg sends for that Decimal."""
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


def _change_lines(plan: ClosePlan, run: RatingRun) -> Iterator[str]:
    """RatingChange rows in COPY's text format, built as strings: handing psycopg tuples
    of Decimals and JSON made its per-value dumping most of the write.

    Only integers, dates, booleans, choice values (plain words) and JSON reach here; JSON
    from json.dumps holds no tab or newline (escaped), only backslashes, which COPY needs
    doubled.
    """
    head = f"{plan.period_id}\t{{}}\t{plan.rating_list_id}\t{run.pk}\t"
    for c in plan.changes:
        pool = c.pool_after
        pool_text = json.dumps(pool).replace("\\", "\\\\") if pool else "[]"
        last_active = c.last_active_month
        yield (
            "\t".join(
                (
                    head.format(c.player_id) + _int_text(c.rating_before),
                    _int_text(c.rating_after),
                    _int_text(c.change),
                    str(c.adjustment),
                    _numeric_text(c.change_unrounded),
                    _int_text(c.k_factor),
                    str(c.k_reason),
                    str(c.games),
                    _numeric_text(c.score),
                    _numeric_text(c.expected),
                    str(c.event),
                    "t",
                    str(c.rated_games_after),
                    "t" if c.reached_2400_after else "f",
                    pool_text,
                    str(c.k_next.value),
                    str(c.k_next.reason.value),
                    "\\N" if last_active is None else last_active.isoformat(),
                )
            )
            + "\n"
        )


def _copy(table: str, columns: Sequence[str], lines: Iterable[str]) -> None:
    """COPY ``lines`` (text format, one row each) into ``table``, in large writes."""
    # The raw cursor bypasses Django's error translation; wrap it so that a constraint
    # violation is an IntegrityError like everywhere else.
    with (
        connection.wrap_database_errors,
        connection.cursor() as cursor,
        cursor.cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy,
    ):
        chunk: list[str] = []
        for line in lines:
            chunk.append(line)
            if len(chunk) >= WRITE_BATCH:
                copy.write("".join(chunk))
                chunk = []
        if chunk:
            copy.write("".join(chunk))


def _insert_changes(plan: ClosePlan, run: RatingRun) -> None:
    if connection.vendor == "postgresql":
        # COPY: a federation-sized month is 200,000 rows; bulk_create would spend most of
        # the close building model instances and SQL text.
        _copy(RatingChange._meta.db_table, _CHANGE_COLUMNS, _change_lines(plan, run))
        return
    batch: list[RatingChange] = []
    for row in _change_rows(plan, run):
        batch.append(RatingChange(**dict(zip(_CHANGE_COLUMNS, row, strict=True))))
        if len(batch) >= WRITE_BATCH:
            RatingChange.objects.bulk_create(batch)
            batch = []
    if batch:
        RatingChange.objects.bulk_create(batch)


_K_CHANGE_COLUMNS = (
    "player_id",
    "rating_list_id",
    "effective_month",
    "old_k",
    "new_k",
    "new_reason",
    "reason",
    "note",
    "run_id",
    "source_period_id",
    "current",
    "created_by_id",
    "created_at",
)


def _insert_k_changes(plan: ClosePlan, run: RatingRun, by: User | None) -> None:
    if not plan.k_changes:
        return
    if connection.vendor == "postgresql":
        # COPY too: a month where many players turn 19 or reach 30 games has tens of
        # thousands of K changes, and bulk_create builds a model instance for each.
        middle = f"\t{plan.rating_list_id}\t{plan.next_month.isoformat()}\t"
        tail = (
            f"\t\t{run.pk}\t{plan.period_id}\tt\t"
            f"{_int_text(by.pk if by is not None else None)}\t{timezone.now().isoformat()}\n"
        )
        _copy(
            KFactorChange._meta.db_table,
            _K_CHANGE_COLUMNS,
            (
                f"{k.player_id}{middle}{_int_text(k.old.value if k.old is not None else None)}"
                f"\t{k.new.value}\t{k.new.reason.value}\t{k.reason.value}{tail}"
                for k in plan.k_changes
            ),
        )
        return
    rows = (
        KFactorChange(
            player_id=k.player_id,
            rating_list_id=plan.rating_list_id,
            effective_month=plan.next_month,
            old_k=k.old.value if k.old is not None else None,
            new_k=k.new.value,
            new_reason=k.new.reason.value,
            reason=k.reason.value,
            run=run,
            source_period_id=plan.period_id,
            created_by_id=by.pk if by is not None else None,
        )
        for k in plan.k_changes
    )
    KFactorChange.objects.bulk_create(rows, batch_size=WRITE_BATCH)


def update_player_ratings(*, rating_list: RatingList, period: RatingPeriod) -> int:
    """Copy each player's state after ``period`` onto PlayerRating in one statement."""
    target = PlayerRating._meta.db_table
    source = RatingChange._meta.db_table
    sql = (
        f"UPDATE {target} SET rating = rc.rating_after, rated_games = rc.rated_games_after, "  # noqa: S608
        "reached_2400 = rc.reached_2400_after, pool = rc.pool_after, k_factor = rc.k_next, "
        f"k_reason = rc.k_next_reason, updated = %s FROM {source} AS rc "
        f"WHERE rc.period_id = %s AND rc.current = %s AND rc.player_id = {target}.player_id "
        f"AND {target}.rating_list_id = %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [timezone.now(), period.pk, True, rating_list.pk])
        return int(cursor.rowcount)


def write_plan(
    plan: ClosePlan,
    *,
    rating_list: RatingList,
    period: RatingPeriod,
    run: RatingRun,
    by: User | None,
) -> None:
    _insert_changes(plan, run)
    _insert_k_changes(plan, run, by)
    update_player_ratings(rating_list=rating_list, period=period)


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
    *, period: RatingPeriod, by: User | None = None, progress: Progress | None = None
) -> ClosePlan:
    """What closing ``period`` would write, computed from the same reads; writes nothing."""
    rating_list = RatingList.objects.select_related("club").get(pk=period.rating_list_id)
    if by is not None:
        require_role(by, rating_list.club, Role.VIEWER)
    with transaction.atomic(), _gc_paused():
        return compute_plan(read_inputs(rating_list=rating_list, period=period), progress=progress)


def period_close(*, period: RatingPeriod, by: User, progress: Progress | None = None) -> RatingRun:
    """Close ``period`` (rating officer): publish every player's new rating and K.

    Atomic and idempotent: a second close of a closed period raises ConflictError and
    changes nothing.
    """
    rating_list = RatingList.objects.select_related("club").get(pk=period.rating_list_id)
    require_role(by, rating_list.club, Role.OFFICER)
    with transaction.atomic(durable=True), _gc_paused():
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
        started = timezone.now()
        clock = time.perf_counter()
        inputs = read_inputs(rating_list=locked_list, period=locked)
        seconds = {"read": time.perf_counter() - clock}
        clock = time.perf_counter()
        plan = compute_plan(inputs, progress=progress)
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
        write_plan(plan, rating_list=locked_list, period=locked, run=run, by=by)
        _mark_closed(locked, by)
        seconds["write"] = time.perf_counter() - clock
        run.finished = timezone.now()
        run.players_changed = plan.players_changed
        # Where a big close spends its time, for whoever watches it grow.
        run.summary = {**_summary(plan), "seconds": {k: round(v, 3) for k, v in seconds.items()}}
        run.report = _close_report(plan)
        run.save()
        period.status = locked.status
        period.closed_by_id = locked.closed_by_id
        period.closed_at = locked.closed_at
    return run


def _mark_closed(period: RatingPeriod, by: User) -> None:
    period.status = RatingPeriod.Status.CLOSED
    period.closed_by_id = by.pk
    period.closed_at = timezone.now()
    period.save(update_fields=["status", "closed_by", "closed_at"])


def _summary(plan: ClosePlan) -> dict[str, Any]:
    return {
        "period": plan.period,
        "games": plan.games_count,
        "players": len(plan.changes),
        "players_changed": plan.players_changed,
        "events": plan.counts_by_event(),
        "k_changes": len(plan.k_changes),
        "adjusted": plan.players_adjusted,
    }


def _close_report(plan: ClosePlan) -> str:
    events = ", ".join(
        f"{count} {event}" for event, count in sorted(plan.counts_by_event().items())
    )
    adjusted = (
        f" FIDE's adjustment of 1 March 2024 raised {plan.players_adjusted} ratings below 2000."
        if plan.players_adjusted
        else ""
    )
    return (
        f"Closed {plan.period}: {plan.games_count} games, {len(plan.changes)} players "
        f"({events}); {plan.players_changed} ratings changed; {len(plan.k_changes)} K changes."
        f"{adjusted}"
    )


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
    with transaction.atomic(durable=True), _gc_paused():
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
        names = dict(
            PlayerRating.objects.filter(rating_list=locked_list).values_list(
                "player_id", "player__name"
            )
        )
        lines: list[str] = []
        changed_players: set[int] = set()
        per_period: dict[str, int] = {}
        for target in targets:
            old: dict[int, Any] = dict(
                RatingChange.objects.filter(period=target, current=True).values_list(
                    "player_id", "rating_after"
                )
            )
            RatingChange.objects.filter(period=target, current=True).update(current=False)
            KFactorChange.objects.filter(source_period=target, current=True).update(current=False)
            plan = compute_plan(
                read_inputs(rating_list=locked_list, period=target), progress=progress
            )
            _insert_changes(plan, run)
            _insert_k_changes(plan, run, by)
            _mark_closed(target, by)
            count = 0
            for change in plan.changes:
                before = old.get(change.player_id, "absent")
                if before != change.rating_after:
                    count += 1
                    changed_players.add(change.player_id)
                    lines.append(
                        f"{names.get(change.player_id, change.player_id)} {target.label}: "
                        f"{_shown(before)} -> {_shown(change.rating_after)}"
                    )
            per_period[target.label] = count
        update_player_ratings(rating_list=locked_list, period=targets[-1])
        run.finished = timezone.now()
        run.players_changed = len(changed_players)
        run.summary = {"periods": per_period, "players_changed": len(changed_players)}
        head = (
            f"Replayed {', '.join(p.label for p in targets)}: "
            f"{len(changed_players)} players' published ratings changed."
        )
        run.report = "\n".join([head, *lines])
        run.save()
        if dry_run:
            transaction.set_rollback(True)
    return run


def _shown(rating: object) -> str:
    if rating == "absent":
        return "(not listed)"
    return "unrated" if rating is None else str(rating)
