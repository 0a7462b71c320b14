"""Jobs in the admin: the list of a club's jobs and each job's page, which refreshes itself
while the job is queued or running and then shows its result (or its error).

Every admin action that starts a job (periods, imports) redirects to ``job_page_url``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse

from players.http.admin import CLUB_FILTER, ClubScopedAdmin
from players.jobs import JOB_KINDS
from players.jobs.services import JobKind
from players.models import Job

#: Seconds between the page's refreshes while the job runs.
REFRESH_SECONDS = 2
#: Error lines of a refused job listed as messages (a file's errors, say).
SHOWN_ERROR_LINES = 20


def job_page_url(job: Job) -> str:
    return reverse("admin:players_job_change", args=[job.pk])


@admin.register(Job)
class JobAdmin(ClubScopedAdmin):
    list_display = ("created", "kind_label", "club", "status", "progress", "created_by", "finished")
    list_filter = ("status", "kind", CLUB_FILTER)
    list_select_related = ("club", "created_by")
    ordering = ("-created",)
    read_only = True

    def get_queryset(self, request: HttpRequest) -> Any:
        # The files stay in the database until they are asked for.
        return super().get_queryset(request).defer("payload", "output")

    @admin.display(description="kind", ordering="kind")
    def kind_label(self, job: Job) -> str:
        spec = JOB_KINDS.get(job.kind)
        return spec.label if spec else job.kind

    @admin.display(description="progress")
    def progress(self, job: Job) -> str:
        if job.progress_total:
            return f"{job.progress_done} / {job.progress_total}"
        return str(job.progress_done or "")

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        job: Job = self.get_object(request, object_id)
        if not self.has_view_permission(request, job):
            return super().change_view(request, object_id, form_url, extra_context)
        spec = JOB_KINDS.get(job.kind)
        lines = _outcome_shown(request, job, spec)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            **_progress_context(job, spec),
            "summary": " ".join(lines),
        }
        return TemplateResponse(request, "admin/players/job/progress.html", context)


def _outcome_shown(request: HttpRequest, job: Job, spec: JobKind | None) -> list[str]:
    """A finished job's outcome as the page's messages: a success's summary lines (each a
    success or a warning; returned for the page's summary too), a failure's message and
    its first error lines per field of the kind."""
    lines: list[str] = []
    if job.status == Job.Status.SUCCEEDED and spec is not None and spec.summary is not None:
        for ok, text in spec.summary(job.result):
            (messages.success if ok else messages.warning)(request, text)
            lines.append(text)
    elif job.status == Job.Status.FAILED:
        error = job.error or {}
        messages.error(request, error.get("message", "The job failed."))
        for field in spec.error_fields if spec else ():
            for line in error.get("fields", {}).get(field, [])[:SHOWN_ERROR_LINES]:
                messages.error(request, line)
    return lines


def _progress_context(job: Job, spec: JobKind | None) -> dict[str, Any]:
    """The page's title, refresh, progress and result."""
    total = job.progress_total or 0
    return {
        "title": f"{spec.label if spec else job.kind}: {job.get_status_display().lower()}",
        "job": job,
        "refresh": None if job.is_finished else REFRESH_SECONDS,
        "percent": min(100, round(100 * job.progress_done / total)) if total else None,
        "result_template": spec.template if spec and job.result is not None else "",
        "result": job.result,
        "has_file": bool(job.output_name) and job.status == Job.Status.SUCCEEDED,
    }
