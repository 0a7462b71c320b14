"""Jobs: long work (a close, a replay, an import, an export) run by a background worker.

A Job is the club-scoped record that the API, the admin and the commands show: its kind,
status, progress, and the answer the work would have given synchronously (``result``, or
``error`` in the API's error shape). The queue itself is Django's tasks framework (the
``django-tasks`` backport, database backend): a Job row and its queued task are written
in one transaction, so neither exists without the other.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from players.models.clubs import Club


class Job(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    FINISHED = (Status.SUCCEEDED, Status.FAILED)

    # Random ids: a job's URL tells nothing about how many jobs other clubs have run.
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="jobs")
    kind = models.CharField("kind", max_length=40)
    params = models.JSONField("parameters", default=dict, blank=True)
    # An uploaded file the job reads (an import). In the database, not on a disk, so that a
    # worker on another machine reads it too; emptied when the job finishes.
    payload = models.BinaryField("input file", null=True, blank=True, editable=False)
    status = models.CharField(
        "status", max_length=16, choices=Status.choices, default=Status.QUEUED
    )
    progress_done = models.PositiveIntegerField("done", default=0)
    progress_total = models.PositiveIntegerField("total", null=True, blank=True)
    result = models.JSONField("result", null=True, blank=True)
    # The HTTP status the synchronous answer had (201 for an import that stored games),
    # so that ?wait= answers exactly what the endpoint answered before it became a job.
    result_status = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.JSONField("error", null=True, blank=True)
    error_status = models.PositiveSmallIntegerField(null=True, blank=True)
    # A file the job produced (an export), served by the job's download URL.
    output = models.BinaryField("output file", null=True, blank=True, editable=False)
    output_name = models.CharField("output file name", max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    created = models.DateTimeField("created", auto_now_add=True)
    started = models.DateTimeField("started", null=True, blank=True)
    finished = models.DateTimeField("finished", null=True, blank=True)
    # Written every few seconds by the worker running the job; a running job whose
    # heartbeat is older than the lease lost its worker (killed, crashed, machine gone).
    heartbeat = models.DateTimeField("heartbeat", null=True, blank=True)
    attempts = models.PositiveSmallIntegerField("attempts", default=0)
    worker = models.CharField("worker", max_length=100, blank=True)
    task_id = models.CharField("queued task", max_length=64, blank=True)

    class Meta:
        ordering = ["-created"]
        verbose_name = "job"
        verbose_name_plural = "jobs"
        indexes = [
            models.Index(fields=["club", "-created"], name="job_club_created_idx"),
            models.Index(
                fields=["status", "heartbeat"],
                name="job_running_heartbeat_idx",
                condition=Q(status="running"),
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["queued", "running", "succeeded", "failed"]),
                name="job_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.status} ({self.club_id})"

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED
