"""A club's whole history as one file (the archive ``import_club`` restores), by a job.

POST /api/v1/clubs/{club}/export/   (owner)

The archive holds everything the club keeps, members' usernames and invitations too, so
only an owner may start it; its file is served by the job's download URL (GET
/api/v1/jobs/{id}/download/), to the club's owners alone (the job kind's role).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from players.api.clubs import CLUB_PARAM
from players.api.jobs import WAIT_PARAM, job_answer, job_responses, parse_wait
from players.http.api import ClubScopedView
from players.jobs import job_start
from players.models import Role
from tournaments.jobs import CLUB_EXPORT


class ClubExportOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    club = serializers.CharField()
    format_version = serializers.IntegerField(help_text="The archive format's version.")
    rows = serializers.IntegerField(help_text="Rows in the archive, every table.")
    tables = serializers.DictField(
        child=serializers.IntegerField(), help_text="Rows per table (app.model)."
    )
    file = serializers.CharField(help_text="The file's name.")
    bytes = serializers.IntegerField(help_text="The file's size.")
    download = serializers.CharField(help_text="GET this for the zip (owners only).")


@extend_schema(tags=["exports"], parameters=[CLUB_PARAM, WAIT_PARAM])
class ClubExportView(ClubScopedView):
    """Export the club's whole history as one archive (a job; owners only)."""

    roles = {"POST": Role.OWNER}

    @extend_schema(
        operation_id="clubs_export",
        request=None,
        responses=job_responses(ClubExportOutSerializer),
    )
    def post(self, request: Request, club: str) -> Response:
        wait = parse_wait(request)
        job = job_start(kind=CLUB_EXPORT, club=self.club, by=request.user)
        return job_answer(job, wait)
