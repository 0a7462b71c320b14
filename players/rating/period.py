"""A period's close as plain values: what a rating system reads (``PeriodInputs``) and what
it plans (``PeriodPlan``). No Django: the tracker reads these from the database
(tournaments/services/close/read.py) and writes the plan back (.../write.py); a rating
system (``players.rating.systems``) turns one into the other.

Records are NamedTuples: immutable and built by keyword, and cheap to make by the hundred
thousand (a frozen dataclass sets each field through ``object.__setattr__``).
"""

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import repeat
from operator import attrgetter, ne
from typing import Any, NamedTuple, TypeVar

from players.rating.fide_rules import FideRuleSet, rule_set_for
from players.rating.glicko2 import Glicko2Settings
from players.rating.i18n import gettext_noop
from players.rating.kinds import ListKind
from players.rating.months import add_months, month_label
from players.rating.types import (
    ExpectedMethod,
    KChangeReason,
    KFactor,
    Labelled,
    Number,
    RatingRules,
)

# FIDE rapid and blitz before October 2022: one K for everyone (fide_rules).
FAST_K_BEFORE_2022 = 20
# FIDE 8.2: games toward a first rating may be pooled over at most 26 months.
POOL_MONTHS = 26


class GameResult(Labelled):
    """A game's result as recorded (Game.result)."""

    WHITE_WINS = "1-0", "1-0"
    BLACK_WINS = "0-1", "0-1"
    DRAW = "1/2-1/2", "1/2-1/2"
    WHITE_FORFEIT_WIN = "+-", gettext_noop("+- (white wins by forfeit)")
    BLACK_FORFEIT_WIN = "-+", gettext_noop("-+ (black wins by forfeit)")
    DOUBLE_FORFEIT = "--", gettext_noop("-- (both forfeit)")


# A game's result code -> white's score, black's score, and whether it was played over the
# board; forfeits are recorded but never rated (FIDE 8.1: unplayed games are not rated).
GAME_RESULTS: dict[str, tuple[str, str, bool]] = {
    GameResult.WHITE_WINS.value: ("1", "0", True),
    GameResult.BLACK_WINS.value: ("0", "1", True),
    GameResult.DRAW.value: ("1/2", "1/2", True),
    GameResult.WHITE_FORFEIT_WIN.value: ("1", "0", False),
    GameResult.BLACK_FORFEIT_WIN.value: ("0", "1", False),
    GameResult.DOUBLE_FORFEIT.value: ("0", "0", False),
}
SCORES: dict[str, Fraction] = {"1": Fraction(1), "1/2": Fraction(1, 2), "0": Fraction(0)}


class PeriodEvent(Labelled):
    """What a period did to a player on a list (RatingChange.event)."""

    RATED = "rated", gettext_noop("Rated")
    FIRST_RATING = "first_rating", gettext_noop("First rating")
    BELOW_FLOOR = "below_floor", gettext_noop("Dropped below the floor")
    NOT_YET_RATED = "not_yet_rated", gettext_noop("Not yet rated")
    NO_RATED_GAMES = "no_rated_games", gettext_noop("No rated games")


