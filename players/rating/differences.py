"""One game from one player's side: which difference counts, whether the game is rated, and
its expected score (FIDE 8.3.1, 8.3.2, table 8.1.2 and the rapid/blitz 600/2600 rule).

``score_game`` is the one place these rules are written. ``period_change`` scores every game
through it, and the calculator, the close's plan and the pages through ``period_change``;
``bulk.table_period_sums`` repeats the same decisions on arrays, and
tests/rating/test_bulk.py proves the two equal over the whole input range.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from fractions import Fraction
from typing import TypeAlias

from players.rating.expected import expected_from_formula, table_pd_hundredths
from players.rating.results import LOSS
from players.rating.types import CountedDifference, ExpectedMethod, RatingRules

CAP = 400
# Standard list since 1 October 2025: players rated this much or more use the full difference.
STANDARD_UNCAPPED_FROM = 2650
# Rapid and blitz since 1 December 2024: games this far apart with a player above 2600 are
# not rated.
FAST_UNRATED_GAP = 600
FAST_UNRATED_ABOVE = 2600

NOTE_FORFEIT = "forfeit: not rated"
NOTE_UNRATED_OPPONENT = "opponent unrated: counts only toward the opponent's first rating"
NOTE_FAST_GAP = "rapid/blitz: 600+ points apart with a player above 2600"

# Bound once: score_game runs per game side of a month, and an enum member lookup per call
# shows in the close's time.
_TABLE = ExpectedMethod.FIDE_TABLE

GameScore: TypeAlias = tuple[int | None, int | None, int | float | None, int, str | None]
"""One game as the rules score it for one player, in this order:

- difference: own rating minus the opponent's; None against an unrated opponent;
- counted: the difference after the 400-point rule (8.3.1); None against an unrated opponent;
- expected: PD, from table 8.1.2 in hundredths (int) or the Elo formula (float); None when
  the game is not rated;
- score_halves: the score in halves (2 a win, 1 a draw, 0 a loss); 0 when not rated;
- not_rated: why the game is not rated; None when it is.

