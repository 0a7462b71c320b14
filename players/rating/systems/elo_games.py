"""The Elo family's first step of a period: every game's two sides, each scored with the
ratings in force at its tournament's start (FIDE 8.2.4), sorted into what they are for:
a rated player's games with their period-start rating, games scored with an older own
rating (a tournament begun before a list on which the player's rating changed), and an
unrated player's games toward a first rating. On FIDE-table lists most games are added
up in arrays first (``period_sums.table_sums``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from players.rating.differences import CappedSide, cap_lost
from players.rating.months import month_label
from players.rating.period import (
    GAME_RESULTS,
    SCORES,
    PeriodInputs,
    own_rating_for_game,
    view_month,
)
from players.rating.types import GameInput, PeriodSums, RatingRules

# A group of a player's games scored apart: the own rating it uses, and the rules (None:
# the period's).
GroupKey = tuple[int, "RatingRules | None"]
# A period's events of an unrated player: event key -> (order key, [[opponent, score, played]]).
Events = dict[str, tuple[tuple[Any, ...], list[list[Any]]]]
# Where the arrays (period_sums.table_sums) put most games: sums by player, and the
# positions of the games they leave to the loop.
ArraySums = Callable[..., tuple[Mapping[int, PeriodSums], list[int]]]


class Sides:
    """The period's games, sorted into what each player's side of a game is for: toward a
    first rating, with the period-start rating, or (rated since its tournament began) in a
    group of its own."""

    def __init__(self) -> None:
        self.rated: dict[int, list[GameInput]] = defaultdict(list)
        # Rare: games whose own rating for the difference is not the period-start rating.
        self.other_groups: dict[int, dict[GroupKey, list[GameInput]]] = defaultdict(
            lambda: defaultdict(list)
        )
        self.new_events: dict[int, Events] = defaultdict(dict)
        # GameInput objects are shared: a month has few distinct (opponent, score, played).
        self._caches: dict[tuple[str, bool], dict[int | None, GameInput]] = {}

    def cache(self, score: str, counted: bool) -> dict[int | None, GameInput]:
        return self._caches.setdefault((score, counted), {})

    def side(
        self,
        player: int,
        own: int | None,
        own_view: int | None,
        opponent: int | None,
        score: str,
        played: bool,
        cache: dict[int | None, GameInput],
        event: tuple[str, tuple[Any, ...]],
    ) -> None:
        counted = own_rating_for_game(own, own_view)
        if counted is None:
            events = self.new_events[player]
            key, order = event
            if key not in events:
                events[key] = (order, [])
            events[key][1].append([opponent, score, played])
        elif counted == own:
            item = cache.get(opponent)
            if item is None:
                item = cache[opponent] = GameInput(opponent, SCORES[score], played)
            self.rated[player].append(item)
        else:
            self.other_groups[player][counted, None].append(
                GameInput(opponent, SCORES[score], played)
            )

    def side_under(
        self,
        rules: RatingRules,
        player: int,
        own: int | None,
        own_view: int | None,
        opponent: int | None,
        score: str,
        played: bool,
        event: tuple[str, tuple[Any, ...]],
    ) -> None:
        """``side`` for a game of a tournament begun under other FIDE rules than the
        period's (fide_rules): a rated side goes to a group scored with ``rules``."""
        counted = own_rating_for_game(own, own_view)
        if counted is None:
            self.side(player, own, own_view, opponent, score, played, {}, event)
            return
        self.other_groups[player][counted, rules].append(GameInput(opponent, SCORES[score], played))


