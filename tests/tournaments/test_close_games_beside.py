"""On PostgreSQL a close outside any transaction reads the games of a big period
(``read.BESIDE_GAMES`` or more) on a second connection, in its own transaction's snapshot
(read._GamesBeside), while its connection reads the rest. The inputs must be those of the
read on one connection. A smaller period, and a transaction that has written (a test's, a
caller's: the second connection would not see its writes), read their games themselves. A
second connection that cannot be had leaves the games to the first.

The tests of the second connection lower ``BESIDE_GAMES`` to the six games of their club's
October (``beside_from_six``)."""

from __future__ import annotations

import datetime
import logging
from typing import Any

import psycopg
import pytest
from django.db import connection, transaction

from players.models import RatingChange
from tests.tournaments.helpers import close, make_club, make_owner, make_player, period_of, play
from tournaments.services import period_preview, tournament_create
from tournaments.services.close import read
from tournaments.services.close.read import beside_possible, read_inputs

OCT = datetime.date(2026, 10, 5)
pytestmark = pytest.mark.django_db(transaction=True)


def _october() -> tuple[Any, Any, list[Any]]:
    """A club's October: games outside tournaments and in one, a forfeit, an unrated
    player."""
    owner = make_owner()
    club = make_club(owner)
    a, b, c = (make_player(club, owner, name, 1800 + 50 * i) for i, name in enumerate("ABC"))
    new = make_player(club, owner, "New")
    play(club, owner, [(a, b, "1-0"), (b, c, "1/2-1/2"), (c, a, "+-"), (new, a, "0-1")], date=OCT)
    event = tournament_create(
        club=club,
        by=owner,
        name="Open",
        rating_list="standard",
        start_date=OCT,
        end_date=OCT + datetime.timedelta(days=2),
    )
    play(club, owner, [(a, c, "0-1"), (new, b, "1/2-1/2")], date=OCT, tournament=event)
    return owner, club, [a, b, c, new]


@pytest.fixture
def beside_from_six(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(read, "BESIDE_GAMES", 6)


def _connections(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Counts the second connections opened (and lets them open)."""
    opened: list[str] = []
    original = psycopg.connect

    def counted(*args: Any, **kwargs: Any) -> Any:
        opened.append(kwargs.get("dbname", ""))
        return original(*args, **kwargs)

    monkeypatch.setattr(read.psycopg, "connect", counted)
    return opened


@pytest.mark.postgres
@pytest.mark.usefixtures("postgres_only", "beside_from_six")
def test_the_games_read_beside_are_the_games_read_alone(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _, club, _ = _october()
    period = period_of(club, "2026-10")
    rating_list = period.rating_list
    assert beside_possible()
    opened = _connections(monkeypatch)
    with caplog.at_level(logging.WARNING), transaction.atomic():
        beside = read_inputs(rating_list=rating_list, period=period, untouched=True)
    with transaction.atomic():
        alone = read_inputs(rating_list=rating_list, period=period)

    assert opened == [connection.settings_dict["NAME"]]
    assert not caplog.records
    assert beside == alone
    assert len(beside.games.white) == 6


@pytest.mark.postgres
@pytest.mark.usefixtures("postgres_only", "beside_from_six")
def test_a_close_reads_beside_and_writes_what_it_read(monkeypatch: pytest.MonkeyPatch) -> None:
    owner, club, _ = _october()
    with transaction.atomic():  # read on its own connection
        plan = period_preview(period=period_of(club, "2026-10"))
    opened = _connections(monkeypatch)
    close(club, owner, "2026-10")
    assert len(opened) == 1
    rows = RatingChange.objects.filter(period__month=datetime.date(2026, 10, 1), current=True)
    assert sorted(rows.values_list("player_id", "games", "rating_after")) == [
        (c.player_id, c.games, c.rating_after) for c in plan.changes
    ]
    assert sum(c.games for c in plan.changes) > 0


@pytest.mark.postgres
@pytest.mark.usefixtures("postgres_only")
def test_a_period_of_fewer_games_reads_them_on_its_own_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A club's month: a second connection would cost more than it saves."""
    owner, club, _ = _october()
    period = period_of(club, "2026-10")
    monkeypatch.setattr(read, "BESIDE_GAMES", 7)
    opened = _connections(monkeypatch)
    with transaction.atomic():
        inputs = read_inputs(rating_list=period.rating_list, period=period, untouched=True)
    close(club, owner, "2026-10")
    assert opened == []
    assert len(inputs.games.white) == 6
    assert RatingChange.objects.filter(period=period, current=True, games__gt=0).exists()


@pytest.mark.django_db  # the test's own transaction: nothing here is committed
def test_inside_a_transaction_the_games_are_read_on_its_own_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    owner, club, _ = _october()
    opened = _connections(monkeypatch)
    assert not beside_possible()
    # A second connection would see none of these games.
    plan = period_preview(period=period_of(club, "2026-10"))
    close(club, owner, "2026-10")
    assert opened == []
    assert plan.games_count == 6
    assert RatingChange.objects.filter(period__month=datetime.date(2026, 10, 1), games__gt=0)


@pytest.mark.postgres
@pytest.mark.usefixtures("postgres_only", "beside_from_six")
def test_without_a_second_connection_the_close_reads_its_games_itself(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _, club, _ = _october()
    period = period_of(club, "2026-10")
    with transaction.atomic():
        alone = read_inputs(rating_list=period.rating_list, period=period)

    def refused(*args: Any, **kwargs: Any) -> Any:
        raise psycopg.OperationalError("too many clients already")

    monkeypatch.setattr(read.psycopg, "connect", refused)
    with caplog.at_level(logging.WARNING), transaction.atomic():
        inputs = read_inputs(rating_list=period.rating_list, period=period, untouched=True)

    assert inputs == alone
    assert "too many clients already" in caplog.text


def test_sqlite_reads_its_games_on_its_one_connection() -> None:
    if connection.vendor == "postgresql":
        pytest.skip("SQLite only: PostgreSQL reads beside, the tests above")
    assert not beside_possible()
