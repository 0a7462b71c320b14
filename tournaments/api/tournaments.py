"""A club's tournaments and games.

/api/v1/clubs/{club}/tournaments/       GET, POST (arbiter)
/api/v1/clubs/{club}/tournaments/{id}/  GET, PATCH (arbiter), DELETE (arbiter)
/api/v1/clubs/{club}/games/             GET, POST (arbiter; one game or a JSON array, all or nothing)
/api/v1/clubs/{club}/games/{id}/        GET, PATCH (arbiter), DELETE (arbiter)
"""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, PolymorphicProxySerializer, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from players.api.clubs import CLUB_PARAM
from players.errors import NotFoundError
from players.http.api import ClubScopedView
from players.models import RatingPeriod, Role, translated_choices
from players.names import display_name
from players.selectors import parse_month
from tournaments.models import Game, Result, Tournament
from tournaments.selectors import games_for_club, tournaments_for_club
from tournaments.services import games as game_services
from tournaments.services import tournaments as tournament_services

ID_PARAM = OpenApiParameter("id", int, OpenApiParameter.PATH)
MAX_BULK_GAMES = 5000
# Ids are 64-bit; a larger number could not name a row and would overflow the database.
ID_MAX = 2**63 - 1


# -- tournaments ------------------------------------------------------------------------------


class TournamentOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.IntegerField()
    name = serializers.CharField()
    list = serializers.CharField(source="rating_list.slug")
    start_date = serializers.DateField()
    end_date = serializers.DateField()
    rounds = serializers.IntegerField(allow_null=True)
    city = serializers.CharField(allow_blank=True)
    games_count = serializers.IntegerField()
    created = serializers.DateTimeField()


class TournamentInSerializer(serializers.Serializer):  # type: ignore[type-arg]
    name = serializers.CharField(max_length=200)
    list = serializers.SlugField(max_length=32, help_text="The slug of the list it is rated on.")
    start_date = serializers.DateField()
    end_date = serializers.DateField(help_text="Its games belong to this month's period.")
    rounds = serializers.IntegerField(min_value=1, max_value=99, required=False, allow_null=True)
    city = serializers.CharField(max_length=100, required=False, allow_blank=True)

    def to_service(self) -> dict[str, Any]:
        data = dict(self.validated_data)
        if "list" in data:
            data["rating_list"] = data.pop("list")
        return data


class TournamentFilter(django_filters.FilterSet):  # type: ignore[misc]
    name = django_filters.CharFilter(lookup_expr="icontains")
    list = django_filters.CharFilter(field_name="rating_list__slug")
    start_after = django_filters.DateFilter(field_name="start_date", lookup_expr="gte")
    start_before = django_filters.DateFilter(field_name="start_date", lookup_expr="lte")

    class Meta:
        model = Tournament
        fields = ["name", "list", "start_after", "start_before"]


class ClubObjectView(ClubScopedView):
    def get_object_in_club(self, object_id: int) -> Any:
        found = self.get_queryset().filter(pk=object_id).first()
        if found is None:
            raise NotFoundError(f"No such {self.object_name} in {self.club.name}.")
        # The club the row was found in, as read for this request (the user's role with
        # it): the services' role check then reads neither again.
        found.club = self.club
        return found

    object_name = "object"


class TournamentRows(ClubObjectView):
    # The club's tournaments: the rows of the list and of the detail view. (A comment, not a
    # docstring: the schema would show it as the operations' description.)
    object_name = "tournament"

    def get_queryset(self) -> QuerySet[Tournament]:
        if self.is_schema_view:
            return Tournament.objects.none()
        return tournaments_for_club(club=self.club)


class GameRows(ClubObjectView):
    # The club's games: the rows of the list and of the detail view. (A comment, not a
    # docstring: the schema would show it as the operations' description.)
    object_name = "game"

    def get_queryset(self) -> QuerySet[Game]:
        if self.is_schema_view:
            return Game.objects.none()
        return games_for_club(club=self.club)


@extend_schema(tags=["tournaments"], parameters=[CLUB_PARAM])
class TournamentListView(TournamentRows):
    roles = {"POST": Role.ARBITER}
    serializer_class = TournamentOutSerializer
    filterset_class = TournamentFilter
    ordering_fields = ["start_date", "end_date", "name", "id"]
    ordering = ["-start_date", "name", "id"]

    @extend_schema(operation_id="tournaments_list", responses=TournamentOutSerializer(many=True))
    def get(self, request: Request, club: str) -> Response:
        return self.paginated(TournamentOutSerializer)

    @extend_schema(
        operation_id="tournaments_create",
        request=TournamentInSerializer,
        responses={201: TournamentOutSerializer},
    )
    def post(self, request: Request, club: str) -> Response:
        data = TournamentInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        tournament = tournament_services.tournament_create(
            club=self.club, by=request.user, **data.to_service()
        )
        out = TournamentOutSerializer(self.get_queryset().get(pk=tournament.pk))
        return Response(out.data, status=status.HTTP_201_CREATED)


