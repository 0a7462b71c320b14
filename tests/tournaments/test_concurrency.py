"""Closes and game writes racing each other, on PostgreSQL (real row locks).

pretix's habit: first show the race is real without the lock, then prove the lock.
"""

from __future__ import annotations

import datetime
import re
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction

from players.errors import ConflictError
from players.models import Player, RatingChange, RatingPeriod
from players.services import player_delete
from players.services import players as players_services_module
from tests.tournaments.helpers import make_club, make_owner, make_player, period_of, play
from tournaments.models import Game
from tournaments.services import games as games_module
from tournaments.services import games_create_bulk, period_close
from tournaments.services.close import run as close_module

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("postgres_only"),
]
OCT = datetime.date(2026, 10, 5)


def _run_in_threads(*jobs: Callable[[], Any]) -> list[Any]:
    """Run each job in its own thread (own connection); return results or exceptions."""
    results: list[Any] = [None] * len(jobs)

    def wrap(index: int, job: Callable[[], Any]) -> None:
        try:
            results[index] = job()
        except Exception as exc:
            results[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=wrap, args=(i, job)) for i, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def _slow_compute(monkeypatch: pytest.MonkeyPatch, entered: threading.Event) -> None:
    original = close_module.system_plan

    def slow(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        time.sleep(0.5)
        return original(*args, **kwargs)

    monkeypatch.setattr(close_module, "system_plan", slow)


def _setup() -> tuple:
    owner = make_owner()
    club = make_club(owner)
    a = make_player(club, owner, "A", 1800)
    b = make_player(club, owner, "B", 1700)
    play(club, owner, [(a, b, "1-0")], date=OCT)
    return owner, club, a, b


def test_two_closes_at_once_one_wins_the_other_gets_a_conflict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    owner, club, _, _ = _setup()
    _slow_compute(monkeypatch, threading.Event())
    period = period_of(club, "2026-10")
    results = _run_in_threads(
        lambda: period_close(period=period, by=owner),
        lambda: period_close(period=period, by=owner),
    )
    conflicts = [r for r in results if isinstance(r, ConflictError)]
    assert len(conflicts) == 1, results
    assert "already closed" in conflicts[0].message
    assert RatingChange.objects.count() == 2


def test_without_the_lock_the_race_is_real(monkeypatch: pytest.MonkeyPatch) -> None:
    owner, club, _, _ = _setup()
    _slow_compute(monkeypatch, threading.Event())

    def no_lock(rating_list: Any, period: RatingPeriod) -> tuple[Any, RatingPeriod]:
        return rating_list, RatingPeriod.objects.get(pk=period.pk)

    monkeypatch.setattr(close_module, "_lock", no_lock)
    period = period_of(club, "2026-10")
    results = _run_in_threads(
        lambda: period_close(period=period, by=owner),
        lambda: period_close(period=period, by=owner),
    )
    # Both passed the "already closed" check; only the unique constraint on current rows
    # stopped the second from publishing the period twice, and it failed uncleanly.
    assert any(isinstance(r, IntegrityError) for r in results), results
    assert not any(isinstance(r, ConflictError) for r in results)


def test_game_written_during_a_close_is_refused_not_lost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    owner, club, a, b = _setup()
    entered = threading.Event()
    _slow_compute(monkeypatch, entered)
    period = period_of(club, "2026-10")

    def late_game() -> Any:
        entered.wait(timeout=10)
        play(club, owner, [(b, a, "1-0")], date=OCT)

    results = _run_in_threads(lambda: period_close(period=period, by=owner), late_game)
    assert isinstance(results[1], ConflictError), results
    assert Game.objects.count() == 1
    assert RatingChange.objects.get(player=a).games == 1


def test_game_written_just_before_a_close_makes_it_in(monkeypatch: pytest.MonkeyPatch) -> None:
    owner, club, a, b = _setup()
    locked = threading.Event()
    original = games_module._periods_locked

    def slow_lock(**kwargs: Any) -> Any:
        periods = original(**kwargs)
        locked.set()
        time.sleep(0.5)  # hold the period row while the close starts
        return periods

    monkeypatch.setattr(games_module, "_periods_locked", slow_lock)
    period = period_of(club, "2026-10")

    def closing() -> Any:
        locked.wait(timeout=10)
        return period_close(period=period, by=owner)

    results = _run_in_threads(
        lambda: games_create_bulk(
            club=club,
            by=owner,
            games=[{"list": "standard", "date": OCT, "white": b, "black": a, "result": "1-0"}],
        ),
        closing,
    )
    assert not any(isinstance(r, Exception) for r in results), results
    assert RatingChange.objects.get(player=a).games == 2


def _race_game_against_delete() -> tuple[Any, Any, Player]:
    """A game naming a new player, written in a transaction held open, against the
    player's delete in another; returns what each thread ended with, and the player."""
    owner, club, a, _ = _setup()
    game = Game.objects.filter(club=club).first()
    assert game is not None
    lone = make_player(club, owner, "Lone", 1500)
    written = threading.Event()

    def write_game() -> float:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO tournaments_game (club_id, rating_list_id, period_id, date,"
                " white_id, black_id, result, rated, created) "
                "VALUES (%s, %s, %s, %s, %s, %s, '1-0', true, now())",
                [club.pk, game.rating_list_id, game.period_id, OCT, lone.pk, a.pk],
            )
            written.set()
            time.sleep(0.5)  # the game's transaction stays open while the delete starts
        return time.monotonic()

    def delete_player() -> float:
        written.wait(timeout=10)
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("DELETE FROM players_playerrating WHERE player_id = %s", [lone.pk])
            cursor.execute("DELETE FROM players_kfactorchange WHERE player_id = %s", [lone.pk])
            cursor.execute("DELETE FROM players_player WHERE id = %s", [lone.pk])
        return time.monotonic()

    committed, deleted = _run_in_threads(write_game, delete_player)
    return committed, deleted, lone


def test_without_the_key_share_lock_a_game_can_name_a_deleted_player() -> None:
    # The race is real: the same triggers without their FOR KEY SHARE locks let the delete
    # through (the game was not committed yet), and the game then names nobody.
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_get_functiondef('game_references_check'::regproc)")
        original = cursor.fetchone()[0]
    unlocked = re.sub(r"PERFORM 1 FROM .*?FOR KEY SHARE OF t;", "", original, flags=re.S)
    assert unlocked != original
    try:
        with connection.cursor() as cursor:
            cursor.execute(unlocked)
        committed, deleted, lone = _race_game_against_delete()
    finally:
        with connection.cursor() as cursor:
            cursor.execute(original)
    assert isinstance(committed, float), committed
    assert isinstance(deleted, float), deleted
    assert not Player.objects.filter(pk=lone.pk).exists()
    assert Game.objects.filter(white_id=lone.pk).count() == 1


def test_a_player_deleted_while_a_game_naming_them_is_written_waits_and_is_refused() -> None:
    # A game's references are checked by triggers (tournaments/0010), which lock the rows
    # they name FOR KEY SHARE as a foreign key's check does: the delete waits for the
    # game's transaction, then finds the game and fails.
    committed, refused, lone = _race_game_against_delete()

    assert isinstance(committed, float), committed
    assert isinstance(refused, IntegrityError), refused
    assert Game.objects.filter(white=lone).count() == 1
    assert Player.objects.filter(pk=lone.pk).exists()


def _race_close_against_player_delete(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any, Player]:
    """A close (slowed in its compute) against the delete of a player on its list who has
    no games: the close publishes a row for them (no rated games). Returns what each thread
    ended with, and the player."""
    owner, club, _, _ = _setup()
    lone = make_player(club, owner, "Lone", 1500)
    entered = threading.Event()
    _slow_compute(monkeypatch, entered)
    period = period_of(club, "2026-10")

    def delete_player() -> Any:
        entered.wait(timeout=10)
        player_delete(player=Player.objects.get(pk=lone.pk), by=owner)
        return "deleted"

    closed, deleted = _run_in_threads(lambda: period_close(period=period, by=owner), delete_player)
    return closed, deleted, lone


def test_without_the_list_locks_a_delete_leaves_a_close_row_naming_nobody(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The race is real: RatingChange.player has no database key (players/0025), so a
    # delete that does not wait for the close passes its "no published ratings" check
    # (the close's rows are not committed yet), and the close then commits a row naming
    # nobody.
    monkeypatch.setattr(players_services_module, "club_lists_locked", lambda *, club_id: [])
    closed, deleted, lone = _race_close_against_player_delete(monkeypatch)
    assert not isinstance(closed, Exception), closed
    assert deleted == "deleted", deleted
    assert not Player.objects.filter(pk=lone.pk).exists()
    assert RatingChange.objects.filter(player_id=lone.pk).count() == 1


def test_a_player_deleted_during_a_close_waits_for_it_and_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # player_delete locks the club's lists first, as the close does: it waits for the
    # close, then finds the row the close published and refuses.
    closed, refused, lone = _race_close_against_player_delete(monkeypatch)
    assert not isinstance(closed, Exception), closed
    assert isinstance(refused, ConflictError), refused
    assert "published ratings" in refused.message
    assert Player.objects.filter(pk=lone.pk).exists()
    assert RatingChange.objects.filter(player=lone).count() == 1
