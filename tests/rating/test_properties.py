"""Hypothesis properties: symmetry, zero-sum at equal K, monotonicity, table vs formula."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from players.rating import (
    ExpectedMethod,
    GameInput,
    RatingRules,
    counted_difference,
    expected_from_formula,
    expected_from_table,
    list_kinds,
    not_rated_reason,
    period_change,
    round_half_away,
)

ratings = st.integers(min_value=1000, max_value=2900)
scores = st.sampled_from([Fraction(0), Fraction(1, 2), Fraction(1)])
rules_st = st.builds(
    RatingRules,
    list_kind=st.sampled_from(list(list_kinds())),
    method=st.sampled_from(list(ExpectedMethod)),
    apply_400_rule=st.booleans(),
)
game_st = st.builds(
    GameInput,
    opponent_rating=st.one_of(st.none(), ratings),
    score=scores,
    played=st.booleans(),
)


def _symmetric_caps(a: int, b: int, rules: RatingRules) -> bool:
    # Both players count the same |D| unless only one of them is capped (8.3.1 per player).
    return (
        counted_difference(a, b, rules=rules).counted
        == -counted_difference(b, a, rules=rules).counted
    )


@given(a=ratings, b=ratings, rules=rules_st)
def test_expected_scores_of_both_players_sum_to_one(a: int, b: int, rules: RatingRules) -> None:
    assume(_symmetric_caps(a, b, rules))
    d_a = counted_difference(a, b, rules=rules).counted
    d_b = counted_difference(b, a, rules=rules).counted
    assert expected_from_table(d_a) + expected_from_table(d_b) == 1
    assert expected_from_formula(d_a) + expected_from_formula(d_b) == pytest.approx(1, abs=1e-12)


@given(
    a=ratings,
    b=ratings,
    results=st.lists(scores, min_size=1, max_size=40),
    k=st.sampled_from([10, 20, 40]),
    method=st.sampled_from(list(ExpectedMethod)),
)
def test_zero_sum_at_equal_k_without_asymmetric_caps(
    a: int, b: int, results: list[Fraction], k: int, method: ExpectedMethod
) -> None:
    rules = RatingRules(method=method)
    assume(_symmetric_caps(a, b, rules))
    first = period_change(rating=a, games=[GameInput(b, s) for s in results], k=k, rules=rules)
    second = period_change(rating=b, games=[GameInput(a, 1 - s) for s in results], k=k, rules=rules)
    if method is ExpectedMethod.FIDE_TABLE:
        assert first.change_unrounded + second.change_unrounded == 0
        assert first.change == -second.change
    else:
        total = float(first.change_unrounded) + float(second.change_unrounded)
        assert total == pytest.approx(0, abs=1e-9)


@given(
    rating=ratings,
    games=st.lists(st.builds(GameInput, opponent_rating=ratings, score=scores), max_size=30),
    k=st.integers(min_value=1, max_value=100),
    rules=rules_st,
    index=st.integers(min_value=0),
)
def test_change_is_monotone_in_score(
    rating: int, games: list[GameInput], k: int, rules: RatingRules, index: int
) -> None:
    base = period_change(rating=rating, games=games, k=k, rules=rules)
    improvable = [i for i, g in enumerate(games) if g.score < 1]
    assume(improvable)
    i = improvable[index % len(improvable)]
    better = list(games)
    better[i] = GameInput(games[i].opponent_rating, games[i].score + Fraction(1, 2))
    improved = period_change(rating=rating, games=better, k=k, rules=rules)
    assert improved.change_unrounded >= base.change_unrounded
    assert improved.change >= base.change


@given(difference=st.integers(min_value=-400, max_value=400))
def test_table_within_0015_of_formula(difference: int) -> None:
    gap = abs(float(expected_from_table(difference)) - expected_from_formula(difference))
    assert gap <= 0.015


@given(
    value=st.one_of(
        st.fractions(max_denominator=1000).filter(lambda f: abs(f) < 10**6),
        st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
        st.decimals(min_value=-(10**6), max_value=10**6, allow_nan=False, places=3),
    )
)
def test_round_half_away_is_symmetric(value: Fraction | float | Decimal) -> None:
    assert round_half_away(-value) == -round_half_away(value)
    assert abs(round_half_away(value) - value) <= Fraction(1, 2) + Fraction(1, 10**6)


@given(numerator=st.integers(min_value=-(10**6), max_value=10**6))
def test_round_half_away_on_halves(numerator: int) -> None:
    value = Fraction(2 * numerator + 1, 2)
    expected = numerator + 1 if numerator >= 0 else numerator
    assert round_half_away(value) == expected
    assert round_half_away(float(value)) == expected


@given(
    rating=ratings,
    games=st.lists(game_st, max_size=40),
    k=st.integers(min_value=1, max_value=100),
    rules=rules_st,
)
def test_keep_lines_false_gives_identical_totals(
    rating: int, games: list[GameInput], k: int, rules: RatingRules
) -> None:
    full = period_change(rating=rating, games=games, k=k, rules=rules)
    lean = period_change(rating=rating, games=games, k=k, rules=rules, keep_lines=False)
    assert lean.lines == ()
    assert len(full.lines) == len(games)
    for field in ("k", "games_count", "score", "expected", "change_unrounded", "change"):
        assert getattr(full, field) == getattr(lean, field)
        assert type(getattr(full, field)) is type(getattr(lean, field))
    # The lines explain the totals.
    rated = [line for line in full.lines if line.rated]
    assert len(rated) == full.games_count
    assert sum((line.score for line in rated), Fraction(0)) == full.score
    if rules.method is ExpectedMethod.FIDE_TABLE:
        assert sum((Fraction(line.change or 0) for line in rated), Fraction(0)) == (
            full.change_unrounded
        )
    else:
        line_total = sum(float(line.change or 0) for line in rated)
        assert line_total == pytest.approx(float(full.change_unrounded), abs=1e-9)
    for line in rated:
        assert line.expected is not None
        assert line.change is not None
        per_game = full.k * (line.score - line.expected)
        if rules.method is ExpectedMethod.FIDE_TABLE:
            assert line.change == per_game
        else:
            assert line.change == pytest.approx(float(per_game), abs=1e-12)
    assert full.new_rating == rating + full.change
    assert full.change == round_half_away(full.change_unrounded)


@given(own=ratings, opponent=ratings, score=scores, rules=rules_st)
def test_period_lines_agree_with_the_rule_functions(
    own: int, opponent: int, score: Fraction, rules: RatingRules
) -> None:
    # A game line shows what score_game decided: the difference, the cap, the reason.
    line = period_change(rating=own, games=[GameInput(opponent, score)], k=20, rules=rules).lines[0]
    reason = not_rated_reason(own, opponent, rules=rules)
    assert line.rated is (reason is None)
    assert line.rating_difference == own - opponent
    if reason is None:
        counted = counted_difference(own, opponent, rules=rules)
        assert (line.counted_difference, line.capped) == (counted.counted, counted.capped)
        if rules.method is ExpectedMethod.FIDE_TABLE:
            assert line.expected == expected_from_table(counted.counted)
        else:
            assert line.expected == expected_from_formula(counted.counted)
    else:
        assert line.note == reason
