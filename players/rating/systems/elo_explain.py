"""The Elo family's (FIDE and a club's Elo) explanation of a player's period, game by
game, as the close scored it: the own rating and rules of each game (``player_sides``:
FIDE's rules by the tournament's start, the 2022-2024 cap in one game per event), the K
the close recorded, and ``period_change``'s lines (expected score, counted difference,
change, the reason a game did not count).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from fractions import Fraction

from players.rating.change import period_change
from players.rating.differences import score_game
from players.rating.period import ListSettings
from players.rating.rounding import round_half_away
from players.rating.systems.elo_games import GroupKey, PlayerGame, period_rules, player_sides
from players.rating.systems.explain import (
    GameExplanation,
    GameFacts,
    PeriodExplanation,
    PeriodFacts,
)
from players.rating.types import GameInput, GameLine, Number, RatingRules


def explain_period(facts: PeriodFacts, games: Sequence[GameFacts]) -> PeriodExplanation:
    """Each game of the player's period as the close scored it; a player unrated at the
    period's start has their games pooled toward a first rating (FIDE 8.2), none scored
    on its own. Without a recorded K (a preview, a page of another period) the lines
    carry the expected score only."""
    if facts.own_start is None:
        return PeriodExplanation(tuple(None for _ in games), pooled=True)
    rules = period_rules(facts.settings, facts.month, facts.tournament_starts)
    sides = player_sides(
        rules,
        facts.own_start,
        [PlayerGame(g.own, g.opponent, g.played, g.tournament) for g in games],
    )
    if facts.k_factor is None:
        lines: list[GameExplanation | None] = []
        for game, side in zip(games, sides, strict=True):
            assert side.own is not None  # own_start is not None
            _, difference, expected, _, note = score_game(
                side.own, game.opponent, game.score, game.played, side.rules
            )
            counted = expected is not None
            lines.append(
                GameExplanation(
                    counted,
                    _hundredths(expected),
                    difference if counted else None,
                    None,
                    note or "",
                    side.own,
                )
            )
        return PeriodExplanation(tuple(lines))
    groups: dict[GroupKey, tuple[RatingRules, list[int]]] = {}
    for position, side in enumerate(sides):
        assert side.group is not None  # own_start is not None
        groups.setdefault(side.group, (side.rules, []))[1].append(position)
    explained: list[GameExplanation | None] = [None] * len(games)
    total: Number = 0
    for (own, _), (group_rules, positions) in groups.items():
        result = period_change(
            rating=own,
            games=[
                GameInput(games[p].opponent, games[p].score, games[p].played) for p in positions
            ],
            k=facts.k_factor,
            rules=group_rules,
        )
        total += result.change_unrounded
        for position, line in zip(positions, result.lines, strict=True):
            explained[position] = _line(line, own)
    return PeriodExplanation(tuple(explained), total=round_half_away(total))


def linked_events(
    settings: ListSettings, month: datetime.date, starts: Mapping[int, datetime.date]
) -> frozenset[int | None]:
    """The events (tournament ids; None: the month's games outside tournaments) whose
    games decide each other's scoring: from January 2022 to February 2024 the 400-point
    cap helps a player in one game per event (``period_rules``, ``player_sides``), so a
    game is explained only with the player's other games of its event."""
    rules = period_rules(settings, month, starts)
    return frozenset(event for event in (None, *starts) if rules.of(event).cap_once_per_event)


def _line(line: GameLine, own: int) -> GameExplanation:
    return GameExplanation(
        line.rated,
        line.expected if line.rated else None,
        line.counted_difference if line.rated else None,
        line.change if line.rated else None,
        line.note,
        own,
    )


def _hundredths(value: Number | None) -> Number | None:
    # score_game's PD: the table's in hundredths (an int), the formula's a float.
    if value is None or not isinstance(value, int):
        return value
    return Fraction(value, 100)
