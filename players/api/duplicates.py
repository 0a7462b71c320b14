"""Likely duplicate player records of a club (rating officer).

GET /api/v1/clubs/{club}/players/duplicates/   pairs with their reasons and a score, best
first, paginated. Merging is ``POST .../players/{id}/merge/`` (the tournaments app's API:
a merge moves games).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from players.api.clubs import CLUB_PARAM
from players.http.api import ClubScopedView
from players.models import Player, Role
from players.selectors import duplicate_pairs


class DuplicatePlayerSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.IntegerField()
    name = serializers.CharField()
    birth_date = serializers.DateField(allow_null=True)
    birth_year = serializers.IntegerField(allow_null=True)
    fide_id = serializers.IntegerField(allow_null=True)


class DuplicatePairSerializer(serializers.Serializer):  # type: ignore[type-arg]
    player = DuplicatePlayerSerializer(help_text="The older record: the one to keep by default.")
    duplicate = DuplicatePlayerSerializer()
    reasons = serializers.ListField(
        child=serializers.CharField(),
        help_text='Why they may be one person, e.g. "same name key", "same birth year", '
        '"similar names (0.91)", "no birth data on one side".',
    )
    score = serializers.IntegerField(help_text="0-100: how likely one person.")


@extend_schema(tags=["players"], parameters=[CLUB_PARAM])
class PlayerDuplicatesView(ClubScopedView):
    roles = {"GET": Role.OFFICER}

    def get_queryset(self) -> Any:
        # The schema generator reads the model from the queryset; the pairs are a list.
        if self.is_schema_view:
            return Player.objects.none()
        return duplicate_pairs(club=self.club)

    @extend_schema(
        operation_id="players_duplicates",
        description="Likely duplicate records, best first: the same FIDE ID, the same name "
        "key (case, accents, punctuation and the order of the parts ignored) with agreeing "
        "or missing birth data, or similar names with the same birth year. Records whose "
        "FIDE IDs or birth data differ are never paired.",
        responses=DuplicatePairSerializer(many=True),
    )
    def get(self, request: Request, club: str) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(DuplicatePairSerializer(page, many=True).data)
