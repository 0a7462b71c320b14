"""A player's games as the pages and the live ratings show them: each game from the
player's side with the ratings in force for it, and the list's rating system's
explanation of each (``RatingSystem.explain``). One place for the closed periods' pages
(ratings_site/pages/games.py, tournaments.py, headtohead.py) and the live figures
(tournaments/services/live.py), which feed the system alike."""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from players.models import Player
from players.rating.period import GAME_RESULTS, SCORES
from players.rating.systems import RatingSystem
from players.rating.systems.explain import (
    GameExplanation,
    GameFacts,
    PeriodExplanation,
    PeriodFacts,
    State,
)
from tournaments.models import Game

# A player's start in a period as its close read it: the rating before and the state.
Start = tuple[int | None, State | None]


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
    line: GameExplanation | None = None


def game_detail(game: Game, player_id: int, in_force: Mapping[int, int | None]) -> GameDetail:
    """``game`` from ``player_id``'s side; ``in_force``: player id -> the rating in force
    for the game (the list published before its tournament's start)."""
    white = game.white_id == player_id
    opponent = game.black if white else game.white
    white_score, black_score, played = GAME_RESULTS[game.result]
    return GameDetail(
        game=game,
        opponent=opponent,
        colour="white" if white else "black",
        score=SCORES[white_score if white else black_score],
        played=played and game.rated,
        own_rating=in_force.get(player_id),
        opponent_rating=in_force.get(opponent.pk),
    )


def tournament_starts(games: Iterable[Game]) -> dict[int, datetime.date]:
    """The games' tournaments -> their start dates (a system may score a game by the rules
    in force when its tournament began: FIDE's)."""
    return {
        game.tournament_id: game.tournament.start_date
        for game in games
        if game.tournament is not None and game.tournament_id is not None
    }


def explain_details(
    system: RatingSystem,
    facts: PeriodFacts,
    details: Sequence[GameDetail],
    opponents: Mapping[int, Start],
) -> PeriodExplanation:
    """The system's explanation of the player's period; each detail gets its line.
    ``opponents``: their rating and state at the period's start (systems with a state)."""
    explained = system.explain(
        facts,
        [
            GameFacts(
                d.own_rating,
                d.opponent_rating,
                d.score,
                d.played,
                d.game.tournament_id,
                *opponents.get(d.opponent.pk, (None, None)),
            )
            for d in details
        ],
    )
    for detail, line in zip(details, explained.lines, strict=True):
        detail.line = line
    return explained
