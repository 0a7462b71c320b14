"""A club's players, their rating history, K history and the officer's K override.

/api/v1/clubs/{club}/players/                       GET, POST (arbiter)
/api/v1/clubs/{club}/players/{id}/                  GET, PATCH (arbiter), DELETE (arbiter)
/api/v1/clubs/{club}/players/{id}/history/?list=    GET
/api/v1/clubs/{club}/players/{id}/k-history/?list=  GET
/api/v1/clubs/{club}/players/{id}/k-override/       POST (officer)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import django_filters
from django.db.models import Exists, Model, OuterRef, Q, QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from players import services
from players.api.clubs import CLUB_PARAM
from players.api.player_history import (
    HistoryEntrySerializer,
    HistoryOutSerializer,
    HistoryPageSerializer,
    KHistoryOutSerializer,
)
from players.api.state import StateFigure, StateObject
from players.errors import NotFoundError, invalid_field
from players.http.api import ClubScopedView, StrictBooleanFilter
from players.models import (
    KFactorChange,
    Player,
    RatingChange,
    RatingList,
    Role,
    Sex,
    Title,
)
from players.rating import ListKind
from players.selectors import (
    club_lists,
    membership_role,
    player_history,
    player_k_history,
    player_ratings_for_list,
    players_for_club,
    rated_states,
    rating_list_get,
)

PLAYER_PARAM = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The player's id.")
LIST_QUERY_PARAM = OpenApiParameter(
    "list",
    str,
    OpenApiParameter.QUERY,
    default=ListKind.STANDARD.value,
    description="The list's slug (default: standard).",
)


# -- serializers -----------------------------------------------------------------------------


class PlayerRatingOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    list = serializers.CharField(source="rating_list.slug")
    rating = serializers.IntegerField(allow_null=True, help_text="null: unrated.")
    rd = StateFigure("rd", help_text="Glicko-2 lists: RD (else null).")
    volatility = StateFigure("volatility", help_text="Glicko-2 lists (else null).")
    state = StateObject()
    rated_games = serializers.IntegerField()
    reached_2400 = serializers.BooleanField()
    k_factor = serializers.IntegerField(allow_null=True, help_text="K for the next period.")
    k_reason = serializers.CharField(allow_blank=True)
    k_override = serializers.IntegerField(allow_null=True, help_text="Set by the officer.")
    entry_note = serializers.CharField(
        allow_blank=True,
        help_text="Where the entered rating came from when not typed in (the FIDE list).",
    )


class FideRatingsSerializer(serializers.Serializer):  # type: ignore[type-arg]
    standard = serializers.IntegerField(source="fide_standard", allow_null=True)
    rapid = serializers.IntegerField(source="fide_rapid", allow_null=True)
    blitz = serializers.IntegerField(source="fide_blitz", allow_null=True)
    month = serializers.SerializerMethodField(help_text="The FIDE list read, YYYY-MM; null: none.")

    def get_month(self, player: Player) -> str | None:
        month = player.fide_list_month
        return None if month is None else f"{month:%Y-%m}"


class PlayerOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.IntegerField()
    name = serializers.CharField()
    birth_date = serializers.DateField(allow_null=True)
    birth_year = serializers.IntegerField(allow_null=True)
    sex = serializers.CharField(allow_blank=True)
    federation = serializers.CharField(allow_blank=True)
    title = serializers.CharField(allow_blank=True)
    fide_id = serializers.IntegerField(allow_null=True)
    women_title = serializers.CharField(allow_blank=True)
    active = serializers.BooleanField()
    created = serializers.DateTimeField()
    ratings = PlayerRatingOutSerializer(many=True, help_text="One entry per list of the club.")
    user = serializers.SerializerMethodField(
        help_text="The member this record belongs to (username); shown to the club's members "
        "only (members are personal data), null otherwise or when not linked."
    )

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_user(self, player: Player) -> str | None:
        if not self.context.get("show_members") or player.user is None:
            return None
        username: str = player.user.get_username()
        return username

    fide = FideRatingsSerializer(
        source="*", help_text="FIDE's ratings from the latest FIDE list read (import_fide_list)."
    )


class RatingInSerializer(serializers.Serializer):  # type: ignore[type-arg]
    list = serializers.SlugField(max_length=32, help_text="The list's slug.")
    rating = serializers.IntegerField(
        min_value=0, max_value=4000, allow_null=True, help_text="null: unrated."
    )
    rated_games = serializers.IntegerField(min_value=0, max_value=100_000, default=0)
    reached_2400 = serializers.BooleanField(default=False)
    rd = serializers.FloatField(
        min_value=0, required=False, help_text="Glicko-2 lists: RD (default: the list's rd_start)."
    )
    volatility = serializers.FloatField(
        min_value=0, max_value=1, required=False, help_text="Glicko-2 lists (default 0.06)."
    )


class PlayerFieldsSerializer(serializers.Serializer):  # type: ignore[type-arg]
    name = serializers.CharField(max_length=200)
    birth_date = serializers.DateField(required=False, allow_null=True)
    birth_year = serializers.IntegerField(
        min_value=1850, max_value=2200, required=False, allow_null=True
    )
    sex = serializers.ChoiceField(choices=Sex.choices, allow_blank=True, required=False)
    federation = serializers.CharField(max_length=3, required=False, allow_blank=True)
    title = serializers.ChoiceField(choices=Title.choices, allow_blank=True, required=False)
    fide_id = serializers.IntegerField(
        min_value=1, max_value=2**53, required=False, allow_null=True
    )
    active = serializers.BooleanField(required=False)


class PlayerCreateSerializer(PlayerFieldsSerializer):
    ratings = RatingInSerializer(
        many=True,
        required=False,
        help_text="The player's existing ratings; lists not named start unrated.",
    )


class PlayerUpdateSerializer(PlayerFieldsSerializer):
    name = serializers.CharField(max_length=200, required=False)
    user = serializers.CharField(
        max_length=150,
        required=False,
        allow_null=True,
        help_text="Link the record to this member (username; rating officer or above); "
        "null unlinks.",
    )


class KOverrideInSerializer(serializers.Serializer):  # type: ignore[type-arg]
    list = serializers.SlugField(max_length=32)
    k = serializers.IntegerField(
        min_value=1, max_value=100, allow_null=True, help_text="null lifts the override."
    )
    note = serializers.CharField(
        max_length=500, allow_blank=True, default="", help_text="Required when setting K."
    )


class ListQuerySerializer(serializers.Serializer):  # type: ignore[type-arg]
    list = serializers.SlugField(max_length=32, default=ListKind.STANDARD.value)


# -- filters -------------------------------------------------------------------------------


def _club_lists(request: Any) -> QuerySet[RatingList]:
    """The lists of the URL's club: ``?list=`` names one of them, else a 400."""
    if request is None:
        return RatingList.objects.none()
    club = request.parser_context["kwargs"].get("club")
    return club_lists(club=club)


