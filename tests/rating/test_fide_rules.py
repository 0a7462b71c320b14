"""FIDE's published cases and rules: first rating, K selection, 700 rule, 400-point rule, rapid."""

from __future__ import annotations

from fractions import Fraction

import pytest

from players.rating import (
    CountedDifference,
    ExpectedMethod,
    GameInput,
    KChangeReason,
    KFactor,
    KReason,
    ListKind,
    PlayerState,
    RatingRules,
    cap_k,
    counted_difference,
    first_rating,
    fixed_k,
    junior_age,
    k_change_reason,
    k_factor_for,
    list_kinds,
    not_rated_reason,
    period_change,
)
from players.rating.first_rating import first_rating_2014

WIN, DRAW, LOSS = Fraction(1), Fraction(1, 2), Fraction(0)
STANDARD = RatingRules()
RAPID = RatingRules(list_kind=ListKind.RAPID)
BLITZ = RatingRules(list_kind=ListKind.BLITZ)


# --- first rating (8.2) -------------------------------------------------------------------


def fide_example_event() -> list[GameInput]:
    # 5 games, 3 points, opponents summing to 9507.
    return [
        GameInput(1900, WIN),
        GameInput(1900, WIN),
        GameInput(1900, DRAW),
        GameInput(1900, DRAW),
        GameInput(1907, LOSS),
    ]


def test_first_rating_fide_published_case() -> None:
    result = first_rating([fide_example_event()])
    assert result.games_counted == 5
    assert result.score == 3
    assert result.average == Fraction(13107, 7)
    assert result.percentage == Fraction(4, 7)
    assert result.dp == 50
    assert result.rating == 1922
    assert result.note == ""


def test_first_rating_disregards_a_zero_first_event() -> None:
    zero = [GameInput(2000, LOSS), GameInput(2100, LOSS)]
    result = first_rating([zero, fide_example_event()])
    assert result.rating == 1922
    assert result.games_counted == 5
    assert "disregarded" in result.note


def test_first_rating_first_event_without_counted_games_is_not_a_zero_event() -> None:
    only_unrated = [GameInput(None, LOSS), GameInput(1900, LOSS, played=False)]
    result = first_rating([only_unrated, fide_example_event()])
    assert result.rating == 1922
    assert result.note == ""


def test_first_rating_keeps_a_zero_later_event() -> None:
    zero = [GameInput(2000, LOSS), GameInput(2100, LOSS)]
    result = first_rating([fide_example_event(), zero])
    assert result.games_counted == 7
    assert result.average == Fraction(9507 + 4100 + 3600, 9)
    assert result.percentage == Fraction(4, 9)


def test_first_rating_pools_events_and_ignores_unplayed_and_unrated() -> None:
    first = [*fide_example_event()[:3], GameInput(None, WIN), GameInput(2500, WIN, played=False)]
    second = fide_example_event()[3:]
    result = first_rating([first, second])
    assert result.games_counted == 5
    assert result.rating == 1922


def test_first_rating_needs_min_games_over_remaining_events() -> None:
    zero = [GameInput(2000, LOSS)] * 3
    four = fide_example_event()[:4]
    result = first_rating([zero, four])
    assert result.rating is None
    assert result.games_counted == 4
    assert "needs 5" in result.note
    assert first_rating([four], min_games=4).rating is not None


def test_first_rating_capped_at_maximum() -> None:
    strong = [GameInput(2400, WIN)] * 5 + [GameInput(2400, DRAW)]
    result = first_rating([strong])
    assert result.rating == 2200
    assert "capped at 2200" in result.note
    assert first_rating([strong], maximum=2300).rating == 2300


def test_first_rating_below_minimum_is_not_published() -> None:
    weak = [GameInput(1400, DRAW)] + [GameInput(1400, LOSS)] * 6
    result = first_rating([weak])
    # Ra = (9800 + 3600) / 9 = 1488.9; p = 1.5 / 9 = 17% -> dp -273: Ru 1216.
    assert result.dp == -273
    assert result.rating is None
    assert "below the minimum of 1400" in result.note
    assert first_rating([weak], minimum=1000).rating == 1216


