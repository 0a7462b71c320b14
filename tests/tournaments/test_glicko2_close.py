"""A Glicko-2 list through the close, preview, reopen and replay: the same services as the
FIDE lists, the list's system a registry entry."""

from __future__ import annotations

import datetime
import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from players.errors import ValidationFailed
from players.models import Club, Player, PlayerRating, RatingChange, RatingList
from players.rating.glicko2 import Glicko2Game, Glicko2Rating, Glicko2Settings, rate_period
from players.services import club_create, player_create, rating_list_create
from tests.tournaments.helpers import make_owner, period_of
from tournaments.models import Game
from tournaments.services import (
    game_update,
    games_create_bulk,
    list_replay,
    period_close,
    period_preview,
    period_reopen,
)

pytestmark = pytest.mark.django_db
OCT = datetime.date(2026, 10, 5)
_serial = itertools.count()


def glicko_club(owner: Any, **settings: Any) -> tuple[Club, RatingList]:
    serial = next(_serial)
    club = club_create(name=f"Online {serial}", slug=f"online-{serial}", by=owner)
    rating_list = rating_list_create(
        club=club, by=owner, slug="online", kind="blitz", system="glicko2", **settings
    )
    return club, rating_list


def member(club: Club, owner: Any, name: str, **entry: Any) -> Player:
    return player_create(
        club=club, by=owner, name=name, ratings=[{"list": "online", **entry}] if entry else []
    )


def play(club: Club, owner: Any, games: list[tuple[Player, Player, str]], day: datetime.date):
    games_create_bulk(
        club=club,
        by=owner,
        games=[
            {"list": "online", "date": day, "white": w, "black": b, "result": r}
            for w, b, r in games
        ],
    )


def test_a_new_club_keeps_its_three_fide_lists_and_adds_a_glicko2_one() -> None:
    owner = make_owner()
    club, glicko = glicko_club(owner)
    lists = dict(RatingList.objects.filter(club=club).values_list("slug", "system"))
    assert lists == {"standard": "fide", "rapid": "fide", "blitz": "fide", "online": "glicko2"}
    assert glicko.settings().glicko == Glicko2Settings(tau=0.5, rd_start=350, rd_min=0, rd_max=350)


def test_the_papers_example_through_the_close() -> None:
    # Glickman's example (tau 0.5) as a club month: the player at 1500 / 200 / 0.06 beats
    # 1400 (RD 30) and loses to 1550 (RD 100) and 1700 (RD 300). The list publishes r in
    # whole points (1464.05 -> 1464), RD to two decimals (151.52).
    owner = make_owner()
    club, _ = glicko_club(owner, glicko_rd_max=400)
    me = member(club, owner, "Me", rating=1500, rd=200, volatility=0.06)
    a = member(club, owner, "A", rating=1400, rd=30)
    b = member(club, owner, "B", rating=1550, rd=100)
    c = member(club, owner, "C", rating=1700, rd=300)
    idle = member(club, owner, "Idle")
    play(club, owner, [(me, a, "1-0"), (b, me, "1-0"), (me, c, "0-1")], OCT)
    period_close(period=period_of(club, "2026-10", "online"), by=owner)

    row = RatingChange.objects.get(player=me)
    assert (row.rating_before, row.rating_after, row.change) == (1500, 1464, -36)
    assert (row.state_before["rd"], row.state_after["rd"]) == (200, 151.52)
    assert row.state_before["volatility"] == 0.06
    assert row.state_after["volatility"] == pytest.approx(0.05999, abs=0.00001)
    assert (row.games, row.score, row.k_factor) == (3, 1, None)
    state = PlayerRating.objects.get(player=me, rating_list__slug="online")
    assert (state.rating, state.state["rd"], state.state["volatility"]) == (
        1464,
        151.52,
        row.state_after["volatility"],
    )
    # No games: r and volatility kept; RD grows by the paper's step 6, to the list's cap
    # (a new player at 350: sqrt(350^2 + (0.06 x 173.7178)^2) = 350.155 -> 350.16).
    rest = RatingChange.objects.get(player=idle)
    assert (rest.rating_after, rest.games, rest.event) == (1500, 0, "no_rated_games")
    assert rest.state_after["rd"] == 350.16
    assert rest.state_after["volatility"] == 0.06


