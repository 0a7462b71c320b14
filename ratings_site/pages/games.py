"""Read helpers for the public pages: a player's games per period, performances per
event, and a period's report.

They read both apps (games from tournaments, published changes from players), so they live
with the pages on the top floor. A fixed number of queries each. The per-game figures come
from the list's rating system (``RatingSystem.explain``: what each game meant for the
player, as the close decided it, from what the close published); never from arithmetic
here.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from django.db.models import Count, F, Q, Sum
from django.utils.translation import gettext

from players import rating as engine
from players.models import Player, RatingChange, RatingList, RatingPeriod
from players.rating.adjustment import RAISED_TO_STANDARD_CLOSE
from players.rating.period import view_month
from players.rating.systems.explain import PeriodFacts
from players.selectors import closed_periods, current_rows, ratings_in_force
from tournaments.game_details import (
    GameDetail,
    Start,
    explain_details,
    game_detail,
    tournament_starts,
)
from tournaments.models import Game, Tournament
from tournaments.selectors import games_of_player, period_games

Event = RatingChange.Event
REPORT_ROWS = 10


# -- a player's games ---------------------------------------------------------------------


@dataclass
class PeriodGames:
    change: RatingChange
    games: list[GameDetail]
    # For a first rating the games go into the FIDE 8.2 pool: no expected score per game.
    toward_first_rating: bool = False
    # The engine's total over the lines, to check against what was published.
    engine_change: int | None = None
    # The list's rating system's engine sentences about the period.
    notes: tuple[str, ...] = ()


@dataclass
class EventPerformance:
    tournament: Tournament
    list_label: str
    games: int = 0
    score: Fraction = Fraction(0)
    rated_opponents: list[int] = field(default_factory=list)
    rated_score: Fraction = Fraction(0)

    @property
    def average_opponent(self) -> int | None:
        if not self.rated_opponents:
            return None
        return engine.round_half_away(
            Fraction(sum(self.rated_opponents), len(self.rated_opponents))
        )

    @property
    def performance(self) -> int | None:
        """FIDE's performance over the played games against rated opponents (8.1.1 dp)."""
        if not self.rated_opponents:
            return None
        return engine.performance_fide(self.rated_opponents, self.rated_score)


@dataclass
class PlayerGames:
    periods: dict[int, PeriodGames]
    events: list[EventPerformance]


def player_games(
    *,
    player: Player,
    lists: dict[int, RatingList],
    history: dict[int, list[RatingChange]],
) -> PlayerGames:
    """Every game of the player in a closed period, with the ratings it was scored with
    and the engine's per-game expected score and change; performance per tournament.

    The ratings in force are the period close's (``ratings_in_force``): a game is scored
    with the list published before its tournament's first month (before its own month
    outside a tournament). Four queries whatever the number of games or opponents.
    """
    changes = {c.period_id: c for rows in history.values() for c in rows}
    if not changes:
        return PlayerGames({}, [])
    games = _games_in(player=player, period_ids=changes)
    months = {c.period_id: c.period.month for c in changes.values()}

    def scored_month(game: Game) -> datetime.date:
        began = game.tournament.start_date if game.tournament is not None else None
        return view_month(months[game.period_id], began)

    involved = {player.pk} | {g.white_id if g.black_id == player.pk else g.black_id for g in games}
    period_keys = {c.period_id: (c.rating_list_id, months[c.period_id]) for c in changes.values()}
    in_force = ratings_in_force(
        lists=lists,
        months=[*period_keys.values(), *((g.rating_list_id, scored_month(g)) for g in games)],
        players=involved,
    )

    by_period: dict[int, list[GameDetail]] = defaultdict(list)
    events: dict[int, EventPerformance] = {}
    for game in games:
        detail = game_detail(game, player.pk, in_force[(game.rating_list_id, scored_month(game))])
        score, played = detail.score, detail.played
        by_period[game.period_id].append(detail)
        if game.tournament is not None:
            event = events.setdefault(
                game.tournament_id,  # type: ignore[arg-type]
                EventPerformance(game.tournament, lists[game.rating_list_id].get_kind_display()),
            )
            event.games += 1
            event.score += score
            if played and detail.opponent_rating is not None:
                event.rated_opponents.append(detail.opponent_rating)
                event.rated_score += score

    opponents_start = _opponents_start(lists, changes, by_period)
    periods: dict[int, PeriodGames] = {}
    for period_id, details in by_period.items():
        change = changes[period_id]
        own_start = in_force[period_keys[period_id]].get(player.pk)
        periods[period_id] = scored_games(
            change,
            details,
            lists[change.rating_list_id],
            tournament_starts(d.game for d in details),
            own_start,
            opponents_start.get(period_id, {}),
        )
    ordered = sorted(
        events.values(), key=lambda e: (e.tournament.end_date, e.tournament.pk), reverse=True
    )
    return PlayerGames(periods, ordered)


