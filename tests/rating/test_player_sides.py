"""One player's period games as the close scores them (elo_games.player_sides, which the
pages call): the same own rating, rules and group for every side as the close's own sort
of the whole period (elo_games.sort_games), over random periods across FIDE's rule sets.

Figures by hand for the worked case, table 8.1.2 and FIDE 8.3.1 as in force in May 2023:
A (2000) against 1500, 1450 and 1400 in one tournament: only the largest difference (600)
keeps the cap (400); the others count 500 and 550.
"""

from __future__ import annotations

import datetime
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from players.rating import ListKind
from players.rating.fide_rules import BY_DATE
from players.rating.period import (
    GAME_RESULTS,
    SCORES,
    PeriodGames,
    PeriodInputs,
    view_month,
)
from players.rating.systems.elo_games import (
    PlayerGame,
    period_rules,
    player_sides,
    sort_games,
)
from tests.rating.elo_helpers import fide_standard, start

D = datetime.date
MAY_2023 = D(2023, 5, 1)
RATINGS = [None, 1400, 1450, 1500, 1800, 2000, 2000, 2300, 2660, 2700]
PLAYERS = range(1, 6)
# Months on both sides of FIDE's dates: the cap in one game per event (2022-01 to
# 2024-02), the 2650 exception (2025-10), the rapid/blitz 600/2600 rule (2024-12).
MONTHS = [
    D(2021, 12, 1),
    D(2022, 1, 1),
    D(2023, 5, 1),
    D(2024, 3, 1),
    D(2025, 1, 1),
    D(2025, 10, 1),
]
# How long before the month a tournament may have begun, in days (0: in the month).
STARTED = [0, 0, 10, 20, 40, 75, 400]


def test_the_one_upgrade_goes_to_the_largest_difference() -> None:
    rules = period_rules(fide_standard(floor=1400, fide_rules=BY_DATE), MAY_2023, {7: MAY_2023})
    games = [PlayerGame(2000, opponent, True, 7) for opponent in (1500, 1450, 1400)]
    sides = player_sides(rules, 2000, games)
    assert [side.own for side in sides] == [2000, 2000, 2000]
    assert [side.difference.counted for side in sides if side.difference] == [500, 550, 400]
    assert [side.difference.capped for side in sides if side.difference] == [False, False, True]
    uncapped = replace(rules.month, apply_400_rule=False)
    assert [side.rules for side in sides] == [uncapped, uncapped, rules.month]
    # The capped game is added up with the period's rules, the other two apart.
    assert [side.group for side in sides] == [(2000, uncapped), (2000, uncapped), (2000, None)]


def test_an_unrated_player_and_an_unrated_opponent() -> None:
    # Unrated at the period's start: toward a first rating, no group. Rated since the
    # tournament began (unrated at its start): the period-start rating (FIDE 8.2.4).
    rules = period_rules(fide_standard(floor=1400, fide_rules=BY_DATE), MAY_2023, {})
    (first,) = player_sides(rules, None, [PlayerGame(1800, 1900, True, None)])
    assert (first.own, first.difference, first.group) == (None, None, None)
    (since, against_unrated) = player_sides(
        rules, 1800, [PlayerGame(None, 1700, True, 7), PlayerGame(1800, None, True, None)]
    )
    assert (since.own, since.difference.counted if since.difference else None) == (1800, 100)
    assert (against_unrated.own, against_unrated.difference) == (1800, None)


def test_every_game_of_an_unrated_player_counts_toward_the_first_rating() -> None:
    # Each game is a side toward a first rating, scored with the rules of its own
    # tournament's start: none is dropped, and none takes another game's rules.
    settings = fide_standard(floor=1400, fide_rules=BY_DATE)
    rules = period_rules(settings, MAY_2023, {7: D(2022, 12, 20)})
    games = [
        PlayerGame(None, 1900, True, None),
        PlayerGame(None, 1700, False, 7),
        PlayerGame(None, None, True, None),
    ]
    sides = player_sides(rules, None, games)
    assert [(side.own, side.difference, side.group) for side in sides] == [(None, None, None)] * 3
    assert [side.rules for side in sides] == [rules.month, rules.of(7), rules.month]


