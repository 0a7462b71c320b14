"""Live ratings equal the close: games are entered (and edited, and deleted), the live
list is read, the period is closed, and every player's live figure is what the close
published. FIDE, a club's Elo, Glicko-2, and an unrated player reaching a first rating."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from players.models import Club, Player, PlayerRating, RatingChange, RatingList, RatingPeriod
from players.services import (
    k_override_set,
    rating_list_update,
)
from tests.tournaments.helpers import (
    close,
    glicko2_club,
    make_club,
    make_owner,
    make_player,
    period_of,
    play,
)
from tournaments.models import Game
from tournaments.services import game_delete, game_update, live, period_close, period_reopen
from tournaments.services.close import read as close_read
from tournaments.services.live import LiveList, live_list
from tournaments.services.live_player import live_player

pytestmark = pytest.mark.django_db
OCT = datetime.date(2026, 10, 5)
NOV = datetime.date(2026, 11, 7)


def _live(club: Club, slug: str = "standard") -> LiveList:
    return live_list(
        rating_list=RatingList.objects.select_related("club").get(club=club, slug=slug)
    )


def _published(club: Club, month: str, slug: str = "standard") -> dict[int, tuple[Any, ...]]:
    period = period_of(club, month, slug)
    return {
        row[0]: row[1:]
        for row in RatingChange.objects.filter(period=period, current=True).values_list(
            "player_id", "rating_after", "change", "games", "state_after"
        )
    }


def _assert_equal_to_close(live: LiveList, published: dict[int, tuple[Any, ...]]) -> None:
    assert live.rows, "the live list is empty"
    for row in live.rows:
        rating_after, change, games, state_after = published[row.player_id]
        assert (row.live_rating, row.live_change, row.games) == (rating_after, change, games), (
            row.name
        )
        assert row.live_state == state_after, row.name
    # Every player the close rated (or who played) has a live row.
    shown = {row.player_id for row in live.rows}
    rated_after = {pid for pid, values in published.items() if values[0] is not None}
    assert rated_after <= shown


def _club_with_games(slug: str = "club") -> tuple[Any, Club, list[Player]]:
    owner = make_owner(f"owner-{slug}")
    club = make_club(owner, slug)
    players = [
        make_player(club, owner, "Alder", 2105),
        make_player(club, owner, "Birch", 1890, rated_games=10, birth_year=2012),
        make_player(club, owner, "Cedar", 1712),
        make_player(club, owner, "Dogwood", 1655),
        make_player(club, owner, "Elm", 1500, rated_games=3),
        make_player(club, owner, "Fir", 2012),
    ]
    a, b, c, d, e, f = players
    play(club, owner, [(a, b, "1-0"), (c, d, "1/2-1/2"), (e, f, "1-0"), (b, c, "0-1")], date=OCT)
    play(club, owner, [(d, a, "1-0"), (f, e, "+-"), (a, c, "1/2-1/2")], date=OCT)
    return owner, club, players


@pytest.mark.parametrize("preset", ["FIDE standard", "Club Elo"])
def test_the_elo_familys_live_list_is_what_the_close_publishes(preset: str) -> None:
    owner, club, players = _club_with_games(slug=preset.split()[0].lower())
    rating_list = RatingList.objects.get(club=club, slug="standard")
    if preset != "FIDE standard":
        rating_list_update(rating_list=rating_list, by=owner, preset=preset)
    before = _live(club)
    assert before.label == "2026-10"
    # An edit and a deletion after the first read: the next read is fresh.
    game = Game.objects.filter(white=players[0], black=players[1]).get()
    game_update(game=game, by=owner, result="0-1")
    game_delete(game=Game.objects.filter(white=players[3], black=players[0]).get(), by=owner)
    live = _live(club)
    assert live != before
    assert live.row_of(players[0].pk) != before.row_of(players[0].pk)

    close(club, owner, "2026-10")

    _assert_equal_to_close(live, _published(club, "2026-10"))
    # Closed: nothing is live until the next period has games.
    assert _live(club).period_id is None
    play(club, owner, [(players[0], players[2], "1-0")], date=NOV)
    assert _live(club).label == "2026-11"


def test_a_glicko2_lists_live_rating_and_rd_are_what_the_close_publishes() -> None:
    owner = make_owner()
    club, people = glicko2_club(owner)
    a, b, c, d = people
    play(club, owner, [(a, b, "1-0"), (c, a, "1-0"), (d, b, "1/2-1/2")], date=OCT, kind="online")
    live = _live(club, "online")
    row = live.row_of(a.pk)
    assert row is not None
    assert row.live_state is not None
    assert "rd" in row.live_state
    # RD shrinks for a player who played (the system's figure, not a constant here).
    assert row.state is not None
    assert row.live_state["rd"] < row.state["rd"]

    close(club, owner, "2026-10", kind="online")

    _assert_equal_to_close(live, _published(club, "2026-10", "online"))


def test_an_unrated_player_sees_the_way_to_a_first_rating_and_reaches_it() -> None:
    owner = make_owner()
    club = make_club(owner)
    rated = [make_player(club, owner, f"Rated {n}", 1600 + 40 * n) for n in range(6)]
    newcomer = make_player(club, owner, "Newcomer", None, rated_games=0)
    latecomer = make_player(club, owner, "Latecomer", None, rated_games=0)
    play(club, owner, [(newcomer, r, "1/2-1/2") for r in rated[:3]], date=OCT)
    play(club, owner, [(latecomer, rated[0], "1-0"), (latecomer, rated[1], "0-1")], date=OCT)

    short = _live(club).row_of(newcomer.pk)
    assert short is not None
    assert (short.rating, short.live_rating, short.first_rating_games) == (None, None, 3)
    assert "needs 5" in short.first_rating_missing
    assert short.rank is None

    play(club, owner, [(newcomer, r, "1-0") for r in rated[3:]], date=OCT)
    live = _live(club)
    reached = live.row_of(newcomer.pk)
    assert reached is not None
    assert reached.live_rating is not None
    assert reached.event == "first_rating"
    assert reached.first_rating_games is None
    waiting = live.row_of(latecomer.pk)
    assert waiting is not None
    assert waiting.first_rating_games == 2

    close(club, owner, "2026-10")

    _assert_equal_to_close(live, _published(club, "2026-10"))


def test_a_players_games_add_up_to_the_live_change() -> None:
    _owner, club, players = _club_with_games()
    rating_list = RatingList.objects.select_related("club").get(club=club, slug="standard")
    figure = live_player(rating_list=rating_list, player=players[0])
    assert figure.row is not None
    assert len(figure.games) == 3
    assert all(g.line is not None for g in figure.games if g.played)
    assert figure.total == figure.row.live_change
    # Each game's share is the engine's; together they make the change the close would
    # publish.
    shares = sum(g.line.change for g in figure.games if g.line and g.line.change is not None)
    assert round(shares) == figure.row.live_change


def test_a_reopened_period_waits_for_its_replay() -> None:
    owner, club, players = _club_with_games()
    close(club, owner, "2026-10")
    play(club, owner, [(players[0], players[2], "1-0")], date=NOV)
    assert _live(club).label == "2026-11"
    period_reopen(period=period_of(club, "2026-10"), by=owner)
    live = _live(club)
    assert (live.period_id, live.waiting_for_replay) == (None, "2026-10")
    assert period_of(club, "2026-10").status == RatingPeriod.Status.NEEDS_REPLAY


def test_a_close_makes_the_next_read_fresh() -> None:
    owner, club, players = _club_with_games()
    play(club, owner, [(players[0], players[2], "1-0")], date=NOV)
    assert _live(club).label == "2026-10"
    period_close(period=period_of(club, "2026-10"), by=owner)
    after = _live(club)
    assert after.label == "2026-11"
    published = _published(club, "2026-10")
    # The November live list starts from what October's close published.
    row = after.row_of(players[0].pk)
    assert row is not None
    assert row.rating == published[players[0].pk][0]


def _counted(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    """Each call of ``module.name`` from now on, counted (one item per call)."""
    calls: list[int] = []
    function = getattr(module, name)

    def counted(*args: Any) -> Any:
        calls.append(1)
        return function(*args)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_the_periods_start_is_read_once_until_something_is_published(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A game a second during a round: each read of the live figures read the players'
    # entries and the previous close again, though only what publishes changes them.
    owner, club, players = _club_with_games()
    reads = _counted(monkeypatch, live, "start_rows")
    # The players' starts made from those rows are kept with them.
    made = _counted(monkeypatch, close_read, "player_starts")
    rating_list = RatingList.objects.select_related("club").get(club=club, slug="standard")
    _live(club)
    play(club, owner, [(players[0], players[2], "0-1")], date=OCT)
    after_game = _live(club)
    assert len(reads) == 1
    assert made == []
    # Kept, and what a fresh read of everything gives.
    assert after_game == live._computed(rating_list)
    assert len(reads) == 2  # (that fresh read read it)

    before = after_game.row_of(players[0].pk)
    assert before is not None
    assert before.k_factor != 15
    on_list = PlayerRating.objects.get(player=players[0], rating_list=rating_list)
    k_override_set(player_rating=on_list, k=15, note="agreed with the arbiter", by=owner)
    after_override = _live(club)
    assert len(reads) == 3  # published: read again
    row = after_override.row_of(players[0].pk)
    assert row is not None
    assert row.k_factor == 15
    assert after_override == live._computed(rating_list)


def test_a_player_listed_from_a_later_month_who_plays_now_is_started_afresh_each_time() -> None:
    # Such a player is listed early because they play this month: their start depends on
    # the month's games, so the live figures do not keep the players' starts.
    owner, club, players = _club_with_games()
    rating_list = RatingList.objects.select_related("club").get(club=club, slug="standard")
    fir = players[5]
    PlayerRating.objects.filter(player=fir, rating_list=rating_list).update(
        entry_month=datetime.date(2026, 12, 1)
    )
    month = datetime.date(2026, 10, 1)
    assert live.starts_kept(month, live.start_rows(rating_list, month)) is None
    before = _live(club).row_of(fir.pk)
    assert before is not None
    play(club, owner, [(fir, players[0], "1-0")], date=OCT)
    after_game = _live(club)
    assert after_game == live._computed(rating_list)
    row = after_game.row_of(fir.pk)
    assert row is not None
    assert row.games == before.games + 1
