"""Tournament standings with FIDE's tie-breaks (Handbook C.07, Tie-Break Regulations).

Pure functions over plain values. A participant's tournament is a tuple of ``RoundResult``
(one per round they had a result in); a round with no entry is an absence (C.07 16.1: an
unplayed round, zero points). Scores are exact Fractions.

Unplayed rounds (C.07 16): a forfeit (win or loss) or a bye is an unplayed round even when
an opponent is named. A *voluntary* unplayed round (VUR: a forfeit loss, an absence, a
half- or zero-point bye: an unplayed round that scored less than a win) is what C.07
16.3-16.4 and 14.6 treat specially:

- an opponent's score, when it enters someone else's Buchholz or Sonneborn-Berger, is their
  *adjusted* score: the rounds after their last appearance that had no opponent (they
  left, or sat out the end) count as draws (C.07 16.3.2); every other round counts what
  it scored;
- a participant's own unplayed round counts, in their own Buchholz, as a game against a
  dummy opponent with the participant's own score (C.07 16.4), and in their
  Sonneborn-Berger as that value times the points the round gave. Under the rules in
  force from 1 March 2026 the dummy's score is at most the named opponent's adjusted
  score, or a draw per round when there was no opponent (``caps_unplayed``);
- cutting the least significant value (Cut-1, C.07 14.1) cuts a VUR first (C.07 14.6).

FIDE's own tie-break checker (gacrux) is the oracle for this reading:
tests/tournaments/test_trf_oracle.py.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from fractions import Fraction
from typing import Any

from players.rating.results import DRAW, WIN

PlayerKey = Hashable


@dataclass(frozen=True, slots=True)
class RoundResult:
    """One round of one participant: the points it gave and against whom.

    ``opponent`` is None for a bye; ``played`` is False for a forfeit or a bye (C.07 16.1).
    """

    round: int
    points: Fraction
    opponent: PlayerKey | None
    played: bool


Table = Mapping[PlayerKey, Sequence[RoundResult]]


@dataclass(frozen=True)
class TieBreaks:
    """The figures shown beside a participant's score."""

    score: Fraction
    buchholz: Fraction
    buchholz_cut1: Fraction
    sonneborn_berger: Fraction
    wins: int
    direct_encounter: Fraction | None = None


@dataclass(frozen=True, slots=True)
class Standing:
    rank: int
    player: PlayerKey
    tiebreaks: TieBreaks
    shared: bool  # True when the rank is shared (still tied after every tie-break)


def _is_vur(result: RoundResult) -> bool:
    """C.07 16.2: an unplayed round that scored less than a win is a voluntary one."""
    return not result.played and result.points < WIN


def tournament_score(results: Sequence[RoundResult]) -> Fraction:
    """The points of every round, played or not (the tournament score)."""
    return sum((r.points for r in results), Fraction(0))


# C.07 as approved by FIDE Council on 2 February 2026, in force from 1 March 2026.
CAPPED_UNPLAYED_FROM = date(2026, 3, 1)


def caps_unplayed(start: date) -> bool:
    """C.07 16.4 (2026): whether an event that started on ``start`` caps the dummy
    opponent's score of an unplayed round (rules are chosen by the start date)."""
    return start >= CAPPED_UNPLAYED_FROM


def adjusted_score(results: Sequence[RoundResult], rounds: int) -> Fraction:
    """C.07 16.3: the score an opponent brings to others' tie-breaks. The rounds after
    their last appearance (the last round that was not a voluntary unplayed one) that had
    no opponent, an absence included, count as draws (16.3.2: they left); every other
    round counts what it scored."""
    by_round = {result.round: result for result in results}
    last_present = max((r.round for r in results if not _is_vur(r)), default=0)
    counted = Fraction(0)
    for number in range(1, max([rounds, *by_round]) + 1):
        result = by_round.get(number)
        if number > last_present and (result is None or result.opponent is None):
            counted += DRAW
        elif result is not None:
            counted += result.points
    return counted


def _contributions(
    player: PlayerKey,
    table: Table,
    rounds: int,
    adjusted: Mapping[PlayerKey, Fraction],
    capped: bool = False,
) -> list[tuple[Fraction, Fraction, bool]]:
    """(opponent value, points scored, voluntary-unplayed) per round, absences included.

    The opponent value is the opponent's adjusted score for a played game, the participant's
    own score (the dummy opponent of C.07 16.4) for an unplayed round; ``capped`` (2026):
    at most the named opponent's adjusted score, or a draw per round without one.
    """
    results = table[player]
    own = tournament_score(results)
    no_opponent = min(own, DRAW * rounds) if capped else own
    rows = []
    for result in results:
        if result.played and result.opponent is not None:
            rows.append((adjusted[result.opponent], result.points, False))
        elif result.opponent is not None and capped:
            rows.append((min(own, adjusted[result.opponent]), result.points, _is_vur(result)))
        elif result.opponent is not None:
            rows.append((own, result.points, _is_vur(result)))
        else:
            rows.append((no_opponent, result.points, _is_vur(result)))
    rows.extend((no_opponent, Fraction(0), True) for _ in range(max(rounds - len(results), 0)))
    return rows


