"""Rating systems: how a list turns a period's games into new ratings.

A list names its system (``RatingList.system``); the close reads the period's inputs,
asks the list's system for the plan, and writes the plan. Adding a system means a new
module here with a ``RatingSystem``, an entry in ``SYSTEMS``, the list's choice of it, and
the RatingChange fields for anything new it records; the close's orchestration does not
change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from players.rating.period import PeriodInputs, PeriodPlan
from players.rating.systems import elo, glicko2

Progress = Callable[[int], None]


@dataclass(frozen=True, slots=True)
class RatingSystem:
    name: str
    label: str
    # Inputs -> plan; pure. ``progress`` is told how many players are done.
    plan: Callable[..., PeriodPlan]
    # The system keeps an uncertainty beside the rating (RD and volatility: its players'
    # starts carry them, its plan's changes record them, PlayerRating keeps them).
    uncertainty: bool = False

    def plan_period(self, inputs: PeriodInputs, *, progress: Progress | None = None) -> PeriodPlan:
        return self.plan(inputs, progress=progress)


def _elo_with_arrays(inputs: PeriodInputs, *, progress: Progress | None = None) -> PeriodPlan:
    # numpy only here, on first use: importing the registry does not load it.
    from players.rating.period_sums import table_sums
    from players.rating.systems.elo_arrays import finish

    return elo.plan_period(inputs, array_sums=table_sums, array_finish=finish, progress=progress)


SYSTEMS: dict[str, RatingSystem] = {
    # FIDE's Rating Regulations and a club's own Elo list differ only in the list's rules
    # (expected-score method, 400-point rule, K policy, floor, first ratings).
    "fide": RatingSystem("fide", "FIDE", _elo_with_arrays),
    "elo": RatingSystem("elo", "Elo", _elo_with_arrays),
    # Glickman's Glicko-2: r, RD and volatility; the list's settings hold tau and the RD
    # bounds (ListSettings.glicko).
    "glicko2": RatingSystem("glicko2", "Glicko-2", glicko2.plan_period, uncertainty=True),
}


def system_for(name: str) -> RatingSystem:
    try:
        return SYSTEMS[name]
    except KeyError:
        raise ValueError(f"unknown rating system {name!r}") from None