def test_first_rating_rounds_half_away() -> None:
    # Six games at 50% (dp 0) whose Ra = (sum + 3600) / 8 ends in exactly .5.
    event = [GameInput(1900, WIN)] * 3 + [GameInput(1900, LOSS)] * 2 + [GameInput(1904, LOSS)]
    result = first_rating([event])
    assert result.average == Fraction(11404 + 3600, 8)  # 1875.5
    assert result.dp == 0  # p = 4/8
    assert result.rating == 1876


# --- K factor (8.3.3) ----------------------------------------------------------------------


def state(
    rating: int | None = 1800,
    games: int = 50,
    born: int | None = 1990,
    reached_2400: bool = False,
) -> PlayerState:
    return PlayerState(rating=rating, rated_games=games, birth_year=born, reached_2400=reached_2400)


@pytest.mark.parametrize(
    ("player", "year", "k"),
    [
        pytest.param(state(), 2026, KFactor(20, KReason.STANDARD), id="adult-30+"),
        pytest.param(state(games=29), 2026, KFactor(40, KReason.NEW_PLAYER), id="29-games"),
        pytest.param(state(games=30), 2026, KFactor(20, KReason.STANDARD), id="30-games"),
        pytest.param(state(born=2008), 2026, KFactor(40, KReason.JUNIOR), id="junior-18"),
        pytest.param(state(born=2007), 2026, KFactor(20, KReason.STANDARD), id="turned-19"),
        pytest.param(
            state(rating=2300, born=2010), 2026, KFactor(20, KReason.STANDARD), id="junior-2300"
        ),
        pytest.param(
            state(rating=2299, born=2010), 2026, KFactor(40, KReason.JUNIOR), id="junior-2299"
        ),
        pytest.param(
            state(rating=2350, reached_2400=True),
            2026,
            KFactor(10, KReason.REACHED_2400),
            id="reached-2400-stays-after-drop",
        ),
        pytest.param(
            state(rating=2100, games=5, born=2014, reached_2400=True),
            2026,
            KFactor(10, KReason.REACHED_2400),
            id="2400-beats-junior",
        ),
        pytest.param(
            state(games=10, born=2012), 2026, KFactor(40, KReason.JUNIOR), id="junior-first"
        ),
        pytest.param(
            state(rating=None, games=0, born=1980),
            2026,
            KFactor(40, KReason.NEW_PLAYER),
            id="unrated-adult",
        ),
        pytest.param(
            state(rating=None, games=0, born=2012),
            2026,
            KFactor(40, KReason.JUNIOR),
            id="unrated-junior",
        ),
        pytest.param(
            state(rating=None, games=40, born=None),
            2026,
            KFactor(40, KReason.NEW_PLAYER),
            id="unrated-with-old-games",
        ),
        pytest.param(state(born=None), 2026, KFactor(20, KReason.STANDARD), id="no-birth-year"),
    ],
)
def test_k_factor_for(player: PlayerState, year: int, k: KFactor) -> None:
    for kind in list_kinds():
        assert k_factor_for(player, period_year=year, list_kind=kind) == k


def test_junior_k_until_end_of_year_of_18th_birthday() -> None:
    player = state(rating=1900, born=2008)
    k_2026 = k_factor_for(player, period_year=2026, list_kind=ListKind.STANDARD)
    k_2027 = k_factor_for(player, period_year=2027, list_kind=ListKind.STANDARD)
    assert k_2026 == KFactor(40, KReason.JUNIOR)
    assert k_2027 == KFactor(20, KReason.STANDARD)
    assert k_change_reason(k_2026, k_2027) is KChangeReason.TURNED_19


