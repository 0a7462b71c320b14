"""Read helper for the head-to-head page: every game between two players of a club, the
score, and the expected score each game carried.

The ratings are those each game was scored with (``ratings_in_force`` at the game's
``view_month``, the close's rule); the own rating and the expected score are what the
list's rating system says of each game (``RatingSystem.explain``: for FIDE's rules by the
tournament's start, the 2022-2024 cap in one game per event). Three to six queries
whatever the number of games.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from django.utils.translation import gettext

from players.errors import NotFoundError
from players.models import Club, Player, RatingList
from players.rating.period import GAME_RESULTS, SCORES, view_month
from players.rating.systems.explain import GameExplanation, GameFacts, PeriodFacts
from players.selectors import club_players, ratings_in_force
from tournaments.game_details import tournament_starts
from tournaments.models import Game
from tournaments.selectors import games_between, games_of_player


@dataclass
class MeetingRow:
    game: Game
    colour: str  # the first player's: "white" / "black"
    score: Fraction  # the first player's
    opponent_score: Fraction
    played: bool
    rating: int | None  # the first player's, in force for the game
    opponent_rating: int | None
    expected: Fraction | float | None  # the first player's; None when the game is not rated


@dataclass
class HeadToHead:
    player: Player
    opponent: Player
    rows: list[MeetingRow]

    @property
    def score(self) -> Fraction:
        return sum((r.score for r in self.rows), Fraction(0))

    @property
    def opponent_score(self) -> Fraction:
        return sum((r.opponent_score for r in self.rows), Fraction(0))

    @property
    def wins(self) -> int:
        return sum(1 for r in self.rows if r.score == 1)

    @property
    def draws(self) -> int:
        return sum(1 for r in self.rows if r.score == Fraction(1, 2))

    @property
    def losses(self) -> int:
        return sum(1 for r in self.rows if r.opponent_score == 1)

    @property
    def rated_rows(self) -> list[MeetingRow]:
        return [r for r in self.rows if r.expected is not None]

    @property
    def expected(self) -> float | None:
        """The expected score over the rated games, against ``rated_score``."""
        rated = self.rated_rows
        return sum(float(r.expected) for r in rated if r.expected is not None) if rated else None

    @property
    def rated_score(self) -> Fraction:
        return sum((r.score for r in self.rated_rows), Fraction(0))


# What _scored reads of the first player's other games of an event.
_EVENT_FIELDS = (
    "white_id",
    "black_id",
    "result",
    "rated",
    "period_id",
    "rating_list_id",
    "tournament_id",
    "tournament__start_date",
)


def head_to_head(*, club: Club, player_id: int, opponent_id: int) -> HeadToHead:
    """Both players of ``club`` (NotFoundError otherwise) and their games, oldest first.

    Each game from the first player's side as the close scores it (``_scored``). Three to
    six queries whatever the number of games: the players, their games, the first
    player's other games of the events where the 2022-2024 cap rule applies (only then),
    and the ratings in force."""
    pair = club_players(club=club).filter(pk__in=[player_id, opponent_id])
    found = {p.pk: p for p in pair}
    if player_id == opponent_id or len(found) < 2:
        raise NotFoundError(gettext("%(club)s has no such pair of players.") % {"club": club.name})
    player, opponent = found[player_id], found[opponent_id]
    games = list(
        games_between(club=club, player_id=player_id, opponent_id=opponent_id)
        .select_related("tournament", "period", "rating_list")
        .order_by("date", "round", "id")
    )
    lists: dict[int, RatingList] = {g.rating_list_id: g.rating_list for g in games}
    for rating_list in lists.values():
        rating_list.club = club
    scored = _scored(games, lists, player_id) if games else {}
    rows = [_meeting(game, player_id, scored) for game in games]
    return HeadToHead(player, opponent, rows)


_Scored = tuple[int | None, int | None, GameExplanation | None]


def _meeting(game: Game, player_id: int, scored: dict[int, _Scored]) -> MeetingRow:
    """One game from the first player's side: scores, the ratings in force, and the
    expected score where the game counted."""
    white = game.white_id == player_id
    white_score, black_score, played = GAME_RESULTS[game.result]
    score = SCORES[white_score if white else black_score]
    other_score = SCORES[black_score if white else white_score]
    # A game deleted or moved between this read and the event's (the once-per-event
    # cap reads the player's event again) is shown unscored rather than failing.
    own, other, line = scored.get(game.pk, (None, None, None))
    expected = None
    if line is not None and line.counted and line.expected is not None:
        expected = line.expected
    return MeetingRow(
        game,
        "white" if white else "black",
        score,
        other_score,
        played,
        own if line is None or line.own is None else line.own,
        other,
        expected,
    )


def _scored(games: list[Game], lists: dict[int, RatingList], player_id: int) -> dict[int, _Scored]:
    """Game id -> the player's and the opponent's ratings in force for the game, and what
    the list's rating system says of it for the player (own rating, expected score)."""
    periods = {g.period_id: g.period for g in games}
    starts = {
        period_id: tournament_starts(g for g in games if g.period_id == period_id)
        for period_id in periods
    }
    linked = {
        period_id: lists[period.rating_list_id].rating_system.linked_events(
            lists[period.rating_list_id].settings(), period.month, starts[period_id]
        )
        for period_id, period in periods.items()
    }
    by_period = _games_to_score(games, linked, player_id)

    def month_of(game: Game) -> tuple[int, datetime.date]:
        began = game.tournament.start_date if game.tournament is not None else None
        return (game.rating_list_id, view_month(periods[game.period_id].month, began))

    in_force = ratings_in_force(
        lists=lists,
        months=[
            *((p.rating_list_id, p.month) for p in periods.values()),
            *(month_of(g) for period_games in by_period.values() for g in period_games),
        ],
        players={player_id} | {_opponent(g, player_id) for gs in by_period.values() for g in gs},
    )
    found: dict[int, _Scored] = {}
    for period_id, period_games in by_period.items():
        period = periods[period_id]
        views = [
            (
                in_force[month_of(game)].get(player_id),
                in_force[month_of(game)].get(_opponent(game, player_id)),
            )
            for game in period_games
        ]
        explained = _explained(
            lists[period.rating_list_id],
            period.month,
            starts[period_id],
            in_force[(period.rating_list_id, period.month)],
            list(zip(period_games, views, strict=True)),
            player_id,
        )
        for game, (own, other), line in zip(period_games, views, explained, strict=True):
            found[game.pk] = (own, other, line)
    return found


