"""Glicko-2 as a rating system: a period's plan from its inputs (``players.rating.glicko2``
does one player's maths).

Choices the paper leaves to a product, made here:

- The rating period is the list's month; every game of it is scored against the
  opponents' r and RD as published before the month (the paper's rule). A tournament
  begun in an earlier month is not scored with that month's list: Glicko-2 has no such
  rule, and RD already says how stale a rating is.
- Every player on the list is rated: one entered without a rating starts at 1500 with
  the list's starting RD and volatility 0.06 (the paper's new player).
- Only games played over the board count (forfeits are recorded, never rated: FIDE 8.1,
  the tracker's rule for every list).
- The list publishes r in whole points, RD to two decimals and volatility to six, and the
  next period starts from what was published (``glicko2.published``), so a preview, a
  close and a replay give the same figures.
- A player without games in the month keeps r and sigma and their RD grows (step 6 alone),
  up to the list's cap.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction

from players.rating.glicko2 import (
    DEFAULT_RATING,
    RD_DECIMALS,
    SCALE,
    VOLATILITY_DECIMALS,
    Glicko2Game,
    Glicko2Rating,
    Glicko2Settings,
    expected_on_glicko_scale,
    g,
    published,
    rate_period,
)
from players.rating.period import (
    GAME_RESULTS,
    SCORES,
    ListSettings,
    PeriodEvent,
    PeriodInputs,
    PeriodPlan,
    PlannedChange,
    PlayerStart,
    Uncertainty,
)
from players.rating.systems.explain import (
    Column,
    GameExplanation,
    GameFacts,
    PeriodExplanation,
    PeriodFacts,
    State,
    StateError,
    StateField,
)

Progress = Callable[[int], None]

# The range every list's ratings are kept in (players.models.common RATING_MIN/MAX).
LOWEST_RATING = 0
HIGHEST_RATING = 4000

# Everyone is rated: a player entered without a rating is the paper's new player.
START_RATING = DEFAULT_RATING
# What a Glicko-2 player keeps beside r (stored by these names; RD's start is the list's).
STATE_FIELDS = (
    StateField("rd", "RD", RD_DECIMALS, listed=True),
    StateField("volatility", "volatility", VOLATILITY_DECIMALS),
)
PERIOD_COLUMNS = (Column("state.rd", "RD", RD_DECIMALS),)


def entered_state(given: Mapping[str, object], list_settings: ListSettings) -> State:
    """A new player's RD and volatility as a club enters them (defaults: the list's
    starting RD, the paper's 0.06). StateError names a figure out of range."""
    settings = list_settings.glicko or Glicko2Settings()
    values: dict[str, object] = {
        "rd": settings.rd_start,
        "volatility": settings.volatility_start,
        **{k: v for k, v in given.items() if v is not None},
    }
    for key, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise StateError(key, "A number.")
    rd, volatility = float(values["rd"]), float(values["volatility"])  # type: ignore[arg-type]
    if not 0 < rd <= settings.rd_max:
        raise StateError("rd", f"Above 0, at most the list's {settings.rd_max:g}.")
    if not 0 < volatility <= 1:
        raise StateError("volatility", "Above 0, at most 1.")
    return {"rd": rd, "volatility": volatility}


def spread_of(state: State | None) -> float | None:
    """Two RDs: the range the player's strength lies in with about 95% confidence."""
    rd = (state or {}).get("rd")
    return None if rd is None else 2 * rd


# Where RD and volatility sit in a PlayerStart (together: with_state sets both at once).
_RD_AT = PlayerStart._fields.index("rd")
assert PlayerStart._fields[_RD_AT + 1] == "volatility"


def with_state(start: PlayerStart, state: State | None) -> PlayerStart:
    """The start with the RD and volatility the close read (None: the paper's new player).
    Built from the start's fields in order: ``_replace`` (by name) was a tenth of the read
    of a federation's 200,000 players."""
    if not state:
        return PlayerStart._make((*start[:_RD_AT], None, None, *start[_RD_AT + 2 :]))
    return PlayerStart._make(
        (*start[:_RD_AT], state.get("rd"), state.get("volatility"), *start[_RD_AT + 2 :])
    )


def states_of(change: PlannedChange) -> tuple[State | None, State | None]:
    u = change.uncertainty
    if u is None:
        return None, None
    return (
        {"rd": u.rd_before, "volatility": u.volatility_before},
        {"rd": u.rd_after, "volatility": u.volatility_after},
    )


def state_values(
    change: PlannedChange,
) -> tuple[tuple[float, float] | None, tuple[float, float] | None]:
    """``states_of`` as the declared figures in order (RD, volatility), without the dicts:
    what the close's write step formats, 400,000 states in a federation's month."""
    u = change.uncertainty
    if u is None:
        return None, None
    return (u.rd_before, u.volatility_before), (u.rd_after, u.volatility_after)