def test_reached_2400_is_permanent() -> None:
    for rating in (2400, 2399, 2200, 1900):
        k = k_factor_for(
            state(rating=rating, reached_2400=True), period_year=2026, list_kind=ListKind.RAPID
        )
        assert k == KFactor(10, KReason.REACHED_2400)


@pytest.mark.parametrize(
    ("k", "games", "used"),
    [
        (20, 39, 17),
        (20, 35, 20),
        (20, 36, 19),
        (40, 17, 40),
        (40, 18, 38),
        (40, 27, 25),
        (10, 70, 10),
        (10, 71, 9),
        (20, 0, 20),
        (40, 700, 1),
    ],
)
def test_cap_k(k: int, games: int, used: int) -> None:
    assert cap_k(k, games) == used
    assert used * games <= 700 or used == k


def test_cap_k_refuses_negative_games() -> None:
    with pytest.raises(ValueError, match="negative"):
        cap_k(20, -1)


def test_39_games_at_k20_use_k17() -> None:
    games = [GameInput(1800, WIN)] * 20 + [GameInput(1800, LOSS)] * 19
    result = period_change(rating=1800, games=games, k=20, rules=STANDARD)
    assert (result.k_base, result.k, result.games_count) == (20, 17, 39)
    assert result.change_unrounded == Fraction(17, 2)
    assert result.change == 9


def test_700_rule_counts_rated_games_only() -> None:
    rated = [GameInput(1800, WIN)] * 17
    extra = [GameInput(None, WIN), GameInput(1800, WIN, played=False)]
    assert period_change(rating=1800, games=rated + extra, k=40, rules=STANDARD).k == 40
    assert period_change(rating=1800, games=[*rated, rated[0]], k=40, rules=STANDARD).k == 38


@pytest.mark.parametrize("value", [1, 20, 32, 100])
def test_fixed_k(value: int) -> None:
    assert fixed_k(value) == KFactor(value, KReason.FIXED)


@pytest.mark.parametrize("value", [0, -1, 101, True])
def test_fixed_k_refuses(value: int) -> None:
    with pytest.raises(ValueError, match="K must"):
        fixed_k(value)


@pytest.mark.parametrize(
    ("old", "new", "reason"),
    [
        (None, KFactor(40, KReason.NEW_PLAYER), KChangeReason.NEW_PLAYER),
        (None, KFactor(40, KReason.JUNIOR), KChangeReason.JUNIOR),
        (None, KFactor(10, KReason.REACHED_2400), KChangeReason.REACHED_2400),
        (None, KFactor(20, KReason.STANDARD), KChangeReason.RULES),
        (None, KFactor(32, KReason.FIXED), KChangeReason.FIXED),
        (None, KFactor(15, KReason.MANUAL), KChangeReason.MANUAL),
        (KFactor(40, KReason.NEW_PLAYER), KFactor(20, KReason.STANDARD), KChangeReason.GAMES_30),
        (KFactor(40, KReason.JUNIOR), KFactor(20, KReason.STANDARD), KChangeReason.TURNED_19),
        (KFactor(40, KReason.JUNIOR), KFactor(40, KReason.NEW_PLAYER), KChangeReason.TURNED_19),
        (KFactor(40, KReason.NEW_PLAYER), KFactor(40, KReason.JUNIOR), KChangeReason.JUNIOR),
        (
            KFactor(20, KReason.STANDARD),
            KFactor(10, KReason.REACHED_2400),
            KChangeReason.REACHED_2400,
        ),
        (
            KFactor(40, KReason.JUNIOR),
            KFactor(10, KReason.REACHED_2400),
            KChangeReason.REACHED_2400,
        ),
        (KFactor(20, KReason.STANDARD), KFactor(25, KReason.MANUAL), KChangeReason.MANUAL),
        (KFactor(25, KReason.MANUAL), KFactor(20, KReason.STANDARD), KChangeReason.RULES),
        (KFactor(32, KReason.FIXED), KFactor(20, KReason.STANDARD), KChangeReason.RULES),
        (KFactor(20, KReason.STANDARD), KFactor(32, KReason.FIXED), KChangeReason.FIXED),
        (KFactor(32, KReason.FIXED), KFactor(24, KReason.FIXED), KChangeReason.FIXED),
        (KFactor(20, KReason.STANDARD), KFactor(40, KReason.NEW_PLAYER), KChangeReason.NEW_PLAYER),
        (KFactor(20, KReason.STANDARD), KFactor(20, KReason.STANDARD), None),
        (KFactor(40, KReason.JUNIOR), KFactor(40, KReason.JUNIOR), None),
        (KFactor(15, KReason.MANUAL), KFactor(15, KReason.MANUAL), None),
    ],
)
def test_k_change_reason(old: KFactor | None, new: KFactor, reason: KChangeReason | None) -> None:
    assert k_change_reason(old, new) is reason