@extend_schema(tags=["tournaments"], parameters=[CLUB_PARAM, ID_PARAM])
class TournamentDetailView(TournamentRows):
    roles = {"PATCH": Role.ARBITER, "DELETE": Role.ARBITER}
    extra_error_statuses = {"PATCH": (409,), "DELETE": (409,)}

    @extend_schema(operation_id="tournaments_read", responses=TournamentOutSerializer)
    def get(self, request: Request, club: str, id: int) -> Response:
        return Response(TournamentOutSerializer(self.get_object_in_club(id)).data)

    @extend_schema(
        operation_id="tournaments_update",
        description="Change a tournament. New dates move its games to the new end month's "
        "period, so both periods must be open (409 otherwise).",
        request=TournamentInSerializer(partial=True),
        responses=TournamentOutSerializer,
    )
    def patch(self, request: Request, club: str, id: int) -> Response:
        tournament = self.get_object_in_club(id)
        data = TournamentInSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        tournament_services.tournament_update(
            tournament=tournament, by=request.user, **data.to_service()
        )
        return Response(TournamentOutSerializer(self.get_object_in_club(id)).data)

    @extend_schema(
        operation_id="tournaments_delete",
        description="Delete a tournament without games (409 otherwise).",
        responses={204: None},
    )
    def delete(self, request: Request, club: str, id: int) -> Response:
        tournament_services.tournament_delete(
            tournament=self.get_object_in_club(id), by=request.user
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


# -- games ------------------------------------------------------------------------------------


class ShownNameField(serializers.CharField):
    """A player's name in the order the game's list shows it (the list's ``name_order``),
    as on the pages: a TRF import's "Alves, Pedro" is "Pedro Alves" on a given-first list."""

    def __init__(self, *, side: str, **kwargs: Any) -> None:
        self.side = side
        super().__init__(source="*", **kwargs)

    def to_representation(self, value: Any) -> str:
        player = getattr(value, self.side)
        return display_name(player.name, value.rating_list.name_order)


class ClubGameOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.IntegerField()
    list = serializers.CharField(source="rating_list.slug")
    period = serializers.CharField(source="period.label", help_text="YYYY-MM.")
    period_status = serializers.ChoiceField(
        source="period.status", choices=RatingPeriod.Status.choices
    )
    date = serializers.DateField()
    white = serializers.IntegerField(source="white_id", help_text="Player id.")
    white_name = ShownNameField(side="white")
    black = serializers.IntegerField(source="black_id", help_text="Player id.")
    black_name = ShownNameField(side="black")
    result = serializers.ChoiceField(choices=translated_choices(Result))
    tournament = serializers.IntegerField(source="tournament_id", allow_null=True)
    round = serializers.IntegerField(allow_null=True)
    rated = serializers.BooleanField()
    created = serializers.DateTimeField()


class ClubGameInSerializer(serializers.Serializer):  # type: ignore[type-arg]
    list = serializers.SlugField(
        max_length=32,
        required=False,
        help_text="The slug of the list the game is rated on; may be left out with a tournament.",
    )
    date = serializers.DateField()
    white = serializers.IntegerField(
        min_value=1, max_value=ID_MAX, help_text="A player id of this club."
    )
    black = serializers.IntegerField(
        min_value=1, max_value=ID_MAX, help_text="A player id of this club."
    )
    result = serializers.ChoiceField(
        choices=translated_choices(Result),
        help_text="1-0, 0-1, 1/2-1/2; forfeits +-, -+, -- are recorded, never rated.",
    )
    tournament = serializers.IntegerField(
        min_value=1,
        max_value=ID_MAX,
        required=False,
        allow_null=True,
        help_text="A tournament id of this club.",
    )
    round = serializers.IntegerField(min_value=1, max_value=999, required=False, allow_null=True)
    rated = serializers.BooleanField(
        required=False, help_text="false: recorded but not rated (default true)."
    )


class ClubGameBulkInSerializer(serializers.ListSerializer):  # type: ignore[type-arg]
    child = ClubGameInSerializer()


def declare_bulk_bounds(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: a bulk create's array holds 1 to
    ``MAX_BULK_GAMES`` games (a ListSerializer's bounds are not validators, where
    drf-spectacular looks for them)."""
    request_schema = result.get("components", {}).get("schemas", {}).get("GameCreateRequest")
    for option in (request_schema or {}).get("oneOf", []):
        if option.get("type") == "array":
            option.update(minItems=1, maxItems=MAX_BULK_GAMES)
    return result


class GameFilter(django_filters.FilterSet):  # type: ignore[misc]
    list = django_filters.CharFilter(field_name="rating_list__slug")
    # Unstripped: " 2026-01" is refused as the schema's pattern says.
    period = django_filters.CharFilter(method="filter_period", label="YYYY-MM.", strip=False)
    player = django_filters.NumberFilter(
        method="filter_player",
        label="A player id (either side).",
        min_value=1,
        max_value=ID_MAX,
        decimal_places=0,
    )
    tournament = django_filters.NumberFilter(
        field_name="tournament_id", min_value=1, max_value=ID_MAX, decimal_places=0
    )
    date_after = django_filters.DateFilter(field_name="date", lookup_expr="gte")
    date_before = django_filters.DateFilter(field_name="date", lookup_expr="lte")

    class Meta:
        model = Game
        fields = ["list", "period", "player", "tournament", "date_after", "date_before"]

    def filter_period(self, queryset: QuerySet[Game], name: str, value: str) -> QuerySet[Game]:
        return queryset.filter(period__month=parse_month(value))

    def filter_player(self, queryset: QuerySet[Game], name: str, value: int) -> QuerySet[Game]:
        return queryset.filter(white_id=value) | queryset.filter(black_id=value)


GAME_CREATE_REQUEST = PolymorphicProxySerializer(
    component_name="GameCreate",
    serializers=[ClubGameInSerializer, ClubGameBulkInSerializer(child=ClubGameInSerializer())],  # type: ignore[list-item]
    resource_type_field_name=None,
    many=False,
)
GAME_CREATE_RESPONSE = PolymorphicProxySerializer(
    component_name="GameCreated",
    serializers=[ClubGameOutSerializer, ClubGameOutSerializer(many=True)],
    resource_type_field_name=None,
    many=False,
)


@extend_schema(tags=["games"], parameters=[CLUB_PARAM])
class GameListView(GameRows):
    roles = {"POST": Role.ARBITER}
    serializer_class = ClubGameOutSerializer
    filterset_class = GameFilter
    ordering_fields = ["date", "round", "id", "created"]
    ordering = ["date", "round", "id"]
    extra_error_statuses = {"POST": (409,)}

    @extend_schema(operation_id="games_list", responses=ClubGameOutSerializer(many=True))
    def get(self, request: Request, club: str) -> Response:
        return self.paginated(ClubGameOutSerializer)

    @extend_schema(
        operation_id="games_create",
        description="Record one game (a JSON object, answered with the game) or many (a JSON "
        f"array of up to {MAX_BULK_GAMES}, answered with the array): all are stored or none. "
        'Errors name the item, e.g. `"[3].white"`. A game of a closed period answers 409. '
        "A game's period is the month of its tournament's end date, else of its date; the "
        "period is created as the first game of the month is recorded.",
        request=GAME_CREATE_REQUEST,
        responses={201: GAME_CREATE_RESPONSE},
    )
    def post(self, request: Request, club: str) -> Response:
        if isinstance(request.data, list):
            many = ClubGameBulkInSerializer(
                data=request.data, child=ClubGameInSerializer(), max_length=MAX_BULK_GAMES
            )
            many.is_valid(raise_exception=True)
            games = game_services.games_create_bulk(
                club=self.club, by=request.user, games=many.validated_data
            )
            stored = self.get_queryset().filter(pk__in=[g.pk for g in games]).order_by("id")
            return Response(
                ClubGameOutSerializer(stored, many=True).data, status=status.HTTP_201_CREATED
            )
        one = ClubGameInSerializer(data=request.data)
        one.is_valid(raise_exception=True)
        game = game_services.game_create(club=self.club, by=request.user, **one.validated_data)
        # The stored game as the service made it: its list, period and players are the rows
        # it checked and locked, so reading them back again would only cost the round trip.
        return Response(ClubGameOutSerializer(game).data, status=status.HTTP_201_CREATED)


@extend_schema(tags=["games"], parameters=[CLUB_PARAM, ID_PARAM])
class GameDetailView(GameRows):
    roles = {"PATCH": Role.ARBITER, "DELETE": Role.ARBITER}
    extra_error_statuses = {"PATCH": (409,), "DELETE": (409,)}

    @extend_schema(operation_id="games_read", responses=ClubGameOutSerializer)
    def get(self, request: Request, club: str, id: int) -> Response:
        return Response(ClubGameOutSerializer(self.get_object_in_club(id)).data)

    @extend_schema(
        operation_id="games_update",
        description="Correct a game of an open period (reopen a closed one first: 409).",
        request=ClubGameInSerializer(partial=True),
        responses=ClubGameOutSerializer,
    )
    def patch(self, request: Request, club: str, id: int) -> Response:
        game = self.get_object_in_club(id)
        data = ClubGameInSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        updated = game_services.game_update(game=game, by=request.user, **data.validated_data)
        return Response(ClubGameOutSerializer(updated).data)

    @extend_schema(
        operation_id="games_delete",
        description="Delete a game of an open period (409 for a closed one).",
        responses={204: None},
    )
    def delete(self, request: Request, club: str, id: int) -> Response:
        game_services.game_delete(game=self.get_object_in_club(id), by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
