"""Closes and game writes racing each other, on PostgreSQL (real row locks).

pretix's habit: first show the race is real without the lock, then prove the lock.
"""

from __future__ import annotations

import datetime
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.db import IntegrityError, connection

from players.errors import ConflictError
from players.models import RatingChange, RatingPeriod
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
    original = close_module.compute_plan

    def slow(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        time.sleep(0.5)
        return original(*args, **kwargs)

    monkeypatch.setattr(close_module, "compute_plan", slow)


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
