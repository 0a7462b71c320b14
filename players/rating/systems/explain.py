"""What a rating system tells the pages, on plain values: the state it keeps beside the
rating, the columns of a period row, and what each of a player's games meant.

The close publishes a period's figures; a page shows them again, game by game, and asks
the list's system why (``RatingSystem.explain``): the expected score, the counted
difference or the system's own figure, the change and the reason, as the close decided
them. Nothing here knows Django: the site feeds these functions the rows it read.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple

from players.rating.period import ListSettings
from players.rating.types import Number

# A player's state beside the rating, by the names its system declares (Glicko-2: rd,
# volatility); None where the system keeps none or nothing was set yet.
State = Mapping[str, float]


@dataclass(frozen=True, slots=True)
class StateField:
    """One figure a system keeps beside the rating (``RatingSystem.state_fields``)."""

    name: str
    # English, as the engine writes it; the site translates it.
    label: str
    # Decimals the list publishes it with.
    places: int
    # Published on the list beside the rating (a column of the list's export).
    listed: bool = False


@dataclass(frozen=True, slots=True)
class Column:
    """A figure of a period row: ``source`` is a RatingChange field ("k_factor") or a
    state field after the period ("state.rd")."""

    source: str
    label: str
    places: int = 0

    @property
    def state_field(self) -> str | None:
        return self.source.removeprefix("state.") if self.source.startswith("state.") else None


class GameFacts(NamedTuple):
    """One of a player's games in a closed period, from the player's side."""

    # Both ratings in force for the game (the list published before its tournament's
    # start; before its own month outside a tournament). None: unrated then.
    own: int | None
    opponent: int | None
    score: Fraction
    # Played over the board and rated.
    played: bool
    # None: outside tournaments.
    tournament: int | None
    # The opponent's rating and state at the period's start, as the close read them (the
    # systems that score every game with the period-start list: Glicko-2).
    opponent_start: int | None = None
    opponent_state: State | None = None


@dataclass(frozen=True, slots=True)
class PeriodFacts:
    """What the close published for the player in the period, and the list's rules."""

    settings: ListSettings
    month: datetime.date
    # The period's tournaments -> their start dates (FIDE's rules by date).
    tournament_starts: Mapping[int, datetime.date]
    # The player's rating in force at the period's start (None: unrated).
    own_start: int | None
    # The K the close recorded (None: no K, or toward a first rating).
    k_factor: int | None
    state_before: State | None = None
    state_after: State | None = None


@dataclass(frozen=True, slots=True)
class GameExplanation:
    """What one game meant for the player: the expected score, the figure the system
    scores it by (the counted difference, or the system's own), its share of the change,
    and the reason (an engine sentence; "" when it counted as usual)."""

    counted: bool
    expected: Number | None = None
    figure: Number | None = None
    change: Number | None = None
    note: str = ""
    # The own rating the game was scored with (None: toward a first rating).
    own: int | None = None


@dataclass(frozen=True, slots=True)
class PeriodExplanation:
    # One per game, in the order given; None: the game is not explained on its own.
    lines: tuple[GameExplanation | None, ...]
    # The games are pooled (a first rating, FIDE 8.2), not scored one by one.
    pooled: bool = False
    # The lines' total, rounded as the list publishes, to check against the period's.
    total: int | None = None
    # Engine sentences about the period as a whole.
    notes: tuple[str, ...] = field(default_factory=tuple)


class StateError(ValueError):
    """A state a club entered that the system refuses: ``field`` names the figure."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def unexplained(facts: PeriodFacts, games: Sequence[GameFacts]) -> PeriodExplanation:
    """A system that says nothing per game."""
    return PeriodExplanation(tuple(None for _ in games))
