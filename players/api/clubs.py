"""Clubs, their members and their rating lists.

/api/v1/clubs/                        GET (visible clubs), POST (signed in; you become owner)
/api/v1/clubs/{club}/                 GET, PATCH (owner)
/api/v1/clubs/{club}/members/         GET (viewer), POST (owner: add or change a role)
/api/v1/clubs/{club}/members/{user}/  GET (viewer), PATCH (owner), DELETE (owner)
/api/v1/clubs/{club}/lists/           GET, POST (owner: add a list)
/api/v1/clubs/{club}/lists/{list}/    GET, PATCH (owner: rules or a preset)
"""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet
from django.urls import reverse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from players import services
from players.errors import NotFoundError
from players.http.api import (
    ClubScopedView,
    ListKindField,
    Pagination,
    PresetField,
    StrictBooleanFilter,
)
from players.http.parsers import JSONParser
from players.http.renderers import JSONRenderer
from players.http.schema import ClubAutoSchema
from players.models import (
    FIDE_RULES_CHOICES,
    Club,
    ExpectedMethod,
    FirstRatingPolicy,
    KPolicy,
    Membership,
    RatingList,
    Role,
    translated_choices,
)
from players.names import NameOrder
from players.rating.systems import SYSTEMS
from players.selectors import (
    club_lists,
    club_members,
    clubs_visible_to,
    rating_list_get,
    roles_by_club,
)
from players.services.clubs import EMBED_ORIGINS_MAX, ORIGIN_MAX_LENGTH

CLUB_PARAM = OpenApiParameter("club", str, OpenApiParameter.PATH, description="The club's slug.")
LIST_PARAM = OpenApiParameter(
    "list",
    str,
    OpenApiParameter.PATH,
    description="The list's slug (standard, rapid, blitz for a new club's lists).",
)


# -- clubs ----------------------------------------------------------------------------------


class ClubOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    slug = serializers.SlugField()
    name = serializers.CharField()
    public = serializers.BooleanField()
    created = serializers.DateTimeField()
    embed_origins = serializers.ListField(
        child=serializers.CharField(),
        help_text="The websites that may show the club's widgets in a frame "
        "(docs/tasks/embedding.md); none: the widgets may be framed by this site only.",
    )
    role = serializers.SerializerMethodField(
        help_text="Your role in the club; null when you are not a member."
    )

    def get_role(self, club: Club) -> str | None:
        roles: dict[int, Role] = self.context.get("roles", {})
        role = roles.get(club.pk)
        return None if role is None else role.value


class ClubCreateSerializer(serializers.Serializer):  # type: ignore[type-arg]
    name = serializers.CharField(max_length=200)
    slug = serializers.SlugField(max_length=50, help_text="The club's name in URLs.")
    public = serializers.BooleanField(
        default=False, help_text="Anyone, anonymous too, may read a public club."
    )


class ClubUpdateSerializer(serializers.Serializer):  # type: ignore[type-arg]
    name = serializers.CharField(max_length=200, required=False)
    public = serializers.BooleanField(required=False)
    embed_origins = serializers.ListField(
        child=serializers.CharField(max_length=ORIGIN_MAX_LENGTH),
        max_length=EMBED_ORIGINS_MAX,
        required=False,
        help_text="Replaces the websites that may embed the club's widgets: origins "
        "such as https://club.example.org (scheme, host, perhaps a port; no path).",
    )


class ClubFilter(django_filters.FilterSet):  # type: ignore[misc]
    public = StrictBooleanFilter(field_name="public")

    class Meta:
        model = Club
        fields = ["public"]