def _explained(
    rating_list: RatingList,
    month: datetime.date,
    starts: dict[int, datetime.date],
    at_start: Mapping[int, int | None],
    games: list[tuple[Game, tuple[int | None, int | None]]],
    player_id: int,
) -> tuple[GameExplanation | None, ...]:
    """What the list's rating system says of one period's ``games`` (each with the
    player's and the opponent's ratings in force for it) for the player; ``at_start``:
    the ratings in force at the period's start."""
    facts = PeriodFacts(
        settings=rating_list.settings(),
        month=month,
        tournament_starts=starts,
        own_start=at_start.get(player_id),
        # No K: what a game means before the period's change (the expected score).
        k_factor=None,
    )
    return rating_list.rating_system.explain(
        facts,
        [
            GameFacts(
                own,
                other,
                _score(game, player_id),
                game.rated and GAME_RESULTS[game.result][2],
                game.tournament_id,
                # The period-start figures are the ratings in force then.
                at_start.get(_opponent(game, player_id)),
            )
            for game, (own, other) in games
        ],
    ).lines


def _score(game: Game, player_id: int) -> Fraction:
    white_score, black_score, _ = GAME_RESULTS[game.result]
    return SCORES[white_score if game.white_id == player_id else black_score]


def _opponent(game: Game, player_id: int) -> int:
    return game.white_id if game.black_id == player_id else game.black_id


def _games_to_score(
    games: list[Game], linked: dict[int, frozenset[int | None]], player_id: int
) -> dict[int, list[Game]]:
    """Period id -> the player's games that decide how the pair's games of the period are
    scored: the pair's games themselves and, in the events whose games the list's system
    scores together (``RatingSystem.linked_events``: FIDE's 400-point cap helps a player
    in one game per event, January 2022 to February 2024), all the player's games of
    that event, in the close's order (of equal differences the first keeps the cap). One
    query, only where that applies."""
    events = {
        (g.period_id, g.tournament_id) for g in games if g.tournament_id in linked[g.period_id]
    }
    by_period: dict[int, list[Game]] = defaultdict(list)
    for game in games:
        if (game.period_id, game.tournament_id) not in events:
            by_period[game.period_id].append(game)
    if not events:
        return by_period
    for game in (
        games_of_player(player=player_id)
        .filter(period_id__in={period_id for period_id, _ in events})
        .select_related("tournament")
        .only(*_EVENT_FIELDS)
        .order_by("date", "round", "id")
    ):
        if (game.period_id, game.tournament_id) in events:
            by_period[game.period_id].append(game)
    return by_period
