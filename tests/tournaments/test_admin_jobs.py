"""The admin's job pages: a period action or an upload starts a job and goes to its page,
which refreshes itself while the job waits or runs, then shows the result.

The queue here is the database one; the worker's task step runs in this process
(tests/queue.py)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from players.models import Job, RatingChange, RatingPeriod
from tests.players.admin_world import World, build_world
from tests.queue import run_queued_jobs
from tests.tournaments.import_world import read
from tests.tournaments.test_admin import client_for, messages_of, url

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("queued_jobs")]
# build_world queues a history export per club (rows for the jobs' admin); these tests
# follow the jobs they start.


@pytest.fixture
def world() -> World:
    return build_world()


def _worker() -> None:
    assert run_queued_jobs() > 0


def _act(client: Client, action: str, periods: list[RatingPeriod], **extra: Any) -> Any:
    return client.post(
        url(RatingPeriod, "changelist"),
        {"action": action, "_selected_action": [p.pk for p in periods], **extra},
        follow=True,
    )


def test_close_goes_to_the_jobs_page_which_refreshes_until_done(world: World) -> None:
    client = client_for(world.a.users["officer"])
    page = _act(client, "close_period", [world.a.open], post="yes")
    job = Job.objects.exclude(kind="history_export").get()
    assert page.redirect_chain[-1][0] == url(Job, "change", job.pk)
    html = page.content.decode()
    assert '<meta http-equiv="refresh" content="2">' in html
    assert 'data-status="queued"' in html
    assert "manage.py worker" in html
    world.a.open.refresh_from_db()
    assert world.a.open.status == "open"

    _worker()
    done = client.get(url(Job, "change", job.pk))
    html = done.content.decode()
    assert 'http-equiv="refresh"' not in html
    assert 'data-status="succeeded"' in html
    assert any("2025-02: closed" in text for text in messages_of(done))
    assert '<progress id="job-progress" max="100" value="100">' in html
    world.a.open.refresh_from_db()
    assert world.a.open.status == "closed"


def test_several_periods_close_in_order_in_one_job(world: World) -> None:
    client = client_for(world.a.users["officer"])
    # January is closed already: its line says so, February closes.
    _act(client, "close_period", [world.a.open, world.a.closed], post="yes")
    job = Job.objects.exclude(kind="history_export").get()
    assert job.kind == "periods"
    _worker()
    texts = messages_of(client.get(url(Job, "change", job.pk)))
    assert any("2025-01: Period 2025-01 is already closed" in t for t in texts), texts
    assert any("2025-02: closed." in t for t in texts), texts
    assert RatingChange.objects.filter(period=world.a.open).count() == 4


def test_a_failed_job_shows_its_error(world: World) -> None:
    client = client_for(world.a.users["officer"])
    page = _act(client, "close_period", [world.a.closed], post="yes")
    _worker()
    page = client.get(page.redirect_chain[-1][0])
    assert 'data-status="failed"' in page.content.decode()
    assert any("already closed" in text for text in messages_of(page))


def test_another_clubs_job_is_404_and_not_listed(world: World) -> None:
    _act(client_for(world.b.users["officer"]), "close_period", [world.b.open], post="yes")
    job = Job.objects.exclude(kind="history_export").get()
    client = client_for(world.a.users["officer"])
    assert client.get(url(Job, "change", job.pk)).status_code == 404
    assert str(job.pk) not in client.get(url(Job, "changelist")).content.decode()
    assert client_for(world.b.users["viewer"]).get(url(Job, "change", job.pk)).status_code == 200


def test_an_upload_goes_to_the_jobs_page_then_the_report(world: World) -> None:
    user = world.a.users["arbiter"]
    client = client_for(user)
    page = client.post(
        "/admin/tournaments/tournament/import/",
        {
            "club": world.a.club.pk,
            "rating_list": "blitz",
            "format": "trf",
            "file": SimpleUploadedFile("swiss.trf", read("swiss_9_rounds.trf")),
        },
        follow=True,
    )
    job = Job.objects.exclude(kind="history_export").get()
    assert job.kind == "import"
    assert 'http-equiv="refresh"' in page.content.decode()
    _worker()
    done = client.get(url(Job, "change", job.pk))
    html = done.content.decode()
    assert 'id="import-report"' in html
    assert "created 48 games (5 not rated)" in html
    assert "full-point bye (F)" in html