class PlayerFilter(django_filters.FilterSet):  # type: ignore[misc]
    name = django_filters.CharFilter(
        field_name="name", lookup_expr="icontains", label="Part of the name."
    )
    list = django_filters.ModelChoiceFilter(
        queryset=_club_lists,
        to_field_name="slug",
        method="filter_noop",
        label="The slug of the list that rated/unrated refer to (default: any list).",
    )
    rated = StrictBooleanFilter(
        method="filter_rated",
        label="true: rated on the list (any list when none is given); false: unrated.",
    )
    unrated = StrictBooleanFilter(
        method="filter_unrated", label="true: unrated on the list (every list when none is given)."
    )
    active = StrictBooleanFilter(field_name="active")

    class Meta:
        model = Player
        fields = ["name", "list", "rated", "unrated", "active"]

    def filter_noop(self, queryset: QuerySet[Player], name: str, value: Any) -> QuerySet[Player]:
        return queryset

    def _rated_on(self) -> Exists:
        rated = rated_states(player=OuterRef("pk"))
        chosen = self.form.cleaned_data.get("list")
        if chosen is not None:
            rated = rated.filter(rating_list=chosen)
        return Exists(rated)

    def filter_rated(
        self, queryset: QuerySet[Player], name: str, value: bool | None
    ) -> QuerySet[Player]:
        if value is None:
            return queryset
        return queryset.filter(self._rated_on() if value else ~Q(self._rated_on()))

    def filter_unrated(
        self, queryset: QuerySet[Player], name: str, value: bool | None
    ) -> QuerySet[Player]:
        if value is None:
            return queryset
        return self.filter_rated(queryset, name, not value)