def test_no_games_grows_rd_up_to_the_lists_cap_month_after_month() -> None:
    owner = make_owner()
    club, _ = glicko_club(owner)
    player = member(club, owner, "P", rating=1800, rd=80, volatility=0.06)
    other = member(club, owner, "Q")
    # Two closes of months without games for P (a game between others opens the month).
    third = member(club, owner, "R")
    play(club, owner, [(other, third, "1-0")], OCT)
    play(club, owner, [(other, third, "0-1")], datetime.date(2026, 11, 5))
    period_close(period=period_of(club, "2026-10", "online"), by=owner)
    period_close(period=period_of(club, "2026-11", "online"), by=owner)
    rds = list(
        RatingChange.objects.filter(player=player)
        .order_by("period__month")
        .values_list("state_after__rd", flat=True)
    )
    grown_once = rate_period(Glicko2Rating(1800, 80, 0.06), [], Glicko2Settings()).after.rd
    assert rds[0] == round(grown_once, 2)
    assert rds[0] < rds[1]
    capped = RatingChange.objects.filter(player=other).order_by("period__month").first()
    assert capped is not None
    assert capped.state_after["rd"] is not None
    assert capped.state_after["rd"] <= 350


def test_preview_is_what_the_close_writes() -> None:
    owner = make_owner()
    club, _ = glicko_club(owner)
    a = member(club, owner, "A", rating=1700, rd=60)
    b = member(club, owner, "B", rating=1650, rd=120, volatility=0.07)
    play(club, owner, [(a, b, "0-1"), (b, a, "1/2-1/2")], OCT)
    plan = period_preview(period=period_of(club, "2026-10", "online"), by=owner)
    period_close(period=period_of(club, "2026-10", "online"), by=owner)
    written = {
        row.player_id: (row.rating_after, row.state_after["rd"], row.state_after["volatility"])
        for row in RatingChange.objects.all()
    }
    assert written == {
        c.player_id: (c.rating_after, c.uncertainty.rd_after, c.uncertainty.volatility_after)
        for c in plan.changes
        if c.uncertainty is not None
    }


def test_entries_are_checked() -> None:
    owner = make_owner()
    club, _ = glicko_club(owner)
    with pytest.raises(ValidationFailed, match="rd"):
        member(club, owner, "Too unsure", rating=1500, rd=500)
    with pytest.raises(ValidationFailed, match="does not keep it"):
        player_create(
            club=club, by=owner, name="X", ratings=[{"list": "standard", "rating": 1500, "rd": 50}]
        )
    with pytest.raises(ValidationFailed, match="rd_min"):
        rating_list_create(
            club=club, by=owner, slug="bad", kind="blitz", system="glicko2", glicko_rd_min=400
        )
    with pytest.raises(ValidationFailed, match="slug"):
        rating_list_create(club=club, by=owner, slug="online", kind="blitz", system="glicko2")


def test_each_game_against_the_ratings_at_the_months_start() -> None:
    # Two games in the month against the same opponent use the opponent's r and RD of the
    # list before the month, whatever the first game did (the paper's rating period).
    owner = make_owner()
    club, _ = glicko_club(owner)
    a = member(club, owner, "A", rating=1600, rd=90)
    b = member(club, owner, "B", rating=1500, rd=150)
    play(club, owner, [(a, b, "1-0"), (b, a, "1-0")], OCT)
    period_close(period=period_of(club, "2026-10", "online"), by=owner)
    expected = rate_period(
        Glicko2Rating(1600, 90, 0.06),
        [Glicko2Game(1500, 150, 1.0), Glicko2Game(1500, 150, 0.0)],
        Glicko2Settings(rd_max=350),
    ).after
    row = RatingChange.objects.get(player=a)
    assert row.rating_after == round(expected.rating)
    assert row.state_after["rd"] == round(expected.rd, 2)


# -- the replay property -------------------------------------------------------------------

RESULTS = ["1-0", "0-1", "1/2-1/2", "+-"]
# A year back: games dated after tomorrow are refused.
MONTHS = [datetime.date(2025, 11, 1), datetime.date(2025, 12, 1), datetime.date(2026, 1, 1)]
player_st = st.tuples(
    st.integers(1200, 2400), st.sampled_from([None, 60.0, 200.0]), st.sampled_from([None, 0.09])
)