class ClubListView(GenericAPIView):  # type: ignore[type-arg]
    """The clubs you may see: public clubs and those you are a member of."""

    schema = ClubAutoSchema()
    pagination_class = Pagination
    parser_classes = [JSONParser]
    renderer_classes = [JSONRenderer]
    metadata_class = None
    serializer_class = ClubOutSerializer
    ordering_fields = ["name", "slug", "created"]
    ordering = ["name", "id"]
    filterset_class = ClubFilter
    error_statuses = (400, 401, 404)  # 404: a page number past the end
    # Creating: 403 where CLUB_CREATORS keeps it to staff, 429 past CLUBS_PER_DAY.
    extra_error_statuses = {"POST": (403, 429)}

    def get_queryset(self) -> QuerySet[Club]:
        return clubs_visible_to(self.request.user)

    def get_serializer_context(self) -> dict[str, Any]:
        context = super().get_serializer_context()
        if not getattr(self, "swagger_fake_view", False):
            context["roles"] = roles_by_club(self.request.user)
        return context

    @extend_schema(
        operation_id="clubs_list",
        tags=["clubs"],
        description="The clubs you may see: public clubs and those you are a member of, "
        "each with your role.\n\nRole: anyone (anonymous users see the public clubs).",
        responses=ClubOutSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(
        operation_id="clubs_create",
        tags=["clubs"],
        description="Create a club; you become its owner. It starts with the standard, "
        "rapid and blitz lists on the FIDE presets.\n\nRole: any signed-in user.",
        request=ClubCreateSerializer,
        responses={201: ClubOutSerializer},
    )
    def post(self, request: Request) -> Response:
        data = ClubCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        club = services.club_create(by=request.user, **data.validated_data)
        out = ClubOutSerializer(club, context={"roles": {club.pk: Role.OWNER}})
        return Response(out.data, status=status.HTTP_201_CREATED)


@extend_schema(tags=["clubs"], parameters=[CLUB_PARAM])
class ClubDetailView(ClubScopedView):
    roles = {"PATCH": Role.OWNER}

    @extend_schema(operation_id="clubs_read", responses=ClubOutSerializer)
    def get(self, request: Request, club: str) -> Response:
        roles = roles_by_club(request.user)
        return Response(ClubOutSerializer(self.club, context={"roles": roles}).data)

    @extend_schema(
        operation_id="clubs_update", request=ClubUpdateSerializer, responses=ClubOutSerializer
    )
    def patch(self, request: Request, club: str) -> Response:
        data = ClubUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        updated = services.club_update(club=self.club, by=request.user, **data.validated_data)
        roles = roles_by_club(request.user)
        return Response(ClubOutSerializer(updated, context={"roles": roles}).data)


# -- members --------------------------------------------------------------------------------


class MemberOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    user = serializers.IntegerField(source="user_id", help_text="The user's id.")
    username = serializers.CharField(source="user.username")
    role = serializers.ChoiceField(choices=Role.choices)
    created = serializers.DateTimeField()


class MemberSetSerializer(serializers.Serializer):  # type: ignore[type-arg]
    username = serializers.CharField(
        max_length=150, help_text="A member's username (role changed) or anyone's (invited)."
    )
    role = serializers.ChoiceField(choices=Role.choices)


class MemberInvitedSerializer(serializers.Serializer):  # type: ignore[type-arg]
    invitation = serializers.IntegerField(
        source="pk", help_text="The invitation's id (GET/DELETE .../invitations/{id}/)."
    )
    username = serializers.CharField(source="username_invited", help_text="As given.")
    role = serializers.ChoiceField(choices=Role.choices)
    expires = serializers.DateTimeField()
    detail = serializers.SerializerMethodField()

    def get_detail(self, obj: Any) -> str:
        return INVITED


#: The answer to adding a username that is not a member, whether or not an account has it.
INVITED = (
    "Invitation sent if an account has this username: it joins when it accepts (on its "
    "home page, or by the link mailed to it)."
)


class MemberRoleSerializer(serializers.Serializer):  # type: ignore[type-arg]
    role = serializers.ChoiceField(choices=Role.choices)


@extend_schema(tags=["members"], parameters=[CLUB_PARAM])
class MemberListView(ClubScopedView):
    """Members are personal data: even a public club shows them only to its members."""

    roles = {"GET": Role.VIEWER, "POST": Role.OWNER}
    serializer_class = MemberOutSerializer
    ordering_fields = ["user__username", "role", "created"]

    def get_queryset(self) -> QuerySet[Membership]:
        if self.is_schema_view:
            return Membership.objects.none()
        return club_members(club=self.club)

    @extend_schema(operation_id="members_list", responses=MemberOutSerializer(many=True))
    def get(self, request: Request, club: str) -> Response:
        return self.paginated(MemberOutSerializer)

    @extend_schema(
        operation_id="members_set",
        description="Change a member's role (200; a club keeps at least one owner), or "
        "invite anyone else (202): the account joins when it accepts, on its home page or by "
        "the mailed link. The 202 is the same whether or not an account has the username, so "
        "the answer tells no one which usernames exist.",
        request=MemberSetSerializer,
        responses={200: MemberOutSerializer, 202: MemberInvitedSerializer},
    )
    def post(self, request: Request, club: str) -> Response:
        data = MemberSetSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        username, role = data.validated_data["username"], data.validated_data["role"]
        current = club_members(club=self.club).filter(user__username=username).first()
        if current is not None:
            membership = services.membership_set(
                club=self.club, user=current.user, role=role, by=request.user
            )
            return Response(MemberOutSerializer(membership).data)
        invitation, _url = services.invitation_create(
            club=self.club,
            by=request.user,
            role=role,
            username=username,
            accept_url=lambda secret: request.build_absolute_uri(
                reverse("invitation-accept", args=[secret])
            ),
        )
        return Response(MemberInvitedSerializer(invitation).data, status=status.HTTP_202_ACCEPTED)

    extra_error_statuses = {"POST": (409,)}


@extend_schema(
    tags=["members"],
    parameters=[CLUB_PARAM, OpenApiParameter("username", str, OpenApiParameter.PATH)],
)
class MemberDetailView(ClubScopedView):
    roles = {"GET": Role.VIEWER, "PATCH": Role.OWNER, "DELETE": Role.OWNER}
    extra_error_statuses = {"PATCH": (409,), "DELETE": (409,)}

    def membership(self, username: str) -> Membership:
        membership = club_members(club=self.club).filter(user__username=username).first()
        if membership is None:
            raise NotFoundError(f"{username!r} is not a member of {self.club.name}.")
        return membership

    @extend_schema(operation_id="members_read", responses=MemberOutSerializer)
    def get(self, request: Request, club: str, username: str) -> Response:
        return Response(MemberOutSerializer(self.membership(username)).data)

    @extend_schema(
        operation_id="members_update", request=MemberRoleSerializer, responses=MemberOutSerializer
    )
    def patch(self, request: Request, club: str, username: str) -> Response:
        current = self.membership(username)
        data = MemberRoleSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        membership = services.membership_set(
            club=self.club, user=current.user, role=data.validated_data["role"], by=request.user
        )
        return Response(MemberOutSerializer(membership).data)

    @extend_schema(operation_id="members_remove", responses={204: None})
    def delete(self, request: Request, club: str, username: str) -> Response:
        current = self.membership(username)
        services.membership_remove(club=self.club, user=current.user, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


# -- rating lists ---------------------------------------------------------------------------

NAME_ORDERS = [order.value for order in NameOrder]


class RatingListOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    list = serializers.CharField(source="slug", help_text="The list's slug, in its URLs.")
    name = serializers.CharField(source="label")
    kind = ListKindField()
    system = serializers.ChoiceField(choices=[(name, s.label) for name, s in SYSTEMS.items()])
    preset = serializers.CharField(
        help_text="The preset the rules were last set from; blank once changed by hand."
    )
    expected_method = serializers.ChoiceField(choices=translated_choices(ExpectedMethod))
    apply_400_rule = serializers.BooleanField()
    k_policy = serializers.ChoiceField(choices=KPolicy.choices)
    fixed_k = serializers.IntegerField(allow_null=True)
    floor = serializers.IntegerField(allow_null=True, help_text="null: no floor.")
    first_rating_policy = serializers.ChoiceField(choices=FirstRatingPolicy.choices)
    starting_rating = serializers.IntegerField(allow_null=True)
    adjust_march_2024 = serializers.BooleanField(
        help_text="The close of February 2024 raises published ratings below 2000 by "
        "0.4 x (2000 - R) (FIDE's one-off adjustment of 1 March 2024)."
    )
    name_order = serializers.ChoiceField(
        choices=NAME_ORDERS,
        help_text="How the list's pages, API and downloads show names: surname_given "
        "(Aronsen, Viktor, as FIDE) or given_surname (Viktor Aronsen). TRF files always "
        "carry Surname, Given.",
    )
    fide_rules = serializers.ChoiceField(
        choices=FIDE_RULES_CHOICES,
        help_text="FIDE lists: by_date (the rules in force when each event started) or "
        "one rule set always (its start, YYYY-MM; the latest is today's rules).",
    )
    tau = serializers.FloatField(source="glicko_tau", help_text="Glicko-2: the system constant.")
    rd_start = serializers.FloatField(source="glicko_rd_start", help_text="Glicko-2: new RD.")
    rd_min = serializers.FloatField(source="glicko_rd_min", help_text="Glicko-2: 0 = no floor.")
    rd_max = serializers.FloatField(source="glicko_rd_max", help_text="Glicko-2: RD's cap.")


class GlickoSettingsSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """Glicko-2's settings, in the paper's words (stored on every list; read by Glicko-2
    lists only)."""

    tau = serializers.FloatField(
        min_value=0.01, max_value=10, required=False, help_text="Default 0.5 (0.3-1.2 usual)."
    )
    rd_start = serializers.FloatField(min_value=1, max_value=1000, required=False)
    rd_min = serializers.FloatField(min_value=0, max_value=1000, required=False)
    rd_max = serializers.FloatField(min_value=1, max_value=1000, required=False)

    def to_rules(self) -> dict[str, Any]:
        data: dict[str, Any] = dict(self.validated_data)
        return {services.GLICKO_SETTINGS.get(name, name): value for name, value in data.items()}


class ListRulesSerializer(GlickoSettingsSerializer):
    """A list's rules, each optional (the API's list create and update)."""

    expected_method = serializers.ChoiceField(
        choices=translated_choices(ExpectedMethod), required=False
    )
    apply_400_rule = serializers.BooleanField(required=False)
    k_policy = serializers.ChoiceField(choices=KPolicy.choices, required=False)
    fixed_k = serializers.IntegerField(min_value=1, max_value=100, required=False, allow_null=True)
    floor = serializers.IntegerField(min_value=0, max_value=4000, required=False, allow_null=True)
    first_rating_policy = serializers.ChoiceField(choices=FirstRatingPolicy.choices, required=False)
    starting_rating = serializers.IntegerField(
        min_value=0, max_value=4000, required=False, allow_null=True
    )
    adjust_march_2024 = serializers.BooleanField(required=False)
    name_order = serializers.ChoiceField(choices=NAME_ORDERS, required=False)
    fide_rules = serializers.ChoiceField(choices=FIDE_RULES_CHOICES, required=False)


class RatingListUpdateSerializer(ListRulesSerializer):
    preset = PresetField(
        required=False,
        help_text="Start from a preset; fields given beside it override the preset's values.",
    )


class RatingListCreateSerializer(ListRulesSerializer):
    slug = serializers.SlugField(max_length=32, help_text="Names the list in its URLs.")
    name = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")
    kind = ListKindField()
    system = serializers.ChoiceField(
        choices=list(SYSTEMS), help_text="fide (the kind's FIDE preset), elo (Club Elo), glicko2."
    )


@extend_schema(tags=["lists"], parameters=[CLUB_PARAM])
class RatingListListView(ClubScopedView):
    serializer_class = RatingListOutSerializer
    ordering_fields = ["kind"]
    roles = {"POST": Role.OWNER}

    def get_queryset(self) -> QuerySet[RatingList]:
        if self.is_schema_view:
            return RatingList.objects.none()
        return club_lists(club=self.club).order_by("kind", "slug")

    @extend_schema(operation_id="lists_list", responses=RatingListOutSerializer(many=True))
    def get(self, request: Request, club: str) -> Response:
        return self.paginated(RatingListOutSerializer)

    @extend_schema(
        operation_id="lists_create",
        description="Add a list to the club (owner): a kind, a rating system and its "
        "settings (Glicko-2: tau, rd_start, rd_min, rd_max; FIDE and Elo: the list rules).",
        request=RatingListCreateSerializer,
        responses={201: RatingListOutSerializer},
    )
    def post(self, request: Request, club: str) -> Response:
        data = RatingListCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        rules = data.to_rules()
        created = services.rating_list_create(
            club=self.club,
            by=request.user,
            slug=rules.pop("slug"),
            kind=rules.pop("kind"),
            system=rules.pop("system"),
            name=rules.pop("name"),
            **rules,
        )
        return Response(RatingListOutSerializer(created).data, status=status.HTTP_201_CREATED)


@extend_schema(tags=["lists"], parameters=[CLUB_PARAM, LIST_PARAM])
class RatingListDetailView(ClubScopedView):
    roles = {"PATCH": Role.OWNER}

    @extend_schema(operation_id="lists_read", responses=RatingListOutSerializer)
    def get(self, request: Request, club: str, list: str) -> Response:
        rating_list = rating_list_get(club=self.club, kind=list)
        return Response(RatingListOutSerializer(rating_list).data)

    @extend_schema(
        operation_id="lists_update",
        description="Change the list's rules. Closed periods keep what they published; the "
        "new rules apply from the next close.",
        request=RatingListUpdateSerializer,
        responses=RatingListOutSerializer,
    )
    def patch(self, request: Request, club: str, list: str) -> Response:
        rating_list = rating_list_get(club=self.club, kind=list)
        data = RatingListUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        updated = services.rating_list_update(
            rating_list=rating_list, by=request.user, **data.to_rules()
        )
        return Response(RatingListOutSerializer(updated).data)
