"""Jobs through the API: reading one, and the answer of every endpoint that starts one.

GET /api/v1/jobs/{id}/            the job (members of its club; 404 to everyone else)
GET /api/v1/jobs/{id}/download/   the file a finished export job produced

An endpoint that starts a job (close, reopen, replay, imports, exports) answers with
``job_answer``: it waits up to ``?wait=`` seconds (default 10, at most 30; 0 answers at
once) and then answers what the endpoint answered before it became a job (200 or 201 with
the result, 4xx with the error), or 202 Accepted with ``Location: /api/v1/jobs/{id}/`` and
the job.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from players.errors import NotFoundError, invalid_field
from players.http.api import error_body
from players.http.renderers import JSONRenderer
from players.http.schema import ClubAutoSchema
from players.jobs import job_get_visible, job_output, job_wait
from players.jobs.services import JOB_KINDS
from players.models import Job
from players.selectors import require_role

WAIT_DEFAULT = 10
# What an export job's file is served as: a club archive, a list's history.
DOWNLOAD_MEDIA_TYPES = ("application/zip", "text/csv")
WAIT_MAX = 30

WAIT_PARAM = OpenApiParameter(
    "wait",
    {"type": "integer", "minimum": 0, "maximum": WAIT_MAX},
    OpenApiParameter.QUERY,
    description=f"Seconds to wait for the job (default {WAIT_DEFAULT}, at most {WAIT_MAX}; "
    "0: answer at once). Finished in time: the job's own answer; else 202 and the job.",
)


class ProgressSerializer(serializers.Serializer):  # type: ignore[type-arg]
    done = serializers.IntegerField(source="progress_done")
    total = serializers.IntegerField(source="progress_total", allow_null=True)


class JobOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.UUIDField()
    kind = serializers.CharField(help_text="close, reopen, replay, import, history_export, ...")
    status = serializers.ChoiceField(choices=Job.Status.choices)
    progress = ProgressSerializer(source="*")
    result = serializers.JSONField(
        allow_null=True,
        help_text="The job's answer: the body the endpoint answers when it finishes in time; "
        'a close\'s is {"period", "status", "games_count", "players", "players_changed", '
        '"run", "changes", "ratings"}: counts and links to the paged lines (its answer '
        "within ?wait= lists every line).",
    )
    error = serializers.JSONField(
        allow_null=True, help_text='The usual error shape: {"code", "message", "fields"}.'
    )
    created = serializers.DateTimeField()
    started = serializers.DateTimeField(allow_null=True)
    finished = serializers.DateTimeField(allow_null=True)


def parse_wait(request: Request) -> float:
    """``?wait=``, checked before the job starts: bad input stores nothing."""
    raw = request.query_params.get("wait")
    if raw is None:
        return WAIT_DEFAULT
    # An empty ?wait= is no number: refused, not read as the default.
    if not raw.isascii() or not raw.isdigit():
        raise invalid_field("wait", "A whole number of seconds.")
    value = int(raw)
    if value > WAIT_MAX:
        raise invalid_field("wait", f"Between 0 and {WAIT_MAX} seconds.")
    return value


def job_location(job: Job) -> str:
    return reverse("job", kwargs={"id": job.pk})


def job_answer(job: Job, wait: float) -> Response:
    """The answer of an endpoint that started ``job``: its own answer when it finishes
    within ``wait`` seconds, else 202 with the job and where to follow it."""
    job = job_wait(job=job, seconds=wait)
    if job.status == Job.Status.SUCCEEDED:
        kind = JOB_KINDS.get(job.kind)
        body = kind.answer(job) if kind is not None and kind.answer is not None else job.result
        return Response(body, status=job.result_status or status.HTTP_200_OK)
    if job.status == Job.Status.FAILED:
        error = job.error or {}
        return Response(
            error_body(
                error.get("code", "job_failed"), error.get("message", ""), error.get("fields")
            ),
            status=job.error_status or status.HTTP_500_INTERNAL_SERVER_ERROR,
        )
    return Response(
        JobOutSerializer(job).data,
        status=status.HTTP_202_ACCEPTED,
        headers={"Location": job_location(job)},
    )


def job_responses(result: Any, **others: Any) -> dict[Any, Any]:
    """The schema's responses of an endpoint that starts a job."""
    return {
        200: result,
        202: OpenApiResponse(
            JobOutSerializer,
            description="Still running after ?wait= seconds: the job; Location says where "
            "to follow it (GET /api/v1/jobs/{id}/).",
        ),
        **others,
    }


class JobView(GenericAPIView):  # type: ignore[type-arg]
    """A job of a club you are a member of: status, progress, then its result or error."""

    schema = ClubAutoSchema()
    error_statuses = (401, 404)
    renderer_classes = [JSONRenderer]
    metadata_class = None

    @extend_schema(
        tags=["jobs"],
        operation_id="jobs_read",
        parameters=[OpenApiParameter("id", OpenApiTypes.UUID, OpenApiParameter.PATH)],
        responses=JobOutSerializer,
    )
    def get(self, request: Request, id: str) -> Response:
        return Response(JobOutSerializer(job_get_visible(user=request.user, job_id=id)).data)


class JobDownloadView(GenericAPIView):  # type: ignore[type-arg]
    """The file a finished export job produced (404 until then)."""

    schema = ClubAutoSchema()
    error_statuses = (401, 403, 404)
    metadata_class = None

    @extend_schema(
        tags=["jobs"],
        operation_id="jobs_download",
        parameters=[OpenApiParameter("id", OpenApiTypes.UUID, OpenApiParameter.PATH)],
        # The media types the file is served as, both bytes: a generator that maps
        # application/zip to bytes (docs/reference/api.md) hands either back undecoded.
        responses={
            (200, media_type): OpenApiResponse(
                OpenApiTypes.BINARY,
                description="The job's file: a zip (application/zip) for a club export "
                "(clubs_export), to the club's owners; CSV (text/csv; charset=utf-8) for a "
                "list's history export.",
            )
            for media_type in DOWNLOAD_MEDIA_TYPES
        },
    )
    def get(self, request: Request, id: str) -> HttpResponse:
        job = job_get_visible(user=request.user, job_id=id)
        # The file is what the job's kind may produce: only those who may start the kind
        # read it (a club archive holds the members and invitations: owners only).
        kind = JOB_KINDS.get(job.kind)
        if kind is not None:
            require_role(request.user, job.club, kind.role)
        output = job_output(job=job)
        if job.status != Job.Status.SUCCEEDED or output is None:
            raise NotFoundError("This job has no file (yet).")
        name = job.output_name or f"job-{job.pk}.csv"
        content_type = "application/zip" if name.endswith(".zip") else "text/csv; charset=utf-8"
        response = HttpResponse(bytes(output), content_type=content_type)
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response