def buchholz(
    player: PlayerKey,
    table: Table,
    rounds: int,
    *,
    cut: int = 0,
    adjusted: Mapping[PlayerKey, Fraction] | None = None,
    capped: bool = False,
) -> Fraction:
    """C.07, Buchholz (BH): the sum of the opponents' (adjusted) scores; ``cut=1`` drops the
    least significant value (C.07 14.1), a voluntary unplayed round's first (C.07 14.6)."""
    adjusted = adjusted if adjusted is not None else adjusted_scores(table, rounds)
    rows = _contributions(player, table, rounds, adjusted, capped)
    # Least significant first: voluntary unplayed rounds, then the lowest values.
    rows.sort(key=lambda row: (not row[2], row[0]))
    return sum((value for value, _, _ in rows[cut:]), Fraction(0))


def sonneborn_berger(
    player: PlayerKey,
    table: Table,
    rounds: int,
    *,
    adjusted: Mapping[PlayerKey, Fraction] | None = None,
    capped: bool = False,
) -> Fraction:
    """C.07, Sonneborn-Berger (SB): each opponent's (adjusted) score times the points scored
    against them; an unplayed round's dummy opponent (C.07 16.4) times the round's points."""
    adjusted = adjusted if adjusted is not None else adjusted_scores(table, rounds)
    rows = _contributions(player, table, rounds, adjusted, capped)
    return sum((value * points for value, points, _ in rows), Fraction(0))


def wins(results: Sequence[RoundResult]) -> int:
    """C.07, Number of Wins (WIN): rounds in which the participant got a win's points, unplayed wins
    (a forfeit win, a full-point bye) included."""
    return sum(1 for r in results if r.points == WIN)


def _encounters(
    group: Sequence[PlayerKey], table: Table
) -> tuple[dict[PlayerKey, Fraction], set[frozenset[PlayerKey]]]:
    """The points each of ``group`` scored against the others, and the pairs that met."""
    members = set(group)
    points: dict[PlayerKey, Fraction] = dict.fromkeys(group, Fraction(0))
    met: set[frozenset[PlayerKey]] = set()
    for player in group:
        for result in table[player]:
            if result.opponent in members and result.opponent != player:
                points[player] += result.points
                met.add(frozenset((player, result.opponent)))
    return points, met


def direct_encounter(group: Sequence[PlayerKey], table: Table) -> dict[PlayerKey, Fraction] | None:
    """C.07, Direct Encounter (DE): the points each of the tied ``group`` scored against the others.

    Only when every pair of them met (a forfeit is a met pairing: its result stands);
    otherwise None, and ``encounter_leaders`` says who is still placed by it.
    """
    points, met = _encounters(group, table)
    pairs = len(group) * (len(group) - 1) // 2
    if len(group) < 2 or len(met) < pairs:
        return None
    return points


def encounter_leaders(
    group: Sequence[PlayerKey], table: Table
) -> tuple[list[tuple[PlayerKey, Fraction]], list[PlayerKey]]:
    """C.07's Direct Encounter when not every pair of the tied ``group`` met: a participant
    who scored more against the others than any other could reach, had every missing
    game been won, ranks first; then the same among those left, and so on. -> the
    participants so placed, in order, each with their points; and those left, still level.
    """
    remaining = list(group)
    placed: list[tuple[PlayerKey, Fraction]] = []
    while len(remaining) > 1:
        points, met = _encounters(remaining, table)
        opponents = len(remaining) - 1
        # How many of the others each has met (a pair counted once for each of the two).
        met_by = Counter(p for pair in met for p in pair)
        reach = {p: points[p] + WIN * (opponents - met_by[p]) for p in remaining}
        # A leader's points exceed the best reach of the others: the highest reach, or the
        # second highest where the highest is the leader's own.
        best, second = sorted(reach.values(), reverse=True)[:2]
        leaders = [p for p in remaining if points[p] > (second if reach[p] == best else best)]
        if not leaders:
            break
        # At most one: a leader's points exceed what every other could reach.
        placed.append((leaders[0], points[leaders[0]]))
        remaining.remove(leaders[0])
    return placed, remaining


