"""A whole list's history as a file, exported by a job.

POST /api/v1/clubs/{club}/lists/{list}/history-export/   (viewer)

Every row every close of the list published (current rows), one per player and period,
as CSV. Large lists take a while, so it is a job: the result names the file and its
download URL (GET /api/v1/jobs/{id}/download/).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from players.api.clubs import CLUB_PARAM, LIST_PARAM
from players.api.jobs import WAIT_PARAM, job_answer, job_responses, parse_wait
from players.jobs import job_start
from players.models import Role
from tournaments.api.periods import ListScopedView


class HistoryExportOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    club = serializers.CharField()
    list = serializers.CharField()
    rows = serializers.IntegerField(help_text="Rows in the file (player and period each).")
    file = serializers.CharField(help_text="The file's name.")
    download = serializers.CharField(help_text="GET this for the CSV.")


@extend_schema(tags=["exports"], parameters=[CLUB_PARAM, LIST_PARAM, WAIT_PARAM])
class HistoryExportView(ListScopedView):
    """Export the list's whole history as CSV (a job; members only)."""

    roles = {"POST": Role.VIEWER}

    @extend_schema(
        operation_id="lists_history_export",
        request=None,
        responses=job_responses(HistoryExportOutSerializer),
    )
    def post(self, request: Request, club: str, list: str) -> Response:
        wait = parse_wait(request)
        rating_list = self.rating_list()
        job = job_start(
            kind="history_export",
            club=self.club,
            by=request.user,
            params={"list": rating_list.pk},
        )
        return job_answer(job, wait)
