"""Each rating system's explanation of a player's period, on plain values: what the pages
show per game (``RatingSystem.explain``)."""

from __future__ import annotations

import datetime
from fractions import Fraction

import pytest

from players.rating.glicko2 import Glicko2Settings
from players.rating.period import ListSettings
from players.rating.systems import SYSTEMS
from players.rating.systems.explain import GameFacts, PeriodFacts
from players.rating.types import ExpectedMethod, ListKind

OCT = datetime.date(2026, 10, 1)


def settings(system: str, method: ExpectedMethod, rule_400: bool = True) -> ListSettings:
    return ListSettings(
        system=system,
        kind=ListKind.STANDARD,
        method=method,
        apply_400_rule=rule_400,
        fixed_k=None,
        floor=None,
        adjust_march_2024=False,
        glicko=Glicko2Settings(rd_max=400) if system == "glicko2" else None,
    )


def facts(
    system: str, method: ExpectedMethod, own: int | None, k: int | None, **kw: object
) -> PeriodFacts:
    return PeriodFacts(
        settings=settings(system, method, rule_400=system == "fide"),
        month=OCT,
        tournament_starts={},
        own_start=own,
        k_factor=k,
        **kw,  # type: ignore[arg-type]
    )


WIN, LOSS = Fraction(1), Fraction(0)


def test_fide_explains_a_game_by_the_table_and_the_k_recorded() -> None:
    explained = SYSTEMS["fide"].explain(
        facts("fide", ExpectedMethod.FIDE_TABLE, 2000, 20),
        [GameFacts(2000, 1600, WIN, True, None), GameFacts(2000, None, WIN, True, None)],
    )
    first, second = explained.lines
    assert first is not None
    assert second is not None
    assert (first.expected, first.figure, first.change) == (Fraction(92, 100), 400, Fraction(8, 5))
    assert not second.counted
    assert second.note
    assert explained.total == 2
    assert not explained.pooled


def test_an_unrated_player_has_the_games_pooled_toward_a_first_rating() -> None:
    explained = SYSTEMS["fide"].explain(
        facts("fide", ExpectedMethod.FIDE_TABLE, None, None),
        [GameFacts(None, 1600, WIN, True, None)],
    )
    assert explained.pooled
    assert explained.lines == (None,)


def test_elo_uses_the_formula_and_without_k_gives_the_expected_score_only() -> None:
    games = [GameFacts(2000, 1600, WIN, True, None)]
    with_k = SYSTEMS["elo"].explain(facts("elo", ExpectedMethod.FORMULA, 2000, 20), games)
    line = with_k.lines[0]
    assert line is not None
    assert line.expected == pytest.approx(1 / 1.1)
    assert line.change == pytest.approx(20 * (1 - 1 / 1.1))
    without_k = SYSTEMS["elo"].explain(facts("elo", ExpectedMethod.FORMULA, 2000, None), games)
    only = without_k.lines[0]
    assert only is not None
    assert only.change is None
    assert only.expected == pytest.approx(1 / 1.1)


def test_glicko2_explains_glickmans_example_game_by_game() -> None:
    """Glickman's paper: E = 0.639, 0.432, 0.303; the shares of the change add up to the
    period's -36 (r' 1464.05) up to the rounding of RD' (151.52)."""
    explained = SYSTEMS["glicko2"].explain(
        facts(
            "glicko2",
            ExpectedMethod.FORMULA,
            1500,
            None,
            state_before={"rd": 200.0, "volatility": 0.06},
            state_after={"rd": 151.52, "volatility": 0.059996},
        ),
        [
            GameFacts(1500, 1400, WIN, True, None, 1400, {"rd": 30.0, "volatility": 0.06}),
            GameFacts(1500, 1550, LOSS, True, None, 1550, {"rd": 100.0, "volatility": 0.06}),
            GameFacts(1500, 1700, LOSS, True, None, 1700, {"rd": 300.0, "volatility": 0.06}),
            GameFacts(1500, 1700, LOSS, False, None, 1700, {"rd": 300.0, "volatility": 0.06}),
        ],
    )
    lines = explained.lines
    assert lines[3] is None  # not played: nothing to explain
    counted = [line for line in lines if line is not None]
    assert [round(float(line.expected or 0), 3) for line in counted] == [0.639, 0.432, 0.303]
    assert [line.figure for line in counted] == [30.0, 100.0, 300.0]
    assert sum(float(line.change or 0) for line in counted) == pytest.approx(-35.95, abs=0.2)
    assert not explained.pooled


def test_a_system_keeps_only_the_state_it_declares() -> None:
    glicko = SYSTEMS["glicko2"]
    assert glicko.state_names == ("rd", "volatility")
    assert glicko.state_value({"rd": 80.0, "other": 1.0}, "other") is None
    assert glicko.spread_of({"rd": 80.0, "volatility": 0.06}) == 160.0
    assert SYSTEMS["fide"].state_fields == ()
    assert SYSTEMS["fide"].spread_of(None) is None
