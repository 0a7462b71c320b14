"""The Elo family's first step of a period: every game's two sides, each scored with the
ratings in force at its tournament's start (FIDE 8.2.4), sorted into what they are for:
a rated player's games with their period-start rating, games scored with an older own
rating (a tournament begun before a list on which the player's rating changed), and an
unrated player's games toward a first rating. On FIDE-table lists most games are added
up in arrays first (``period_sums.table_sums``).

The rules a game is scored with are decided here once: ``period_rules`` (FIDE's rules by a
tournament's start), ``_without_the_cap`` (the 2022-2024 cap in one game per event) and
``own_rating_for_game`` (period.py). The close sorts a whole period's sides with them
(``sort_games``); the pages ask ``player_sides`` for one player's period, built from the
same pieces (tests/rating/test_player_sides.py proves both sort every side alike).
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from players.rating.differences import CappedSide, cap_lost, counted_difference
from players.rating.months import month_label
from players.rating.period import (
    GAME_RESULTS,
    SCORES,
    ListSettings,
    PeriodInputs,
    own_rating_for_game,
    view_month,
)
from players.rating.systems.elo_first import Events, pool_event_began
from players.rating.types import CountedDifference, GameInput, PeriodSums, RatingRules

# A group of a player's games scored apart: the own rating it uses, and the rules (None:
# the period's). ``Sides.rated`` holds the group (period-start rating, None).
GroupKey = tuple[int, "RatingRules | None"]
# Where the arrays (period_sums.table_sums) put most games: sums by player, and the
# positions of the games they leave to the loop.
ArraySums = Callable[..., tuple[Mapping[int, PeriodSums], list[int]]]


class PeriodRules(NamedTuple):
    """The per-game rules of one period of a list (``period_rules``)."""

    # The month's: games outside tournaments and in tournaments begun this month.
    month: RatingRules
    # The period's tournaments begun in an earlier month under other rules -> theirs.
    tournaments: dict[int, RatingRules]

    def of(self, tournament: int | None) -> RatingRules:
        """The rules of a game of ``tournament`` (None: outside tournaments)."""
        if tournament is None:
            return self.month
        return self.tournaments.get(tournament, self.month)

    @property
    def once_per_event(self) -> bool:
        """Whether some game may lose the 400-point cap (January 2022 to February 2024)."""
        return self.month.cap_once_per_event or any(
            rules.cap_once_per_event for rules in self.tournaments.values()
        )


def period_rules(
    settings: ListSettings, month: datetime.date, starts: Mapping[int, datetime.date]
) -> PeriodRules:
    """FIDE's rules by date (fide_rules; the list's choice, ``ListSettings.for_month``): a
    game is scored with the per-game rules in force when its tournament began (the 2650
    exception of 8.3.1, the rapid/blitz 600/2600 rule, the 2022-2024 cap in one game per
    event), a game outside tournaments with the month's. ``starts``: the period's
    tournaments -> their start dates."""
    month_rules = settings.for_month(month).rules()
    return PeriodRules(
        month_rules,
        {
            tid: rules
            for tid, began in starts.items()
            if began < month and (rules := settings.for_month(began).rules()) != month_rules
        },
    )


def player_rule_days(inputs: PeriodInputs) -> dict[int, datetime.date]:
    """FIDE's rules by date for a player's whole period (section 10 of the rules
    reference: an event keeps the rules of its start): the players whose events this
    period (and, unrated, their pooled events) all began under an older FIDE rule set
    than the month's -> the latest of those starts, whose rule set gives them K and its
    rules, the 700 rule, the floor and the first-rating formula. A player with an event
    begun this month (games outside tournaments included) takes the month's.

    Empty, after one look at the tournaments, unless a tournament begun in an earlier
    month spans a change of rules."""
    settings, month = inputs.settings, inputs.month
    if settings.fide_rules is None:
        return {}
    month_set = settings.for_month(month).rule_set
    older = {
        tid: began
        for tid, (began, _) in inputs.tournaments.items()
        if began < month and settings.for_month(began).rule_set != month_set
    }
    if not older:
        return {}
    days: dict[int, datetime.date] = {}
    for player, day in _latest_starts(inputs, older).items():
        start = inputs.starts.get(player)
        if start is not None and inputs.start_ratings.get(player) is None:
            day = max([day, *(pool_event_began(event) for event in start.pool)])
        if settings.for_month(day).rule_set != month_set:
            days[player] = day
    return days


def _latest_starts(
    inputs: PeriodInputs, older: Mapping[int, datetime.date]
) -> dict[int, datetime.date]:
    """The players of a game in a tournament of ``older`` -> the latest start of the
    events of their rated games this period (the month for a game outside tournaments; no
    later than the month)."""
    games, month = inputs.games, inputs.month
    touched: set[int] = set()
    for white, black, tid in zip(games.white, games.black, games.tournament, strict=True):
        if tid in older:
            touched.add(white)
            touched.add(black)
    latest: dict[int, datetime.date] = {}
    for white, black, result, rated, tid in zip(*games, strict=True):
        if not (rated and GAME_RESULTS[result][2]) or not (white in touched or black in touched):
            continue
        began = month if tid is None else min(inputs.tournaments[tid][0], month)
        for player in (white, black):
            if player in touched and began > latest.get(player, datetime.date.min):
                latest[player] = began
    return latest


class PlayerGame(NamedTuple):
    """One game of a player's period, from their side, for ``player_sides``."""

    # The player's and the opponent's ratings in force at the game's ``view_month``
    # (None: unrated then).
    own: int | None
    opponent: int | None
    # Played over the board and rated.
    played: bool
    # None: outside tournaments (the month's games are one event).
    tournament: int | None


