"""The commands' ``--queue``: the work goes onto the job queue instead of running here;
a worker (its task step run in this process: tests/queue.py) then does exactly what the
command would."""

from __future__ import annotations

import datetime
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from players.models import Job, RatingChange
from tests.queue import run_queued_jobs
from tests.tournaments.helpers import make_club, make_player, period_of, play
from tests.tournaments.import_world import FILES
from tournaments.models import Game

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("queued_jobs")]


def _call(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, verbosity=0)
    return out.getvalue()


def _worker() -> None:
    assert run_queued_jobs() > 0


def test_close_period_queue_closes_through_a_worker() -> None:
    admin = get_user_model().objects.create_superuser("admin")
    club = make_club(admin, slug="kings")
    a = make_player(club, admin, "Alice", 1800)
    b = make_player(club, admin, "Bob", 1700)
    play(club, admin, [(a, b, "1-0")], date=datetime.date(2026, 10, 5))

    out = _call("close_period", "--club", "kings", "--period", "2026-10", "--queue")
    job = Job.objects.get()
    assert f"Queued job {job.pk} (close)" in out
    assert f"/api/v1/jobs/{job.pk}/" in out
    assert period_of(club, "2026-10").status == "open"
    assert not RatingChange.objects.exists()

    _worker()
    job.refresh_from_db()
    assert job.status == "succeeded"
    assert period_of(club, "2026-10").status == "closed"
    assert RatingChange.objects.count() == 2
    with pytest.raises(CommandError, match="leave out --queue"):
        _call("close_period", "--club", "kings", "--period", "2026-10", "--queue", "--dry-run")


def test_import_queue_imports_through_a_worker() -> None:
    admin = get_user_model().objects.create_superuser("admin")
    make_club(admin, slug="kings")
    path = str(FILES / "games_good.csv")
    out = _call("import_csv", path, "--club", "kings", "--queue", "--user", "admin")
    assert "(import)" in out
    assert not Game.objects.exists()
    _worker()
    job = Job.objects.get()
    assert job.status == "succeeded", job.error
    assert job.result is not None
    assert Game.objects.count() == job.result["games_created"] > 0
