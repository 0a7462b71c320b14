"""The jobs a user may see, waiting for one, and the queue's health signal."""

from __future__ import annotations

import time
import uuid

from django.db.models import Min, QuerySet
from django.utils import timezone

from players.errors import NotFoundError
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
    """Poll ``job`` until it finished or ``seconds`` passed; the job as it is then. Polled
    (a row read every 50-500 ms), not notified: any database, any number of workers."""
    deadline = time.monotonic() + seconds
    delay = 0.05
    while not job.is_finished:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        time.sleep(min(delay, remaining))
        delay = min(delay * 2, 0.5)
        job = Job.objects.defer("payload", "output").get(pk=job.pk)
    return job


def queue_oldest_queued_seconds() -> float | None:
    """How long the oldest queued job has waited (None: nothing waits): the health
    check's signal that no worker is taking jobs."""
    oldest = Job.objects.filter(status=Job.Status.QUEUED).aggregate(oldest=Min("created"))["oldest"]
    if oldest is None:
        return None
    return round(float((timezone.now() - oldest).total_seconds()), 1)
