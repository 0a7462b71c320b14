"""The rating calculator: one player's games in one period, as the seed calculators show it.

Pure orchestration of the engine (no Django): choose K (fixed, from the player's details
by FIDE 8.3.3, or the default 20), rate the games (8.3.1-8.3.4), or compute a first rating
for an unrated player (8.2), and add the performance ratings (title regulations 1.4.6-9).
The API and the calculator page both call :func:`calculate`, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction

from players.rating import (
    FirstRating,
    GameInput,
    GameLine,
    KFactor,
    KReason,
    ListKind,
    Number,
    PlayerState,
    RatingRules,
    first_rating,
    fixed_k,
    k_factor_for,
    performance_exact,
    performance_fide,
    performance_linear,
    period_change,
    rating_class,
)
from players.rating.classes import FIDE_FLOOR

DEFAULT_K = 20


@dataclass(frozen=True)
class PlayerDetails:
    """What FIDE 8.3.3 needs to pick K when the user does not set it."""

    rated_games: int
    birth_year: int | None
    reached_2400: bool
    as_of: date


@dataclass(frozen=True)
class CalculatorGame:
    opponent_rating: int | None
    score: Fraction


@dataclass(frozen=True)
class Performance:
    fide: int | None
    exact: float | None
    linear: float | None


@dataclass(frozen=True)
class CalculatorResult:
    rating: int | None
    k_factor: int | None
    k_factor_base: int | None
    k_reason: str | None
    k_reason_text: str
    games_count: int
    score: Fraction
    expected_score: Number | None
    change_unrounded: Number | None
    change: int | None
    new_rating: int | None
    rating_class: str | None
    lines: tuple[GameLine, ...]
    performance: Performance
    initial_rating: int | None
    initial_rating_note: str
    first: FirstRating | None
    notes: tuple[str, ...] = field(default=())
    summary: str = ""


def choose_k(
    *,
    rating: int | None,
    k_factor: int | None,
    player: PlayerDetails | None,
    list_kind: ListKind,
) -> tuple[KFactor, str]:
    """K and a sentence saying where it came from: set by hand, FIDE 8.3.3, or the default."""
    if k_factor is not None:
        return fixed_k(k_factor), f"{k_factor}: set by you"
    if player is not None:
        state = PlayerState(
            rating=rating,
            rated_games=player.rated_games,
            birth_year=player.birth_year,
            reached_2400=player.reached_2400,
        )
        chosen = k_factor_for(state, period_year=player.as_of.year, list_kind=list_kind)
        return chosen, chosen.reason.sentence
    return KFactor(
        DEFAULT_K, KReason.STANDARD
    ), f"{DEFAULT_K}: default (no K or player details given)"


def _performance(games: Sequence[CalculatorGame]) -> Performance:
    rated = [g for g in games if g.opponent_rating is not None]
    opponents = [g.opponent_rating for g in rated if g.opponent_rating is not None]
    score = sum((g.score for g in rated), Fraction(0))
    return Performance(
        fide=performance_fide(opponents, score),
        exact=performance_exact(opponents, score),
        linear=performance_linear(opponents, score),
    )


def _rating_text(value: int) -> str:
    """A rating as the lists print it: ``1500``, never ``1,500`` (a separator would make a
    rating read differently from the same rating in a table, and German pages would show
    ``1.500``, a decimal to some readers)."""
    return str(value)


def calculate(
    *,
    rating: int | None,
    games: Sequence[CalculatorGame],
    rules: RatingRules,
    k_factor: int | None = None,
    player: PlayerDetails | None = None,
) -> CalculatorResult:
    """Rate ``games`` for a player rated ``rating`` (None: unrated, compute a first rating)."""
    performance = _performance(games)
    inputs = [GameInput(opponent_rating=g.opponent_rating, score=g.score) for g in games]
    if rating is None:
        first = first_rating([inputs])
        total = sum((g.score for g in games), Fraction(0))
        if first.rating is not None:
            summary = (
                f"With {first.games_counted} games against rated opponents, "
                f"your first rating would be {_rating_text(first.rating)}."
            )
        else:
            summary = f"No first rating yet: {first.note}"
        return CalculatorResult(
            rating=None,
            k_factor=None,
            k_factor_base=None,
            k_reason=None,
            k_reason_text="",
            games_count=first.games_counted,
            score=total,
            expected_score=None,
            change_unrounded=None,
            change=None,
            new_rating=None,
            rating_class=rating_class(first.rating) if first.rating is not None else None,
            lines=_unrated_lines(games),
            performance=performance,
            initial_rating=first.rating,
            initial_rating_note=first.note,
            first=first,
            summary=summary,
        )

    k, k_text = choose_k(rating=rating, k_factor=k_factor, player=player, list_kind=rules.list_kind)
    result = period_change(rating=rating, games=inputs, k=k.value, rules=rules)
    if result.k != result.k_base:
        k_text = (
            f"{k_text}; {result.k_base} x {result.games_count} games is over 700, so K = {result.k}"
        )
    notes: list[str] = []
    if result.new_rating < FIDE_FLOOR <= rating:
        notes.append(
            f"Below {_rating_text(FIDE_FLOOR)}: FIDE lists no rating under {_rating_text(FIDE_FLOOR)}, "
            "so you would be shown as unrated on the next list."
        )
    if result.change == 0:
        verb = f"your rating stays at {_rating_text(rating)}."
    else:
        verb = f"your rating changes by {result.change} to {_rating_text(result.new_rating)}."
    summary = f"With a rating of {_rating_text(rating)} and K = {result.k}, {verb}"
    return CalculatorResult(
        rating=rating,
        k_factor=result.k,
        k_factor_base=result.k_base,
        k_reason=k.reason.value,
        k_reason_text=k_text,
        games_count=result.games_count,
        score=result.score,
        expected_score=result.expected,
        change_unrounded=result.change_unrounded,
        change=result.change,
        new_rating=result.new_rating,
        rating_class=rating_class(result.new_rating),
        lines=result.lines,
        performance=performance,
        initial_rating=None,
        initial_rating_note="",
        first=None,
        notes=tuple(notes),
        summary=summary,
    )


def _unrated_lines(games: Sequence[CalculatorGame]) -> tuple[GameLine, ...]:
    """Per-game rows for an unrated player: no expected score, only whether a game counts
    toward the first rating (8.2.1: games against rated opponents)."""
    return tuple(
        GameLine(
            opponent_rating=g.opponent_rating,
            score=g.score,
            rating_difference=None,
            counted_difference=None,
            capped=False,
            expected=None,
            change=None,
            rated=g.opponent_rating is not None,
            note="" if g.opponent_rating is not None else "opponent unrated: does not count",
        )
        for g in games
    )