class ScoredSide(NamedTuple):
    """How the close scores one game of a player's period (``player_sides``)."""

    # The own rating for the difference (``own_rating_for_game``); None: the game counts
    # toward a first rating.
    own: int | None
    # The rules it is scored with: its tournament's start's, without the cap where the
    # player has had the event's one upgrade.
    rules: RatingRules
    # The difference before and after the 400-point rule; None when either side is unrated.
    difference: CountedDifference | None
    # The close's group of the game (``Sides``); None toward a first rating.
    group: GroupKey | None


def player_sides(
    rules: PeriodRules, own_start: int | None, games: Sequence[PlayerGame]
) -> list[ScoredSide]:
    """One player's period games as the close scores them: the own rating (FIDE 8.2.4:
    the ratings in force at the tournament's start; a player rated since it began uses
    their period-start rating), the rules (FIDE's rules by date, ``period_rules``), the
    counted difference (8.3.1, the 400-point rule and its 2650 exception) with, from
    January 2022 to February 2024, the cap in one game per event only (``cap_lost``), and
    the group the close adds the game up in. ``own_start``: the player's rating in force
    at the period's start; ``games`` in the order the period lists them (date, round, id:
    of equal differences the first keeps the cap).

    ``sort_games`` makes the same decisions for every side of a period at once, inline
    for speed; tests/rating/test_player_sides.py proves the two agree."""
    capped: list[CappedSide] = [
        (
            game.tournament,
            own_rating_for_game(own_start, game.own),
            game.opponent,
            game.played,
            rules.of(game.tournament),
        )
        for game in games
    ]
    uncapped = _without_the_cap(capped) if rules.once_per_event else {}
    sides: list[ScoredSide] = []
    for position, (tournament, own, opponent, _, base) in enumerate(capped):
        scored = uncapped.get(position, base)
        if own is None:
            sides.append(ScoredSide(None, scored, None, None))
            continue
        # The close's key: rules None where the month's rules hold as they are.
        apart = position in uncapped or (tournament is not None and tournament in rules.tournaments)
        sides.append(
            ScoredSide(
                own,
                scored,
                None if opponent is None else counted_difference(own, opponent, rules=scored),
                (own, scored if apart else None),
            )
        )
    return sides


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
    # The loop below is the close's hottest Python loop (every game the arrays leave, a
    # million on a formula list): the lookups it needs are built once, by the helpers
    # below, and each side's dispatch stays inline, not a call per game.
    month = inputs.month
    start_rating = inputs.start_ratings
    sides = Sides()
    month_event = (f"m{month_label(month)}", (month, 1, 0))
    tournament_view = _tournament_views(inputs)
    # FIDE's rules by date: a tournament begun under other per-game rules keeps them.
    period = period_rules(
        inputs.settings, month, {tid: began for tid, (began, _) in inputs.tournaments.items()}
    )
    other_rules = period.tournaments
    by_result = _by_result(sides)
    rows, sums, uncapped = _rows_to_sort(inputs, array_sums, period, tournament_view, month_event)

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