@st.composite
def periods(draw: Any) -> PeriodInputs:
    month = draw(st.sampled_from(MONTHS))
    kind = draw(st.sampled_from([ListKind.STANDARD, ListKind.STANDARD, ListKind.RAPID]))
    fide_rules = draw(st.sampled_from([BY_DATE, BY_DATE, "2022-01", "2025-10"]))
    list_settings = replace(fide_standard(floor=1400, fide_rules=fide_rules), kind=kind)
    ratings = {pid: draw(st.sampled_from(RATINGS)) for pid in PLAYERS}
    tournaments = {
        tid: (began, month + datetime.timedelta(days=5))
        for tid in (1, 2)
        for began in [month - datetime.timedelta(days=draw(st.sampled_from(STARTED)))]
    }
    ratings_at = {
        view_month(month, began): {pid: draw(st.sampled_from(RATINGS)) for pid in PLAYERS}
        for began, _ in tournaments.values()
        if view_month(month, began) != month
    }
    pairs = st.tuples(
        st.sampled_from(list(PLAYERS)),
        st.sampled_from(list(PLAYERS)),
        # Mostly played and rated: those are the games the rules decide on.
        st.sampled_from([*GAME_RESULTS, "1-0", "0-1", "1/2-1/2", "1-0"]),
        st.sampled_from([True, True, True, False]),
        st.sampled_from([None, 1, 2]),
    ).filter(lambda game: game[0] != game[1])
    # Enough games per player for two beyond 400 in one event.
    games = draw(st.lists(pairs, min_size=4, max_size=30))
    return PeriodInputs(
        settings=list_settings.for_month(month),
        month=month,
        starts={pid: start(rating) for pid, rating in ratings.items()},
        start_ratings=ratings,
        games=PeriodGames(*(list(column) for column in zip(*games, strict=True)))
        if games
        else PeriodGames([], [], [], [], []),
        tournaments=tournaments,
        ratings_at=ratings_at,
    )


def _player_games(inputs: PeriodInputs, player: int) -> list[tuple[PlayerGame, str]]:
    """The player's games as a page reads them: the ratings in force at each game's
    tournament's start, and the player's score."""
    found = []
    for white, black, result, rated, tournament in zip(*inputs.games, strict=True):
        if player not in (white, black):
            continue
        began = None if tournament is None else inputs.tournaments[tournament][0]
        scored = view_month(inputs.month, began)
        view = inputs.start_ratings if scored == inputs.month else inputs.ratings_at[scored]
        opponent = black if white == player else white
        white_score, black_score, played = GAME_RESULTS[result]
        score = white_score if white == player else black_score
        found.append(
            (PlayerGame(view[player], view[opponent], played and rated, tournament), score)
        )
    return found


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(periods())
def test_player_sides_sorts_every_side_as_the_close(inputs: PeriodInputs) -> None:
    sides, _ = sort_games(inputs, None)
    rules = period_rules(
        inputs.settings,
        inputs.month,
        {tid: began for tid, (began, _) in inputs.tournaments.items()},
    )
    for player in PLAYERS:
        own_start = inputs.start_ratings[player]
        games = _player_games(inputs, player)
        scored = player_sides(rules, own_start, [game for game, _ in games])
        if own_start is None:
            toward_first = sum(len(e[1]) for e in sides.new_events.get(player, {}).values())
            assert toward_first == len(games)
            assert all(side.group is None for side in scored)
            continue
        close: dict[Any, Counter[Any]] = {}
        if sides.rated.get(player):
            close[own_start, None] = Counter(
                (g.opponent_rating, g.score, g.played) for g in sides.rated[player]
            )
        for key, group in sides.other_groups.get(player, {}).items():
            close[key] = Counter((g.opponent_rating, g.score, g.played) for g in group)
        page: dict[Any, Counter[Any]] = {}
        for side, (game, score) in zip(scored, games, strict=True):
            assert side.group is not None
            # A game added up with the period's rules is scored with them.
            if side.group[1] is None:
                assert side.rules == rules.month
            else:
                assert side.group[1] == side.rules
            page.setdefault(side.group, Counter())[game.opponent, SCORES[score], game.played] += 1
        assert page == close