@pytest.mark.parametrize(
    ("new", "still_junior_age", "reason"),
    [
        (KFactor(20, KReason.STANDARD), True, KChangeReason.JUNIOR_2300),
        (KFactor(40, KReason.NEW_PLAYER), True, KChangeReason.JUNIOR_2300),
        (KFactor(20, KReason.STANDARD), False, KChangeReason.TURNED_19),
        (KFactor(10, KReason.REACHED_2400), True, KChangeReason.REACHED_2400),
        (KFactor(25, KReason.MANUAL), True, KChangeReason.MANUAL),
    ],
)
def test_junior_k_ends_by_age_or_by_reaching_2300(
    new: KFactor, still_junior_age: bool, reason: KChangeReason
) -> None:
    old = KFactor(40, KReason.JUNIOR)
    assert k_change_reason(old, new, still_junior_age=still_junior_age) is reason


def test_junior_age_ends_with_the_year_of_the_18th_birthday() -> None:
    assert junior_age(2008, period_year=2026)
    assert not junior_age(2008, period_year=2027)
    assert not junior_age(None, period_year=2026)


def test_k_change_reason_follows_a_career() -> None:
    # Junior with few games -> turns 19 with <30 games -> 30 games -> reaches 2400.
    years = [
        (2025, state(rating=1700, games=10, born=2007)),
        (2026, state(rating=1800, games=20, born=2007)),
        (2026, state(rating=2000, games=30, born=2007)),
        (2027, state(rating=2400, games=80, born=2007, reached_2400=True)),
        (2028, state(rating=2380, games=95, born=2007, reached_2400=True)),
    ]
    ks = [k_factor_for(s, period_year=y, list_kind=ListKind.STANDARD) for y, s in years]
    reasons = [k_change_reason(old, new) for old, new in zip([None, *ks[:-1]], ks, strict=True)]
    assert reasons == [
        KChangeReason.JUNIOR,
        KChangeReason.TURNED_19,
        KChangeReason.GAMES_30,
        KChangeReason.REACHED_2400,
        None,
    ]


def test_every_reason_has_a_label() -> None:
    assert KReason.NEW_PLAYER.label == "40: fewer than 30 rated games"
    for vocabulary in (list(KReason), list(KChangeReason), list_kinds(), list(ExpectedMethod)):
        for member in vocabulary:
            assert member.label
    assert all(reason.sentence for reason in KReason)
    assert {member.value for member in KReason} == {
        "reached_2400",
        "junior",
        "new_player",
        "standard",
        "fixed",
        "manual",
    }


# --- 400-point rule (8.3.1) -----------------------------------------------------------------


def test_2813_vs_2400_per_player() -> None:
    assert counted_difference(2813, 2400, rules=STANDARD) == CountedDifference(413, 413, False)
    assert counted_difference(2400, 2813, rules=STANDARD) == CountedDifference(-413, -400, True)
    top = period_change(rating=2813, games=[GameInput(2400, WIN)], k=10, rules=STANDARD)
    low = period_change(rating=2400, games=[GameInput(2813, LOSS)], k=10, rules=STANDARD)
    assert top.expected == Fraction("0.93")
    assert low.expected == Fraction("0.08")
    assert top.lines[0].capped is False
    assert low.lines[0].note == "400-point rule: 2813 counted as 2800"


