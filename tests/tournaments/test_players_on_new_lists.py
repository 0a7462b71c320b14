"""Every player of a club is on each of its lists: a list added to a club that has players
takes them in (as a player added to a club with lists joins each), and a list that lacks
some (created before lists took them in) takes in those who play on it at the close. The
close of such a list used to fail with a KeyError deep in the plan."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from players.errors import ConflictError
from players.models import KFactorChange, Player, PlayerRating, RatingChange, RatingList
from players.rating.period import GAME_RESULTS, PeriodGames, PeriodInputs, PlayerStart
from players.services import club_create, player_create, rating_list_create
from tests.tournaments.helpers import make_owner, period_of
from tournaments.services import games_create_bulk, period_close, period_preview
from tournaments.services.close.run import compute_plan

pytestmark = pytest.mark.django_db
OCT = datetime.date(2026, 10, 5)
# The list added in each case: a FIDE rapid list, a Glicko-2 blitz list.
SYSTEMS = [("rapid-2", "rapid", "fide"), ("online", "blitz", "glicko2")]


def _club_with_players(owner: Any) -> tuple[Any, list[Player]]:
    club = club_create(name="Riverside", slug="riverside", by=owner)
    players = [
        player_create(
            club=club,
            by=owner,
            name=name,
            birth_year=1980,
            ratings=[{"list": "standard", "rating": rating, "rated_games": 60}],
        )
        for name, rating in (("Ann", 1850), ("Bob", 1720), ("Cyd", None))
    ]
    return club, players


def _play(club: Any, owner: Any, slug: str, games: list[tuple[Player, Player, str]]) -> None:
    games_create_bulk(
        club=club,
        by=owner,
        games=[
            {"list": slug, "date": OCT, "white": w, "black": b, "result": r} for w, b, r in games
        ],
    )


@pytest.mark.parametrize(("slug", "kind", "system"), SYSTEMS)
def test_a_new_list_takes_in_the_clubs_players(slug: str, kind: str, system: str) -> None:
    owner = make_owner()
    club, (ann, bob, cyd) = _club_with_players(owner)
    rating_list = rating_list_create(club=club, by=owner, slug=slug, kind=kind, system=system)
    # A player added now, bringing the same standard rating as Ann: what the list gives a
    # player who joins it, to compare with what it gave the players it took in.
    dee = player_create(
        club=club,
        by=owner,
        name="Dee",
        birth_year=1980,
        ratings=[{"list": "standard", "rating": 1850, "rated_games": 60}],
    )
    entries = {r.player_id: r for r in PlayerRating.objects.filter(rating_list=rating_list)}
    assert set(entries) == {ann.pk, bob.pk, cyd.pk, dee.pk}
    fields = ("rating", "rated_games", "k_factor", "k_reason", "state", "entry_month")
    taken_in, joined = entries[ann.pk], entries[dee.pk]
    assert [getattr(taken_in, f) for f in fields] == [getattr(joined, f) for f in fields]
    if system == "fide":
        # Unrated on the new list, each with the K the rules give and its history row.
        assert {e.rating for e in entries.values()} == {None}
        assert KFactorChange.objects.filter(rating_list=rating_list).count() == 4
    else:
        # Glicko-2 rates everyone: the paper's new player at the list's starting RD.
        assert {e.rating for e in entries.values()} == {1500}
        assert taken_in.state == {"rd": 350.0, "volatility": 0.06}

    # The bug: a game of two players who came before the list crashed its close.
    _play(club, owner, slug, [(ann, bob, "1-0"), (cyd, ann, "1/2-1/2")])
    period_close(period=period_of(club, "2026-10", slug), by=owner)
    rated = dict(
        RatingChange.objects.filter(rating_list=rating_list, current=True).values_list(
            "player_id", "games"
        )
    )
    # FIDE rates no game between a rated and an unrated player for the rated one (Cyd has
    # no standard rating to count with); Glicko-2 rates every game.
    assert rated == {ann.pk: 1 if system == "fide" else 2, bob.pk: 1, cyd.pk: 1, dee.pk: 0}


def _lose_entries(rating_list: RatingList, players: list[Player]) -> None:
    """A list as one created before lists took in the club's players left it."""
    PlayerRating.objects.filter(rating_list=rating_list, player__in=players).delete()
    KFactorChange.objects.filter(rating_list=rating_list, player__in=players).delete()


@pytest.mark.parametrize(("slug", "kind", "system"), SYSTEMS)
def test_a_list_without_some_players_takes_in_those_who_play_at_the_close(
    slug: str, kind: str, system: str
) -> None:
    owner = make_owner()
    club, (ann, bob, cyd) = _club_with_players(owner)
    rating_list = rating_list_create(club=club, by=owner, slug=slug, kind=kind, system=system)
    _lose_entries(rating_list, [ann, bob, cyd])
    _play(club, owner, slug, [(ann, bob, "1-0")])
    period = period_of(club, "2026-10", slug)

    plan = period_preview(period=period, by=owner)
    assert {c.player_id: c.games for c in plan.changes} == {ann.pk: 1, bob.pk: 1}
    # The preview wrote nothing: the players are still off the list.
    assert not PlayerRating.objects.filter(rating_list=rating_list).exists()

    period_close(period=period, by=owner)
    on_list = set(
        PlayerRating.objects.filter(rating_list=rating_list).values_list("player_id", flat=True)
    )
    assert on_list == {ann.pk, bob.pk}
    closed = {
        c.player_id: (c.games, c.rating_after)
        for c in RatingChange.objects.filter(rating_list=rating_list, current=True)
    }
    assert closed == {c.player_id: (c.games, c.rating_after) for c in plan.changes}
    # The state the close published is each player's rating on the list now.
    ratings = dict(
        PlayerRating.objects.filter(rating_list=rating_list).values_list("player_id", "rating")
    )
    assert ratings == {pid: after for pid, (_, after) in closed.items()}


@pytest.mark.parametrize("system", ["fide", "glicko2"])
def test_a_game_of_a_player_the_list_cannot_have_is_refused_by_name(system: str) -> None:
    # The plan names the players instead of failing with a KeyError, and the close
    # refuses with a 409 naming them (here an id no player has).
    owner = make_owner()
    club, (ann, _, _) = _club_with_players(owner)
    rating_list = RatingList.objects.get(club=club, slug="standard")
    rating_list.system = system
    starts = {
        ann.pk: rating_list.rating_system.with_state(
            PlayerStart(1850, 60, False, [], 1980, None, None), None
        )
    }
    inputs = PeriodInputs(
        settings=rating_list.settings(),
        month=OCT.replace(day=1),
        starts=starts,
        start_ratings={ann.pk: 1850},
        games=PeriodGames([ann.pk], [10**9], [next(iter(GAME_RESULTS))], [True], [None]),
        tournaments={},
        ratings_at={},
    )
    with pytest.raises(ConflictError) as refused:
        compute_plan(inputs)
    assert refused.value.fields == {
        "players": [f"Games of players who are not on the list: ? (id {10**9})."]
    }
