"""The queue's lanes, each club's fair share of a lane, and each job kind's deadline
(docs/reference/queue.md), with real queued tasks: the order is the one the worker's own claim
(``manage.py worker``'s ``_claim``: django-tasks-db's ready tasks, locked, first by its
ordering) hands them out in. The deadline with a real worker process on PostgreSQL is in
tests/tournaments/test_worker_deadline.py.
"""

from __future__ import annotations

import importlib
import signal
import time
from typing import Any

import pytest
from django.test import override_settings
from django_tasks_db.models import DBTaskResult

from players.jobs import JOB_KINDS, job_start
from players.jobs.lanes import DEADLINE_EXCEEDED, JobDeadlineExceeded, job_deadline
from players.jobs.services import JobProgress
from players.models import Job, RatingChange
from players.webhooks.delivery import events_fan_out, webhook_deliver
from ratings_site.management.commands.worker import NotifiedWorker, lane_nice
from tests.queue import run_queued_jobs
from tests.tournaments.helpers import make_club, make_owner
from tests.tournaments.test_workers import club_with_games
from tournaments import jobs as tournaments_jobs

RATING_KINDS = {"close", "reopen", "periods"}
FILES_KINDS = {"import", "fide_list", "history_export", "club_export"}


def test_each_job_kind_and_task_has_its_lane() -> None:
    assert {name for name, kind in JOB_KINDS.items() if kind.lane == "rating"} == RATING_KINDS
    assert {name for name, kind in JOB_KINDS.items() if kind.lane == "files"} == FILES_KINDS
    assert {name for name, kind in JOB_KINDS.items() if kind.lane == "replays"} == {"replay"}
    # Webhook fan-out (which also sends the rating e-mails) and each try.
    assert events_fan_out.queue_name == webhook_deliver.queue_name == "deliveries"


def test_a_worker_of_several_lanes_runs_at_the_most_urgent_lanes_niceness() -> None:
    lanes = {"rating": 10, "deliveries": 10, "replays": 15, "files": 19}
    with override_settings(WORKER_LANE_NICE=lanes):
        assert lane_nice(["files"]) == 19
        assert lane_nice(["files", "replays"]) == 15
        assert lane_nice(["files", "rating"]) == 10
        assert lane_nice(["*"]) == 10


def _claimed(lanes: list[str]) -> list[str]:
    """Job ids in the order a worker of ``lanes`` claims their tasks (each is claimed,
    so the next claim sees the rest)."""
    worker = NotifiedWorker(
        queue_names=lanes,
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="claims",
        excluded_queue_names=[],
    )
    order = []
    while (task := worker._claim()[0]) is not None:
        order.append(str(task.args_kwargs["args"][0]))
    return order


def _export(club: Any, owner: Any) -> str:
    return str(job_start(kind="history_export", club=club, by=owner, params={"list": 0}).pk)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("queued_jobs")
def test_one_clubs_queued_jobs_do_not_go_before_another_clubs_first() -> None:
    busy_owner, quiet_owner = make_owner("busy"), make_owner("quiet")
    busy, quiet = make_club(busy_owner, slug="busy"), make_club(quiet_owner, slug="quiet")
    first, second, third = (_export(busy, busy_owner) for _ in range(3))
    theirs = _export(quiet, quiet_owner)
    later = _export(busy, busy_owner)
    # Without the priority the engine's order is the queue's: busy, busy, busy, quiet.
    assert _claimed(["files"]) == [first, theirs, second, third, later]


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("queued_jobs")
def test_a_close_waits_in_the_rating_lane_not_behind_another_clubs_files() -> None:
    busy_owner = make_owner("busy")
    busy = make_club(busy_owner, slug="busy")
    exports = [_export(busy, busy_owner) for _ in range(20)]
    club, officer, period = club_with_games("quiet")
    close = str(job_start(kind="close", club=club, by=officer, params={"period": period.pk}).pk)
    lanes = dict(DBTaskResult.objects.values_list("args_kwargs__args__0", "queue_name"))
    assert {lanes[pk] for pk in exports} == {"files"}
    assert lanes[close] == "rating"
    # The rating lane's worker takes the close at once; the files lane's never sees it.
    assert _claimed(["rating"]) == [close]
    assert _claimed(["files"]) == exports