def explain_period(facts: PeriodFacts, games: Sequence[GameFacts]) -> PeriodExplanation:
    """Each game as the period's close scored it (steps 2-7 of the paper): against the
    opponent's r and RD published before the month, with the expected score E; its share
    of the change is RD'^2 / 173.7178 x g(RD_j) x (s - E) (step 7, on the published
    scale), which adds up to the period's change up to the rounding of RD'. The figure of
    a game is the opponent's RD it was weighted with."""
    settings = facts.settings.glicko or Glicko2Settings()
    own = float(DEFAULT_RATING if facts.own_start is None else facts.own_start)
    rd_after = (facts.state_after or {}).get("rd")
    lines: list[GameExplanation | None] = []
    for game in games:
        if not game.played:
            # Not rated: the site says why (forfeit or an unrated game).
            lines.append(None)
            continue
        opponent = float(DEFAULT_RATING if game.opponent_start is None else game.opponent_start)
        opponent_rd = (game.opponent_state or {}).get("rd") or settings.rd_start
        expected = expected_on_glicko_scale(own, opponent, opponent_rd)
        change = None
        if rd_after is not None:
            change = (
                rd_after
                * rd_after
                / SCALE
                * g(opponent_rd / SCALE)
                * (float(game.score) - expected)
            )
        lines.append(
            GameExplanation(True, expected, round(opponent_rd, RD_DECIMALS), change, "", int(own))
        )
    return PeriodExplanation(tuple(lines))


def start_of(start: PlayerStart, settings: Glicko2Settings) -> Glicko2Rating:
    """A player's r, RD and volatility at the start of the period; the paper's new player
    for what was never set."""
    return Glicko2Rating(
        float(DEFAULT_RATING if start.rating is None else start.rating),
        settings.rd_start if start.rd is None else start.rd,
        settings.volatility_start if start.volatility is None else start.volatility,
    )


def plan_period(inputs: PeriodInputs, *, progress: Progress | None = None) -> PeriodPlan:
    """Every player's new r, RD and volatility for the period (steps 1-8 of the paper)."""
    settings = inputs.settings.glicko or Glicko2Settings()
    begin = {pid: start_of(start, settings) for pid, start in inputs.starts.items()}
    games: dict[int, list[Glicko2Game]] = {pid: [] for pid in begin}
    scores: dict[int, Fraction] = {pid: Fraction(0) for pid in begin}
    columns = inputs.games
    for white, black, result, rated in zip(
        columns.white, columns.black, columns.result, columns.rated, strict=True
    ):
        white_score, black_score, played = GAME_RESULTS[result]
        if not (rated and played):
            continue
        w, b = begin[white], begin[black]
        games[white].append(Glicko2Game(b.rating, b.rd, float(SCORES[white_score])))
        games[black].append(Glicko2Game(w.rating, w.rd, float(SCORES[black_score])))
        scores[white] += SCORES[white_score]
        scores[black] += SCORES[black_score]
    changes = []
    for index, player_id in enumerate(sorted(begin), start=1):
        changes.append(
            _planned(
                player_id,
                inputs.starts[player_id],
                begin[player_id],
                games[player_id],
                scores[player_id],
                settings,
                inputs.month,
            )
        )
        if progress is not None and index % 1000 == 0:
            progress(1000)
    if progress is not None and len(changes) % 1000:
        progress(len(changes) % 1000)
    return PeriodPlan(
        month=inputs.month,
        games_count=len(columns.white),
        changes=tuple(changes),
        k_changes=(),
        rules=inputs.settings.rules_name(),
    )


def _planned(
    player_id: int,
    start: PlayerStart,
    before: Glicko2Rating,
    games: list[Glicko2Game],
    score: Fraction,
    settings: Glicko2Settings,
    month: datetime.date,
) -> PlannedChange:
    result = rate_period(before, games, settings)
    after = published(result.after, lowest=LOWEST_RATING, highest=HIGHEST_RATING)
    rating_before = int(before.rating)
    rating_after = int(after.rating)
    played = result.games > 0
    return PlannedChange(
        player_id=player_id,
        rating_before=rating_before,
        rating_after=rating_after,
        change=rating_after - rating_before,
        change_unrounded=result.after.rating - before.rating,
        k_factor=None,
        k_reason="",
        games=result.games,
        score=score,
        expected=result.expected,
        event=PeriodEvent.RATED if played else PeriodEvent.NO_RATED_GAMES,
        rated_games_after=start.rated_games + result.games,
        reached_2400_after=start.reached_2400 or rating_after >= 2400,
        pool_after=[],
        k_next=None,
        last_active_month=month if played or start.last_active is None else start.last_active,
        uncertainty=Uncertainty(
            rd_before=before.rd,
            rd_after=after.rd,
            volatility_before=before.volatility,
            volatility_after=after.volatility,
        ),
    )
