"""The Elo family: FIDE's Rating Regulations, and a club's plain Elo list (formula, fixed
K, no floor), as one rating system over the list's rules.

``plan_period`` turns a period's inputs into its plan: per game, the ratings in force at
the start of its tournament (FIDE 8.2.4); per rated player, K from the state at the
period's start, the engine's period change over all their games (the 700 rule, one
rounding), then the floor; per unrated player, their games join the pool toward a first
rating (FIDE 8.2). Then each player's K for the next period, and a K change wherever its
value or reason changed.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from players.rating.adjustment import (
    ADJUSTED_LIST,
    RAISED_TO_STANDARD_LIST,
    march_2024_adjustment,
    october_2022_adjustment,
)
from players.rating.change import period_change
from players.rating.classes import apply_floor
from players.rating.fide_rules import BY_DATE
from players.rating.k_factor import (
    JUNIOR_MAX_AGE,
    cap_k,
    has_reached_2400,
    junior_age,
    k_change_reason,
    list_k,
)
from players.rating.months import add_months, month_label
from players.rating.period import (
    POOL_MONTHS,
    ListSettings,
    PeriodEvent,
    PeriodInputs,
    PeriodPlan,
    PlannedChange,
    PlannedKChange,
    PlayerStart,
)
from players.rating.rounding import round_half_away
from players.rating.systems.elo_first import (
    PENDING_K,
    first_rating_rule_of,
    unchanged,
    unrated_period,
)
from players.rating.systems.elo_games import (
    ArraySums,
    GroupKey,
    Sides,
    player_rule_days,
    sort_games,
)
from players.rating.types import (
    ExpectedMethod,
    GameInput,
    KFactor,
    Number,
    PeriodSums,
    PlayerState,
    RatingRules,
)

Progress = Callable[[int], None]
# The per-player finish in arrays (elo_arrays.finish): one (change, K change) per id.
ArrayFinish = Callable[..., list[tuple[PlannedChange, PlannedKChange | None]]]

# Published ratings and first ratings are never below zero (RATING_MIN).
_LOWEST_RATING = 0


def k_for(
    settings: ListSettings,
    state: PlayerState,
    k_override: int | None,
    year: int,
    standard_rating: int | None,
) -> KFactor:
    return list_k(
        state,
        list_fixed_k=settings.fixed_k,
        k_override=k_override,
        period_year=year,
        list_kind=settings.kind,
        standard_rating=standard_rating,
        junior_max_age=junior_limit(settings),
    )


def junior_limit(settings: ListSettings) -> int:
    """The junior age limit of the list's rules this month (fide_rules)."""
    return JUNIOR_MAX_AGE if settings.rule_set is None else settings.rule_set.junior_max_age


@dataclass(frozen=True, slots=True)
class _Month:
    """What every player's plan of one period shares."""

    settings: ListSettings
    rules: RatingRules
    month: datetime.date
    next_month: datetime.date
    label: str
    oldest_pool_month: str
    # The close that publishes the list of 1 March 2024 applies FIDE's one-off adjustment.
    adjusting: bool
    # The close that publishes the rapid and blitz lists of 1 October 2022 under FIDE's
    # rules by date applies FIDE's one-off raise to 100 below the standard rating.
    raising_to_standard: bool
    first_minimum: int
    # The month's settings, which give every player's K for the next period.
    month_settings: ListSettings

    @classmethod
    def of(cls, inputs: PeriodInputs, month_at: _Month | None = None) -> _Month:
        """``month_at``: the month's, where ``inputs.settings`` are a player's own (an
        older rule set, ``player_rule_days``): the month's per-game rules and next K."""
        settings, month = inputs.settings, inputs.month
        next_month = add_months(month, 1)
        return cls(
            settings=settings,
            rules=settings.rules() if month_at is None else month_at.rules,
            month=month,
            next_month=next_month,
            label=month_label(month),
            oldest_pool_month=month_label(add_months(month, 1 - POOL_MONTHS)),
            adjusting=settings.adjust_march_2024 and next_month == ADJUSTED_LIST,
            raising_to_standard=(
                settings.fide_rules == BY_DATE
                and settings.kind.counts_standard
                and next_month == RAISED_TO_STANDARD_LIST
            ),
            first_minimum=settings.floor if settings.floor is not None else _LOWEST_RATING,
            month_settings=settings if month_at is None else month_at.month_settings,
        )


