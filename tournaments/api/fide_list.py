"""FIDE's rating list through the API (rating officer).

POST /api/v1/clubs/{club}/fide-list/  multipart: file, dry_run, month, add_federation,
seed_ratings. Runs as a job (``?wait=``, see players/api/jobs.py): its report (200) when
done in time, else 202 and the job.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from players.api.clubs import CLUB_PARAM
from players.api.jobs import WAIT_PARAM, job_answer, job_responses, parse_wait
from players.http.api import ClubScopedView
from players.http.schema import ErrorSerializer
from players.jobs import job_start
from players.models import Role
from players.selectors import parse_month
from tournaments.services.fide_list import fide_upload_problem


class FideListInSerializer(serializers.Serializer):  # type: ignore[type-arg]
    file = serializers.FileField(
        help_text="FIDE's download as it comes: players_list_foa.txt, players_list_xml_foa.xml, "
        "or either zipped."
    )
    dry_run = serializers.BooleanField(default=False)
    month = serializers.RegexField(
        r"^\d{4}-\d{2}$", required=False, help_text="The list's month, YYYY-MM (default: now)."
    )
    add_federation = serializers.RegexField(
        r"^[A-Za-z]{3}$",
        required=False,
        default="",
        help_text="Also create this federation's players the club does not have.",
    )
    seed_ratings = serializers.BooleanField(
        default=False,
        help_text="Start players unrated on a club's Elo list (nothing published there yet) "
        "at their FIDE rating of that kind; Glicko-2 lists keep their own start.",
    )

    def validate_file(self, value: Any) -> Any:
        if problem := fide_upload_problem(value):
            raise serializers.ValidationError(problem)
        return value


class FideListReportSerializer(serializers.Serializer):  # type: ignore[type-arg]
    club = serializers.CharField()
    month = serializers.CharField(help_text="YYYY-MM")
    dry_run = serializers.BooleanField()
    club_fide_ids = serializers.IntegerField(help_text="Club players with a FIDE ID.")
    found = serializers.IntegerField(help_text="Of them, in FIDE's list.")
    updated = serializers.ListField(
        child=serializers.DictField(), help_text='{"player", "name", "fields"}'
    )
    not_in_list = serializers.ListField(
        child=serializers.DictField(), help_text='{"player", "name", "fide_id"}'
    )
    disagreements = serializers.ListField(
        child=serializers.DictField(),
        help_text='Name (by name key) or birth year differ: {"player", "name", "fide_name", '
        '"birth_year", "fide_birth_year", "what"}',
    )
    added = serializers.ListField(
        child=serializers.DictField(), help_text='{"player" (null in a dry run), "name", "fide_id"}'
    )
    matched = serializers.ListField(
        child=serializers.DictField(),
        help_text="add_federation: club players without a FIDE ID who are FIDE's player by "
        'name key and birth year, given the FIDE ID: {"player", "name", "fide_id", "fide_name"}',
    )
    possible_matches = serializers.ListField(
        child=serializers.DictField(),
        help_text="add_federation: same name key, no birth year on one side (or two FIDE "
        'players for one club player): not added. {"player", "name", "birth_year", '
        '"fide_id", "fide_name", "fide_birth_year"}',
    )
    seeded = serializers.ListField(
        child=serializers.DictField(), help_text='{"player", "name", "list", "rating"}'
    )
    warnings = serializers.ListField(child=serializers.CharField())


@extend_schema(tags=["players"], parameters=[CLUB_PARAM, WAIT_PARAM])
class FideListView(ClubScopedView):
    roles = {"POST": Role.OFFICER}
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        operation_id="fide_list_import",
        description="Read FIDE's monthly rating list into the club: for players with a FIDE "
        "ID, title, women's title, federation, sex, birth year and FIDE's three ratings "
        "(with the list's month); disagreements of name or birth year reported. TXT (fixed "
        "columns from its header) or XML, plain or zipped; streamed.",
        request={"multipart/form-data": FideListInSerializer},
        responses={
            **job_responses(FideListReportSerializer),
            400: OpenApiResponse(ErrorSerializer, description="Not FIDE's list, or bad fields."),
        },
    )
    def post(self, request: Request, club: str) -> Response:
        wait = parse_wait(request)
        data = FideListInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        month = values.get("month")
        if month:
            parse_month(month, field="month")  # a bad month is a 400 before any job exists
        upload = values["file"]
        job = job_start(
            kind="fide_list",
            club=self.club,
            by=request.user,
            params={
                "month": month or None,
                "add_federation": values["add_federation"],
                "seed_ratings": values["seed_ratings"],
                "dry_run": values["dry_run"],
                "file": upload.name,
            },
            payload=upload,  # copied into the job's row a slice at a time
        )
        return job_answer(job, wait)
