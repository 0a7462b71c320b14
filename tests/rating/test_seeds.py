"""Every worked example of the five seed calculators that the engine can express.

Each table row is transcribed from the seed text; tolerances follow the seed's printed
precision (seed 000: six decimals; seed 001: one decimal; seed 002/003: exact hundredths).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from players.rating import (
    ExpectedMethod,
    GameInput,
    RatingRules,
    expected_from_formula,
    expected_from_table,
    parse_result,
    performance_exact,
    performance_linear,
    period_change,
    rating_band,
    rating_class,
)

FORMULA = RatingRules(method=ExpectedMethod.FORMULA)
FORMULA_NO_400 = RatingRules(method=ExpectedMethod.FORMULA, apply_400_rule=False)
TABLE = RatingRules()


def games(*pairs: tuple[int, str]) -> list[GameInput]:
    return [GameInput(opponent, parse_result(result)) for opponent, result in pairs]


# --- seed 000: Elo formula with FIDE K rules, 400-point rule on, six decimals -----------------

SEED_000 = [
    # rating, K, games, expected, unrounded, change, new rating (None = not printed)
    pytest.param(1500, 20, games((1700, "win")), 0.240253, 15.194939, 15, 1515, id="default"),
    pytest.param(
        2100,
        20,
        games((2100, "draw"), (2300, "loss")),
        0.740253,
        -4.805061,
        -5,
        2095,
        id="draw-and-loss",
    ),
    pytest.param(1500, 20, games((2100, "loss")), 0.090909, None, -2, None, id="400-rule"),
    pytest.param(2700, 10, games((2200, "win")), 0.94676, None, 1, None, id="2700-full-gap"),
    pytest.param(
        1500,
        40,
        games(*([(1500, "win")] * 14 + [(1500, "loss")] * 13)),
        13.5,
        12.5,
        13,
        None,
        id="27-games-k25-up",
    ),
    pytest.param(
        1500,
        40,
        games(*([(1500, "win")] * 13 + [(1500, "loss")] * 14)),
        13.5,
        -12.5,
        -13,
        1487,
        id="27-games-k25-down",
    ),
]


@pytest.mark.parametrize(
    ("rating", "k", "played", "expected", "unrounded", "change", "new_rating"), SEED_000
)
def test_seed_000_formula_examples(
    rating: int,
    k: int,
    played: list[GameInput],
    expected: float,
    unrounded: float | None,
    change: int,
    new_rating: int | None,
) -> None:
    result = period_change(rating=rating, games=played, k=k, rules=FORMULA)
    assert result.expected == pytest.approx(expected, abs=5e-7)
    if unrounded is not None:
        assert result.change_unrounded == pytest.approx(unrounded, abs=5e-7)
    assert result.change == change
    if new_rating is not None:
        assert result.new_rating == new_rating


def test_seed_000_27_games_use_k25() -> None:
    played = games(*([(1500, "win")] * 14 + [(1500, "loss")] * 13))
    result = period_change(rating=1500, games=played, k=40, rules=FORMULA)
    assert (result.k_base, result.k, result.games_count) == (40, 25, 27)


def test_seed_000_without_the_400_rule_the_loss_costs_one() -> None:
    result = period_change(rating=1500, games=games((2100, "loss")), k=20, rules=FORMULA_NO_400)
    assert result.change_unrounded == pytest.approx(-0.61, abs=0.005)
    assert result.change == -1


def test_seed_000_hand_examples_per_game() -> None:
    # 1500 loses to 2100: "E = 1/11", change -1.82 before rounding.
    result = period_change(rating=1500, games=games((2100, "loss")), k=20, rules=FORMULA)
    assert result.expected == pytest.approx(1 / 11, abs=1e-12)
    assert result.change_unrounded == pytest.approx(-1.82, abs=0.005)
    # 2700 beats 2200 at K 10: change 0.53 before rounding.
    result = period_change(rating=2700, games=games((2200, "win")), k=10, rules=FORMULA)
    assert result.change_unrounded == pytest.approx(0.53, abs=0.005)
    assert result.lines[0].capped is False


# --- seed 001: plain Elo calculator (formula, optional 400 rule off), one decimal -----------


SEED_001 = [
    pytest.param(1500, 20, games((1700, "win")), 0.24, 15.2, 1515.2, id="beat-200-higher"),
    pytest.param(1800, 20, games((1600, "draw")), 0.76, -5.2, 1794.8, id="draw-200-lower"),
    pytest.param(
        1450,
        40,
        games((1500, "1"), (1620, "½"), (1390, "0"), (1555, "1")),
        None,
        34.4,
        1484.4,
        id="four-round-event",
    ),
    pytest.param(1500, 20, games((1600, "win")), 0.36, 12.8, None, id="beat-100-higher"),
    pytest.param(1500, 20, games((1500, "win")), 0.5, 10.0, None, id="equal-win"),
    pytest.param(1500, 20, games((1500, "loss")), 0.5, -10.0, None, id="equal-loss"),
    pytest.param(1500, 20, games((1500, "draw")), 0.5, 0.0, None, id="equal-draw"),
]


@pytest.mark.parametrize(
    ("rating", "k", "played", "expected", "unrounded", "unrounded_new"), SEED_001
)
def test_seed_001_plain_elo_examples(
    rating: int,
    k: int,
    played: list[GameInput],
    expected: float | None,
    unrounded: float,
    unrounded_new: float | None,
) -> None:
    result = period_change(rating=rating, games=played, k=k, rules=FORMULA_NO_400)
    if expected is not None:
        assert round(float(result.expected), 2) == expected
    assert round(float(result.change_unrounded), 1) == unrounded
    if unrounded_new is not None:
        assert round(rating + float(result.change_unrounded), 1) == unrounded_new


def test_seed_001_four_round_event_game_by_game() -> None:
    played = games((1500, "1"), (1620, "½"), (1390, "0"), (1555, "1"))
    result = period_change(rating=1450, games=played, k=40, rules=FORMULA_NO_400)
    per_game = [round(float(line.change or 0), 1) for line in result.lines]
    assert per_game == [22.9, 9.1, -23.4, 25.9]
    assert all(line.rated for line in result.lines)
    # The total is taken before rounding: the rounded lines would add up to 34.5.
    assert round(float(result.change_unrounded), 1) == 34.4
    assert result.change == 34


def test_seed_001_400_point_gap_about_091() -> None:
    assert round(expected_from_formula(400), 2) == 0.91


# --- seed 002: FIDE table, exact hundredths ---------------------------------------------------

SEED_002_GAMES = [
    # opponent, result, difference, counted, expected, change
    (1792, "Win", 58, 58, "0.58", "8.40"),
    (1911, "Draw", -61, -61, "0.42", "1.60"),
    (2010, "Loss", -160, -160, "0.29", "-5.80"),
    (2290, "Draw", -440, -400, "0.08", "8.40"),
    (1745, "Win", 105, 105, "0.64", "7.20"),
]


def test_seed_002_fide_table_month() -> None:
    played = [GameInput(opponent, parse_result(result)) for opponent, result, *_ in SEED_002_GAMES]
    result = period_change(rating=1850, games=played, k=20, rules=TABLE)
    for line, (opponent, _, raw, counted, expected, change) in zip(
        result.lines, SEED_002_GAMES, strict=True
    ):
        assert line.opponent_rating == opponent
        assert line.rating_difference == raw
        assert line.counted_difference == counted
        assert line.expected == Fraction(expected)
        assert line.change == Fraction(change)
        assert line.rated
    capped = result.lines[3]
    assert capped.capped
    assert capped.note == "400-point rule: 2290 counted as 2250"
    assert [line.note for line in result.lines if not line.capped] == [""] * 4
    assert result.score == 3
    assert result.expected == Fraction("2.01")
    assert result.change_unrounded == Fraction("19.80")
    assert result.change == 20
    assert result.new_rating == 1870


def test_seed_002_uncapped_gap_would_read_006() -> None:
    assert expected_from_table(-440) == Fraction("0.06")
    assert expected_from_table(-400) == Fraction("0.08")


# --- seed 003: FIDE table values and the 12.8 example ----------------------------------------

SEED_003_TABLE = [
    (0, "0.50"),
    (25, "0.53"),
    (50, "0.57"),
    (75, "0.60"),
    (100, "0.64"),
    (150, "0.70"),
    (200, "0.76"),
    (250, "0.81"),
    (300, "0.85"),
    (350, "0.89"),
    (400, "0.92"),
    (500, "0.96"),
    (600, "0.98"),
    (736, "1.00"),
    (1000, "1.00"),
]


@pytest.mark.parametrize(("difference", "higher"), SEED_003_TABLE)
def test_seed_003_table(difference: int, higher: str) -> None:
    assert expected_from_table(difference) == Fraction(higher)
    assert expected_from_table(-difference) == 1 - Fraction(higher)


def test_seed_003_beating_a_player_100_higher_gains_12_8() -> None:
    result = period_change(rating=1500, games=games((1600, "win")), k=20, rules=TABLE)
    assert result.change_unrounded == Fraction("12.8")
    assert result.change == 13


@pytest.mark.parametrize(("k", "gain"), [(20, 10), (40, 20), (10, 5)])
def test_seed_003_equal_opponent_gains_half_k(k: int, gain: int) -> None:
    result = period_change(rating=1700, games=games((1700, "win")), k=k, rules=TABLE)
    assert result.change_unrounded == gain
    draw = period_change(rating=1700, games=games((1700, "draw")), k=k, rules=TABLE)
    assert draw.change == 0


# --- seed 004: classes and performance ratings -----------------------------------------------

# (lowest, band, the start of the seed's description): bands by their numbers, never
# by a title's name (an untitled 2431 is "2400-2499", not "International Master").
SEED_004_CLASSES = [
    (2700, "2700+", "Not an official title."),
    (2500, "2500-2699", "The GM rating requirement."),
    (2400, "2400-2499", "The IM rating requirement,"),
    (2300, "2300-2399", "The FM rating requirement."),
    (2200, "2200-2299", "The usual threshold for the CM title,"),
    (2000, "2000-2199", "Beats most club players consistently."),
    (1800, "1800-1999", "Strong club player."),
    (1600, "1600-1799", "Plans rather than moves."),
    (1400, "1400-1599", "Opening principles are habit"),
    (1200, "1200-1399", "Basic tactics"),
    (1000, "1000-1199", "Sees one-move threats reliably"),
    (0, "0-999", "Knows the moves."),
]
TITLE_NAMES = ("Grandmaster", "International Master", "FIDE Master", "Candidate Master")


@pytest.mark.parametrize(("lowest", "band", "description"), SEED_004_CLASSES)
def test_seed_004_class_bands(lowest: int, band: str, description: str) -> None:
    assert rating_class(lowest) == band
    top = int(band.split("-")[1]) if "-" in band else lowest + 99
    assert rating_class(top) == band
    assert rating_band(lowest).description.startswith(description)
    assert not any(name in rating_class(lowest) for name in TITLE_NAMES)
    if lowest > 0:
        assert rating_class(lowest - 1) != band


def test_seed_004_200_point_favourite_expects_076() -> None:
    assert expected_from_table(200) == Fraction("0.76")


def test_seed_004_linear_performance_says_400_above_at_a_sweep() -> None:
    field = [1600, 1700, 1800]
    assert performance_linear(field, Fraction(3)) == 1700 + 400
    assert performance_exact(field, Fraction(3)) is None


def test_seed_004_exact_performance_meets_the_score() -> None:
    field = [1600, 1700, 1800, 1900]
    score = Fraction(5, 2)
    found = performance_exact(field, score)
    assert found is not None
    total = sum(1 / (1 + 10 ** (-(found - opponent) / 400)) for opponent in field)
    assert total == pytest.approx(2.5, abs=1e-6)


def test_seed_004_zero_sum_at_equal_k() -> None:
    win = period_change(rating=1800, games=games((2000, "win")), k=20, rules=TABLE)
    loss = period_change(rating=2000, games=games((1800, "loss")), k=20, rules=TABLE)
    assert win.change_unrounded + loss.change_unrounded == 0