@dataclass(frozen=True, slots=True, kw_only=True)
class ListSettings:
    """A list's rules as a rating system needs them."""

    system: str
    kind: ListKind
    method: ExpectedMethod
    apply_400_rule: bool
    # None: K by FIDE 8.3.3; otherwise the list's one K for everyone.
    fixed_k: int | None
    floor: int | None
    adjust_march_2024: bool
    # Glicko-2 lists: tau and the RD bounds (None on the Elo family's lists).
    glicko: Glicko2Settings | None = None
    # FIDE lists: FIDE's rules by date (fide_rules.BY_DATE) or one rule set's name; None
    # on other lists (their own rules, today's FIDE rules where they use FIDE's).
    fide_rules: str | None = None
    # The rule set of one month (``for_month``), which the plan uses.
    rule_set: FideRuleSet | None = None

    def rules(self) -> RatingRules:
        dated = self.rule_set
        if dated is None:
            return RatingRules(
                list_kind=self.kind, method=self.method, apply_400_rule=self.apply_400_rule
            )
        return RatingRules(
            list_kind=self.kind,
            method=self.method,
            apply_400_rule=self.apply_400_rule,
            exception_2650=dated.exception_2650,
            fast_gap=dated.fast_gap,
            cap_700=dated.cap_700,
            # FIDE's rapid and blitz regulations keep the cap in every game.
            cap_once_per_event=dated.cap_once_per_event and not self.kind.fast,
        )

    def rules_name(self) -> str:
        """The rules these settings rate under, as runs and pages name them: "FIDE
        2024-03" (a month's FIDE rule set), "Glicko-2 (tau 0.5)", else the system."""
        if self.rule_set is not None:
            return f"FIDE {self.rule_set.name}"
        if self.glicko is not None:
            return f"Glicko-2 (tau {self.glicko.tau:g})"
        return self.system

    def for_month(self, day: datetime.date) -> ListSettings:
        """The settings with the FIDE rule set in force on ``day`` (the list's choice):
        its floor (on a list with a floor) and, on rapid and blitz before October 2022, one
        K of 20 for everyone (on a list with FIDE's K)."""
        if self.fide_rules is None:
            return self
        dated = rule_set_for(self.fide_rules, day)
        fast_k = dated.fast_k_20 and self.kind.fast
        return replace(
            self,
            rule_set=dated,
            floor=None if self.floor is None else dated.floor,
            fixed_k=FAST_K_BEFORE_2022 if fast_k and self.fixed_k is None else self.fixed_k,
        )


class PlayerStart(NamedTuple):
    """A player's state at the start of a period, as the close reads it."""

    rating: int | None
    rated_games: int
    reached_2400: bool
    pool: list[dict[str, Any]]
    birth_year: int | None
    # The officer's K override in force for this period, and for the next one.
    k_override: int | None
    k_override_next: int | None = None
    # None: the player's first period on the list.
    last_active: datetime.date | None = None
    # Glicko-2 lists: RD and volatility at the start (None elsewhere, or not yet set).
    rd: float | None = None
    volatility: float | None = None
    # Another system's state at the start, by the names it declares
    # (``RatingSystem.state_fields``; None: none kept, or not set yet).
    state: Mapping[str, float] | None = None


class ArrayColumn(Sequence[Any]):
    """One column of a period's games as the close's read hands it over: an array (numpy's,
    split from the bytes the server packed) that becomes a Python list only on first use.

    The array sums (``period_sums``) take ``array`` as it is: a million games made into
    Python objects and back into arrays was a tenth of a federation-sized close. The
    array's values by column: player ids (int64), the result's position in
    ``GAME_RESULTS``, rated (bool), the tournament's id (0: none). ``to_list`` turns any
    part of it into the column's Python values (the results' codes into ``"1-0"``, a
    tournament 0 into None); ``take`` gives the values at some positions only, for the few
    games the arrays leave to a loop. No numpy here: the pages import this module.
    """

    __slots__ = ("_items", "_to_list", "array")

    def __init__(self, array: Any, to_list: Callable[[Any], list[Any]] | None = None) -> None:
        self.array = array
        self._to_list = to_list
        self._items: list[Any] | None = None

    def _converted(self, array: Any) -> list[Any]:
        return array.tolist() if self._to_list is None else self._to_list(array)

    def items(self) -> list[Any]:
        """The column as a Python list, made once."""
        if self._items is None:
            self._items = self._converted(self.array)
        return self._items

    def take(self, positions: Sequence[int]) -> list[Any]:
        """The values at ``positions`` (a list of them), without the whole list."""
        return self._converted(self.array[list(positions)]) if len(positions) else []

    def __len__(self) -> int:
        return len(self.array)

    def __getitem__(self, index: Any) -> Any:
        return self.items()[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.items())

    def __contains__(self, value: object) -> bool:
        return value in self.items()

    def count(self, value: Any) -> int:
        return self.items().count(value)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ArrayColumn):
            return self.items() == other.items()
        return isinstance(other, Sequence) and self.items() == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        """numpy's view of the column's values (``np.asarray(column)``): the array itself
        where it holds them as they are, else an array of the list."""
        import numpy as np  # only reached from numpy, which is loaded by then

        values = self.array if self._to_list is None else self.items()
        return np.asarray(values, dtype=dtype)

    def __repr__(self) -> str:
        return f"ArrayColumn({self.items()!r})"


