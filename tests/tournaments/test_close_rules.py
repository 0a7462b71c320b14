"""Close is atomic, idempotent, ordered, set-based; reopen and replay keep history."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from players.errors import ConflictError, PermissionDeniedError
from players.models import PlayerRating, RatingChange, RatingPeriod, RatingRun
from tests.tournaments.helpers import (
    change_of,
    close,
    make_club,
    make_owner,
    make_player,
    period_of,
    play,
    standard,
)
from tournaments.models import Game
from tournaments.services import (
    game_delete,
    game_update,
    list_replay,
    period_close,
    period_preview,
    period_reopen,
)
from tournaments.services.close import write as close_write

pytestmark = pytest.mark.django_db
OCT = datetime.date(2026, 10, 5)
NOV = datetime.date(2026, 11, 5)


def _two_players() -> tuple:
    owner = make_owner()
    club = make_club(owner)
    a = make_player(club, owner, "A", 1800)
    b = make_player(club, owner, "B", 1700)
    return owner, club, a, b


def test_close_twice_is_a_conflict_and_changes_nothing() -> None:
    owner, club, a, b = _two_players()
    play(club, owner, [(a, b, "1-0")], date=OCT)
    close(club, owner, "2026-10")
    rows = list(RatingChange.objects.values_list("pk", "rating_after"))
    with pytest.raises(ConflictError, match="already closed"):
        close(club, owner, "2026-10")
    assert list(RatingChange.objects.values_list("pk", "rating_after")) == rows
    assert RatingRun.objects.filter(kind="close").count() == 1


def test_periods_close_in_order() -> None:
    owner, club, a, b = _two_players()
    play(club, owner, [(a, b, "1-0")], date=OCT)
    play(club, owner, [(a, b, "0-1")], date=NOV)
    with pytest.raises(ConflictError, match="Close 2026-10 first"):
        close(club, owner, "2026-11")
    close(club, owner, "2026-10")
    close(club, owner, "2026-11")
    assert change_of(a, "2026-11").rating_before == change_of(a, "2026-10").rating_after


def test_preview_is_what_close_writes_and_writes_nothing() -> None:
    owner, club, a, b = _two_players()
    play(club, owner, [(a, b, "1-0"), (a, b, "1/2-1/2")], date=OCT)
    plan = period_preview(period=period_of(club, "2026-10"))
    assert RatingChange.objects.count() == 0
    assert period_of(club, "2026-10").status == "open"
    close(club, owner, "2026-10")
    written = {
        row.player_id: (row.rating_before, row.rating_after, row.change, row.k_factor, row.event)
        for row in RatingChange.objects.all()
    }
    planned = {
        c.player_id: (c.rating_before, c.rating_after, c.change, c.k_factor, c.event)
        for c in plan.changes
    }
    assert planned == written


def test_failed_close_leaves_no_trace(monkeypatch: pytest.MonkeyPatch) -> None:
    owner, club, a, b = _two_players()
    play(club, owner, [(a, b, "1-0")], date=OCT)

    def explode(**_: object) -> int:
        # Called after the RatingRun, RatingChange and KFactorChange rows were written.
        assert RatingChange.objects.exists()
        raise RuntimeError("disk full")

    monkeypatch.setattr(close_write, "update_player_ratings", explode)
    with pytest.raises(RuntimeError, match="disk full"):
        close(club, owner, "2026-10")
    assert not RatingChange.objects.exists()
    assert not RatingRun.objects.exists()
    assert period_of(club, "2026-10").status == "open"
    assert PlayerRating.objects.get(player=a, rating_list__kind="standard").rating == 1800


def test_games_of_a_closed_period_are_refused_until_reopened() -> None:
    owner, club, a, b = _two_players()
    play(club, owner, [(a, b, "1-0")], date=OCT)
    close(club, owner, "2026-10")
    game = Game.objects.get()
    with pytest.raises(ConflictError, match="closed"):
        play(club, owner, [(a, b, "0-1")], date=OCT)
    with pytest.raises(ConflictError, match="closed"):
        game_update(game=game, by=owner, result="0-1")
    with pytest.raises(ConflictError, match="closed"):
        game_delete(game=game, by=owner)
    # An earlier month would change the closed list too.
    with pytest.raises(ConflictError, match="already closed"):
        play(club, owner, [(a, b, "0-1")], date=datetime.date(2026, 9, 1))
    period_reopen(period=period_of(club, "2026-10"), by=owner)
    game_update(game=game, by=owner, result="0-1")
    assert Game.objects.get().result == "0-1"


def test_only_officers_close() -> None:
    from django.contrib.auth import get_user_model

    from players.models import Role
    from players.services import membership_set

    owner, club, a, b = _two_players()
    arbiter = get_user_model().objects.create_user("arbiter")
    membership_set(club=club, user=arbiter, role=Role.ARBITER, by=owner)
    play(club, arbiter, [(a, b, "1-0")], date=OCT)
    with pytest.raises(PermissionDeniedError):
        period_close(period=period_of(club, "2026-10"), by=arbiter)


@pytest.mark.parametrize("returning", [True, False], ids=["update-returning", "read-then-update"])
def test_reopen_correct_replay_keeps_the_old_rows(
    returning: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Both ways of retiring a period's rows: one UPDATE ... RETURNING, or (SQLite before
    # 3.35) a read, then an UPDATE; the report's "before" figures come from them.
    from tournaments.services.close import write

    monkeypatch.setattr(write, "_update_returning", lambda: returning)
    owner, club, a, b = _two_players()
    play(club, owner, [(a, b, "1-0")], date=OCT)
    play(club, owner, [(a, b, "1-0")], date=NOV)
    close(club, owner, "2026-10")
    close(club, owner, "2026-11")
    before = change_of(a, "2026-11").rating_after
    period_reopen(period=period_of(club, "2026-10"), by=owner)
    assert set(RatingPeriod.objects.values_list("status", flat=True)) == {"needs_replay"}
    with pytest.raises(ConflictError):
        close(club, owner, "2026-11")
    game = Game.objects.get(period__month=datetime.date(2026, 10, 1))
    game_update(game=game, by=owner, result="0-1")
    run = list_replay(rating_list=standard(club), by=owner)
    assert run.periods == ["2026-10", "2026-11"]
    # 1800 v 1700 lost: K 20 x (0 - 0.64) = -12.8 -> -13.
    assert change_of(a, "2026-10").rating_after == 1787
    assert change_of(a, "2026-11").rating_after != before
    old = RatingChange.objects.get(
        player=a, period__month=datetime.date(2026, 11, 1), current=False
    )
    assert old.rating_after == before
    assert f"A 2026-11: {before} -> {change_of(a, '2026-11').rating_after}" in run.report
    current = PlayerRating.objects.get(player=a, rating_list__kind="standard").rating
    assert current == change_of(a, "2026-11").rating_after
    with pytest.raises(ConflictError, match="Nothing to replay"):
        list_replay(rating_list=standard(club), by=owner)


def _league(players: int) -> tuple:
    owner = make_owner(f"owner{players}")
    club = make_club(owner, slug=f"league{players}")
    people = [make_player(club, owner, f"P{i}", 1500 + 10 * i) for i in range(players)]
    people.append(make_player(club, owner, "New", None, rated_games=0))
    games = [(people[i], people[(i + 1) % len(people)], "1-0") for i in range(len(people))]
    play(club, owner, games, date=OCT)
    return owner, club


def _close_queries(players: int) -> tuple[int, int]:
    """(queries other than bulk inserts, bulk insert statements) of one close."""
    owner, club = _league(players)
    period = period_of(club, "2026-10")
    with CaptureQueriesContext(connection) as queries:
        period_close(period=period, by=owner)
    inserts = [
        q
        for q in queries.captured_queries
        if q["sql"].startswith('INSERT INTO "tournaments_ratingchange"')
        or q["sql"].startswith('INSERT INTO "players_kfactorchange"')
    ]
    return len(queries.captured_queries) - len(inserts), len(inserts)


def test_close_query_count_does_not_grow_with_players() -> None:
    small, small_inserts = _close_queries(5)
    large, large_inserts = _close_queries(50)
    assert large == small
    # 21: two of them ask whether anyone is to be told (a webhook for the events, a member
    # to e-mail), which spares a club with neither a task for the deliveries lane.
    assert small <= 21
    # Bulk inserts come in batches: SQLite allows 999 parameters per statement (51 rows of
    # 20 columns need two); PostgreSQL writes RatingChange rows with one COPY, which the
    # query log does not show.
    assert large_inserts <= small_inserts + 1
