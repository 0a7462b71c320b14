"""Tie-breaks (C.07) worked by hand over small crosstables.

Each table's figures are worked out in the comments from the articles' definitions:
Buchholz (opponents' scores), Cut-1 (the least significant value dropped, a voluntary
unplayed round's first: 14.6), Sonneborn-Berger (opponent's score times the points
scored against them), wins, direct encounter, and the unplayed rounds of article 16
(the dummy opponent with the participant's own score, capped from 2026; an opponent's
rounds after leaving counted as draws in the score they bring).
"""

from __future__ import annotations

from datetime import date
from fractions import Fraction as F

import pytest

from players.rating.tiebreaks import (
    RoundResult,
    adjusted_score,
    buchholz,
    caps_unplayed,
    direct_encounter,
    encounter_leaders,
    sonneborn_berger,
    standings,
    tiebreaks_for,
    wins,
)

H = F(1, 2)


def table_of(games: list[tuple[int, str, str, F, bool]]) -> dict[str, list[RoundResult]]:
    """(round, white, black, white's points, played) -> each side's rounds."""
    table: dict[str, list[RoundResult]] = {}
    for round_no, white, black, points, played in games:
        table.setdefault(white, []).append(RoundResult(round_no, points, black, played))
        table.setdefault(black, []).append(RoundResult(round_no, 1 - points, white, played))
    return table


# A round robin of four, all games played:
#   r1 A-B 1-0, C-D ½-½;  r2 A-C ½-½, B-D 1-0;  r3 A-D 0-1, B-C 1-0
# Scores: A 1½, B 2, C 1, D 1½.
ROUND_ROBIN = table_of(
    [
        (1, "A", "B", F(1), True),
        (1, "C", "D", H, True),
        (2, "A", "C", H, True),
        (2, "B", "D", F(1), True),
        (3, "A", "D", F(0), True),
        (3, "B", "C", F(1), True),
    ]
)


@pytest.mark.parametrize(
    ("player", "bh", "cut1", "sb", "won"),
    [
        # A: opponents B 2 + C 1 + D 1½ = 4½; cut the lowest (C 1) = 3½;
        # SB: beat B (2) + drew C (½ x 1) = 2½.
        ("A", F(9, 2), F(7, 2), F(5, 2), 1),
        # B: A 1½ + D 1½ + C 1 = 4; cut C = 3; SB: beat D 1½ + beat C 1 = 2½.
        ("B", F(4), F(3), F(5, 2), 2),
        # C: D 1½ + A 1½ + B 2 = 5; cut 1½ = 3½; SB: drew D ¾ + drew A ¾ = 1½.
        ("C", F(5), F(7, 2), F(3, 2), 0),
        # D: C 1 + B 2 + A 1½ = 4½; cut C = 3½; SB: drew C ½ + beat A 1½ = 2.
        ("D", F(9, 2), F(7, 2), F(2), 1),
    ],
)
def test_round_robin_figures(player: str, bh: F, cut1: F, sb: F, won: int) -> None:
    assert buchholz(player, ROUND_ROBIN, 3) == bh
    assert buchholz(player, ROUND_ROBIN, 3, cut=1) == cut1
    assert sonneborn_berger(player, ROUND_ROBIN, 3) == sb
    assert wins(ROUND_ROBIN[player]) == won


def test_round_robin_standings_break_a_and_d_by_sonneborn_berger() -> None:
    # A and D: 1½, Cut-1 3½, Buchholz 4½ each; A's SB 2½ beats D's 2, though D beat A
    # (direct encounter comes last, so it does not decide here).
    ranked = standings(ROUND_ROBIN, 3)
    assert [(s.rank, s.player, s.shared) for s in ranked] == [
        (1, "B", False),
        (2, "A", False),
        (3, "D", False),
        (4, "C", False),
    ]


# Level on everything but the game between them:
#   r1 A-B 1-0, C-D 1-0;  r2 A-C 0-1, B-D 1-0;  r3 A-D ½-½, B-C ½-½
# Scores: A 1½, B 1½, C 2½, D ½. A and B: Buchholz 4½, Cut-1 4, SB 1¾, one win each.
LEVEL = table_of(
    [
        (1, "A", "B", F(1), True),
        (1, "C", "D", F(1), True),
        (2, "A", "C", F(0), True),
        (2, "B", "D", F(1), True),
        (3, "A", "D", H, True),
        (3, "B", "C", H, True),
    ]
)


