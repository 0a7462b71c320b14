"""Rating systems: how a list turns a period's games into new ratings, and what the site
shows of it.

A list names its system (``RatingList.system``); every floor above asks the system's entry
here instead of naming it. The close reads the period's inputs, asks for the plan and
writes it, with the state the system keeps beside the rating (``state_fields``; stored as
JSON by the names declared here). The pages ask for each game's explanation
(``explain``) and show the period row's ``period_columns``; the site renders the system's
template fragments, found by its name (``templates/systems/<name>/``, else
``systems/default/``). Adding a system: its module here, an entry in ``SYSTEMS``, a
migration for the list's choices, its template fragments if the defaults do not fit
(docs/developers/howto-rating-system.md).
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from players.rating.period import (
    ListSettings,
    PeriodInputs,
    PeriodPlan,
    PlannedChange,
    PlayerStart,
    UnknownPlayers,
    unknown_players,
)
from players.rating.systems import elo, elo_explain, elo_progress, glicko2
from players.rating.systems.explain import (
    Column,
    GameFacts,
    PeriodExplanation,
    PeriodFacts,
    State,
    StateError,
    StateField,
    unexplained,
)
from players.rating.types import FirstRating

Progress = Callable[[int], None]
Explain = Callable[[PeriodFacts, Sequence[GameFacts]], PeriodExplanation]
# A player's start with the state the close read (by the declared names).
WithState = Callable[[PlayerStart, State | None], PlayerStart]
# A planned change's state before and after the period (by the declared names).
StatesOf = Callable[[PlannedChange], tuple[State | None, State | None]]
# The same as the declared figures' values in order (None: no state), for the write step
# (a system may leave it out: the write then reads ``StatesOf``'s mappings).
StateValues = Callable[
    [PlannedChange], tuple[tuple[float | None, ...] | None, tuple[float | None, ...] | None]
]
# A new player's state as a club enters it (by the declared names) -> the state kept;
# StateError names a figure it refuses.
EnteredState = Callable[[Mapping[str, object], ListSettings], State]

# An unrated player's pool (a planned change's pool_after) -> how far they are from a
# first rating (the live list's progress).
# The last argument: this period's tournament events (``t<id>``) -> their start.
FirstRatingProgress = Callable[
    [ListSettings, datetime.date, Sequence[Mapping[str, Any]], Mapping[str, datetime.date]],
    FirstRating,
]

LinkedEvents = Callable[
    [ListSettings, datetime.date, Mapping[int, datetime.date]], frozenset[int | None]
]

K_COLUMN = Column("k_factor", "K")


def _start_with_state(start: PlayerStart, state: State | None) -> PlayerStart:
    return start._replace(state=state)


def _planned_states(change: PlannedChange) -> tuple[State | None, State | None]:
    return change.state_before, change.state_after


def _no_linked_events(
    settings: ListSettings, month: datetime.date, starts: Mapping[int, datetime.date]
) -> frozenset[int | None]:
    return frozenset()


def _no_spread(state: State | None) -> float | None:
    return None


def _nothing_entered(given: Mapping[str, object], settings: ListSettings) -> State:
    for name, value in given.items():
        if value is not None:
            raise StateError(name, "This list's rating system does not keep it.")
    return {}


@dataclass(frozen=True, slots=True)
class RatingSystem:
    name: str
    label: str
    # Inputs -> plan; pure. ``progress`` is told how many players are done.
    plan: Callable[..., PeriodPlan]
    # What a player's period meant, game by game (the pages' game lines).
    explain: Explain = unexplained
    # The figures the system keeps beside the rating (none: the rating alone).
    state_fields: tuple[StateField, ...] = ()
    # The period row's figures beside before, change, after, games, score and expected.
    period_columns: tuple[Column, ...] = ()
    # The list's K (FIDE 8.3.3 or the list's own): K history, K overrides, K columns.
    uses_k: bool = False
    # FIDE's rules by date (the list's fide_rules) and the kind's FIDE preset.
    follows_fide: bool = False
    # Ratings on FIDE's Elo scale: a FIDE rating list may seed the list's players.
    takes_fide_ratings: bool = False
    # The group of the list's settings the system reads ("glicko": tau and RD bounds).
    settings_group: str = ""
    # The preset a list created for the system starts from (None: the kind's FIDE preset).
    preset: str | None = None
    # Where a player entered without a rating starts (None: unrated until a first rating).
    start_rating: int | None = None
    # How the state reaches the plan and back (default: PlayerStart.state, PlannedChange's
    # state_before and state_after).
    with_state: WithState = _start_with_state
    states_of: StatesOf = _planned_states
    state_values: StateValues | None = None
    entered_state: EnteredState = _nothing_entered
    # The events of a period whose games are explained together (FIDE 2022-2024: the cap
    # in one game per event); a page reads the player's whole event for those.
    linked_events: LinkedEvents = _no_linked_events
    # The spread shown around a rating (Glicko-2: two RDs, about 95%); None: none.
    spread_of: Callable[[State | None], float | None] = _no_spread
    # Players unrated until a first rating (the Elo family): how far a pool is from one
    # (None: the system rates everyone from the start).
    first_rating_progress: FirstRatingProgress | None = None
    # A player's plan depends only on their own games and their opponents' starts, never
    # on how an opponent's period goes: the live figures then plan again only the players
    # of the games that changed (players.rating.replan), else the whole period each time.
    plans_players_apart: bool = False

    def plan_period(self, inputs: PeriodInputs, *, progress: Progress | None = None) -> PeriodPlan:
        """The plan; a period whose games name a player the list does not have raises
        UnknownPlayers (naming them) from every system, not a KeyError from deep inside."""
        try:
            return self.plan(inputs, progress=progress)
        except KeyError:
            # Looked for only once a plan has failed: two million set adds on a big month.
            unknown = unknown_players(inputs)
            if unknown:
                raise UnknownPlayers(unknown) from None
            raise

    @property
    def keeps_state(self) -> bool:
        return bool(self.state_fields)

    @property
    def state_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.state_fields)

    def state_value(self, state: Mapping[str, float] | None, name: str) -> float | None:
        """One declared figure of a stored state (None: not kept, or not set yet)."""
        if state is None or name not in self.state_names:
            return None
        return state.get(name)


def _elo_with_arrays(inputs: PeriodInputs, *, progress: Progress | None = None) -> PeriodPlan:
    # numpy only here, on first use: importing the registry does not load it.
    from players.rating.period_sums import table_sums
    from players.rating.systems.elo_arrays import finish

    return elo.plan_period(inputs, array_sums=table_sums, array_finish=finish, progress=progress)


def _glicko2_with_arrays(inputs: PeriodInputs, *, progress: Progress | None = None) -> PeriodPlan:
    # numpy only here, on first use, as for the Elo family; glicko2.plan_period is the
    # scalar reference the arrays are held equal to (tests/rating/test_glicko2_arrays.py).
    from players.rating.systems.glicko2_arrays import plan_period

    return plan_period(inputs, progress=progress)


SYSTEMS: dict[str, RatingSystem] = {
    # FIDE's Rating Regulations and a club's own Elo list differ only in the list's rules
    # (expected-score method, 400-point rule, K policy, floor, first ratings).
    "fide": RatingSystem(
        "fide",
        "FIDE",
        _elo_with_arrays,
        explain=elo_explain.explain_period,
        linked_events=elo_explain.linked_events,
        period_columns=(K_COLUMN,),
        uses_k=True,
        follows_fide=True,
        takes_fide_ratings=True,
        first_rating_progress=elo_progress.first_rating_progress,
        plans_players_apart=True,
    ),
    "elo": RatingSystem(
        "elo",
        "Elo",
        _elo_with_arrays,
        explain=elo_explain.explain_period,
        linked_events=elo_explain.linked_events,
        period_columns=(K_COLUMN,),
        uses_k=True,
        takes_fide_ratings=True,
        preset="Club Elo",
        first_rating_progress=elo_progress.first_rating_progress,
        plans_players_apart=True,
    ),
    # Glickman's Glicko-2: r, RD and volatility; the list's settings hold tau and the RD
    # bounds (ListSettings.glicko).
    "glicko2": RatingSystem(
        "glicko2",
        "Glicko-2",
        _glicko2_with_arrays,
        explain=glicko2.explain_period,
        state_fields=glicko2.STATE_FIELDS,
        period_columns=glicko2.PERIOD_COLUMNS,
        settings_group="glicko",
        preset="Glicko-2",
        start_rating=glicko2.START_RATING,
        with_state=glicko2.with_state,
        states_of=glicko2.states_of,
        state_values=glicko2.state_values,
        entered_state=glicko2.entered_state,
        spread_of=glicko2.spread_of,
        plans_players_apart=True,
    ),
}


def system_for(name: str) -> RatingSystem:
    try:
        return SYSTEMS[name]
    except KeyError:
        raise ValueError(f"unknown rating system {name!r}") from None
