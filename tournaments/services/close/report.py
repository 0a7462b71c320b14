"""What a close or a replay says it did: the run's summary and its report text."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from players.rating.adjustment import RAISED_TO_STANDARD_CLOSE
from players.rating.months import month_label
from players.rating.period import PeriodPlan


def close_summary(plan: PeriodPlan) -> dict[str, Any]:
    """The run's summary of a close (each count one pass over the plan's 200,000 rows at
    most: the report below reads it instead of counting again)."""
    return {
        "period": plan.period,
        "games": plan.games_count,
        "players": len(plan.changes),
        "players_changed": plan.players_changed,
        "events": plan.counts_by_event(),
        "k_changes": len(plan.k_changes),
        "adjusted": plan.players_adjusted,
        "rules": plan.rules,
    }


def close_report(summary: dict[str, Any]) -> str:
    """The run's report of a close, from its ``close_summary``."""
    events = ", ".join(f"{count} {event}" for event, count in sorted(summary["events"].items()))
    adjusted = ""
    if summary["adjusted"] and summary["period"] == month_label(RAISED_TO_STANDARD_CLOSE):
        adjusted = (
            f" FIDE's one-off of 1 October 2022 raised {summary['adjusted']} ratings to 100 "
            "below the standard rating."
        )
    elif summary["adjusted"]:
        adjusted = (
            f" FIDE's adjustment of 1 March 2024 raised {summary['adjusted']} ratings below 2000."
        )
    return (
        f"Closed {summary['period']}: {summary['games']} games, {summary['players']} players "
        f"({events}); {summary['players_changed']} ratings changed; "
        f"{summary['k_changes']} K changes.{adjusted} Rules: {summary['rules']}."
    )


@dataclass
class ReplayReport:
    """Every player whose published rating a replay changed: player, period, old -> new."""

    names: dict[int, str]
    lines: list[str] = field(default_factory=list)
    changed_players: set[int] = field(default_factory=set)
    per_period: dict[str, int] = field(default_factory=dict)
    periods: list[str] = field(default_factory=list)
    # Period label -> the rules it was rated under.
    rules: dict[str, str] = field(default_factory=dict)

    def add(self, label: str, replayed: tuple[dict[int, int | None], PeriodPlan]) -> None:
        old, plan = replayed
        self.periods.append(label)
        count = 0
        for change in plan.changes:
            before: object = old.get(change.player_id, "absent")
            if before != change.rating_after:
                count += 1
                self.changed_players.add(change.player_id)
                self.lines.append(
                    f"{self.names.get(change.player_id, change.player_id)} {label}: "
                    f"{_shown(before)} -> {_shown(change.rating_after)}"
                )
        self.per_period[label] = count
        self.rules[label] = plan.rules

    def summary(self) -> dict[str, Any]:
        return {
            "periods": self.per_period,
            "players_changed": len(self.changed_players),
            "rules": self.rules,
        }

    def text(self) -> str:
        head = (
            f"Replayed {', '.join(self.periods)}: "
            f"{len(self.changed_players)} players' published ratings changed."
        )
        return "\n".join([head, *self.lines])


def _shown(rating: object) -> str:
    if rating == "absent":
        return "(not listed)"
    return "unrated" if rating is None else str(rating)
