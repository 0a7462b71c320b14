"""Read helper for the head-to-head page: every game between two players of a club, the
score, and the expected score each game carried.

The ratings are those each game was scored with (``ratings_in_force`` at the game's
``view_month``, the close's rule); the expected score is the engine's (``score_game``:
the list's table or formula and its 400-point rule). Three to five queries whatever the
number of games.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from fractions import Fraction

from django.db.models import Q
from django.utils.translation import gettext

from players import rating as engine
from players.errors import NotFoundError
from players.models import Club, Player, RatingList
from players.rating.period import GAME_RESULTS, SCORES, view_month
from players.selectors import ratings_in_force
from tournaments.models import Game


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


def _expected(value: int | float | None) -> Fraction | float | None:
    # The table gives hundredths (an int), the formula a float.
    if value is None:
        return None
    return Fraction(value, 100) if isinstance(value, int) else value


def head_to_head(*, club: Club, player_id: int, opponent_id: int) -> HeadToHead:
    """Both players of ``club`` (NotFoundError otherwise) and their games, oldest first."""
    found = {p.pk: p for p in Player.objects.filter(club=club, pk__in=[player_id, opponent_id])}
    if player_id == opponent_id or len(found) < 2:
        raise NotFoundError(gettext("%(club)s has no such pair of players.") % {"club": club.name})
    player, opponent = found[player_id], found[opponent_id]
    games = list(
        Game.objects.filter(
            Q(white_id=player_id, black_id=opponent_id)
            | Q(white_id=opponent_id, black_id=player_id),
            club=club,
        )
        .select_related("tournament", "period", "rating_list")
        .order_by("date", "round", "id")
    )
    lists: dict[int, RatingList] = {g.rating_list_id: g.rating_list for g in games}
    for rating_list in lists.values():
        rating_list.club = club

    def month_of(game: Game) -> tuple[int, datetime.date]:
        began = game.tournament.start_date if game.tournament is not None else None
        return (game.rating_list_id, view_month(game.period.month, began))

    in_force = (
        ratings_in_force(
            lists=lists,
            months=[month_of(g) for g in games],
            players=[player_id, opponent_id],
        )
        if games
        else {}
    )
    rows = []
    for game in games:
        white = game.white_id == player_id
        white_score, black_score, played = GAME_RESULTS[game.result]
        score = SCORES[white_score if white else black_score]
        other_score = SCORES[black_score if white else white_score]
        ratings = in_force[month_of(game)]
        own, other = ratings.get(player_id), ratings.get(opponent_id)
        expected = None
        if own is not None and game.rated:
            rules = lists[game.rating_list_id].rules()
            expected = _expected(engine.score_game(own, other, score, played, rules)[2])
        rows.append(
            MeetingRow(
                game,
                "white" if white else "black",
                score,
                other_score,
                played,
                own,
                other,
                expected,
            )
        )
    return HeadToHead(player, opponent, rows)
