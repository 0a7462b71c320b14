"""The live figures after each game of a round plan only the game's players again
(players.rating.replan), and are what planning the whole month afresh gives: games
entered, edited and deleted, unrated players on their way to a first rating, a Glicko-2
list; anything else that changes (a K override) makes the whole month planned again."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from players.models import Club, Player, PlayerRating, RatingList
from players.services import k_override_set
from tests.tournaments.helpers import glicko2_club, make_club, make_owner, make_player, play
from tournaments.models import Game
from tournaments.services import game_delete, game_update, live
from tournaments.services.live import LiveList, live_list

pytestmark = pytest.mark.django_db
OCT = datetime.date(2026, 10, 5)


def _wholes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each whole-month preview the live figures compute from now on (one item each)."""
    calls: list[int] = []
    whole = live.preview_and_inputs

    def counted(**kwargs: Any) -> Any:
        calls.append(1)
        return whole(**kwargs)

    monkeypatch.setattr(live, "preview_and_inputs", counted)
    return calls


def _live(rating_list: RatingList) -> LiveList:
    return live_list(rating_list=RatingList.objects.select_related("club").get(pk=rating_list.pk))


def _afresh(rating_list: RatingList) -> LiveList:
    """The whole month planned, with nothing kept (no published generation)."""
    return live._computed(RatingList.objects.select_related("club").get(pk=rating_list.pk))


def _club() -> tuple[Any, Club, RatingList, list[Player]]:
    owner = make_owner()
    club = make_club(owner, "round")
    players = [
        make_player(club, owner, "Alder", 2105),
        make_player(club, owner, "Birch", 1890, rated_games=10, birth_year=2012),
        make_player(club, owner, "Cedar", 1712),
        make_player(club, owner, "Dogwood", 1655),
        make_player(club, owner, "Elm", None),
        make_player(club, owner, "Fir", None),
        make_player(club, owner, "Gum", 2410, reached_2400=True),
    ]
    a, b, c, d, e, _, _ = players
    play(club, owner, [(a, b, "1-0"), (c, d, "1/2-1/2"), (e, a, "0-1"), (b, c, "0-1")], date=OCT)
    return owner, club, RatingList.objects.get(club=club, slug="standard"), players


def test_a_round_of_games_planned_a_pair_at_a_time_is_the_whole_months_plan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    owner, club, rating_list, players = _club()
    a, b, c, d, e, f, g = players
    wholes = _wholes(monkeypatch)
    assert _live(rating_list) == _afresh(rating_list)
    assert len(wholes) == 2  # the first read, and the fresh one beside it
    steps = [
        lambda: play(club, owner, [(e, b, "1-0")], date=OCT),  # an unrated player scores
        lambda: play(club, owner, [(e, c, "1/2-1/2"), (e, d, "1-0")], date=OCT),
        lambda: play(club, owner, [(f, e, "1-0")], date=OCT),  # two unrated: not rated
        lambda: play(club, owner, [(g, a, "1/2-1/2")], date=OCT),  # a player past 2400
        lambda: play(club, owner, [(a, b, "1-0")], date=OCT),  # the same pairing again
        lambda: game_update(
            game=Game.objects.filter(white=c, black=d).get(), by=owner, result="0-1"
        ),
        lambda: game_delete(game=Game.objects.filter(white=b, black=c).get(), by=owner),
        lambda: game_update(game=Game.objects.filter(white=g).get(), by=owner, result="+-"),
        lambda: game_delete(game=Game.objects.filter(white=f).get(), by=owner),
    ]
    for index, step in enumerate(steps):
        before = _live(rating_list)
        step()
        after = _live(rating_list)
        assert after != before, index
        # Only the first read planned the whole month (and each fresh read beside).
        assert len(wholes) == 2 + index, index
        assert after == _afresh(rating_list), index
    # Fir's only game was deleted: Fir is not on the live list any more (unrated, no game).
    assert _live(rating_list).row_of(f.pk) is None


def test_a_k_override_plans_the_whole_month_again(monkeypatch: pytest.MonkeyPatch) -> None:
    owner, club, rating_list, players = _club()
    _live(rating_list)
    wholes = _wholes(monkeypatch)
    play(club, owner, [(players[0], players[2], "0-1")], date=OCT)
    _live(rating_list)
    assert wholes == []
    on_list = PlayerRating.objects.get(player=players[0], rating_list=rating_list)
    k_override_set(player_rating=on_list, k=15, note="agreed with the arbiter", by=owner)
    after = _live(rating_list)
    assert wholes == [1]
    row = after.row_of(players[0].pk)
    assert row is not None
    assert row.k_factor == 15
    assert after == _afresh(rating_list)


def test_a_glicko2_lists_round_planned_a_pair_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    owner = make_owner()
    club, people = glicko2_club(owner)
    rating_list = RatingList.objects.get(club=club, slug="online")
    a, b, c, d = people
    play(club, owner, [(a, b, "1-0"), (c, a, "1-0")], date=OCT, kind="online")
    _live(rating_list)
    wholes = _wholes(monkeypatch)
    for white, black, result in [(d, b, "1/2-1/2"), (a, c, "0-1"), (b, d, "1-0")]:
        play(club, owner, [(white, black, result)], date=OCT, kind="online")
        assert _live(rating_list) == _afresh(rating_list)
    # One whole month for each fresh read beside, none for the live figures themselves.
    assert len(wholes) == 3