def test_direct_encounter_breaks_what_the_rest_leaves_level() -> None:
    figures = tiebreaks_for(LEVEL, 3)
    for player in ("A", "B"):
        assert (
            figures[player].buchholz,
            figures[player].buchholz_cut1,
            figures[player].sonneborn_berger,
            figures[player].wins,
        ) == (F(9, 2), F(4), F(7, 4), 1)
    assert direct_encounter(["A", "B"], LEVEL) == {"A": F(1), "B": F(0)}
    ranked = standings(LEVEL, 3)
    assert [(s.rank, s.player, s.shared) for s in ranked] == [
        (1, "C", False),
        (2, "A", False),
        (3, "B", False),
        (4, "D", False),
    ]
    assert ranked[1].tiebreaks.direct_encounter == F(1)
    assert ranked[2].tiebreaks.direct_encounter == F(0)


def test_direct_encounter_needs_every_pair_to_have_met() -> None:
    assert direct_encounter(["A", "B", "C"], LEVEL) is not None  # all three met
    no_meeting = table_of([(1, "A", "C", H, True), (1, "B", "D", H, True)])
    assert direct_encounter(["A", "B"], no_meeting) is None
    # Level and never met: they share the rank.
    ranked = standings(no_meeting, 1)
    assert [(s.rank, s.shared) for s in ranked] == [(1, True)] * 4


# Unplayed rounds, three rounds:
#   r1 A-B 1-0; C-D forfeit, C wins (unplayed);  r2 A-C ½-½, B-D 1-0;
#   r3 B-C 0-1; A and D absent (no result: unplayed, no points).
# Scores: A 1½, B 1, C 2½, D 0.
# Adjusted scores (16.3.2: the rounds after a participant's last appearance that had no
# opponent count as draws; every other round what it scored): A 1 + ½ + ½ (absent from r3,
# after r2) = 2; B 1; C 2½; D 0 (forfeit loss: an opponent was named) + 0 + ½ (absent) = ½.
UNPLAYED = table_of(
    [
        (1, "A", "B", F(1), True),
        (1, "C", "D", F(1), False),
        (2, "A", "C", H, True),
        (2, "B", "D", F(1), True),
        (3, "B", "C", F(0), True),
    ]
)


def test_adjusted_scores_count_the_rounds_after_leaving_as_draws() -> None:
    assert [adjusted_score(UNPLAYED[p], 3) for p in "ABCD"] == [F(2), F(1), F(5, 2), F(1, 2)]
    # A half-point bye in the middle counts what it scored; sitting out the last round a draw.
    middle = [RoundResult(1, F(0), "X", True), RoundResult(2, H, None, False)]
    assert adjusted_score([*middle, RoundResult(3, F(1), "Y", True)], 3) == F(3, 2)
    assert adjusted_score(middle, 3) == F(1)


def test_the_2026_rules_cap_the_dummy_opponent() -> None:
    """C.07 16.4 (from 1 March 2026): an unplayed round's dummy scores at most the named
    opponent's adjusted score (C's forfeit win over D: ½, not C's own 2½), or a draw per
    round without an opponent (A's absence: min(1½, 3 x ½) = 1½)."""
    assert buchholz("C", UNPLAYED, 3, capped=True) == F(1, 2) + F(2) + F(1)
    assert sonneborn_berger("C", UNPLAYED, 3, capped=True) == F(1, 2) * 1 + F(2) * H + F(1) * 1
    assert buchholz("A", UNPLAYED, 3, capped=True) == buchholz("A", UNPLAYED, 3) == F(5)
    assert caps_unplayed(date(2026, 3, 1))
    assert not caps_unplayed(date(2026, 2, 28))


@pytest.mark.parametrize(
    ("player", "bh", "cut1", "sb", "won"),
    [
        # A: B 1 + C 2½ + the absence's dummy (own score 1½) = 5; Cut-1 drops the
        # voluntary unplayed round first (1½, not B's 1): 3½. SB: 1 x 1 + 2½ x ½ + 1½ x 0.
        ("A", F(5), F(7, 2), F(9, 4), 1),
        # C: the forfeit win's dummy (own 2½) + A 2 + B 1 = 5½; Cut-1 drops B's 1: 4½;
        # SB: 2½ x 1 + 2 x ½ + 1 x 1 = 4½; wins: the forfeit counts (2).
        ("C", F(11, 2), F(9, 2), F(9, 2), 2),
        # D: forfeit loss (dummy 0) + B 1 + absence (dummy 0) = 1; Cut-1 drops a 0: 1; SB 0.
        ("D", F(1), F(1), F(0), 0),
    ],
)
def test_unplayed_rounds(player: str, bh: F, cut1: F, sb: F, won: int) -> None:
    assert buchholz(player, UNPLAYED, 3) == bh
    assert buchholz(player, UNPLAYED, 3, cut=1) == cut1
    assert sonneborn_berger(player, UNPLAYED, 3) == sb
    assert wins(UNPLAYED[player]) == won


