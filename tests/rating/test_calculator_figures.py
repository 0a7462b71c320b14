"""The calculator's figures and sentences, worked by hand (FIDE 8.2 for a first rating,
8.3 for a change, C.07 10 for the performance; tables 8.1.1 and 8.1.2 in
fide-rules.md section 5)."""

from __future__ import annotations

import datetime
from fractions import Fraction

import pytest

from players.rating import RatingRules
from players.rating.calculator import CalculatorGame, PlayerDetails, calculate

WIN, DRAW, LOSS = Fraction(1), Fraction(1, 2), Fraction(0)
STANDARD = RatingRules()


def test_a_first_rating_with_its_score_class_lines_and_performance() -> None:
    # 3 wins and 2 losses against 1800s, and a win against an unrated player.
    # 8.2: the unrated opponent does not count: n = 5, Ra = (5 x 1800 + 2 x 1800) / 7 = 1800,
    # p = (3 + 1) / 7 = 57% -> dp 50 (table 8.1.1): Ru = 1850, class "1800-1999".
    # Performance over the rated games: FIDE Ra 1800 + dp(60%) 72 = 1872; linear
    # 1800 + 400 x (3 - 2) / 5 = 1880; exact: 1 / (1 + 10^(-d/400)) = 0.6, d = 400 log10 1.5.
    games = [CalculatorGame(1800, score) for score in (WIN, WIN, WIN, LOSS, LOSS)]
    games.append(CalculatorGame(None, WIN))
    result = calculate(rating=None, games=games, rules=STANDARD)
    assert (result.initial_rating, result.rating_class, result.games_count) == (
        1850,
        "1800-1999",
        5,
    )
    assert result.score == 4  # every game's points, the unrated opponent's too
    assert result.first is not None
    assert result.first.rating == 1850
    assert (result.k_reason_text, result.initial_rating_note) == ("", "")
    assert (
        result.summary == "With 5 games against rated opponents, your first rating would be 1850."
    )
    assert (result.performance.fide, result.performance.linear) == (1872, 1880.0)
    assert result.performance.exact == pytest.approx(1870.437, abs=0.01)
    rated_line, unrated_line = result.lines[0], result.lines[-1]
    assert (rated_line.opponent_rating, rated_line.score, rated_line.rated) == (1800, WIN, True)
    assert (rated_line.capped, rated_line.note) == (False, "")
    assert (unrated_line.opponent_rating, unrated_line.score, unrated_line.rated) == (
        None,
        WIN,
        False,
    )
    assert unrated_line.note == "opponent unrated: does not count"


def test_no_first_rating_yet_says_why() -> None:
    result = calculate(
        rating=None, games=[CalculatorGame(1800, DRAW) for _ in range(4)], rules=STANDARD
    )
    assert (result.initial_rating, result.rating_class) == (None, None)
    assert result.summary == (
        "No first rating yet: 4 games against rated opponents; a first rating needs 5"
    )


def test_the_700_rule_is_explained_and_a_zero_change_stays() -> None:
    # 20 draws with equals, K 40 set by hand: 40 x 20 = 800 > 700, K = 700 // 20 = 35;
    # 20 x (0.5 - 0.5) = 0: the rating stays.
    result = calculate(
        rating=2000,
        games=[CalculatorGame(2000, DRAW) for _ in range(20)],
        rules=STANDARD,
        k_factor=40,
    )
    assert (result.k_factor, result.k_factor_base, result.change) == (35, 40, 0)
    assert result.k_reason_text == "40: set by you; 40 x 20 games is over 700, so K = 35"
    assert result.summary == "With a rating of 2000 and K = 35, your rating stays at 2000."
    assert (result.initial_rating, result.initial_rating_note, result.first) == (None, "", None)
    assert result.notes == ()


@pytest.mark.parametrize(
    ("rating", "below"),
    [
        # A loss to an equal at K 20: 20 x (0 - 0.5) = -10.
        (1405, True),  # 1395: below the floor
        (1410, False),  # 1400 exactly: still listed
        (1400, True),  # from exactly 1400 to 1390
        (1399, False),  # already below: nothing new to say
    ],
)
def test_dropping_below_the_floor_is_said(rating: int, below: bool) -> None:
    result = calculate(
        rating=rating, games=[CalculatorGame(rating, LOSS)], rules=STANDARD, k_factor=20
    )
    assert result.new_rating == rating - 10
    note = (
        "Below 1400: FIDE lists no rating under 1400, so you would be shown as unrated on "
        "the next list."
    )
    assert result.notes == ((note,) if below else ())
    assert result.summary == (
        f"With a rating of {rating} and K = 20, your rating changes by -10 to {rating - 10}."
    )


def test_player_details_choose_fide_k() -> None:
    # 30 rated games, born 1980, never 2400: K 20 (8.3.3), said in its own words.
    player = PlayerDetails(
        rated_games=30, birth_year=1980, reached_2400=False, as_of=datetime.date(2026, 11, 1)
    )
    result = calculate(
        rating=1800, games=[CalculatorGame(1800, WIN)], rules=STANDARD, player=player
    )
    assert (result.k_factor, result.k_reason) == (20, "standard")
    assert result.k_reason_text == "20: 30 or more rated games, never rated 2400"
