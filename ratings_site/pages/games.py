"""Read helpers for the public pages: a player's games per period, performances per
event, and a period's report.

They read both apps (games from tournaments, published changes from players), so they live
with the pages on the top floor. A fixed number of queries each. The per-game figures come
from the rules engine: the close's own decisions for each of a period's games
(``elo_games.player_sides``: own rating, rules, group), the K the close recorded, and
``period_change``'s game lines; never from arithmetic here.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from django.db.models import Count, F, Q, Sum

from players import rating as engine
from players.models import Player, RatingChange, RatingList, RatingPeriod
from players.rating.adjustment import RAISED_TO_STANDARD_CLOSE
from players.rating.period import GAME_RESULTS, SCORES, view_month
from players.rating.systems.elo_games import (
    GroupKey,
    PeriodRules,
    PlayerGame,
    period_rules,
    player_sides,
)
from players.selectors import ratings_in_force
from tournaments.models import Game, Tournament

Event = RatingChange.Event
REPORT_ROWS = 10


# -- a player's games ---------------------------------------------------------------------


@dataclass
class GameDetail:
    """One game as it counted for the player in its period."""

    game: Game
    opponent: Player
    colour: str
    score: Fraction
    played: bool
    own_rating: int | None
    opponent_rating: int | None
    line: engine.GameLine | None = None


@dataclass
class PeriodGames:
    change: RatingChange
    games: list[GameDetail]
    # For a first rating the games go into the FIDE 8.2 pool: no expected score per game.
    toward_first_rating: bool = False
    # The engine's total over the lines, to check against what was published.
    engine_change: int | None = None


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
        white = game.white_id == player.pk
        opponent = game.black if white else game.white
        white_score, black_score, played = GAME_RESULTS[game.result]
        score = SCORES[white_score if white else black_score]
        played = played and game.rated
        month = scored_month(game)
        detail = GameDetail(
            game=game,
            opponent=opponent,
            colour="white" if white else "black",
            score=score,
            played=played,
            own_rating=in_force[(game.rating_list_id, month)].get(player.pk),
            opponent_rating=in_force[(game.rating_list_id, month)].get(opponent.pk),
        )
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

    periods: dict[int, PeriodGames] = {}
    for period_id, details in by_period.items():
        change = changes[period_id]
        own_start = in_force[period_keys[period_id]].get(player.pk)
        rules = rules_of_games(
            (d.game for d in details), lists[change.rating_list_id], change.period.month
        )
        periods[period_id] = scored_games(change, details, rules, own_start)
    ordered = sorted(
        events.values(), key=lambda e: (e.tournament.end_date, e.tournament.pk), reverse=True
    )
    return PlayerGames(periods, ordered)


def _games_in(*, player: Player, period_ids: Iterable[int]) -> list[Game]:
    """The player's games of these periods in play order, with only the fields shown."""
    return list(
        Game.objects.filter(Q(white=player) | Q(black=player), period_id__in=period_ids)
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


def rules_of_games(
    games: Iterable[Game], rating_list: RatingList, month: datetime.date
) -> PeriodRules:
    """The per-game rules of a period's ``games`` on the list (``elo_games.period_rules``:
    FIDE's rules by each tournament's start), from the games' tournaments."""
    starts = {
        game.tournament_id: game.tournament.start_date
        for game in games
        if game.tournament is not None and game.tournament_id is not None
    }
    return period_rules(rating_list.settings(), month, starts)


def scored_games(
    change: RatingChange,
    details: list[GameDetail],
    rules: PeriodRules,
    own_start: int | None,
) -> PeriodGames:
    """A player's games of one closed period with the figures the close gave them.
    ``rules``: the period's (``rules_of_games``); ``own_start``: the player's rating in
    force at the period's start, as the close used it."""
    if own_start is None or change.k_factor is None:
        return PeriodGames(change, details, toward_first_rating=True)
    # The close's own decisions (elo_games.player_sides): each game's own rating, rules
    # (by its tournament's start, the 2022-2024 cap in one game per event) and group;
    # K is the K the close recorded.
    sides = player_sides(
        rules,
        own_start,
        [
            PlayerGame(d.own_rating, d.opponent_rating, d.played, d.game.tournament_id)
            for d in details
        ],
    )
    groups: dict[GroupKey, tuple[engine.RatingRules, list[GameDetail]]] = {}
    for detail, side in zip(details, sides, strict=True):
        assert side.group is not None  # own_start is not None
        groups.setdefault(side.group, (side.rules, []))[1].append(detail)
    total: engine.Number = 0
    for (own, _), (group_rules, group) in groups.items():
        result = engine.period_change(
            rating=own,
            games=[engine.GameInput(d.opponent_rating, d.score, d.played) for d in group],
            k=change.k_factor,
            rules=group_rules,
        )
        total += result.change_unrounded
        for detail, line in zip(group, result.lines, strict=True):
            detail.line = line
    return PeriodGames(change, details, engine_change=engine.round_half_away(total))


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
    current = RatingChange.objects.filter(period=period, current=True).order_by()
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
    games = Game.objects.filter(period=period).count()
    neighbours = RatingPeriod.objects.filter(
        rating_list_id=period.rating_list_id, status=RatingPeriod.Status.CLOSED
    ).only("id", "month", "status")
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
