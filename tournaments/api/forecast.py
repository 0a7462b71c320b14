"""A tournament's entry list and the forecasts (docs/tasks/forecasting.md).

/api/v1/clubs/{club}/tournaments/{id}/entries/    GET, PUT (officer: replaces the list)
/api/v1/clubs/{club}/tournaments/{id}/forecast/   GET (409 beyond 100 entrants)
/api/v1/clubs/{club}/players/{id}/forecast/?list=&opponent=   GET (the next game)

Read by anyone who may see the club (a private club's members only), as the tournament
is. The figures are the list's own plan of the games (tournaments.services.forecast).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from players.api.clubs import CLUB_PARAM
from players.api.players import LIST_QUERY_PARAM, PLAYER_PARAM, PlayerObjectMixin
from players.models import Role
from players.names import display_name
from players.rating.systems.forecast import EntrantForecast
from players.selectors import Generation
from tournaments.api.tournaments import ID_MAX, ID_PARAM, TournamentRows
from tournaments.selectors import tournament_entries
from tournaments.services import tournament_entries_set
from tournaments.services.entries import MAX_ENTRIES
from tournaments.services.forecast import (
    Entrant,
    TournamentForecast,
    next_game_forecast,
    tournament_forecast,
)

# -- serializers -----------------------------------------------------------------------------


class EntryOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    player = serializers.IntegerField(source="player_id")
    name = serializers.SerializerMethodField(help_text="In the list's name order.")

    def get_name(self, entry: Any) -> str:
        return display_name(entry.player.name, self.context.get("name_order", ""))


class EntriesOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    tournament = serializers.IntegerField()
    entries = EntryOutSerializer(many=True)


class EntriesInSerializer(serializers.Serializer):  # type: ignore[type-arg]
    players = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=ID_MAX),
        allow_empty=True,
        max_length=MAX_ENTRIES,
        help_text="The ids of the players entered (players of this club, each once); the "
        "list replaces the one kept.",
    )


class ScoreSerializer(serializers.Serializer):  # type: ignore[type-arg]
    score = serializers.FloatField(help_text="Points of the games (0, 0.5, ... games).")
    wins = serializers.IntegerField(help_text="Won against the weakest opponents first.")
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    rating_after = serializers.IntegerField(
        allow_null=True, help_text="The rating the close would publish; null: still unrated."
    )
    change = serializers.IntegerField(
        allow_null=True, help_text="The published change; null: a first rating, or none yet."
    )
    event = serializers.CharField(help_text="rated, first_rating, not_yet_rated, ...")
    note = serializers.CharField(
        allow_blank=True, help_text="Unrated and short of a first rating: what is missing."
    )


class EntrantSerializer(serializers.Serializer):  # type: ignore[type-arg]
    player = serializers.IntegerField()
    name = serializers.CharField(help_text="In the list's name order.")
    title = serializers.CharField(allow_blank=True)
    federation = serializers.CharField(allow_blank=True)
    rating = serializers.IntegerField(allow_null=True, help_text="Scored with; null: unrated.")
    games = serializers.IntegerField()
    expected = serializers.FloatField(
        allow_null=True, help_text="Expected score in the rated games; null: unrated."
    )
    k_factor = serializers.IntegerField(allow_null=True)
    k_reason = serializers.CharField(allow_blank=True)
    scores = ScoreSerializer(many=True)


class TournamentForecastSerializer(serializers.Serializer):  # type: ignore[type-arg]
    tournament = serializers.IntegerField()
    list = serializers.CharField()
    period = serializers.CharField(help_text="YYYY-MM: the period the close rates it in.")
    rules = serializers.CharField(help_text="The rules of the tournament's start date.")
    assumption = serializers.CharField()
    entrants = EntrantSerializer(many=True)


class GameForecastSerializer(serializers.Serializer):  # type: ignore[type-arg]
    list = serializers.CharField()
    period = serializers.CharField(help_text="YYYY-MM: this month, the game played today.")
    rules = serializers.CharField()
    player = EntrantSerializer()
    opponent = serializers.IntegerField()
    opponent_name = serializers.CharField()
    opponent_rating = serializers.IntegerField(allow_null=True)


ASSUMPTION = (
    "A round robin of the entry list; a score's wins go against the weakest opponents "
    "(unrated first, then by rating), then a draw for a half point, then losses."
)


def entrant_data(entrant: Entrant, forecast: EntrantForecast, name_order: str) -> dict[str, Any]:
    return {
        "player": entrant.player_id,
        "name": display_name(entrant.name, name_order),
        "title": entrant.title,
        "federation": entrant.federation,
        "rating": forecast.rating,
        "games": forecast.games,
        "expected": None if forecast.expected is None else float(forecast.expected),
        "k_factor": forecast.k_factor,
        "k_reason": forecast.k_reason,
        "scores": [
            {
                "score": float(row.score),
                "wins": row.wins,
                "draws": row.draws,
                "losses": row.losses,
                "rating_after": row.rating_after,
                "change": row.change,
                "event": str(row.event),
                "note": row.note,
            }
            for row in forecast.scores
        ],
    }


def forecast_data(forecast: TournamentForecast, name_order: str) -> dict[str, Any]:
    return {
        "tournament": forecast.tournament_id,
        "list": forecast.list_slug,
        "period": forecast.period,
        "rules": forecast.rules,
        "assumption": ASSUMPTION,
        "entrants": [entrant_data(e, f, name_order) for e, f in forecast.rows],
    }


# -- views -----------------------------------------------------------------------------------


@extend_schema(tags=["tournaments"], parameters=[CLUB_PARAM, ID_PARAM])
class TournamentEntriesView(TournamentRows):
    roles = {"PUT": Role.OFFICER}
    published_get = True
    published_scope = Generation.LIVE  # an entry list set changes it

    def _answer(self, tournament_id: int) -> Response:
        tournament = self.get_object_in_club(tournament_id)
        entries = tournament_entries(tournament=tournament).select_related("player")
        context = {"name_order": tournament.rating_list.name_order}
        entries = entries.order_by("player__name", "player_id")
        body = {
            "tournament": tournament.pk,
            "entries": EntryOutSerializer(entries, many=True, context=context).data,
        }
        return Response(body)

    @extend_schema(operation_id="tournaments_entries", responses=EntriesOutSerializer)
    def get(self, request: Request, club: str, id: int) -> Response:
        return self.published(lambda: self._answer(id))

    @extend_schema(
        operation_id="tournaments_entries_set",
        description="Replace the tournament's entry list (the forecasts' field): players of "
        "this club, each once. The officer's.",
        request=EntriesInSerializer,
        responses=EntriesOutSerializer,
    )
    def put(self, request: Request, club: str, id: int) -> Response:
        tournament = self.get_object_in_club(id)
        data = EntriesInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        tournament_entries_set(
            tournament=tournament, by=request.user, player_ids=data.validated_data["players"]
        )
        return self._answer(id)


@extend_schema(tags=["tournaments"], parameters=[CLUB_PARAM, ID_PARAM])
class TournamentForecastView(TournamentRows):
    """Each entrant's expected score against the field and the rating change for every
    score they could make (0, 1/2, ... games), in a round robin of the entry list, by the
    list's own rules on the tournament's start date: what the close would give for those
    results. At most 100 entrants (409 beyond)."""

    published_get = True
    published_scope = Generation.LIVE
    extra_error_statuses = {"GET": (409,)}

    @extend_schema(operation_id="tournaments_forecast", responses=TournamentForecastSerializer)
    def get(self, request: Request, club: str, id: int) -> Response:
        return self.published(lambda: self._answer(id))

    def _answer(self, tournament_id: int) -> Response:
        tournament = self.get_object_in_club(tournament_id)
        tournament.club = self.club
        forecast = tournament_forecast(tournament=tournament)
        return Response(forecast_data(forecast, tournament.rating_list.name_order))


OPPONENT_PARAM = OpenApiParameter(
    "opponent",
    int,
    OpenApiParameter.QUERY,
    required=True,
    description="The opponent's player id (a player of this club).",
)


class OpponentQuerySerializer(serializers.Serializer):  # type: ignore[type-arg]
    opponent = serializers.IntegerField(min_value=1, max_value=ID_MAX)


@extend_schema(
    tags=["players"], parameters=[CLUB_PARAM, PLAYER_PARAM, LIST_QUERY_PARAM, OPPONENT_PARAM]
)
class PlayerForecastView(PlayerObjectMixin):
    """The player's next game against one opponent, played today outside any tournament:
    the expected score and the change for a loss, a draw and a win, by the list's own
    plan of this month."""

    @extend_schema(operation_id="players_forecast", responses=GameForecastSerializer)
    def get(self, request: Request, club: str, id: int) -> Response:
        player, rating_list = self.player_on_list()
        query = OpponentQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        rating_list.club = self.club
        game = next_game_forecast(
            rating_list=rating_list, player=player, opponent_id=query.validated_data["opponent"]
        )
        order = rating_list.name_order
        return Response(
            {
                "list": game.list_slug,
                "period": f"{game.month:%Y-%m}",
                "rules": game.rules,
                "player": entrant_data(game.player, game.forecast, order),
                "opponent": game.opponent.player_id,
                "opponent_name": display_name(game.opponent.name, order),
                "opponent_rating": game.opponent_rating,
            }
        )