A plain tuple, unpacked by the callers: a federation-sized month scores two million game
sides, and building a NamedTuple per game made period_change's loop about 30% slower than
this tuple does (a frozen dataclass is slower still).
"""


def score_game(
    own: int, opponent: int | None, score: Fraction, played: bool, rules: RatingRules
) -> GameScore:
    """FIDE 8.3.1 and 8.3.2 for one game of a player rated ``own``: the counted difference
    and PD, or the reason the game is not rated.

    Not rated: an unplayed game (a forfeit), a game against an unrated opponent (8.2 /
    7.1.4: it counts only toward that opponent's first rating) and, on the rapid and blitz
    lists, a game 600 or more points apart with either player above 2600 (rule in force
    from 1 December 2024). The 400-point rule is decided by the player's own rating: on the
    standard list a difference beyond +/-400 counts as +/-400 below 2650 and in full from
    2650; on rapid and blitz the cap applies to everyone; a list may switch it off.
    ``score`` (1, 1/2 or 0) is checked only for rated games.
    """
    if opponent is None:
        return (None, None, None, 0, NOTE_UNRATED_OPPONENT if played else NOTE_FORFEIT)
    difference = own - opponent
    counted = difference
    fast_gap = False
    # Most games are within 400 points, where neither the cap nor the rapid and blitz gap
    # can apply: only the others read the list's rules, in one call.
    if difference > CAP or difference < -CAP:
        counted, fast_gap = _far_apart(own, opponent, rules)
    if not played:
        return (difference, counted, None, 0, NOTE_FORFEIT)
    if fast_gap:
        return (difference, counted, None, 0, NOTE_FAST_GAP)
    # Scores are whole halves; halves keep the period's sums in integers.
    numerator = score.numerator
    denominator = score.denominator
    if denominator == 1 and 0 <= numerator <= 1:
        halves = 2 * numerator
    elif denominator == 2 and numerator == 1:
        halves = 1
    else:
        raise ValueError(f"a rated game's score must be 1, 1/2 or 0 (got {score})")
    expected: int | float
    if rules.method is _TABLE:
        expected = table_pd_hundredths(counted)
    else:
        expected = expected_from_formula(counted)
    return (difference, counted, expected, halves, None)


def _far_apart(own: int, opponent: int, rules: RatingRules) -> tuple[int, bool]:
    """For a game more than 400 points apart: the counted difference and whether the rapid
    and blitz gap leaves it unrated.

    FIDE 8.3.1: the difference is capped at +/-400 on rapid and blitz for everyone, on the
    standard list for a player rated below 2650 (from 2650 in full, unless the list keeps
    the cap for everyone), never where the list switches it off. Rapid and blitz since 1
    December 2024, where the list applies it: a game 600 or more points apart with either
    player above 2600 is not rated."""
    difference = own - opponent
    # The kind's row decides (FIDE's rapid and blitz regulations).
    fast = rules.list_kind.fast
    counted = difference
    if rules.apply_400_rule and (fast or own < STANDARD_UNCAPPED_FROM or not rules.exception_2650):
        counted = CAP if difference > 0 else -CAP
    gap = (
        fast
        and (difference >= FAST_UNRATED_GAP or difference <= -FAST_UNRATED_GAP)
        and (own > FAST_UNRATED_ABOVE or opponent > FAST_UNRATED_ABOVE)
        and rules.fast_gap
    )
    return counted, gap


def counted_difference(own: int, opponent: int, *, rules: RatingRules) -> CountedDifference:
    """FIDE 8.3.1, the 400-point rule, decided per player by the player's own rating
    (``score_game``'s counted difference)."""
    counted = score_game(own, opponent, LOSS, False, rules)[1]
    assert counted is not None  # the opponent is rated
    raw = own - opponent
    return CountedDifference(raw=raw, counted=counted, capped=counted != raw)


def not_rated_reason(own: int, opponent: int, *, rules: RatingRules) -> str | None:
    """Why a played game between two rated players is not rated (``score_game``'s reason):
    on rapid and blitz, 600 or more points apart with a player above 2600. None when rated."""
    return score_game(own, opponent, LOSS, True, rules)[4]


# One side of a game for ``cap_lost``: (the player and event it belongs to, the player's
# own rating for the game, the opponent's, whether it is rated, the rules it is scored
# with).
CappedSide: TypeAlias = tuple[Hashable, "int | None", "int | None", bool, RatingRules]


def cap_lost(sides: Sequence[CappedSide]) -> set[int]:
    """FIDE 8.3.1 from January 2022 to February 2024 (``RatingRules.cap_once_per_event``):
    "a player may benefit from only one upgrade under this rule, for the game in which the
    rating difference is greatest", in each tournament. The positions in ``sides`` of the
    games that count the real difference instead of the cap.

    The cap benefits the higher-rated player (it raises the opponent they are scored
    against to 400 below them), so only their sides are looked at; of one player's rated
    games in one event that the cap changes, the one with the largest difference keeps
    it (the first of equal ones). The lower-rated side keeps the cap in every game: how
    the rule applies to them is open, and the cap is no benefit to them (fide_rules).
    """
    best: dict[Hashable, tuple[int, int]] = {}
    beyond: list[tuple[Hashable, int]] = []
    for position, (key, own, opponent, played, rules) in enumerate(sides):
        if not (played and rules.cap_once_per_event) or own is None or opponent is None:
            continue
        difference = counted_difference(own, opponent, rules=rules)
        if difference.raw <= CAP or not difference.capped:
            continue
        beyond.append((key, position))
        held = best.get(key)
        if held is None or difference.raw > held[0]:
            best[key] = (difference.raw, position)
    return {position for key, position in beyond if best[key][1] != position}