# A tournament's view for sort_games: (the ratings in force at its start, its event key and
# order).
TournamentView = tuple[Mapping[int, int | None], tuple[str, tuple[Any, ...]]]
# A game as sort_games reads it: white, black, result, rated, tournament.
GameRow = tuple[int, int, str, bool, int | None]


def _tournament_views(inputs: PeriodInputs) -> dict[int, TournamentView]:
    """Each tournament of the period -> the ratings in force at its start (FIDE 8.2.4),
    and its event key and order."""
    month = inputs.month
    return {
        tid: (
            inputs.start_ratings
            if (scored := view_month(month, began)) == month
            else inputs.ratings_at[scored],
            (f"t{tid}", (began, 0, tid)),
        )
        for tid, (began, _) in inputs.tournaments.items()
    }


def _by_result(sides: Sides) -> dict[tuple[str, bool], tuple[Any, ...]]:
    """(result, rated) -> the white and black scores, whether the game counts, and the
    shared GameInput caches of each side."""
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
    return by_result


def _rows_to_sort(
    inputs: PeriodInputs,
    array_sums: ArraySums | None,
    period: PeriodRules,
    tournament_view: Mapping[int, TournamentView],
    month_event: tuple[str, tuple[Any, ...]],
) -> tuple[Iterable[GameRow], Mapping[int, PeriodSums], dict[tuple[int, bool], RatingRules]]:
    """The games sort_games goes through one by one, the array sums of the others, and
    (game's position, its white side?) -> the rules without the cap, for that side.

    January 2022 to February 2024: the cap helps a player in one game per event only;
    such a month is added up game by game (the arrays know no events)."""
    columns = inputs.games
    if period.once_per_event:
        rows = list(zip(*columns, strict=True))
        uncapped = _upgrades_after_the_first(
            rows, inputs.start_ratings, tournament_view, month_event, period
        )
        return rows, {}, uncapped
    if array_sums is not None and len(columns.white):
        month = inputs.month
        this_month = {tid for tid, (began, _) in inputs.tournaments.items() if began >= month}
        sums, rest = array_sums(columns, inputs.start_ratings, this_month, period.month)
        return zip(*(_at(column, rest) for column in columns), strict=True), sums, {}
    return zip(*columns, strict=True), {}, {}


def _at(column: Sequence[Any], positions: list[int]) -> Sequence[Any]:
    """The values of ``column`` at ``positions``: from the read's array where the column
    has one (period.ArrayColumn), without making the whole column a list."""
    take = getattr(column, "take", None)
    return take(positions) if take is not None else [column[i] for i in positions]


def _upgrades_after_the_first(
    rows: Sequence[tuple[int, int, str, bool, int | None]],
    start_rating: Mapping[int, int | None],
    tournament_view: Mapping[int, tuple[Mapping[int, int | None], tuple[str, Any]]],
    month_event: tuple[str, Any],
    period: PeriodRules,
) -> dict[tuple[int, bool], RatingRules]:
    """The game sides that lose the 400-point cap under the January 2022 to February 2024
    rule (``differences.cap_lost``) -> the rules they are scored with instead. A month's
    games outside tournaments are one event."""
    sides: list[CappedSide] = []
    for white, black, result, rated, tournament_id in rows:
        played = rated and GAME_RESULTS[result][2]
        if tournament_id is None:
            white_view, black_view = start_rating[white], start_rating[black]
            event = month_event[0]
        else:
            view, (event, _) = tournament_view[tournament_id]
            white_view, black_view = view.get(white), view.get(black)
        rules = period.of(tournament_id)
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
        (position // 2, position % 2 == 0): uncapped
        for position, uncapped in _without_the_cap(sides).items()
    }


def _without_the_cap(sides: Sequence[CappedSide]) -> dict[int, RatingRules]:
    """FIDE 8.3.1, January 2022 to February 2024: the positions of the sides that count
    the real difference (``cap_lost``) -> the rules they are scored with instead."""
    return {
        position: replace(sides[position][4], apply_400_rule=False) for position in cap_lost(sides)
    }