# -- views ----------------------------------------------------------------------------------


_Row = TypeVar("_Row", bound=Model)


class PlayerObjectMixin(ClubScopedView):
    def player_context(self) -> dict[str, Any]:
        return {"show_members": membership_role(self.request.user, self.club) is not None}

    def player(self, player_id: int) -> Player:
        player = players_for_club(club=self.club).filter(pk=player_id).first()
        if player is None:
            raise NotFoundError(f"No player {player_id} in {self.club.name}.")
        return player

    def rating_list(self, kind: str) -> RatingList:
        return rating_list_get(club=self.club, kind=kind)

    def rows_on_list(self, selector: Callable[..., QuerySet[_Row]]) -> QuerySet[_Row]:
        """``selector``'s rows for the player of the URL on the list of ``?list=``."""
        player, rating_list = self.player_on_list()
        return selector(player=player, rating_list=rating_list)

    def player_on_list(self) -> tuple[Player, RatingList]:
        """The player of the URL and the list of ``?list=``, read once per request (the
        history's rows and its entry both need them)."""
        found: tuple[Player, RatingList] | None = getattr(self, "_player_on_list", None)
        if found is None:
            found = self._player_on_list = self._read_player_on_list()
        return found

    def _read_player_on_list(self) -> tuple[Player, RatingList]:
        query = ListQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        slug = query.validated_data["list"]
        # A query parameter, not a path: an unknown list is bad input (400), as before
        # lists had slugs.
        rating_list = club_lists(club=self.club).filter(slug=slug).first()
        if rating_list is None:
            raise invalid_field("list", f"{self.club.name} has no list {slug!r}.")
        return self.player(self.kwargs["id"]), rating_list


@extend_schema(tags=["players"], parameters=[CLUB_PARAM])
class PlayerListView(PlayerObjectMixin):
    published_get = True
    roles = {"POST": Role.ARBITER}
    serializer_class = PlayerOutSerializer
    filterset_class = PlayerFilter
    ordering_fields = ["name", "birth_year", "created", "id"]
    ordering = ["name", "id"]

    def get_queryset(self) -> QuerySet[Player]:
        if self.is_schema_view:
            return Player.objects.none()
        return players_for_club(club=self.club)

    @extend_schema(operation_id="players_list", responses=PlayerOutSerializer(many=True))
    def get(self, request: Request, club: str) -> Response:
        return self.published(
            lambda: self.paginated(PlayerOutSerializer, context=self.player_context())
        )

    @extend_schema(
        operation_id="players_create",
        description="Add a player, with their existing ratings if any.",
        request=PlayerCreateSerializer,
        responses={201: PlayerOutSerializer},
    )
    def post(self, request: Request, club: str) -> Response:
        data = PlayerCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player = services.player_create(club=self.club, by=request.user, **data.validated_data)
        return Response(
            PlayerOutSerializer(self.player(player.pk), context=self.player_context()).data,
            status=status.HTTP_201_CREATED,
        )


