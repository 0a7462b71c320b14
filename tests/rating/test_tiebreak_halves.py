"""The tie-breaks counted in whole half points (``_figures_in_halves``, what ``tiebreaks_for``
and ``standings`` use when every round scores 0, ½ or 1) equal the Fractions' reading of
the rules round by round (``_tiebreaks_exact``), for any crosstable: games played and
forfeited, byes of every value, absences, players who left, rounds beyond the declared
number, and both the rules before 2026 and the capped ones."""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from players.rating import tiebreaks
from players.rating.results import WIN
from players.rating.tiebreaks import RoundResult, Standing, Table

POINTS = [Fraction(0), Fraction(1, 2), Fraction(1)]


@st.composite
def crosstables(draw: st.DrawFn) -> tuple[Table, int]:
    players = draw(st.integers(min_value=1, max_value=9))
    rounds = draw(st.integers(min_value=0, max_value=6))
    table: dict[Hashable, list[RoundResult]] = {p: [] for p in range(players)}
    for number in range(1, rounds + 2):  # one round more than declared, at times
        free = list(range(players))
        draw(st.randoms()).shuffle(free)
        while free:
            player = free.pop()
            kind = draw(st.sampled_from(["game", "game", "game", "forfeit", "bye", "absent"]))
            if kind in ("game", "forfeit") and free:
                opponent = free.pop()
                points = draw(st.sampled_from(POINTS))
                if kind == "forfeit":
                    points = draw(st.sampled_from([Fraction(0), Fraction(1)]))
                other = draw(st.sampled_from([1 - points, Fraction(0)]))  # double forfeit
                played = kind == "game"
                if played:
                    other = 1 - points
                table[player].append(RoundResult(number, points, opponent, played))
                table[opponent].append(RoundResult(number, other, player, played))
            elif kind == "bye":
                points = draw(st.sampled_from(POINTS))
                table[player].append(RoundResult(number, points, None, False))
    return table, rounds


def _as_tuples(standings: list[Standing]) -> list[tuple[object, ...]]:
    return [(s.rank, s.player, s.shared, s.tiebreaks) for s in standings]


@given(crosstables(), st.booleans())
def test_half_points_counted_whole_equal_the_fractions(
    drawn: tuple[Table, int], capped: bool
) -> None:
    table, rounds = drawn
    halves = tiebreaks._in_halves(table)
    assert halves is not None
    whole = tiebreaks._figures_in_halves(halves, rounds, capped=capped)
    exact = tiebreaks._tiebreaks_exact(table, rounds, capped=capped)
    assert {p: tiebreaks._tiebreaks_of(w) for p, w in whole.items()} == exact
    assert tiebreaks.tiebreaks_for(table, rounds, capped=capped) == exact


@given(crosstables(), st.booleans())
def test_standings_are_the_same_either_way(drawn: tuple[Table, int], capped: bool) -> None:
    table, rounds = drawn
    ranked = tiebreaks.standings(table, rounds, capped=capped)
    exact_figures = tiebreaks._tiebreaks_exact(table, rounds, capped=capped)
    assert {s.player: s.tiebreaks.score for s in ranked} == {
        p: t.score for p, t in exact_figures.items()
    }
    # The order, ranks and figures the Fractions give (the halves switched off).
    original = tiebreaks._in_halves
    try:
        tiebreaks._in_halves = lambda table: None
        by_fractions = tiebreaks.standings(table, rounds, capped=capped)
    finally:
        tiebreaks._in_halves = original
    assert _as_tuples(ranked) == _as_tuples(by_fractions)


def test_points_that_are_no_half_take_the_fractions_way() -> None:
    third = Fraction(1, 3)
    table: Table = {
        "a": [RoundResult(1, third, "b", True)],
        "b": [RoundResult(1, 1 - third, "a", True)],
    }
    assert tiebreaks._in_halves(table) is None
    figures = tiebreaks.tiebreaks_for(table, 1)
    assert figures["a"].score == third
    assert figures["b"].sonneborn_berger == (1 - third) * third


def _leaders_as_written(
    group: list[object], table: Table
) -> tuple[list[tuple[object, Fraction]], list[object]]:
    """C.07's Direct Encounter among a group not all of whom met, pair by pair as the
    article reads (what ``encounter_leaders`` counts with fewer passes)."""
    remaining = list(group)
    placed: list[tuple[object, Fraction]] = []
    while len(remaining) > 1:
        points, met = tiebreaks._encounters(remaining, table)
        opponents = len(remaining) - 1
        reach = {
            p: points[p] + WIN * (opponents - sum(1 for pair in met if p in pair))
            for p in remaining
        }
        leaders = [p for p in remaining if all(points[p] > reach[q] for q in remaining if q != p)]
        if not leaders:
            break
        placed.append((leaders[0], points[leaders[0]]))
        remaining.remove(leaders[0])
    return placed, remaining


@given(crosstables(), st.data())
def test_encounter_leaders_are_the_article_s(drawn: tuple[Table, int], data: st.DataObject) -> None:
    table, _ = drawn
    group = data.draw(st.lists(st.sampled_from(list(table)), unique=True, min_size=1))
    assert tiebreaks.encounter_leaders(group, table) == _leaders_as_written(group, table)
