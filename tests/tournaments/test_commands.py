"""close_period and replay management commands: output, dry runs, readable errors."""

from __future__ import annotations

import datetime
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from players.models import RatingChange
from tests.tournaments.helpers import make_club, make_player, period_of, play
from tournaments.models import Game
from tournaments.services import game_update, period_reopen

pytestmark = pytest.mark.django_db
OCT = datetime.date(2026, 10, 5)


def _setup() -> tuple:
    admin = get_user_model().objects.create_superuser("admin")
    club = make_club(admin, slug="kings")
    a = make_player(club, admin, "Alice", 1800)
    b = make_player(club, admin, "Bob", 1700)
    play(club, admin, [(a, b, "1-0")], date=OCT)
    return admin, club, a, b


def _call(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, verbosity=0)
    return out.getvalue()


def test_close_period_dry_run_prints_the_table_and_writes_nothing() -> None:
    _setup()
    out = _call("close_period", "--club", "kings", "--period", "2026-10", "--dry-run")
    assert "Alice" in out
    assert "1800   1807      +7" in out
    assert "Nothing was written" in out
    assert not RatingChange.objects.exists()


def test_close_period_then_again_fails_readably() -> None:
    _setup()
    out = _call("close_period", "--club", "kings", "--list", "standard", "--period", "2026-10")
    assert "Closed 2026-10" in out
    assert RatingChange.objects.count() == 2
    with pytest.raises(CommandError, match="already closed"):
        _call("close_period", "--club", "kings", "--period", "2026-10")
    with pytest.raises(CommandError, match="YYYY-MM"):
        _call("close_period", "--club", "kings", "--period", "October")
    with pytest.raises(CommandError, match="No club"):
        _call("close_period", "--club", "nope", "--period", "2026-10")
    with pytest.raises(CommandError, match="No user"):
        _call("close_period", "--club", "kings", "--period", "2026-10", "--user", "ghost")


def test_replay_dry_run_rolls_back_and_replay_reports_changes() -> None:
    admin, club, a, _ = _setup()
    _call("close_period", "--club", "kings", "--period", "2026-10")
    period_reopen(period=period_of(club, "2026-10"), by=admin)
    game_update(game=Game.objects.get(), by=admin, result="0-1")
    out = _call("replay", "--club", "kings", "--dry-run")
    assert "Alice 2026-10: 1807 -> 1787" in out
    assert "rolled back" in out
    assert period_of(club, "2026-10").status == "needs_replay"
    out = _call("replay", "--club", "kings")
    assert "Alice 2026-10: 1807 -> 1787" in out
    assert RatingChange.objects.get(player=a, current=True).rating_after == 1787
    with pytest.raises(CommandError, match="Nothing to replay"):
        _call("replay", "--club", "kings")
