"""The audit trail of work that runs in a worker: through what, and by whom."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from players.jobs import JobOutcome, JobProgress, job_start
from players.jobs.services import JOB_KINDS, JobKind
from players.models import Job, Player, Role
from tests.api.conftest import World, client_for
from tests.queue import run_queued_jobs
from tests.tournaments.import_world import build_import_world, read
from tournaments.models import Game

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("queued_jobs")]


def test_an_import_run_by_a_worker_keeps_its_interface_and_its_user(world: World) -> None:
    imports = build_import_world()
    response = client_for(imports.arbiter).post(
        "/api/v1/clubs/riverton/imports/?wait=0",
        {
            "format": "trf",
            "list": "standard",
            "file": SimpleUploadedFile("swiss.trf", read("swiss_9_rounds.trf")),
        },
        format="multipart",
    )
    assert response.status_code == 202, response.content[:300]
    assert not Game.history.filter(club_id=imports.club.pk).exists()

    assert run_queued_jobs() > 0

    games = Game.history.filter(club_id=imports.club.pk)
    assert games.count() == 48
    assert set(games.values_list("via", "history_user")) == {("import", imports.arbiter.pk)}


def _rename(job: Job, progress: JobProgress) -> JobOutcome:
    Player.objects.filter(pk=job.params["player"]).update(name="Renamed In A Worker")
    player = Player.objects.get(pk=job.params["player"])
    player.save()
    return JobOutcome(body={})


def test_other_work_in_a_worker_is_recorded_as_a_job_by_who_started_it(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    kind = JobKind(name="test_rename", label="Rename", role=Role.OFFICER, run=_rename)
    monkeypatch.setitem(JOB_KINDS, kind.name, kind)
    officer = world.north.users["officer"]
    player = Player.objects.filter(club=world.north.club).first()
    assert player is not None
    # The world's closes queued their webhook and email fan-outs: those run first.
    run_queued_jobs()
    job = job_start(kind=kind.name, club=world.north.club, by=officer, params={"player": player.pk})

    assert run_queued_jobs() == 1

    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    row = Player.history.filter(id=player.pk).latest("history_date")
    assert (row.name, row.via, row.history_user_id) == ("Renamed In A Worker", "job", officer.pk)
