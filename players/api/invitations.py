"""Invitations to a club (owners only).

/api/v1/clubs/{club}/invitations/        GET (owner: every invitation), POST (owner: invite)
/api/v1/clubs/{club}/invitations/{id}/   GET (owner), DELETE (owner: revoke; 204)

The POST answer carries the invitation's ``url``, the only time the link is shown (it is
also mailed when an email address is known).
"""

from __future__ import annotations

from django.db.models import QuerySet
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from players import services
from players.api.clubs import CLUB_PARAM
from players.errors import NotFoundError
from players.http.api import ClubScopedView
from players.models import Invitation, InvitationStatus, Role
from players.selectors import club_invitations


class InvitationOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.IntegerField()
    # Not an EmailField: the schema's "email" format does not admit the blank of an
    # invitation by username.
    email = serializers.CharField(help_text="Blank when invited by username.")
    username = serializers.CharField(
        source="username_invited",
        help_text="Blank when invited by email; as given (whether or not an account has it).",
    )
    role = serializers.ChoiceField(choices=Role.choices)
    status = serializers.ChoiceField(choices=InvitationStatus.choices)
    created = serializers.DateTimeField()
    created_by = serializers.CharField(source="created_by.username", default="")
    expires = serializers.DateTimeField()
    accepted = serializers.DateTimeField(allow_null=True)
    accepted_by = serializers.CharField(source="accepted_by.username", default="")
    revoked = serializers.DateTimeField(allow_null=True)


class InvitationCreatedSerializer(InvitationOutSerializer):
    url = serializers.URLField(help_text="The link to accept; shown only in this answer.")


class InvitationInSerializer(serializers.Serializer):  # type: ignore[type-arg]
    email = serializers.EmailField(required=False, allow_blank=True, max_length=254)
    username = serializers.CharField(required=False, allow_blank=True, max_length=150)
    role = serializers.ChoiceField(choices=Role.choices)


@extend_schema(tags=["members"], parameters=[CLUB_PARAM])
class InvitationListView(ClubScopedView):
    roles = {"GET": Role.OWNER, "POST": Role.OWNER}
    serializer_class = InvitationOutSerializer
    ordering_fields = ["created", "expires"]

    def get_queryset(self) -> QuerySet[Invitation]:
        if self.is_schema_view:
            return Invitation.objects.none()
        return club_invitations(club_id=self.club.pk).order_by("-created", "-id")

    @extend_schema(operation_id="invitations_list", responses=InvitationOutSerializer(many=True))
    def get(self, request: Request, club: str) -> Response:
        return self.paginated(InvitationOutSerializer)

    @extend_schema(
        operation_id="invitations_create",
        description="Invite by `email` or `username` (one of them) to `role`. The answer's "
        "`url` is the link to accept (valid 7 days, once); it is also mailed when an email "
        "address is known. By username the answer is the same whether or not an account has "
        "it; only that account can accept (by the link, or on its home page).",
        request=InvitationInSerializer,
        responses={201: InvitationCreatedSerializer},
    )
    def post(self, request: Request, club: str) -> Response:
        data = InvitationInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        invitation, url = services.invitation_create(
            club=self.club,
            by=request.user,
            role=data.validated_data["role"],
            email=data.validated_data.get("email", ""),
            username=data.validated_data.get("username", ""),
            accept_url=lambda secret: request.build_absolute_uri(
                reverse("invitation-accept", args=[secret])
            ),
        )
        body = dict(InvitationOutSerializer(invitation).data)
        body["url"] = url
        return Response(body, status=201)


@extend_schema(
    tags=["members"], parameters=[CLUB_PARAM, OpenApiParameter("id", int, OpenApiParameter.PATH)]
)
class InvitationDetailView(ClubScopedView):
    roles = {"GET": Role.OWNER, "DELETE": Role.OWNER}
    extra_error_statuses = {"DELETE": (409,)}

    def invitation(self, id: int) -> Invitation:
        invitation = club_invitations(club_id=self.club.pk).filter(pk=id).first()
        if invitation is None:
            raise NotFoundError(f"No invitation {id} in {self.club.name}.")
        return invitation

    @extend_schema(operation_id="invitations_read", responses=InvitationOutSerializer)
    def get(self, request: Request, club: str, id: int) -> Response:
        return Response(InvitationOutSerializer(self.invitation(id)).data)

    @extend_schema(
        operation_id="invitations_revoke",
        description="Revoke an open invitation: its link stops working. Used or revoked "
        "already: 409.",
        responses={204: None},
    )
    def delete(self, request: Request, club: str, id: int) -> Response:
        # The row stays (status "revoked"): who invited whom remains on the record.
        services.invitation_revoke(invitation=self.invitation(id), by=request.user)
        return Response(status=204)