@pytest.mark.django_db
@pytest.mark.usefixtures("queued_jobs")
def test_a_job_past_its_deadline_fails_with_why_and_its_work_is_rolled_back(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    club, officer, period = club_with_games("slow")
    settings.JOBS_DEADLINE_SECONDS = {"close": 0.3, "default": 900}
    # The close reports progress while it plans, inside its transaction: there it stalls.
    monkeypatch.setattr(JobProgress, "advance", lambda self, n=1: time.sleep(30))
    job = job_start(kind="close", club=club, by=officer, params={"period": period.pk})
    clock = time.monotonic()
    run_queued_jobs()
    assert time.monotonic() - clock < 30  # interrupted, not slept out
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert job.error["code"] == DEADLINE_EXCEEDED
    assert "0.3 s for a close job" in job.error["message"]
    assert "JOBS_DEADLINE_CLOSE" in job.error["message"]
    period.refresh_from_db()
    assert period.status == "open"
    assert not RatingChange.objects.filter(period=period).exists()
    # The alarm is disarmed and the worker's own handler is back.
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL


def test_the_deadline_interrupts_only_past_it_and_leaves_the_alarm_as_it_was() -> None:
    with override_settings(JOBS_DEADLINE_SECONDS={"quick": 5, "default": 0}):
        with job_deadline("quick"):
            pass
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        with job_deadline("other"):  # 0: no deadline
            assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    with (
        override_settings(JOBS_DEADLINE_SECONDS={"quick": 0.05}),
        pytest.raises(JobDeadlineExceeded),
        job_deadline("quick"),
    ):
        time.sleep(5)


@pytest.mark.django_db
@pytest.mark.usefixtures("queued_jobs")
def test_tasks_queued_before_the_lanes_are_moved_into_their_lanes() -> None:
    from django.apps import apps

    migration = importlib.import_module("players.migrations.0035_queued_tasks_into_lanes")
    club, officer, period = club_with_games("upgraded")
    close = job_start(kind="close", club=club, by=officer, params={"period": period.pk})
    export = job_start(kind="history_export", club=club, by=officer, params={"list": 0})
    webhook_deliver.enqueue("00000000-0000-0000-0000-000000000000")
    # As an older release queued them: in the queue "default", which no lane worker serves,
    # under the paths the tasks had then (before players/0038 moved them).
    DBTaskResult.objects.update(queue_name="default")
    moved = importlib.import_module("players.migrations.0038_task_paths_moved").MOVED
    for old, new in moved.items():
        DBTaskResult.objects.filter(task_path=new).update(task_path=old)
    migration.into_lanes(apps, None)
    lanes = {
        str(task.args_kwargs["args"][0]): task.queue_name for task in DBTaskResult.objects.all()
    }
    assert lanes == {
        str(close.pk): "rating",
        str(export.pk): "files",
        "00000000-0000-0000-0000-000000000000": "deliveries",
    }


@pytest.mark.django_db
@pytest.mark.usefixtures("queued_jobs")
def test_a_close_that_committed_just_before_its_deadline_is_answered_as_done(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    club, officer, period = club_with_games("just")
    settings.JOBS_DEADLINE_SECONDS = {"close": 0.5, "default": 900}
    outcome = tournaments_jobs._close_outcome
    stalls = [30.0]

    def stalled(job: Job, run: Any) -> Any:
        if stalls:  # the first answer only: the deadline strikes while it is built
            time.sleep(stalls.pop())
        return outcome(job, run)

    monkeypatch.setattr(tournaments_jobs, "_close_outcome", stalled)
    job = job_start(kind="close", club=club, by=officer, params={"period": period.pk})
    run_queued_jobs()
    job.refresh_from_db()
    period.refresh_from_db()
    assert period.status == "closed"
    assert job.status == Job.Status.SUCCEEDED, job.error
    assert job.result["status"] == "closed"