def test_direct_encounter_adds_every_game_between_them() -> None:
    # A double round: A won the first game and drew the second: 1½ to ½.
    twice = table_of([(1, "A", "B", F(1), True), (2, "B", "A", H, True)])
    assert direct_encounter(["A", "B"], twice) == {"A": F(3, 2), "B": H}


def test_direct_encounter_of_three_needs_all_three_pairings() -> None:
    # A met B and B met C, but A never met C: not applied.
    two_of_three = table_of([(1, "A", "B", H, True), (2, "B", "C", H, True)])
    assert direct_encounter(["A", "B", "C"], two_of_three) is None
    # A beat B and lost to C, B and C drew.
    assert direct_encounter(["A", "B", "C"], LEVEL) == {"A": F(1), "B": H, "C": F(3, 2)}


# A round robin of six where two pairs stay level on every tie-break and drew their game:
# F and C share 2nd place, B and D share 4th (found by search over random results).
SIX = table_of(
    [
        (1, "A", "F", F(0), True),
        (1, "B", "E", H, True),
        (1, "C", "D", F(0), True),
        (2, "A", "E", F(1), True),
        (2, "F", "D", H, True),
        (2, "B", "C", H, True),
        (3, "A", "D", F(1), True),
        (3, "E", "C", H, True),
        (3, "F", "B", F(0), True),
        (4, "A", "C", F(0), True),
        (4, "D", "B", H, True),
        (4, "E", "F", H, True),
        (5, "A", "B", F(1), True),
        (5, "C", "F", H, True),
        (5, "D", "E", H, True),
    ]
)


def test_players_level_after_their_direct_encounter_share_the_rank() -> None:
    ranked = standings(SIX, 5)
    assert [(s.rank, s.player, s.shared) for s in ranked] == [
        (1, "A", False),
        (2, "F", True),
        (2, "C", True),
        (4, "B", True),
        (4, "D", True),
        (6, "E", False),
    ]
    figures = tiebreaks_for(SIX, 5)
    for standing in ranked:
        # Each standing carries the player's own figures, with the direct encounter where
        # it was applied (the two pairs drew: ½ each).
        own = figures[standing.player]
        de = H if standing.player in "FCBD" else None
        assert standing.tiebreaks == type(own)(**{**own.__dict__, "direct_encounter": de})


def test_every_standing_carries_its_players_figures() -> None:
    for table, rounds in ((ROUND_ROBIN, 3), (LEVEL, 3)):
        figures = tiebreaks_for(table, rounds)
        for standing in standings(table, rounds):
            own = figures[standing.player]
            assert (standing.tiebreaks.score, standing.tiebreaks.buchholz) == (
                own.score,
                own.buchholz,
            )
    never_met = table_of([(1, "A", "C", H, True), (1, "B", "D", H, True)])
    figures = tiebreaks_for(never_met, 1)
    assert all(s.tiebreaks == figures[s.player] for s in standings(never_met, 1))


def test_encounter_leaders_when_not_every_pair_met() -> None:
    # A beat B and C, who never met: A's 2 is more than B or C could reach (1 each, had
    # they won their missing game), so A is placed; B and C stay level.
    table = table_of([(1, "A", "B", F(1), True), (2, "C", "A", F(0), True)])
    assert encounter_leaders(["A", "B", "C"], table) == ([("A", F(2))], ["B", "C"])
    # A beat B only: C could still reach 2, B 1; nobody is clear of the others.
    table = table_of([(1, "A", "B", F(1), True), (1, "C", "Z", H, True)])
    assert encounter_leaders(["A", "B", "C"], table) == ([], ["A", "B", "C"])


def test_encounter_leaders_go_on_among_those_left() -> None:
    # A beat everyone (3); then among B, C, D: B beat C and D (2), C and D never met (each
    # could reach 1): B is placed second; C and D stay level.
    table = table_of(
        [
            (1, "A", "B", F(1), True),
            (2, "A", "C", F(1), True),
            (3, "D", "A", F(0), True),
            (1, "B", "C", F(1), True),
            (2, "D", "B", F(0), True),
        ]
    )
    assert encounter_leaders(["A", "B", "C", "D"], table) == (
        [("A", F(3)), ("B", F(2))],
        ["C", "D"],
    )