@pytest.mark.parametrize(
    ("own", "opponent", "counted"),
    [
        (2649, 2100, 400),
        (2650, 2100, 550),
        (2100, 2650, -400),
        (2000, 1600, 400),
        (2000, 1599, 400),
        (1599, 2000, -400),
        (2000, 2400, -400),
    ],
)
def test_standard_cap_boundaries(own: int, opponent: int, counted: int) -> None:
    result = counted_difference(own, opponent, rules=STANDARD)
    assert result.counted == counted
    assert result.capped == (abs(own - opponent) > 400 and own < 2650)


def test_rapid_caps_a_2700() -> None:
    result = counted_difference(2700, 2250, rules=RAPID)
    assert result == CountedDifference(450, 400, True)
    assert counted_difference(2700, 2250, rules=STANDARD) == CountedDifference(450, 450, False)
    change = period_change(rating=2700, games=[GameInput(2250, WIN)], k=10, rules=BLITZ)
    assert change.expected == Fraction("0.92")
    assert change.lines[0].note == "400-point rule: 2250 counted as 2300"


def test_400_rule_can_be_switched_off() -> None:
    off = RatingRules(apply_400_rule=False)
    assert counted_difference(1500, 2100, rules=off) == CountedDifference(-600, -600, False)
    assert (
        counted_difference(
            1500, 2100, rules=RatingRules(list_kind=ListKind.RAPID, apply_400_rule=False)
        ).capped
        is False
    )


@pytest.mark.parametrize(
    ("own", "opponent", "rated"),
    [
        (2700, 2100, False),  # 600 apart, own above 2600
        (2100, 2700, False),  # opponent above 2600
        (2700, 2101, True),  # 599 apart
        (2601, 2001, False),
        (2600, 2000, True),  # nobody above 2600
        (2000, 2600, True),
        (2650, 1000, False),
    ],
)
def test_fast_600_2600_rule(own: int, opponent: int, rated: bool) -> None:
    for rules in (RAPID, BLITZ):
        reason = not_rated_reason(own, opponent, rules=rules)
        assert (reason is None) is rated
        change = period_change(rating=own, games=[GameInput(opponent, WIN)], k=20, rules=rules)
        assert change.games_count == (1 if rated else 0)
        assert change.lines[0].rated is rated
        if not rated:
            assert change.lines[0].note == "rapid/blitz: 600+ points apart with a player above 2600"
    assert not_rated_reason(own, opponent, rules=STANDARD) is None


# --- not-rated lines --------------------------------------------------------------------------


def test_unplayed_and_unrated_lines_are_recorded_not_rated() -> None:
    games = [
        GameInput(1900, WIN, played=False),
        GameInput(None, WIN),
        GameInput(1800, DRAW),
    ]
    for method in ExpectedMethod:
        result = period_change(rating=1800, games=games, k=20, rules=RatingRules(method=method))
        forfeit, unrated, rated = result.lines
        assert (forfeit.rated, forfeit.note, forfeit.change) == (False, "forfeit: not rated", None)
        assert forfeit.rating_difference == -100
        assert unrated.rated is False
        assert unrated.note == "opponent unrated: counts only toward the opponent's first rating"
        assert unrated.rating_difference is None
        assert rated.rated
        assert rated.note == ""
        assert result.games_count == 1
        assert result.score == DRAW
        assert result.change == 0
        assert result.new_rating == 1800


def test_no_rated_games_changes_nothing() -> None:
    result = period_change(rating=1800, games=[], k=20, rules=STANDARD)
    assert (result.games_count, result.change, result.new_rating, result.lines) == (0, 0, 1800, ())
    assert result.expected == 0


def test_rated_game_scores_must_be_whole_halves() -> None:
    with pytest.raises(ValueError, match="1, 1/2 or 0"):
        period_change(rating=1800, games=[GameInput(1800, Fraction(1, 3))], k=20, rules=STANDARD)


