"""An unrated player's first rating (FIDE 8.2 and 7.1.4)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction

from players.rating.classes import FIDE_FLOOR
from players.rating.performance import dp_from_percentage
from players.rating.results import LOSS
from players.rating.rounding import round_half_away
from players.rating.types import FirstRating, GameInput

# FIDE 8.2.2: two hypothetical opponents rated 1800, both games drawn.
HYPOTHETICAL_OPPONENTS = 2
HYPOTHETICAL_RATING = 1800


def first_rating_games(event: Iterable[GameInput]) -> list[tuple[int, Fraction]]:
    """FIDE 8.2.1: the games that count toward a first rating, as (opponent, score): only
    played games against rated opponents."""
    return [
        (game.opponent_rating, game.score)
        for game in event
        if game.played and game.opponent_rating is not None
    ]


def _pooled_games(
    events: Sequence[Sequence[GameInput]], notes: list[str]
) -> list[tuple[int, Fraction]]:
    """The counted games of the pool, in both formulas: a first event in which the player
    scored zero is disregarded (FIDE 8.2), noted in ``notes``."""
    counted_events = [first_rating_games(event) for event in events]
    # An opening event with no counted game has nothing to disregard.
    if (
        counted_events
        and counted_events[0]
        and sum((score for _, score in counted_events[0]), LOSS) == 0
    ):
        counted_events = counted_events[1:]
        notes.append("first event disregarded: zero points")
    return [game for event in counted_events for game in event]


def first_rating(
    events: Sequence[Sequence[GameInput]],
    *,
    maximum: int = 2200,
    minimum: int = FIDE_FLOOR,
    min_games: int = 5,
) -> FirstRating:
    """FIDE 8.2: Ru = Ra + dp for an unrated player, over chronological events.

    - a first event in which the player scored zero is disregarded;
    - only played games against rated opponents count; at least `min_games` (5) of them;
    - Ra = (sum of opponents + 2 x 1800) / (n + 2), p = (points + 1) / (n + 2): two
      hypothetical 1800 opponents, both drawn;
    - dp from table 8.1.1 with p rounded to whole percent (.5 up); Ru = Ra + dp rounded to
      whole (.5 away from zero) and capped at `maximum` (2200);
    - published only when Ru >= `minimum` (1400, 7.1.4): otherwise rating None with a note.
    """
    notes: list[str] = []
    games = _pooled_games(events, notes)
    count = len(games)
    points = sum((score for _, score in games), LOSS)
    opponents_total = sum(opponent for opponent, _ in games)
    average = Fraction(
        opponents_total + HYPOTHETICAL_OPPONENTS * HYPOTHETICAL_RATING,
        count + HYPOTHETICAL_OPPONENTS,
    )
    percentage = (points + Fraction(HYPOTHETICAL_OPPONENTS, 2)) / (count + HYPOTHETICAL_OPPONENTS)
    dp = dp_from_percentage(percentage)
    rating: int | None = None
    if count < min_games:
        notes.append(f"{count} games against rated opponents; a first rating needs {min_games}")
    else:
        computed = round_half_away(average + dp)
        rating = computed
        if computed > maximum:
            rating = maximum
            notes.append(f"capped at {maximum} (computed {computed})")
        if rating < minimum:
            notes.append(f"{rating} is below the minimum of {minimum}: not published")
            rating = None
    return FirstRating(
        rating=rating,
        games_counted=count,
        score=points,
        average=average,
        percentage=percentage,
        dp=dp,
        note="; ".join(notes),
    )


# FIDE 2014-2024 (rules by date, fide_rules): above 50%, 20 points per half point.
POINTS_PER_HALF_ABOVE_50 = 20
FLOOR_2014 = 1000


def first_rating_2014(
    events: Sequence[Sequence[GameInput]], *, minimum: int = FLOOR_2014, min_games: int = 5
) -> FirstRating:
    """FIDE's first rating from July 2014 to February 2024 (fide_rules, 2014-07 to 2024-03).

    As ``first_rating``, but: Ra is the average of the rated opponents alone (no
    hypothetical 1800 pair); at 50% Ru = Ra; above 50%, Ra + 20 for each half point above
    50%; below 50%, Ra + dp(p) (table 8.1.1, p rounded to whole percent); rounded (.5 away
    from zero); no 2200 cap; published only at ``minimum`` (the floor, 1000) or above.
    """
    notes: list[str] = []
    games = _pooled_games(events, notes)
    count = len(games)
    points = sum((score for _, score in games), LOSS)
    average = Fraction(sum(opponent for opponent, _ in games), count) if count else Fraction(0)
    percentage = points / count if count else Fraction(0)
    # Half points above 50%: 2 x (points - n/2), whole since scores are halves.
    halves_above = 2 * points - count
    dp = 0
    if halves_above > 0:
        dp = POINTS_PER_HALF_ABOVE_50 * int(halves_above)
    elif halves_above < 0:
        dp = dp_from_percentage(percentage)
    rating: int | None = None
    if count < min_games:
        notes.append(f"{count} games against rated opponents; a first rating needs {min_games}")
    else:
        rating = round_half_away(average + dp)
        if rating < minimum:
            notes.append(f"{rating} is below the minimum of {minimum}: not published")
            rating = None
    return FirstRating(
        rating=rating,
        games_counted=count,
        score=points,
        average=average,
        percentage=percentage,
        dp=dp,
        note="; ".join(notes),
    )
