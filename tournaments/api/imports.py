"""Importing a tournament file through the API.

POST /api/v1/clubs/{club}/imports/   multipart: file, format (trf|pgn|csv), list, dry_run

Runs as a job (``?wait=``, see players/api/jobs.py). Answers the import report: 201 when the games were stored, 200 for a dry run or a file
imported already (nothing stored). A file with errors answers 400 (409 when its games
fall into a closed period) in the one error shape, each error in ``error.fields.file`` as
"line N: message" in line order. Nothing is stored then.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from players.api.clubs import CLUB_PARAM
from players.api.jobs import WAIT_PARAM, JobOutSerializer, job_answer, parse_wait
from players.http.api import ClubScopedView
from players.http.schema import ErrorSerializer
from players.jobs import job_start
from players.models import Role
from players.rating import ListKind
from tournaments.services.imports import (
    FORMATS,
    MATCH_CHOICES,
    upload_too_large,
)
from tournaments.services.imports.report import REPORT_MAX_LINES


class ImportInSerializer(serializers.Serializer):  # type: ignore[type-arg]
    file = serializers.FileField(
        help_text="The tournament file (UTF-8; TRF and PGN may be Windows-1252)."
    )
    format = serializers.ChoiceField(
        choices=[(f, f) for f in FORMATS],
        help_text="trf: FIDE TRF16 / TRF-2026; pgn: PGN (headers); csv: a CSV of games.",
    )
    list = serializers.SlugField(
        max_length=32,
        default=ListKind.STANDARD.value,
        help_text="The slug of the list the games are rated on.",
    )
    dry_run = serializers.BooleanField(
        default=False, help_text="true: report what would be created and matched; store nothing."
    )
    match = serializers.ChoiceField(
        choices=[(m, m) for m in MATCH_CHOICES],
        default="possible",
        help_text="A possible match (same name key, birth data missing on one side): "
        "possible = use the club's player, new = create a new one. Listed either way.",
    )
    keep_identical = serializers.BooleanField(
        default=False,
        help_text="true: store game lines identical to an earlier line of the file too "
        "(default: once, the others listed in identical_games).",
    )

    def validate_file(self, value: Any) -> Any:
        if too_large := upload_too_large(value.size):
            raise serializers.ValidationError(too_large)
        return value


class LineMessageSerializer(serializers.Serializer):  # type: ignore[type-arg]
    line = serializers.IntegerField(help_text="1-based file line; 0 for the file as a whole.")
    message = serializers.CharField()
    other_line = serializers.IntegerField(
        allow_null=True, help_text="A second line involved (TRF: the opponent's line)."
    )


class ImportTournamentSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.IntegerField(allow_null=True, help_text="null in a dry run.")
    name = serializers.CharField()
    start_date = serializers.DateField()
    end_date = serializers.DateField()
    rounds = serializers.IntegerField(allow_null=True)
    city = serializers.CharField(allow_blank=True)
    games = serializers.IntegerField()


class ImportPlayerSerializer(serializers.Serializer):  # type: ignore[type-arg]
    line = serializers.IntegerField()
    name = serializers.CharField()
    fide_id = serializers.IntegerField(allow_null=True)
    player_id = serializers.IntegerField(
        allow_null=True, help_text="The club's player; null for a player a dry run would create."
    )
    matched_by = serializers.ChoiceField(
        choices=["fide_id", "name_birth", "name", ""],
        help_text="How a matched player was found; empty for a created one.",
    )


class PossibleMatchSerializer(serializers.Serializer):  # type: ignore[type-arg]
    line = serializers.IntegerField()
    name = serializers.CharField(help_text="The name as the file writes it.")
    player_id = serializers.IntegerField(help_text="The club's player of the same name key.")
    player_name = serializers.CharField()
    taken = serializers.BooleanField(
        help_text="true: the import used this player (match=possible); false: a new one."
    )


class NotRatedSerializer(serializers.Serializer):  # type: ignore[type-arg]
    line = serializers.IntegerField()
    round = serializers.IntegerField(allow_null=True)
    white = serializers.CharField()
    black = serializers.CharField()
    result = serializers.CharField(help_text="1-0, 0-1, 1/2-1/2, +-, -+ or --.")
    reason = serializers.CharField(help_text="forfeit, double forfeit, less than one move.")


class ByeSerializer(serializers.Serializer):  # type: ignore[type-arg]
    line = serializers.IntegerField()
    round = serializers.IntegerField()
    player = serializers.CharField()
    kind = serializers.ChoiceField(choices=["H", "F", "U", "Z"], help_text="The TRF code.")
    # DRF's metaclass pops declared fields off the class, so these names do not shadow
    # Field.label / Serializer.errors at run time; only the type checker sees a clash.
    label = serializers.CharField()  # type: ignore[assignment]


class ImportReportSerializer(serializers.Serializer):  # type: ignore[type-arg]
    format = serializers.ChoiceField(choices=[(f, f) for f in FORMATS])
    club = serializers.CharField()
    rating_list = serializers.CharField(help_text="The list's slug.")
    digest = serializers.CharField(help_text="SHA-256 of the file: the same file imports once.")
    dry_run = serializers.BooleanField()
    stored = serializers.BooleanField(help_text="true when this request stored the games.")
    already_imported = serializers.BooleanField(
        help_text="The file (or all of its games) was imported before; nothing was stored."
    )
    tournament = ImportTournamentSerializer(
        allow_null=True, help_text="The tournament, when the file made exactly one."
    )
    tournaments = ImportTournamentSerializer(many=True)
    players_matched = ImportPlayerSerializer(many=True)
    players_created = ImportPlayerSerializer(many=True)
    possible_matches = PossibleMatchSerializer(many=True)
    match = serializers.ChoiceField(choices=[(m, m) for m in MATCH_CHOICES])
    games_created = serializers.IntegerField()
    games_not_rated = NotRatedSerializer(many=True, help_text=f"The first {REPORT_MAX_LINES}.")
    games_not_rated_count = serializers.IntegerField(help_text="All games not rated.")
    games_skipped = LineMessageSerializer(
        many=True,
        help_text="Games already stored (an earlier import or by hand): not stored again. "
        f"The first {REPORT_MAX_LINES}.",
    )
    games_skipped_count = serializers.IntegerField(help_text="All games already stored.")
    identical_games = LineMessageSerializer(
        many=True,
        help_text="Game lines identical to an earlier one (other_line): stored once. "
        f"The first {REPORT_MAX_LINES}.",
    )
    identical_games_count = serializers.IntegerField(help_text="All identical game lines.")
    keep_identical = serializers.BooleanField()
    byes = ByeSerializer(many=True, help_text="Byes: kept with the tournament (never rated).")
    warnings = LineMessageSerializer(many=True)
    errors = LineMessageSerializer(many=True)  # type: ignore[assignment]
    error_code = serializers.CharField(allow_blank=True)


@extend_schema(tags=["imports"], parameters=[CLUB_PARAM, WAIT_PARAM])
class ImportView(ClubScopedView):
    roles = {"POST": Role.ARBITER}
    parser_classes = [MultiPartParser, FormParser]
    extra_error_statuses = {"POST": (409,)}

    @extend_schema(
        operation_id="imports_create",
        description="Import a FIDE TRF, PGN or CSV file into one of the club's lists: "
        "players are matched by FIDE ID, else by name (any order, case, accents) and birth "
        "date; a possible match (birth data missing on one side) is listed and taken or "
        "not as `match` says; else created; a TRF "
        "creates its tournament, PGN/CSV one per Event / tournament column. Atomic: a file "
        "with any error stores nothing. The same file imports once (200, "
        "already_imported). Forfeits and games of less than one move are stored unrated; "
        "byes are reported only.",
        request={"multipart/form-data": ImportInSerializer},
        responses={
            201: OpenApiResponse(ImportReportSerializer, description="Stored."),
            200: OpenApiResponse(
                ImportReportSerializer,
                description="Dry run, or the file was imported already: nothing stored.",
            ),
            202: OpenApiResponse(
                JobOutSerializer,
                description="Still running after ?wait= seconds: the job (Location: "
                "/api/v1/jobs/{id}/); its result is the report.",
            ),
            400: OpenApiResponse(
                ErrorSerializer,
                description="Bad input, or a file with errors (nothing stored): "
                "error.fields.file lists them in line order as 'line N: message'.",
                examples=[
                    OpenApiExample(
                        "A TRF whose lines disagree",
                        value={
                            "error": {
                                "code": "invalid",
                                "message": "The file has 1 error(s); nothing was stored. "
                                "line 9: round 2: results disagree: 3 has '1', 4 has '1' on "
                                "line 10",
                                "fields": {
                                    "file": [
                                        "line 9: round 2: results disagree: 3 has '1', "
                                        "4 has '1' on line 10"
                                    ]
                                },
                            }
                        },
                        status_codes=["400"],
                    )
                ],
            ),
            415: OpenApiResponse(
                ErrorSerializer,
                description="The body is not multipart/form-data: send the file as a form "
                "upload (curl -F file=@...).",
            ),
            409: OpenApiResponse(
                ErrorSerializer,
                description="Games of a closed period (or before a closed one): nothing "
                "stored; error.fields.file names the lines.",
            ),
        },
    )
    def post(self, request: Request, club: str) -> Response:
        wait = parse_wait(request)
        data = ImportInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        upload = values["file"]
        job = job_start(
            kind="import",
            club=self.club,
            by=request.user,
            params={
                "format": values["format"],
                "list": values["list"],
                "dry_run": values["dry_run"],
                "match": values["match"],
                "keep_identical": values["keep_identical"],
                "file": upload.name,
            },
            payload=upload,  # copied into the job a slice at a time
        )
        return job_answer(job, wait)