def test_negative_k_is_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        period_change(rating=1800, games=[], k=-1, rules=STANDARD)


def test_k_zero_from_the_700_rule_is_accepted() -> None:
    # 8.3.3: K x n <= 700, so 701 rated games give K = floor(700 / 701) = 0, and the
    # close passes that K on for each group of games. 0 x (1 - .50) = 0: no change.
    assert cap_k(20, 701) == 0
    result = period_change(rating=1800, games=[GameInput(1800, WIN)], k=0, rules=STANDARD)
    assert (result.k, result.change, result.new_rating) == (0, 0, 1800)


def test_table_totals_are_fractions_and_formula_totals_floats() -> None:
    games = [GameInput(1700, WIN)]
    table = period_change(rating=1800, games=games, k=20, rules=STANDARD)
    formula = period_change(
        rating=1800, games=games, k=20, rules=RatingRules(method=ExpectedMethod.FORMULA)
    )
    assert isinstance(table.expected, Fraction)
    assert isinstance(table.change_unrounded, Fraction)
    assert isinstance(formula.expected, float)
    assert isinstance(formula.change_unrounded, float)


# -- FIDE's rules by date (players.rating.fide_rules) -------------------------------------


def test_first_rating_2014_worked_example() -> None:
    # Section 10: five games against opponents averaging 1900, 3 points (60%): one half
    # point above 50% -> 1900 + 20 = 1920; the 2024 rule gives 1921 for the same games.
    games = [GameInput(1850, Fraction(1), True), GameInput(1950, Fraction(1), True)]
    games += [GameInput(1900, Fraction(1), True), GameInput(1880, Fraction(0), True)]
    games += [GameInput(1920, Fraction(0), True)]
    old = first_rating_2014([games])
    assert (old.rating, old.average, old.dp) == (1920, 1900, 20)
    assert first_rating([games]).rating == 1921


def test_first_rating_2014_below_and_at_50_percent_and_its_floor() -> None:
    def five(points: int, opponent: int = 1500) -> list[GameInput]:
        return [GameInput(opponent, Fraction(1 if i < points else 0), True) for i in range(5)]

    # 1 of 5 (20%): dp(.20) = -240 (table 8.1.1) -> 1260; 2.5 of 5: Ra.
    assert first_rating_2014([five(1)]).rating == 1260
    draws = [GameInput(1600, Fraction(1, 2), True)] * 5
    assert first_rating_2014([draws]).rating == 1600
    # No 2200 cap; below the 1000 floor nothing is published.
    assert first_rating_2014([five(5, 2300)]).rating == 2300 + 20 * 5
    assert first_rating_2014([five(1, 1100)]).rating is None


def test_first_rating_2014_publishes_at_its_minimum_and_says_why_not_below() -> None:
    draws = [GameInput(1000, Fraction(1, 2), True)] * 5
    at_floor = first_rating_2014([draws])
    # 50%: Ru = Ra = 1000, the floor itself, which is published (7.1.4: "at least").
    assert (at_floor.rating, at_floor.percentage, at_floor.note) == (1000, Fraction(1, 2), "")
    # A first event without a point is disregarded (8.2.1); then 1 of 5 against 1100:
    # 1100 - 240 = 860, below the floor. Both reasons are given, in that order.
    zero_first = [GameInput(1500, Fraction(0), True)] * 2
    one_of_five = [GameInput(1100, Fraction(1 if i < 1 else 0), True) for i in range(5)]
    below = first_rating_2014([zero_first, one_of_five])
    assert (below.rating, below.percentage) == (None, Fraction(1, 5))
    assert below.note == (
        "first event disregarded: zero points; 860 is below the minimum of 1000: not published"
    )
    few = first_rating_2014([[GameInput(1500, Fraction(1), True)] * 3], min_games=5)
    assert few.note == "3 games against rated opponents; a first rating needs 5"