@extend_schema(tags=["players"], parameters=[CLUB_PARAM, PLAYER_PARAM])
class PlayerDetailView(PlayerObjectMixin):
    published_get = True
    roles = {"PATCH": Role.ARBITER, "DELETE": Role.ARBITER}
    extra_error_statuses = {"DELETE": (409,)}

    @extend_schema(operation_id="players_read", responses=PlayerOutSerializer)
    def get(self, request: Request, club: str, id: int) -> Response:
        return self.published(
            lambda: Response(
                PlayerOutSerializer(self.player(id), context=self.player_context()).data
            )
        )

    @extend_schema(
        operation_id="players_update",
        description="Change a player's details; ratings change only through period closes.",
        request=PlayerUpdateSerializer,
        responses=PlayerOutSerializer,
    )
    def patch(self, request: Request, club: str, id: int) -> Response:
        player = self.player(id)
        data = PlayerUpdateSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        services.player_update(player=player, by=request.user, **data.validated_data)
        return Response(PlayerOutSerializer(self.player(id), context=self.player_context()).data)

    @extend_schema(
        operation_id="players_delete",
        description="Delete a player without games or published ratings (409 otherwise: "
        "mark them inactive instead).",
        responses={204: None},
    )
    def delete(self, request: Request, club: str, id: int) -> Response:
        services.player_delete(player=self.player(id), by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema(tags=["players"], parameters=[CLUB_PARAM, PLAYER_PARAM, LIST_QUERY_PARAM])
class PlayerHistoryView(PlayerObjectMixin):
    """Every closed period of the player on one list, oldest first, and where the history
    starts (``entry``: the rating entered or seeded, and why)."""

    published_get = True
    paged_get = True
    ordering_fields = ["period__month"]

    def get_queryset(self) -> QuerySet[RatingChange]:
        if self.is_schema_view:
            return RatingChange.objects.none()
        return self.rows_on_list(player_history)

    @extend_schema(operation_id="players_history", responses=HistoryPageSerializer)
    def get(self, request: Request, club: str, id: int) -> Response:
        def answer() -> Response:
            response = self.paginated(HistoryOutSerializer)
            player, rating_list = self.player_on_list()
            start = player_ratings_for_list(rating_list=rating_list).filter(player=player).first()
            response.data["entry"] = None if start is None else HistoryEntrySerializer(start).data
            return response

        return self.published(answer)


@extend_schema(tags=["players"], parameters=[CLUB_PARAM, PLAYER_PARAM, LIST_QUERY_PARAM])
class PlayerKHistoryView(PlayerObjectMixin):
    """When and why the player's K on one list changed, oldest first."""

    published_get = True
    ordering_fields = ["effective_month"]

    def get_queryset(self) -> QuerySet[KFactorChange]:
        if self.is_schema_view:
            return KFactorChange.objects.none()
        return self.rows_on_list(player_k_history)

    @extend_schema(operation_id="players_k_history", responses=KHistoryOutSerializer(many=True))
    def get(self, request: Request, club: str, id: int) -> Response:
        return self.published(lambda: self.paginated(KHistoryOutSerializer))


@extend_schema(tags=["players"], parameters=[CLUB_PARAM, PLAYER_PARAM])
class PlayerKOverrideView(PlayerObjectMixin):
    roles = {"POST": Role.OFFICER}

    @extend_schema(
        operation_id="players_k_override",
        description="Set the player's K on one list by hand (from the next period to close), "
        'with a note saying why; `"k": null` lifts the override.',
        request=KOverrideInSerializer,
        responses=PlayerRatingOutSerializer,
    )
    def post(self, request: Request, club: str, id: int) -> Response:
        player = self.player(id)
        data = KOverrideInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        rating_list = self.rating_list(data.validated_data["list"])
        player_rating = (
            player_ratings_for_list(rating_list=rating_list).filter(player=player).first()
        )
        if player_rating is None:
            raise NotFoundError(f"{player.name} is not on the {rating_list.slug} list.")
        updated = services.k_override_set(
            player_rating=player_rating,
            k=data.validated_data["k"],
            note=data.validated_data["note"],
            by=request.user,
        )
        return Response(PlayerRatingOutSerializer(updated).data)