def adjusted_scores(table: Table, rounds: int) -> dict[PlayerKey, Fraction]:
    return {player: adjusted_score(results, rounds) for player, results in table.items()}


def tiebreaks_for(table: Table, rounds: int, *, capped: bool = False) -> dict[PlayerKey, TieBreaks]:
    """Score, Buchholz, Buchholz Cut-1, Sonneborn-Berger and wins of every participant
    (``capped``: C.07 16.4 of 2026, see ``caps_unplayed``)."""
    in_halves = _in_halves(table)
    if in_halves is not None:
        counted = _figures_in_halves(in_halves, rounds, capped=capped)
        return {player: _tiebreaks_of(figures) for player, figures in counted.items()}
    return _tiebreaks_exact(table, rounds, capped=capped)


def _tiebreaks_exact(
    table: Table, rounds: int, *, capped: bool = False
) -> dict[PlayerKey, TieBreaks]:
    """``tiebreaks_for`` in Fractions, round by round through the functions above: any
    points; the rules' one reading, which ``_figures_in_halves`` is proven equal to
    (tests/rating/test_tiebreak_halves.py)."""
    adjusted = adjusted_scores(table, rounds)
    return {
        player: TieBreaks(
            score=tournament_score(results),
            buchholz=buchholz(player, table, rounds, adjusted=adjusted, capped=capped),
            buchholz_cut1=buchholz(player, table, rounds, cut=1, adjusted=adjusted, capped=capped),
            sonneborn_berger=sonneborn_berger(
                player, table, rounds, adjusted=adjusted, capped=capped
            ),
            wins=wins(results),
        )
        for player, results in table.items()
    }


def standings(table: Table, rounds: int, *, capped: bool = False) -> list[Standing]:
    """Ranked participants: score, then Buchholz Cut-1, Buchholz, Sonneborn-Berger and
    wins (the order C.07 recommends for an individual Swiss); direct encounter last, among those
    still level on all of them. Those level after all share a rank (1, 2, 2, 4)."""
    in_halves = _in_halves(table)
    groups: dict[tuple[Any, ...], list[PlayerKey]] = {}
    if in_halves is not None:
        # Whole numbers of half and quarter points order as the Fractions they count.
        counted = _figures_in_halves(in_halves, rounds, capped=capped)
        figures = {player: _tiebreaks_of(numbers) for player, numbers in counted.items()}
        for player in table:
            score, buchholz_h, cut1, sb, won = counted[player]
            groups.setdefault((score, cut1, buchholz_h, sb, won), []).append(player)
    else:
        figures = _tiebreaks_exact(table, rounds, capped=capped)
        for player in table:
            t = figures[player]
            key = (t.score, t.buchholz_cut1, t.buchholz, t.sonneborn_berger, t.wins)
            groups.setdefault(key, []).append(player)
    ranked: list[Standing] = []
    for group_key in sorted(groups, reverse=True):
        ranked.extend(_rank_group(groups[group_key], table, figures, start=len(ranked) + 1))
    return ranked


def _rank_group(
    group: list[PlayerKey], table: Table, figures: Mapping[PlayerKey, TieBreaks], *, start: int
) -> list[Standing]:
    if len(group) == 1:
        return [Standing(start, group[0], figures[group[0]], shared=False)]
    encounter = direct_encounter(group, table)
    if encounter is None:
        placed, level = encounter_leaders(group, table)
        leading = [
            Standing(
                start + i,
                player,
                replace(figures[player], direct_encounter=points),
                shared=False,
            )
            for i, (player, points) in enumerate(placed)
        ]
        rank = start + len(leading)
        return leading + [Standing(rank, p, figures[p], shared=len(level) > 1) for p in level]
    out: list[Standing] = []
    by_points: dict[Fraction, list[PlayerKey]] = {}
    for player in group:
        by_points.setdefault(encounter[player], []).append(player)
    for points in sorted(by_points, reverse=True):
        tied = by_points[points]
        rank = start + len(out)
        for player in tied:
            with_de = replace(figures[player], direct_encounter=points)
            out.append(Standing(rank, player, with_de, shared=len(tied) > 1))
    return out


# -- the same figures in whole numbers -------------------------------------------------------
#
# Every game and bye scores 0, ½ or 1, so every score and Buchholz is a whole number of half
# points and every Sonneborn-Berger one of quarter points. Counted so, the figures of 5,000
# players take a tenth of the time Fractions do; ``_tiebreaks_exact`` stays the reading of
# the rules for any other points, and a property test holds the two equal.