def _games_in(*, player: Player, period_ids: Iterable[int]) -> list[Game]:
    """The player's games of these periods in play order, with only the fields shown."""
    return list(
        games_of_player(player=player)
        .filter(period_id__in=period_ids)
        .select_related("white", "black", "tournament")
        .only(
            "date",
            "round",
            "result",
            "rated",
            "period_id",
            "rating_list_id",
            "white__id",
            "white__name",
            "white__title",
            "black__id",
            "black__name",
            "black__title",
            "tournament__id",
            "tournament__name",
            "tournament__start_date",
            "tournament__end_date",
            "tournament__rating_list_id",
        )
        .order_by("date", "round", "id")
    )


def _opponents_start(
    lists: dict[int, RatingList],
    changes: dict[int, RatingChange],
    by_period: dict[int, list[GameDetail]],
) -> dict[int, dict[int, Start]]:
    """Period id -> opponent id -> the opponent's rating and state at the period's start,
    on lists whose system keeps a state (it scores each game with them: Glicko-2's r and
    RD). One query, only when such a list has games here."""
    wanted = {
        period_id: {d.opponent.pk for d in details}
        for period_id, details in by_period.items()
        if lists[changes[period_id].rating_list_id].rating_system.keeps_state
    }
    if not wanted:
        return {}
    found: dict[int, dict[int, Start]] = defaultdict(dict)
    for period_id, player_id, before, state in current_rows(
        period_id__in=wanted, player_id__in=set().union(*wanted.values())
    ).values_list("period_id", "player_id", "rating_before", "state_before"):
        found[period_id][player_id] = (before, state)
    return found


def scored_games(
    change: RatingChange,
    details: list[GameDetail],
    rating_list: RatingList,
    starts: dict[int, datetime.date],
    own_start: int | None,
    opponents: dict[int, Start] | None = None,
) -> PeriodGames:
    """A player's games of one closed period with the figures the close gave them, as
    the list's rating system explains them (``RatingSystem.explain``). ``starts``: the
    period's tournaments' start dates (``tournament_starts``); ``own_start``: the player's
    rating in force at the period's start, as the close used it; ``opponents``: their
    rating and state at the period's start (``_opponents_start``, systems with a state)."""
    opponents = opponents or {}
    system = rating_list.rating_system
    if own_start is None and not system.uses_k:
        # A system that rates everyone (Glicko-2) published the start it used, even where
        # no list was published before (an entered rating, or the system's start).
        own_start = change.rating_before
    if change.k_factor is None and system.uses_k:
        # No K recorded: the period counted toward a first rating (FIDE 8.2).
        own_start = None
    facts = PeriodFacts(
        settings=rating_list.settings(),
        month=change.period.month,
        tournament_starts=starts,
        own_start=own_start,
        k_factor=change.k_factor,
        state_before=change.state_before,
        state_after=change.state_after,
    )
    explained = explain_details(system, facts, details, opponents)
    return PeriodGames(
        change,
        details,
        toward_first_rating=explained.pooled,
        engine_change=explained.total,
        notes=explained.notes,
    )


# -- the period report ----------------------------------------------------------------------


@dataclass
class PeriodReport:
    period: RatingPeriod
    games: int
    players: int
    rated_players: int
    listed_before: int
    listed_after: int
    sum_before: int
    sum_after: int
    games_points: int
    first_points: int
    floor_points: int
    adjustment_points: int
    adjusted_players: int
    gainers: list[RatingChange]
    losers: list[RatingChange]
    first_ratings: list[RatingChange]
    below_floor: list[RatingChange]
    previous: RatingPeriod | None
    next: RatingPeriod | None

    @property
    def raised_to_standard(self) -> bool:
        """The close of September 2022: its adjustments are FIDE's rapid and blitz one-off
        of 1 October 2022, not the one of 1 March 2024."""
        return self.period.month == RAISED_TO_STANDARD_CLOSE

    @property
    def average_before(self) -> float | None:
        return self.sum_before / self.listed_before if self.listed_before else None

    @property
    def average_after(self) -> float | None:
        return self.sum_after / self.listed_after if self.listed_after else None

    @property
    def pool_change(self) -> int:
        return self.sum_after - self.sum_before

    @property
    def floor_points_lost(self) -> int:
        return -self.floor_points

    @property
    def games_points_lost(self) -> int:
        return -self.games_points

    @property
    def games_points_per_player(self) -> float | None:
        return self.games_points / self.rated_players if self.rated_players else None