def plan_period(
    inputs: PeriodInputs,
    *,
    array_sums: ArraySums | None = None,
    array_finish: ArrayFinish | None = None,
    progress: Progress | None = None,
) -> PeriodPlan:
    """The period's new ratings, K factors and K changes.

    ``array_sums`` (``period_sums.table_sums``) and ``array_finish``
    (``elo_arrays.finish``): the numpy paths, used on FIDE-table lists only (a formula's
    float sums depend on the order they are added in); each gives what the scalar path
    gives, and either may be left out.
    """
    # FIDE's rules in force this month (the list's choice: by date, or one rule set).
    settings = inputs.settings.for_month(inputs.month)
    if settings is not inputs.settings:
        inputs = replace(inputs, settings=settings)
    at = _Month.of(inputs)
    if at.rules.method is not ExpectedMethod.FIDE_TABLE:
        array_sums = array_finish = None
    if not _arrays_know(settings):
        array_finish = None
    sides, sums = sort_games(inputs, array_sums)
    starts = inputs.starts
    # Players whose events all began under older FIDE rules (a tournament spanning a
    # rule change): their K rules, 700 rule, floor and first-rating formula are those.
    by_start = {
        pid: _Month.of(replace(inputs, settings=inputs.settings.for_month(day)), at)
        for pid, day in player_rule_days(inputs).items()
    }
    in_arrays, planned = _finish_in_arrays(at, inputs, sides, sums, array_finish, by_start)
    if progress is not None and planned:
        progress(len(planned))
    rest = starts.keys() - in_arrays
    for index, player_id in enumerate(rest, start=1):
        planned.append(
            _plan_player(
                by_start.get(player_id, at), player_id, starts[player_id], inputs, sides, sums
            )
        )
        if progress is not None and index % 1000 == 0:
            progress(1000)
    if progress is not None and len(rest) % 1000:
        progress(len(rest) % 1000)
    # In player order, whichever path planned them: each pair starts with its change, and
    # each change with its player id, unique, so the tuples' own order is the players' (a
    # sort in C over 200,000 players).
    planned.sort()
    return PeriodPlan(
        month=at.month,
        games_count=len(inputs.games.white),
        changes=tuple(change for change, _ in planned),
        k_changes=tuple(k_change for _, k_change in planned if k_change is not None),
        rules=settings.rules_name(),
    )


def _arrays_know(settings: ListSettings) -> bool:
    """Whether the array finish (elo_arrays, written for today's K rules) plans this
    month: the junior limit and the 700 rule of before July 2017 are the scalar path's."""
    dated = settings.rule_set
    return dated is None or (dated.cap_700 and dated.junior_max_age == JUNIOR_MAX_AGE)


def _finish_in_arrays(
    at: _Month,
    inputs: PeriodInputs,
    sides: Sides,
    sums: Mapping[int, PeriodSums],
    array_finish: ArrayFinish | None,
    by_start: Mapping[int, _Month],
) -> tuple[set[int], list[tuple[PlannedChange, PlannedKChange | None]]]:
    """The players ``array_finish`` can plan: rated on the list with their own rating,
    every game in the array sums, no K override now or next, no adjustment this month,
    rated under the month's rules (not ``by_start``)."""
    if array_finish is None or at.adjusting or at.raising_to_standard:
        return set(), []
    ids = _array_players(inputs, sides, by_start)
    # The array sums hand theirs over as arrays (period_sums.PlayerSums.columns).
    columns = getattr(sums, "columns", None)
    planned = array_finish(
        ids=ids,
        starts=[inputs.starts[pid] for pid in ids],
        sums=columns(ids) if columns is not None else [sums.get(pid) for pid in ids],
        settings=at.settings,
        month=at.month,
        next_month=at.next_month,
    )
    if inputs.standard_ratings:
        planned = _unrated_with_standard_replanned(at, planned, inputs, sides, sums)
    return set(ids), planned