_WIN_HALVES = int(WIN * 2)
_DRAW_HALVES = int(DRAW * 2)

# (round, points in halves, opponent, played)
_HalfResult = tuple[int, int, PlayerKey | None, bool]
# score and Buchholz in halves, Sonneborn-Berger in quarters, wins:
# (score, Buchholz, Buchholz Cut-1, Sonneborn-Berger, wins)
_Counted = tuple[int, int, int, int, int]


def _in_halves(table: Table) -> dict[PlayerKey, list[_HalfResult]] | None:
    """The table with each round's points as whole half points; None when some round's
    points are not a multiple of ½."""
    converted: dict[PlayerKey, list[_HalfResult]] = {}
    for player, results in table.items():
        rows = []
        for result in results:
            points = result.points
            if points.denominator == 1:
                halves = 2 * points.numerator
            elif points.denominator == 2:
                halves = points.numerator
            else:
                return None
            rows.append((result.round, halves, result.opponent, result.played))
        converted[player] = rows
    return converted


def _adjusted_in_halves(results: list[_HalfResult], rounds: int) -> int:
    """``adjusted_score`` in half points."""
    by_round = {result[0]: result for result in results}
    last_present = max(
        (r[0] for r in results if r[3] or r[1] >= _WIN_HALVES),  # not a voluntary unplayed
        default=0,
    )
    counted = 0
    for number in range(1, max(rounds, *by_round) + 1 if by_round else rounds + 1):
        result = by_round.get(number)
        if number > last_present and (result is None or result[2] is None):
            counted += _DRAW_HALVES
        elif result is not None:
            counted += result[1]
    return counted


def _figures_in_halves(
    table: Mapping[PlayerKey, list[_HalfResult]], rounds: int, *, capped: bool
) -> dict[PlayerKey, _Counted]:
    """``_tiebreaks_exact``'s figures, as ``_contributions``, ``buchholz`` (cut 0 and 1),
    ``sonneborn_berger`` and ``wins`` count them, in whole half (SB: quarter) points."""
    adjusted = {player: _adjusted_in_halves(results, rounds) for player, results in table.items()}
    counted: dict[PlayerKey, _Counted] = {}
    for player, results in table.items():
        own = sum(result[1] for result in results)
        no_opponent = min(own, _DRAW_HALVES * rounds) if capped else own
        # (voluntary unplayed, opponent's value, points) per round, absences included.
        rows = _rounds_in_halves(results, adjusted, own, no_opponent, capped=capped)
        won = sum(1 for result in results if result[1] == _WIN_HALVES)
        rows.extend((True, no_opponent, 0) for _ in range(max(rounds - len(results), 0)))
        total = sum(row[1] for row in rows)
        # Cut-1 drops the least significant value: a voluntary unplayed round's first.
        least = min(rows, key=lambda row: (not row[0], row[1]))[1] if rows else 0
        sonneborn = sum(value * points for _, value, points in rows)
        counted[player] = (own, total, total - least, sonneborn, won)
    return counted


def _rounds_in_halves(
    results: list[_HalfResult],
    adjusted: Mapping[PlayerKey, int],
    own: int,
    no_opponent: int,
    *,
    capped: bool,
) -> list[tuple[bool, int, int]]:
    """A player's rounds as (voluntary unplayed, the value the round counts for the
    player's Buchholz, points): a played game its opponent's adjusted score; an unplayed
    one against an opponent the player's own score (capped: at most the opponent's); a
    round without an opponent ``no_opponent``."""
    rows: list[tuple[bool, int, int]] = []
    for _, points, opponent, played in results:
        if played and opponent is not None:
            rows.append((False, adjusted[opponent], points))
            continue
        voluntary = not played and points < _WIN_HALVES
        if opponent is not None and capped:
            rows.append((voluntary, min(own, adjusted[opponent]), points))
        elif opponent is not None:
            rows.append((voluntary, own, points))
        else:
            rows.append((voluntary, no_opponent, points))
    return rows


@functools.lru_cache(maxsize=4096)
def _fraction(numerator: int, denominator: int) -> Fraction:
    # The same few figures recur across thousands of players: one Fraction each.
    return Fraction(numerator, denominator)


def _tiebreaks_of(counted: _Counted) -> TieBreaks:
    score, buchholz_h, cut1, sonneborn, won = counted
    return TieBreaks(
        score=_fraction(score, 2),
        buchholz=_fraction(buchholz_h, 2),
        buchholz_cut1=_fraction(cut1, 2),
        sonneborn_berger=_fraction(sonneborn, 4),
        wins=won,
    )