def sort_games(
    inputs: PeriodInputs, array_sums: ArraySums | None
) -> tuple[Sides, Mapping[int, PeriodSums]]:
    """Every game's two sides, each scored with the ratings in force at its tournament's
    start; on FIDE-table lists most games are added up in arrays (``array_sums``) first."""
    # Over 80 lines on purpose: the loop below is the close's hottest Python loop (every
    # game the arrays leave, a million on a formula list), so the lookups it needs are
    # built here beside it and each side's dispatch stays inline, not a call per game.
    month = inputs.month
    label = month_label(month)
    start_rating = inputs.start_ratings
    sides = Sides()
    month_event = (f"m{label}", (month, 1, 0))
    # tournament id -> (the ratings in force at its start, its event key and order)
    tournament_view = {
        tid: (
            start_rating
            if (scored := view_month(month, began)) == month
            else inputs.ratings_at[scored],
            (f"t{tid}", (began, 0, tid)),
        )
        for tid, (began, _) in inputs.tournaments.items()
    }
    # FIDE's rules by date: a tournament begun under other per-game rules keeps them.
    month_rules = inputs.settings.rules()
    other_rules = {
        tid: rules
        for tid, (began, _) in inputs.tournaments.items()
        if began < month and (rules := inputs.settings.for_month(began).rules()) != month_rules
    }
    by_result: dict[tuple[str, bool], tuple[Any, ...]] = {}
    for result, (white_score, black_score, played) in GAME_RESULTS.items():
        for rated in (True, False):
            counted = played and rated
            by_result[(result, rated)] = (
                white_score,
                black_score,
                counted,
                sides.cache(white_score, counted),
                sides.cache(black_score, counted),
            )

    # January 2022 to February 2024: the cap helps a player in one game per event only;
    # such a month is added up game by game (the arrays know no events).
    once = month_rules.cap_once_per_event or any(
        rules.cap_once_per_event for rules in other_rules.values()
    )
    columns = inputs.games
    rows: Iterable[tuple[int, int, str, bool, int | None]]
    sums: Mapping[int, PeriodSums] = {}
    # (game's position, its white side?) -> the rules without the cap, for that side.
    uncapped: dict[tuple[int, bool], RatingRules] = {}
    if once:
        rows = list(zip(*columns, strict=True))
        uncapped = _upgrades_after_the_first(
            rows, start_rating, tournament_view, month_event, month_rules, other_rules
        )
    elif array_sums is not None and len(columns.white):
        this_month = {tid for tid, (began, _) in inputs.tournaments.items() if began >= month}
        sums, rest = array_sums(columns, start_rating, this_month, inputs.settings.rules())
        rows = (
            (columns[0][i], columns[1][i], columns[2][i], columns[3][i], columns[4][i])
            for i in rest
        )
    else:
        rows = zip(*columns, strict=True)

    side = sides.side
    for index, (white, black, result, rated, tournament_id) in enumerate(rows):
        white_score, black_score, played, white_cache, black_cache = by_result[result, rated]
        white_own = start_rating[white]
        black_own = start_rating[black]
        if tournament_id is None:
            # Scored with the period-start ratings, which are each side's own rating too.
            white_view, black_view, event = white_own, black_own, month_event
        else:
            view, event = tournament_view[tournament_id]
            white_view = view.get(white)
            black_view = view.get(black)
        if not uncapped and not (other_rules and tournament_id in other_rules):
            side(white, white_own, white_view, black_view, white_score, played, white_cache, event)
            side(black, black_own, black_view, white_view, black_score, played, black_cache, event)
            continue
        # A side's rules: its tournament's (begun under other rules), else the month's;
        # without the cap where the side has had its one upgrade of the event already.
        side_rules = other_rules.get(tournament_id) if tournament_id is not None else None
        white_rules = uncapped.get((index, True), side_rules)
        black_rules = uncapped.get((index, False), side_rules)
        if white_rules is None:
            side(white, white_own, white_view, black_view, white_score, played, white_cache, event)
        else:
            sides.side_under(
                white_rules, white, white_own, white_view, black_view, white_score, played, event
            )
        if black_rules is None:
            side(black, black_own, black_view, white_view, black_score, played, black_cache, event)
        else:
            sides.side_under(
                black_rules, black, black_own, black_view, white_view, black_score, played, event
            )
    return sides, sums


def _upgrades_after_the_first(
    rows: Sequence[tuple[int, int, str, bool, int | None]],
    start_rating: Mapping[int, int | None],
    tournament_view: Mapping[int, tuple[Mapping[int, int | None], tuple[str, Any]]],
    month_event: tuple[str, Any],
    month_rules: RatingRules,
    other_rules: Mapping[int, RatingRules],
) -> dict[tuple[int, bool], RatingRules]:
    """The game sides that lose the 400-point cap under the January 2022 to February 2024
    rule (``differences.cap_lost``) -> the rules they are scored with instead. A month's
    games outside tournaments are one event."""
    sides: list[CappedSide] = []
    for white, black, result, rated, tournament_id in rows:
        played = rated and GAME_RESULTS[result][2]
        if tournament_id is None:
            white_view, black_view = start_rating[white], start_rating[black]
            event, rules = month_event[0], month_rules
        else:
            view, (event, _) = tournament_view[tournament_id]
            white_view, black_view = view.get(white), view.get(black)
            rules = other_rules.get(tournament_id, month_rules)
        sides.append(
            (
                (white, event),
                own_rating_for_game(start_rating[white], white_view),
                black_view,
                played,
                rules,
            )
        )
        sides.append(
            (
                (black, event),
                own_rating_for_game(start_rating[black], black_view),
                white_view,
                played,
                rules,
            )
        )
    return {
        (position // 2, position % 2 == 0): replace(sides[position][4], apply_400_rule=False)
        for position in cap_lost(sides)
    }