def _array_players(inputs: PeriodInputs, sides: Sides, by_start: Mapping[int, _Month]) -> list[int]:
    """The players the array finish may plan: rated on the list with their own rating,
    every game in the array sums (none in the per-game groups), no K override now or next,
    rated under the month's rules (not ``by_start``)."""
    start_ratings = inputs.start_ratings
    loop_players = sides.rated.keys() | sides.other_groups.keys()
    return [
        pid
        for pid, start in inputs.starts.items()
        if start.rating is not None
        and start_ratings[pid] == start.rating
        and start.k_override is None
        and start.k_override_next is None
        and pid not in loop_players
        and pid not in by_start
    ]


def _unrated_with_standard_replanned(
    at: _Month,
    planned: list[tuple[PlannedChange, PlannedKChange | None]],
    inputs: PeriodInputs,
    sides: Sides,
    sums: Mapping[int, PeriodSums],
) -> list[tuple[PlannedChange, PlannedKChange | None]]:
    """The arrays count no standard rating: a rapid or blitz player who fell below the
    floor and holds one is unrated on the next list, where it counts (counted_state), so
    their next K is the scalar path's (20 for 1800 with 103 games, not a new player's 40)."""
    standard = inputs.standard_ratings
    return [
        _plan_player(at, change.player_id, inputs.starts[change.player_id], inputs, sides, sums)
        if change.rating_after is None and change.player_id in standard
        else (change, k_row)
        for change, k_row in planned
    ]


def _plan_player(
    at: _Month,
    player_id: int,
    start: PlayerStart,
    inputs: PeriodInputs,
    sides: Sides,
    sums: Mapping[int, PeriodSums],
) -> tuple[PlannedChange, PlannedKChange | None]:
    """One player: K, the period's change (or first rating), the adjustment, the next K."""
    standard = inputs.standard_ratings.get(player_id)
    k = k_for(
        at.settings,
        PlayerState(start.rating, start.rated_games, start.birth_year, start.reached_2400),
        start.k_override,
        at.month.year,
        standard,
    )
    own = inputs.start_ratings[player_id]
    if own is not None:
        period = _rated(
            start,
            own,
            k,
            sides.rated.get(player_id, ()),
            sides.other_groups.get(player_id),
            at.rules,
            at.settings,
            sums.get(player_id),
        )
    else:
        period = unrated_period(
            start,
            sides.new_events.get(player_id),
            at.label,
            at.oldest_pool_month,
            at.first_minimum,
            lambda began: first_rating_rule_of(at.settings, began),
        )
    rating_after = period.rating_after
    adjustment = 0
    if at.adjusting and rating_after is not None:
        adjustment = march_2024_adjustment(rating_after)
        rating_after += adjustment
    if at.raising_to_standard and rating_after is not None:
        adjustment = october_2022_adjustment(
            rating_after, inputs.standard_on_next_list.get(player_id)
        )
        rating_after += adjustment
    k_next = k_for(
        at.month_settings,
        PlayerState(
            rating_after, period.rated_games_after, start.birth_year, period.reached_2400_after
        ),
        start.k_override_next,
        at.next_month.year,
        # Still unrated here: the standard rating of this period's start is the best the
        # plan knows for the next one (whose close reads the one then in force).
        standard,
    )
    change = period._replace(
        player_id=player_id,
        rating_after=rating_after,
        k_next=k_next,
        last_active_month=(
            at.month if period.games or start.last_active is None else start.last_active
        ),
        adjustment=adjustment,
    )
    reason = k_change_reason(
        k,
        k_next,
        still_junior_age=junior_age(
            start.birth_year,
            period_year=at.next_month.year,
            max_age=junior_limit(at.month_settings),
        ),
    )
    # An override set or lifted from the next month is in the K history already (the
    # officer's own KFactorChange row).
    if reason is None or start.k_override != start.k_override_next:
        return change, None
    return change, PlannedKChange(player_id=player_id, old=k, new=k_next, reason=reason)


