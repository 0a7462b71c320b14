"""Claims of player records ("this is me") and the officers' decisions.

/api/v1/clubs/{club}/claims/                 GET (officer: the club's claims),
                                             POST (member: claim a record of the club)
/api/v1/clubs/{club}/claims/{id}/            GET (officer, or the member who claimed)
/api/v1/clubs/{club}/claims/{id}/decision/   POST (officer: approve or decline)
/api/v1/claims/                              GET (signed in: your own claims, every club)

Nobody sees the claims of a club they are not an officer of, except their own.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from players import services
from players.api.clubs import CLUB_PARAM
from players.http.api import ClubScopedView, Pagination
from players.http.parsers import JSONParser
from players.http.renderers import JSONRenderer
from players.http.schema import ClubAutoSchema
from players.models import ClaimStatus, PlayerClaim, Role
from players.selectors import claim_get_visible, claims_of_club, claims_of_user
from players.services.claims import NOTE_MAX

ID_PARAM = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The claim's id.")


class ClaimOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.IntegerField()
    club = serializers.CharField(source="club.slug", help_text="The club's slug.")
    player = serializers.IntegerField(source="player_id", help_text="The player record's id.")
    player_name = serializers.CharField(source="player.name")
    username = serializers.CharField(source="user.username", help_text="Who claims it.")
    status = serializers.ChoiceField(choices=ClaimStatus.choices)
    created = serializers.DateTimeField()
    decided = serializers.DateTimeField(allow_null=True)
    decided_by = serializers.CharField(source="decided_by.username", default="")
    note = serializers.CharField(help_text="The officer's note with the decision.")


class ClaimInSerializer(serializers.Serializer):  # type: ignore[type-arg]
    player = serializers.IntegerField(min_value=1, help_text="The id of your player record.")


class DecisionInSerializer(serializers.Serializer):  # type: ignore[type-arg]
    decision = serializers.ChoiceField(choices=[("approve", "approve"), ("decline", "decline")])
    note = serializers.CharField(required=False, allow_blank=True, max_length=NOTE_MAX, default="")


@extend_schema(tags=["claims"], parameters=[CLUB_PARAM])
class ClaimListView(ClubScopedView):
    roles = {"GET": Role.OFFICER, "POST": Role.VIEWER}
    extra_error_statuses = {"POST": (409,)}
    serializer_class = ClaimOutSerializer
    ordering_fields = ["created", "status"]

    def get_queryset(self) -> QuerySet[PlayerClaim]:
        if self.is_schema_view:
            return PlayerClaim.objects.none()
        return claims_of_club(club=self.club).order_by("-created", "-id")

    @extend_schema(
        operation_id="claims_list",
        description="The club's claims, newest first (`?ordering=` by `created` or `status`).",
        responses=ClaimOutSerializer(many=True),
    )
    def get(self, request: Request, club: str) -> Response:
        return self.paginated(ClaimOutSerializer)

    @extend_schema(
        operation_id="claims_create",
        description="Claim a player record of the club as yours; an officer approves or "
        "declines. Refused (409, naming `player`): a record linked to an account already, "
        "an account with a record or a waiting claim in this club already.",
        request=ClaimInSerializer,
        responses={201: ClaimOutSerializer},
    )
    def post(self, request: Request, club: str) -> Response:
        data = ClaimInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        claim = services.claim_create(
            club=self.club,
            player_id=data.validated_data["player"],
            by=request.user,  # type: ignore[arg-type]  # signed in: the view's POST role
        )
        return Response(ClaimOutSerializer(claim).data, status=201)


@extend_schema(tags=["claims"], parameters=[CLUB_PARAM, ID_PARAM])
class ClaimDetailView(ClubScopedView):
    # A member reads their own claim; claim_get_visible lets officers read any.
    roles = {"GET": Role.VIEWER}

    @extend_schema(
        operation_id="claims_read",
        description="One claim: to the club's officers, and to the member who made it.",
        responses=ClaimOutSerializer,
    )
    def get(self, request: Request, club: str, id: int) -> Response:
        claim = claim_get_visible(club=self.club, claim_id=id, user=request.user)
        return Response(ClaimOutSerializer(claim).data)


@extend_schema(tags=["claims"], parameters=[CLUB_PARAM, ID_PARAM])
class ClaimDecisionView(ClubScopedView):
    roles = {"POST": Role.OFFICER}
    extra_error_statuses = {"POST": (409,)}

    @extend_schema(
        operation_id="claims_decide",
        description="Approve (the record is linked to the member's account, and other "
        "claims waiting on it are declined) or decline a waiting claim, with an optional "
        "note to the member. Decided already, or the record linked meanwhile: 409.",
        request=DecisionInSerializer,
        responses=ClaimOutSerializer,
    )
    def post(self, request: Request, club: str, id: int) -> Response:
        data = DecisionInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        claim = claim_get_visible(club=self.club, claim_id=id, user=request.user)
        decided = services.claim_decide(
            claim=claim,
            by=request.user,
            approve=data.validated_data["decision"] == "approve",
            note=data.validated_data["note"],
        )
        return Response(ClaimOutSerializer(decided).data)


class MyClaimsView(GenericAPIView):  # type: ignore[type-arg]
    """Not under a club: the signed-in user's own claims wherever they made them."""

    schema = ClubAutoSchema()
    # 404: a page past the last.
    error_statuses = (400, 401, 404)
    renderer_classes = [JSONRenderer]
    parser_classes = [JSONParser]
    metadata_class = None
    pagination_class = Pagination

    def get_queryset(self) -> QuerySet[PlayerClaim]:
        if getattr(self, "swagger_fake_view", False):
            return PlayerClaim.objects.none()
        return claims_of_user(user=self.request.user).order_by("-created", "-id")  # type: ignore[arg-type]

    @extend_schema(
        tags=["claims"],
        operation_id="claims_mine",
        description="Your own claims of player records, in every club, newest first.",
        responses=ClaimOutSerializer(many=True),
    )
    def get(self, request: Request, *args: Any) -> Response:
        if not request.user.is_authenticated:
            raise exceptions.NotAuthenticated()
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(ClaimOutSerializer(page, many=True).data)
