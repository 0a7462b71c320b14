"""Merging a duplicate player record into another (rating officer).

POST /api/v1/clubs/{club}/players/{id}/merge/  {"duplicate": other_id}  (?dry_run=1)

The player of the URL is kept; the duplicate's games, entries, history and K history move
to it and the duplicate is deleted. Closed periods that change need a replay. 409 where
it cannot be right (the two played each other, the same round of one tournament, or
hold different FIDE IDs). Lives in this app because it moves games.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from players.api.clubs import CLUB_PARAM
from players.api.players import PLAYER_PARAM, PlayerObjectMixin
from players.errors import invalid_field
from players.http.schema import ErrorSerializer
from players.models import Role
from players.selectors import club_players
from tournaments.services import player_merge


class MergeInSerializer(serializers.Serializer):  # type: ignore[type-arg]
    duplicate = serializers.IntegerField(help_text="The id of the record to merge and delete.")


class MergeQuerySerializer(serializers.Serializer):  # type: ignore[type-arg]
    dry_run = serializers.BooleanField(default=False)


class MergeOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    kept = serializers.IntegerField()
    duplicate = serializers.IntegerField(help_text="Deleted (unless a dry run).")
    kept_name = serializers.CharField()
    duplicate_name = serializers.CharField()
    dry_run = serializers.BooleanField()
    games_moved = serializers.IntegerField()
    byes_moved = serializers.IntegerField(help_text="Byes of tournaments (no game) moved.")
    history_moved = serializers.IntegerField(
        help_text="The duplicate's published rows, kept on record (not current)."
    )
    k_changes_moved = serializers.IntegerField()
    entries_taken = serializers.ListField(
        child=serializers.CharField(),
        help_text="Lists where the kept player, unrated, took the duplicate's entered rating.",
    )
    details_taken = serializers.ListField(
        child=serializers.CharField(), help_text="Fields filled in from the duplicate."
    )
    needs_replay = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Per list, the closed periods (YYYY-MM) now needing a replay.",
    )


@extend_schema(
    tags=["players"],
    parameters=[
        CLUB_PARAM,
        PLAYER_PARAM,
        OpenApiParameter(
            "dry_run", bool, OpenApiParameter.QUERY, description="1/true: show what would move."
        ),
    ],
)
class PlayerMergeView(PlayerObjectMixin):
    roles = {"POST": Role.OFFICER}
    extra_error_statuses = {"POST": (409,)}

    @extend_schema(
        operation_id="players_merge",
        description="Merge another record of the same person into this one, in one "
        "transaction: games, entries, history and K history move here; the duplicate is "
        "deleted; every closed period that changes needs a replay (then POST "
        ".../lists/{list}/replay/). `?dry_run=1` answers what would move and stores "
        "nothing.",
        request=MergeInSerializer,
        responses={
            200: MergeOutSerializer,
            409: OpenApiResponse(
                ErrorSerializer,
                description="Cannot be one person: the two played each other, played the "
                "same round of one tournament, or hold different FIDE IDs.",
            ),
        },
    )
    def post(self, request: Request, club: str, id: int) -> Response:
        kept = self.player(id)
        query = MergeQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = MergeInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        # Another club's id answers like an unknown one: 400 naming the field.
        duplicate = club_players(club=self.club).filter(pk=data.validated_data["duplicate"]).first()
        if duplicate is None:
            raise invalid_field("duplicate", "No such player in this club.")
        report = player_merge(
            kept=kept, duplicate=duplicate, by=request.user, dry_run=query.validated_data["dry_run"]
        )
        return Response(MergeOutSerializer(report.as_dict()).data)
