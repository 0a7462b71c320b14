"""score_game, the one per-game scoring function: figures worked out by hand from FIDE 8.3.1,
table 8.1.2 and the rapid/blitz 600/2600 rule."""

from __future__ import annotations

from fractions import Fraction

import pytest

from players.rating import ExpectedMethod, GameInput, ListKind, RatingRules, period_change
from players.rating.differences import (
    NOTE_FAST_GAP,
    NOTE_FORFEIT,
    NOTE_UNRATED_OPPONENT,
    GameScore,
    score_game,
)

WIN, DRAW, LOSS = Fraction(1), Fraction(1, 2), Fraction(0)
STANDARD = RatingRules()
RAPID = RatingRules(list_kind=ListKind.RAPID)
BLITZ = RatingRules(list_kind=ListKind.BLITZ)
NO_CAP = RatingRules(apply_400_rule=False)


@pytest.mark.parametrize(
    ("own", "opponent", "score", "rules", "scored"),
    [
        # Seed 002: 1850 v 2290, 440 apart, capped at 400. Table 8.1.2: |D| 392-411 gives
        # the higher-rated 0.92, so the lower-rated 1850 expects 0.08.
        (1850, 2290, DRAW, STANDARD, (-440, -400, 8, 1, None)),
        # Standard list: 2649 is capped (400 -> 0.92), 2650 is not (550: 518-559 -> 0.97).
        (2649, 2100, WIN, STANDARD, (549, 400, 92, 2, None)),
        (2650, 2100, WIN, STANDARD, (550, 550, 97, 2, None)),
        # Exactly 400 apart: the cap changes nothing (0.92 either way).
        (2000, 1600, LOSS, STANDARD, (400, 400, 92, 0, None)),
        # 401 apart, below 2650: counted as 400, 0.92 (uncapped 401 would also be 0.92:
        # the cap shows in counted, not in PD here).
        (2001, 1600, LOSS, STANDARD, (401, 400, 92, 0, None)),
        # Beyond the table (736 and more): the higher-rated expects 1.00; the lower-rated,
        # capped at 400, expects 0.08, or 0.00 with the 400-point rule switched off.
        (2800, 2000, WIN, STANDARD, (800, 800, 100, 2, None)),
        (2000, 2800, LOSS, STANDARD, (-800, -400, 8, 0, None)),
        (2000, 2800, LOSS, NO_CAP, (-800, -800, 0, 0, None)),
        # 735 apart is the table's last step: the higher-rated expects 0.99.
        (2735, 2000, WIN, STANDARD, (735, 735, 99, 2, None)),
        # Rapid and blitz cap everyone, 2650 and above too: 2700 v 2250 counts 400 -> 0.92.
        (2700, 2250, WIN, RAPID, (450, 400, 92, 2, None)),
        # 600 apart with a player above 2600: not rated on rapid and blitz.
        (2700, 2100, WIN, RAPID, (600, 400, None, 0, NOTE_FAST_GAP)),
        (2100, 2700, LOSS, BLITZ, (-600, -400, None, 0, NOTE_FAST_GAP)),
        (2601, 2001, WIN, BLITZ, (600, 400, None, 0, NOTE_FAST_GAP)),
        # 599 apart, or nobody above 2600: rated (capped at 400 -> 0.92 / 0.08).
        (2700, 2101, DRAW, RAPID, (599, 400, 92, 1, None)),
        (2600, 2000, DRAW, RAPID, (600, 400, 92, 1, None)),
        (2000, 2600, DRAW, BLITZ, (-600, -400, 8, 1, None)),
        # The same 600 apart on the standard list is rated: 2700 is uncapped (600: 560-619
        # -> 0.98).
        (2700, 2100, WIN, STANDARD, (600, 600, 98, 2, None)),
    ],
)
def test_rated_and_not_rated_games(
    own: int, opponent: int, score: Fraction, rules: RatingRules, scored: GameScore
) -> None:
    assert score_game(own, opponent, score, True, rules) == scored


def test_forfeits_and_unrated_opponents_are_not_rated() -> None:
    # A forfeit keeps its difference (100 apart) but has no expected score and no score.
    assert score_game(1800, 1700, WIN, False, STANDARD) == (100, 100, None, 0, NOTE_FORFEIT)
    assert score_game(1800, None, WIN, True, STANDARD) == (
        None,
        None,
        None,
        0,
        NOTE_UNRATED_OPPONENT,
    )
    assert score_game(1800, None, WIN, False, STANDARD) == (None, None, None, 0, NOTE_FORFEIT)


def test_formula_expected_score() -> None:
    # 400 above: 1 / (1 + 10^(-400/400)) = 1 / 1.1 = 10/11; 400 below: 1/11.
    formula = RatingRules(method=ExpectedMethod.FORMULA)
    above = score_game(1800, 1400, WIN, True, formula)
    below = score_game(1400, 1800, LOSS, True, formula)
    assert above[:2] == (400, 400)
    assert above[2] == pytest.approx(10 / 11, abs=1e-15)
    assert below[2] == pytest.approx(1 / 11, abs=1e-15)


def test_a_rated_game_needs_a_whole_or_half_point() -> None:
    with pytest.raises(ValueError, match="1, 1/2 or 0"):
        score_game(1800, 1700, Fraction(3, 2), True, STANDARD)
    # A game that is not rated is not scored, so its score is not checked.
    assert score_game(1800, 1700, Fraction(3, 2), False, STANDARD)[4] == NOTE_FORFEIT


def test_the_lines_of_games_not_rated_carry_no_figures() -> None:
    # A forfeit against a rated opponent and a game against an unrated one: the page shows
    # their difference (or none) and the reason, never an expected score or a change.
    result = period_change(
        rating=1800,
        games=[GameInput(1700, WIN, False), GameInput(None, DRAW, True)],
        k=20,
        rules=STANDARD,
    )
    forfeit, unrated = result.lines
    assert (forfeit.rating_difference, forfeit.counted_difference) == (100, None)
    assert (forfeit.expected, forfeit.change, forfeit.rated) == (None, None, False)
    assert (unrated.rating_difference, unrated.counted_difference) == (None, None)
    assert (unrated.expected, unrated.change, unrated.rated) == (None, None, False)
    assert (forfeit.note, unrated.note) == (NOTE_FORFEIT, NOTE_UNRATED_OPPONENT)
    assert (result.games_count, result.change) == (0, 0)