def column_array(column: Sequence[Any]) -> Any | None:
    """The array an ``ArrayColumn`` holds (see its values by column), else None."""
    return column.array if isinstance(column, ArrayColumn) else None


class PeriodGames(NamedTuple):
    """A period's games, one sequence per column (the database hands them over as
    columns, and the arrays want them so)."""

    white: Sequence[int]
    black: Sequence[int]
    result: Sequence[str]
    rated: Sequence[bool]
    tournament: Sequence[int | None]


@dataclass(frozen=True, slots=True, kw_only=True)
class PeriodInputs:
    """Everything a rating system needs to plan one period of one list."""

    settings: ListSettings
    month: datetime.date
    starts: Mapping[int, PlayerStart]
    # Player id -> the rating in force at the period's start (the ratings a game is scored
    # with; on a fixed-start list an unrated player counts at the starting rating).
    start_ratings: Mapping[int, int | None]
    games: PeriodGames
    # Tournament id -> (start date, end date), for the period's tournaments.
    tournaments: Mapping[int, tuple[datetime.date, datetime.date]]
    # The start month of a tournament begun before the period -> player id -> the rating
    # in force then (FIDE 8.2.4: a tournament is rated with the list at its start).
    ratings_at: Mapping[datetime.date, Mapping[int, int | None]]
    # Rapid and blitz: player id -> the standard rating in force at the period's start, for
    # the players unrated on the list who count as rated with it (their K depends on it).
    standard_ratings: Mapping[int, int] = field(default_factory=dict)
    # Rapid and blitz, the close that publishes the lists of 1 October 2022 under FIDE's
    # rules by date: player id -> the standard rating on that day's standard list, for
    # FIDE's one-off raise to 100 below it (adjustment.october_2022_adjustment).
    standard_on_next_list: Mapping[int, int] = field(default_factory=dict)


class UnknownPlayers(ValueError):
    """A period's games name players the list does not have (no start for them): a plan
    refuses the period rather than guess a state for them."""

    def __init__(self, player_ids: Sequence[int]) -> None:
        self.player_ids = tuple(player_ids)
        super().__init__(f"players not on the list play in the period: {list(self.player_ids)}")


def unknown_players(inputs: PeriodInputs) -> list[int]:
    """The players of the period's games without a start on the list, in id order."""
    starts = inputs.starts
    named = set(inputs.games.white)
    named.update(inputs.games.black)
    return sorted(pid for pid in named if pid not in starts)


class Uncertainty(NamedTuple):
    """A Glicko-2 player's RD and volatility before and after a period, as published."""

    rd_before: float
    rd_after: float
    volatility_before: float
    volatility_after: float


class PlannedChange(NamedTuple):
    """What the close writes for one player: one RatingChange row, and the state the next
    period starts from."""

    player_id: int
    rating_before: int | None
    rating_after: int | None
    change: int | None
    change_unrounded: Number | None
    k_factor: int | None
    k_reason: str
    games: int
    score: Fraction
    expected: Number
    event: PeriodEvent
    rated_games_after: int
    reached_2400_after: bool
    pool_after: list[dict[str, Any]]
    # None: the system has no K (Glicko-2).
    k_next: KFactor | None
    last_active_month: datetime.date | None
    # FIDE's one-off adjustment (1 March 2024; 1 October 2022 on rapid and blitz),
    # already inside rating_after.
    adjustment: int = 0
    # Glicko-2 lists: RD and volatility before and after (None on the Elo family's).
    uncertainty: Uncertainty | None = None
    # Another system's state before and after, by the names it declares.
    state_before: Mapping[str, float] | None = None
    state_after: Mapping[str, float] | None = None

    @property
    def changed(self) -> bool:
        return self.rating_after != self.rating_before