@st.composite
def leagues(draw: Any) -> dict[str, Any]:
    players = draw(st.lists(player_st, min_size=3, max_size=6))
    n = len(players)
    pair = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1])
    months = [
        draw(st.lists(st.tuples(pair, st.sampled_from(RESULTS)), min_size=1, max_size=8))
        for _ in MONTHS
    ]
    month_index = draw(st.integers(0, len(MONTHS) - 1))
    game_index = draw(st.integers(0, len(months[month_index]) - 1))
    return {
        "players": players,
        "months": months,
        "fix": (month_index, game_index, draw(st.sampled_from(RESULTS))),
    }


def _build(owner: Any, league: dict[str, Any], *, corrected: bool) -> Club:
    club, _ = glicko_club(owner, glicko_tau=0.6)
    people = []
    for i, (rating, rd, volatility) in enumerate(league["players"]):
        entry = {"rating": rating, "rd": rd, "volatility": volatility}
        people.append(member(club, owner, f"P{i}", **{k: v for k, v in entry.items() if v}))
    fix_month, fix_game, fix_result = league["fix"]
    for m, (month, games) in enumerate(zip(MONTHS, league["months"], strict=True)):
        items = []
        for g, ((w, b), result) in enumerate(games):
            if corrected and (m, g) == (fix_month, fix_game):
                result = fix_result
            day = month + datetime.timedelta(days=g)
            items.append(
                {
                    "list": "online",
                    "date": day,
                    "white": people[w],
                    "black": people[b],
                    "result": result,
                }
            )
        games_create_bulk(club=club, by=owner, games=items)
    for month in MONTHS:
        period_close(period=period_of(club, f"{month:%Y-%m}", "online"), by=owner)
    return club


def _published(club: Club) -> dict[str, Any]:
    fields = ("rating_before", "rating_after", "change", "games", "score", "event")
    glicko = ("state_before", "state_after")
    changes = sorted(
        RatingChange.objects.filter(rating_list__club=club, current=True).values_list(
            "player__name", "period__month", *fields, *glicko, "last_active_month"
        ),
        key=repr,
    )
    ratings = sorted(
        PlayerRating.objects.filter(rating_list__club=club, rating_list__slug="online").values_list(
            "player__name", "rating", "state", "rated_games"
        ),
        key=repr,
    )
    return {"changes": changes, "ratings": ratings}


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(league=leagues())
def test_replay_equals_fresh_close(league: dict[str, Any]) -> None:
    owner = make_owner(f"owner-{next(_serial)}")
    club = _build(owner, league, corrected=False)
    fix_month, fix_game, fix_result = league["fix"]
    month = MONTHS[fix_month]
    period_reopen(period=period_of(club, f"{month:%Y-%m}", "online"), by=owner)
    game = Game.objects.filter(club=club, period__month=month).order_by("date", "id")[fix_game]
    game_update(game=game, by=owner, result=fix_result)
    list_replay(rating_list=game.rating_list, by=owner)
    fresh = _build(owner, league, corrected=True)
    assert _published(club) == _published(fresh)


def test_the_player_page_shows_the_uncertainty_and_the_band(client: Any) -> None:
    owner = make_owner()
    club, _ = glicko_club(owner, glicko_rd_max=400)
    me = member(club, owner, "Me", rating=1500, rd=200, volatility=0.06)
    a = member(club, owner, "A", rating=1400, rd=30)
    b = member(club, owner, "B", rating=1550, rd=100)
    c = member(club, owner, "C", rating=1700, rd=300)
    play(club, owner, [(me, a, "1-0"), (b, me, "1-0"), (me, c, "0-1")], OCT)
    period_close(period=period_of(club, "2026-10", "online"), by=owner)
    client.force_login(owner)
    page = client.get(f"/clubs/{club.slug}/players/{me.pk}/").content.decode()
    # 1464 with RD 151.52: two RDs, 303.04, shown as +/- 303.
    assert '<span class="rating">1464</span>' in page
    assert "± 303" in page
    assert "RD 151.52" in page
    assert '<polygon class="band"' in page