_ROW_FIELDS = (
    "rating_before",
    "rating_after",
    "change",
    "k_factor",
    "state_after",
    "games",
    "score",
    "event",
    "player__id",
    "player__name",
    "player__title",
)


def period_report(*, period: RatingPeriod) -> PeriodReport:
    """Who gained and lost most, first ratings, drops below the floor, and the points the
    period put into or took out of the pool: the sum of published ratings changes by the
    rated games' net change, plus first ratings, minus the ratings of players who fell
    below the floor, plus FIDE's adjustment of 1 March 2024 where it applied. Eight queries."""
    current = current_rows(period=period).order_by()
    rated_events = [Event.RATED, Event.BELOW_FLOOR]
    totals: dict[str, Any] = current.aggregate(
        players=Count("id"),
        rated_players=Count("id", filter=Q(event__in=rated_events)),
        listed_before=Count("id", filter=Q(rating_before__isnull=False)),
        listed_after=Count("id", filter=Q(rating_after__isnull=False)),
        sum_before=Sum("rating_before"),
        sum_after=Sum("rating_after"),
        games_points=Sum("change", filter=Q(event__in=rated_events)),
        first_points=Sum(
            F("rating_after") - F("adjustment"),
            filter=Q(event=Event.FIRST_RATING, rating_before=None),
        ),
        # What leaves with a player who drops below the floor: the rating after the games
        # (their games' change is already in games_points).
        floor_points=Sum(F("rating_before") + F("change"), filter=Q(event=Event.BELOW_FLOOR)),
        # FIDE's one-off adjustment of 1 March 2024 (the close of February 2024 only).
        adjustment_points=Sum("adjustment"),
        adjusted_players=Count("id", filter=~Q(adjustment=0)),
    )
    rows = current.select_related("player").only(*_ROW_FIELDS)
    gainers = list(
        rows.filter(event=Event.RATED, change__gt=0).order_by("-change", "player__name")[
            :REPORT_ROWS
        ]
    )
    losers = list(
        rows.filter(event__in=rated_events, change__lt=0).order_by("change", "player__name")[
            :REPORT_ROWS
        ]
    )
    first = list(rows.filter(event=Event.FIRST_RATING).order_by("-rating_after", "player__name"))
    below = list(rows.filter(event=Event.BELOW_FLOOR).order_by("player__name"))
    games = period_games(period=period).count()
    neighbours = closed_periods(rating_list=period.rating_list_id).only("id", "month", "status")
    previous = neighbours.filter(month__lt=period.month).order_by("-month").first()
    following = neighbours.filter(month__gt=period.month).order_by("month").first()
    return PeriodReport(
        period=period,
        games=games,
        players=totals["players"],
        rated_players=totals["rated_players"],
        listed_before=totals["listed_before"],
        listed_after=totals["listed_after"],
        sum_before=totals["sum_before"] or 0,
        sum_after=totals["sum_after"] or 0,
        games_points=totals["games_points"] or 0,
        first_points=totals["first_points"] or 0,
        floor_points=totals["floor_points"] or 0,
        adjustment_points=totals["adjustment_points"] or 0,
        adjusted_players=totals["adjusted_players"],
        gainers=gainers,
        losers=losers,
        first_ratings=first,
        below_floor=below,
        previous=previous,
        next=following,
    )


# -- one event's figures (the tournament page's rows) -------------------------------------


def performance_of(details: list[GameDetail]) -> int | None:
    """FIDE's performance over the games played against rated opponents."""
    counted = [d for d in details if d.played and d.opponent_rating is not None]
    if not counted:
        return None
    return engine.performance_fide(
        [d.opponent_rating for d in counted if d.opponent_rating is not None],
        sum((d.score for d in counted), Fraction(0)),
    )


def event_change(
    change: RatingChange | None,
    period: RatingPeriod | None,
    details: list[GameDetail],
    rating_list: RatingList,
    starts: dict[int, datetime.date],
    own_start: int | None,
) -> tuple[int | None, str]:
    """What an event's games (``details``, one player's) did in the closed ``period``, as
    ``scored_games`` scores them with the K of the player's published ``change``, or None
    and the reason shown instead."""
    scored = None
    if change is not None and period is not None:
        change.period = period
        # The close's order (date, round, id): of equal differences the first keeps
        # the 2022-2024 cap, which decides a game's line, not the total shown here.
        details.sort(key=lambda d: (d.game.date, d.game.round or 0, d.game.pk))
        scored = scored_games(change, details, rating_list, starts, own_start)
    if scored is None or scored.toward_first_rating:
        return None, gettext("toward a first rating") if own_start is None else ""
    return scored.engine_change, ""