class PlannedKChange(NamedTuple):
    player_id: int
    old: KFactor | None
    new: KFactor
    reason: KChangeReason


Record = TypeVar("Record", bound=tuple[Any, ...])


def records_from_columns(
    record: type[Record], count: int, /, **columns: Iterable[Any]
) -> list[Record]:
    """``count`` records of the NamedTuple ``record`` from one column per field, each named
    by its field (a field left out takes its default in every record; one without a
    default must be named). The records are made in C (``zip`` and ``tuple.__new__``, as
    NamedTuple's own ``_make``), without a call per record: the array finish builds
    200,000 records so, and by name, as every record is built (a column given to the
    wrong field would be one figure written into another's column)."""
    fields: tuple[str, ...] = record._fields  # type: ignore[attr-defined]
    unknown = sorted(columns.keys() - set(fields))
    if unknown:
        raise TypeError(f"{record.__name__} has no field {unknown[0]!r}")
    defaults: dict[str, Any] = record._field_defaults  # type: ignore[attr-defined]
    ordered: list[Iterable[Any]] = []
    for name in fields:
        if name in columns:
            ordered.append(columns[name])
        elif name in defaults:
            ordered.append(repeat(defaults[name], count))
        else:
            raise TypeError(f"{record.__name__} needs {name!r}")
    return list(map(tuple.__new__, repeat(record, count), zip(*ordered, strict=True)))


_RATING_AFTER = attrgetter("rating_after")
_RATING_BEFORE = attrgetter("rating_before")
_ADJUSTMENT = attrgetter("adjustment")
_EVENT = attrgetter("event")


@dataclass(frozen=True, slots=True, kw_only=True)
class PeriodPlan:
    """Exactly what closing a period writes; a preview shows it unwritten."""

    month: datetime.date
    games_count: int
    changes: tuple[PlannedChange, ...]
    k_changes: tuple[PlannedKChange, ...]
    # The rules the period was rated under: a FIDE rule set's name ("2024-03"; the games
    # of a tournament begun under another keep theirs), else the system's name.
    rules: str = ""

    @property
    def period(self) -> str:
        return month_label(self.month)

    @property
    def next_month(self) -> datetime.date:
        return add_months(self.month, 1)

    # Each count below is one pass in C over a federation's 200,000 changes (a generator
    # over them, with a property call per change, was a tenth of a second each).
    @property
    def players_changed(self) -> int:
        changes = self.changes
        return sum(map(ne, map(_RATING_AFTER, changes), map(_RATING_BEFORE, changes)))

    @property
    def players_adjusted(self) -> int:
        return sum(map(bool, map(_ADJUSTMENT, self.changes)))

    def counts_by_event(self) -> dict[str, int]:
        counts = Counter(map(_EVENT, self.changes))
        return {str(event): count for event, count in counts.items()}


def view_month(month: datetime.date, tournament_start: datetime.date | None) -> datetime.date:
    """FIDE 8.2.4: the month whose list (the one published before it) scores a game of the
    period ``month``: its tournament's first month when the tournament began in an earlier
    month, else the period's own."""
    if tournament_start is not None:
        began = tournament_start.replace(day=1)
        if began < month:
            return began
    return month


def own_rating_for_game(own_start: int | None, own_view: int | None) -> int | None:
    """The player's own rating for a game's difference (FIDE 8.2.4, 8.3.1).

    ``own_start``: the player's rating in force at the period's start; ``own_view``: at
    the start of the game's tournament (``view_month``). None: the player is unrated at
    the period's start and the game counts toward a first rating. A player rated since
    the tournament began (``own_view`` None) is unrated for the opponents but uses their
    period-start rating themselves; otherwise the rating at the tournament's start.
    """
    if own_start is None or own_view is None:
        return own_start
    return own_view
