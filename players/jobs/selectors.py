"""The jobs a user may see, waiting for one, and the queue's health signal."""

from __future__ import annotations

import time
import uuid

from django.db.models import Min, QuerySet
from django.utils import timezone

from players.errors import NotFoundError
from players.jobs.events import FINISHED, POLL_SECONDS, listening
from players.models import Job
from players.selectors.access import User, is_superuser


def jobs_visible_to(user: User | None) -> QuerySet[Job]:
    """Jobs are club staff's work: members of the job's club (any role) and superusers see
    them; everyone else, visitors of a public club included, gets a 404."""
    if is_superuser(user):
        return Job.objects.all()
    if user is None or not user.is_authenticated:
        return Job.objects.none()
    return Job.objects.filter(club__memberships__user_id=user.pk)


def job_get_visible(*, user: User | None, job_id: str | uuid.UUID) -> Job:
    try:
        job_id = uuid.UUID(str(job_id))
    except ValueError:
        raise NotFoundError("No such job.") from None
    job = jobs_visible_to(user).defer("payload", "output").filter(pk=job_id).first()
    if job is None:
        raise NotFoundError("No such job.")
    return job


def job_wait(*, job: Job, seconds: float) -> Job:
    """Wait until ``job`` finished or ``seconds`` passed; the job as it is then.

    PostgreSQL: woken by the NOTIFY its worker sends when it stores the answer
    (job_events.FINISHED), with a read every second besides in case a wake-up was lost.
    Elsewhere the row is read every ``POLL_SECONDS``. Either way the answer comes within
    100 ms of the job's end."""
    if job.is_finished or seconds <= 0:
        return job
    deadline = time.monotonic() + seconds
    with listening(FINISHED) as listener:
        # Read again once listening: a job that ended before the LISTEN sent its NOTIFY to
        # no one.
        job = _reread(job)
        while not job.is_finished:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            if listener is None:
                time.sleep(min(POLL_SECONDS, remaining))
            else:
                listener.wait(min(_SAFETY_READ_SECONDS, remaining), payload=str(job.pk))
            job = _reread(job)
    return job


#: On PostgreSQL, how often a waiting call reads its job although nothing woke it.
_SAFETY_READ_SECONDS = 1.0


def job_output(*, job: Job) -> bytes | None:
    """The file a job produced (None: none), read on its own: the job rows that every
    other read passes around leave it out."""
    output = Job.objects.filter(pk=job.pk).values_list("output", flat=True).first()
    return None if output is None else bytes(output)


def _reread(job: Job) -> Job:
    return Job.objects.defer("payload", "output").get(pk=job.pk)


def queue_oldest_queued_seconds() -> float | None:
    """How long the oldest queued job has waited (None: nothing waits): the health
    check's signal that no worker is taking jobs."""
    oldest = Job.objects.filter(status=Job.Status.QUEUED).aggregate(oldest=Min("created"))["oldest"]
    if oldest is None:
        return None
    return round(float((timezone.now() - oldest).total_seconds()), 1)