def test_a_group_placed_by_encounter_leaders_gets_its_ranks() -> None:
    from players.rating.tiebreaks import TieBreaks, _rank_group

    table = table_of(
        [
            (1, "A", "B", F(1), True),
            (2, "A", "C", F(1), True),
            (3, "D", "A", F(0), True),
            (1, "B", "C", F(1), True),
            (2, "D", "B", F(0), True),
        ]
    )
    level = TieBreaks(score=F(2), buchholz=F(6), buchholz_cut1=F(4), sonneborn_berger=F(3), wins=2)
    figures = dict.fromkeys("ABCD", level)
    ranked = _rank_group(["A", "B", "C", "D"], table, figures, start=3)
    assert [(s.rank, s.player, s.shared, s.tiebreaks.direct_encounter) for s in ranked] == [
        (3, "A", False, F(3)),
        (4, "B", False, F(2)),
        (5, "C", True, None),
        (5, "D", True, None),
    ]
    assert all(s.tiebreaks.buchholz == F(6) for s in ranked)


def test_encounter_leaders_need_more_than_the_others_can_reach() -> None:
    # A beat B; B beat C; A and C never met. A's 1 equals what B has (1, B met both)
    # and C could reach (0 + a win against A): not more, so nobody is placed.
    equal = table_of([(1, "A", "B", F(1), True), (2, "B", "C", F(1), True)])
    assert encounter_leaders(["A", "B", "C"], equal) == ([], ["A", "B", "C"])
    # A beat B and drew C (1½); B and C never met: B could reach 1, C 1½ (the missing
    # game counted as a win, not a draw): A is not clear of C.
    drawn = table_of([(1, "A", "B", F(1), True), (2, "A", "C", H, True)])
    assert encounter_leaders(["A", "B", "C"], drawn) == ([], ["A", "B", "C"])


def test_the_last_one_left_after_the_leaders_holds_a_rank_alone() -> None:
    from players.rating.tiebreaks import TieBreaks, _rank_group

    # A beat B twice (2), B beat C; A and C never met (C could reach 1): A, then B, then C.
    table = table_of(
        [(1, "A", "B", F(1), True), (2, "B", "A", F(0), True), (3, "B", "C", F(1), True)]
    )
    assert encounter_leaders(["A", "B", "C"], table) == ([("A", F(2)), ("B", F(1))], ["C"])
    level = TieBreaks(score=F(2), buchholz=F(6), buchholz_cut1=F(4), sonneborn_berger=F(3), wins=2)
    ranked = _rank_group(["A", "B", "C"], table, dict.fromkeys("ABC", level), start=1)
    assert [(s.rank, s.player, s.shared) for s in ranked] == [
        (1, "A", False),
        (2, "B", False),
        (3, "C", False),
    ]


def test_every_figure_of_an_event_from_2026_is_capped() -> None:
    """tiebreaks_for and standings pass the 2026 cap on: C's forfeit win over D brings
    min(2½, D's ½) = ½, not C's own 2½ (test_the_2026_rules_cap_the_dummy_opponent).
    Buchholz ½ + 2 + 1 = 3½ (uncapped 5½); Cut-1 drops the ½ -> 3 (uncapped drops 1 ->
    4½); Sonneborn-Berger ½ x 1 + 2 x ½ + 1 x 1 = 2½ (uncapped 4½)."""
    capped = tiebreaks_for(UNPLAYED, 3, capped=True)["C"]
    assert (capped.buchholz, capped.buchholz_cut1, capped.sonneborn_berger) == (
        F(7, 2),
        F(3),
        F(5, 2),
    )
    plain = tiebreaks_for(UNPLAYED, 3)["C"]
    assert (plain.buchholz, plain.buchholz_cut1, plain.sonneborn_berger) == (
        F(11, 2),
        F(9, 2),
        F(9, 2),
    )
    ranked = {s.player: s.tiebreaks for s in standings(UNPLAYED, 3, capped=True)}
    assert ranked["C"] == capped


def test_cut_1_drops_a_recorded_voluntary_unplayed_round_first() -> None:
    """P: a half-point bye in round 1 (voluntary: less than a win, C.07 16.2), a win over
    Q in round 2, a loss to R in round 3. P scores 1½, which the bye's dummy brings; Q
    brings ½ (0, and the round after leaving as a draw), R 1 (C.07 16.3). Cut-1 drops the
    bye (14.6), not the lowest value: ½ + 1 = 1½ (dropping Q's ½ would give 2½)."""
    table = {
        "P": [
            RoundResult(1, H, None, False),
            RoundResult(2, F(1), "Q", True),
            RoundResult(3, F(0), "R", True),
        ],
        "Q": [RoundResult(2, F(0), "P", True)],
        "R": [RoundResult(3, F(1), "P", True)],
    }
    assert buchholz("P", table, 3) == F(3, 2) + H + F(1)
    assert buchholz("P", table, 3, cut=1) == H + F(1)