def _rated(
    start: PlayerStart,
    own: int,
    k: KFactor,
    games: Sequence[GameInput],
    others: Mapping[GroupKey, list[GameInput]] | None,
    rules: RatingRules,
    settings: ListSettings,
    sums: PeriodSums | None = None,
) -> PlannedChange:
    """``sums``: the player's games already added up in arrays, all scored with ``own``;
    ``games`` and ``others`` hold the rest. ``rules``: the month's per-game rules;
    ``settings``: the player's (the 700 rule and the floor of their events' start)."""
    floor = settings.floor
    cap_700 = settings.rules().cap_700
    if rules.cap_700 != cap_700:
        rules = replace(rules, cap_700=cap_700)
    if not others:
        result = period_change(
            rating=own, games=games, k=k.value, rules=rules, keep_lines=False, start=sums
        )
        count, k_used = result.games_count, result.k
        score, expected = result.score, result.expected
        unrounded: Number = result.change_unrounded
        change = result.change
    else:
        # A tournament begun before a list on which this player's rating changed: its
        # games use the older own rating. The engine computes each group; the 700 cap
        # and the single rounding still apply to the whole period.
        # A tournament begun under other FIDE rules (fide_rules) is scored with them.
        # In rating order: the float sums below then do not depend on the games' order.
        # The 700 rule is the player's (their events' start), whatever a group's rules.
        groups = [
            (own, list(games), sums, rules),
            *(
                (r, g, None, rules if rr is None else replace(rr, cap_700=cap_700))
                for (r, rr), g in sorted(others.items(), key=_group)
            ),
        ]
        count = sum(
            period_change(
                rating=r, games=g, k=k.value, rules=rr, keep_lines=False, start=s
            ).games_count
            for r, g, s, rr in groups
        )
        k_used = cap_k(k.value, count) if cap_700 else k.value
        parts = [
            period_change(rating=r, games=g, k=k_used, rules=rr, keep_lines=False, start=s)
            for r, g, s, rr in groups
        ]
        score = sum((part.score for part in parts), Fraction(0))
        expected = sum(part.expected for part in parts)
        unrounded = sum(part.change_unrounded for part in parts)
        change = round_half_away(unrounded)
    if count == 0:
        return unchanged(start, k, PeriodEvent.NO_RATED_GAMES, rating=start.rating)
    new_rating = apply_floor(own + change, floor)
    if new_rating is None:
        event = PeriodEvent.BELOW_FLOOR
    else:
        event = PeriodEvent.RATED if start.rating is not None else PeriodEvent.FIRST_RATING
    return PlannedChange(
        player_id=0,
        rating_before=start.rating,
        rating_after=new_rating,
        change=change,
        change_unrounded=unrounded,
        k_factor=k_used,
        k_reason=k.reason,
        games=count,
        score=score,
        expected=expected,
        event=event,
        rated_games_after=start.rated_games + count,
        reached_2400_after=has_reached_2400(start.reached_2400, new_rating),
        pool_after=[],
        k_next=PENDING_K,
        last_active_month=None,
    )


def _group(item: tuple[GroupKey, list[GameInput]]) -> tuple[int, str]:
    (rating, rules), _ = item
    return (rating, "" if rules is None else repr(rules))
