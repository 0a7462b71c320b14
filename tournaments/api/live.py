"""Live ratings: what the next close would publish for the games entered so far.

/api/v1/clubs/{club}/lists/{list}/live/          GET (JSON, paginated; filters, ordering)
/api/v1/clubs/{club}/lists/{list}/live.csv       GET (every row as CSV)
/api/v1/clubs/{club}/players/{id}/live/?list=    GET (one player, each game's contribution)

Read by anyone who may see the club (a private club's members only), as the published
list is. The figures are the close's preview (tournaments.services.live); not published.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import django_filters
from django.db.models import QuerySet
from django.utils.translation import gettext, gettext_noop
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from players.api.clubs import CLUB_PARAM, LIST_PARAM
from players.api.players import LIST_QUERY_PARAM, PLAYER_PARAM, PlayerObjectMixin
from players.api.state import StateObject
from players.errors import invalid_field
from players.http.api import StrictBooleanFilter
from players.http.renderers import JSONRenderer
from players.models import Player, RatingList
from players.names import display_name
from players.rating.types import Number
from players.selectors import Generation, club_players
from tournaments.api.periods import ListScopedView
from tournaments.api.ratings_csv import CSVOnlyView, RatingsCSVRenderer
from tournaments.services.live import LiveList, LiveRow, live_list
from tournaments.services.live_player import live_player

# What a live answer says of itself, with the real period (pages say the same).
PROVISIONAL = gettext_noop(
    "Live ratings: not published; the close of %(period)s may differ if games are added or "
    "corrected."
)


def provisional_notice(live: LiveList) -> str:
    if live.month is None:
        return ""
    return gettext(PROVISIONAL) % {"period": live.label}


# -- serializers -----------------------------------------------------------------------------


class FirstRatingProgressSerializer(serializers.Serializer):  # type: ignore[type-arg]
    games = serializers.IntegerField(
        source="first_rating_games", help_text="Games counted toward a first rating so far."
    )
    missing = serializers.CharField(
        source="first_rating_missing", help_text="What is still missing, in the engine's words."
    )


class LiveRowSerializer(serializers.Serializer):  # type: ignore[type-arg]
    rank = serializers.IntegerField(
        allow_null=True, help_text="By live rating; equal ratings share a rank; null: none."
    )
    player = serializers.IntegerField(source="player_id")
    name = serializers.SerializerMethodField(help_text="In the list's name order.")
    title = serializers.CharField(allow_blank=True)
    federation = serializers.CharField(allow_blank=True)
    rating = serializers.IntegerField(
        allow_null=True, help_text="The rating in force (published before the period)."
    )
    live_rating = serializers.IntegerField(
        allow_null=True, help_text="What the close would publish now; null: unrated."
    )
    live_change = serializers.IntegerField(
        allow_null=True, help_text="The change the close would publish (null: a first rating)."
    )
    games = serializers.IntegerField(help_text="Rated games this period, as the close counts them.")
    event = serializers.CharField(
        help_text="What the close would record (rated, first_rating, ...)."
    )
    state = StateObject(help_text="The system's figures in force (Glicko-2: rd, volatility).")
    live_state = StateObject(
        state_field="live_state", help_text="The system's figures the close would publish."
    )
    k_factor = serializers.IntegerField(
        allow_null=True,
        help_text="The K the close would record for the period (the 700 rule applied); "
        "null: none (an unrated player, a system without K).",
    )
    first_rating = serializers.SerializerMethodField(
        help_text="Unrated players short of a first rating: games so far and what is missing "
        "(else null)."
    )

    def get_name(self, row: LiveRow) -> str:
        return display_name(row.name, self.context.get("name_order", ""))

    @extend_schema_field(FirstRatingProgressSerializer(allow_null=True))
    def get_first_rating(self, row: LiveRow) -> dict[str, Any] | None:
        if row.first_rating_games is None:
            return None
        return dict(FirstRatingProgressSerializer(row).data)


class LivePageSerializer(serializers.Serializer):  # type: ignore[type-arg]
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = LiveRowSerializer(many=True)
    period = serializers.CharField(
        allow_null=True, help_text="YYYY-MM: the period the next close rates; null: none open."
    )
    published = serializers.DateField(
        allow_null=True, help_text="The date of the list that close would publish."
    )
    rules = serializers.CharField(allow_blank=True, help_text="The rules it would rate under.")
    games_count = serializers.IntegerField(help_text="Games entered in the period so far.")
    waiting_for_replay = serializers.CharField(
        allow_blank=True,
        help_text="YYYY-MM of a reopened period: nothing is live until the list is replayed.",
    )
    notice = serializers.CharField(allow_blank=True, help_text="Not published: may differ.")


def live_header(live: LiveList) -> dict[str, Any]:
    return {
        "period": live.label or None,
        "published": live.published,
        "rules": live.rules,
        "games_count": live.games_count,
        "waiting_for_replay": live.waiting_for_replay,
        "notice": provisional_notice(live),
    }


# -- the live list ---------------------------------------------------------------------------


ORDERINGS: dict[str, Callable[[LiveRow], Any]] = {
    "rank": lambda r: (r.rank is None, r.rank or 0, r.name, r.player_id),
    "live_rating": lambda r: (r.live_rating is None, r.live_rating or 0, r.name),
    "live_change": lambda r: (r.live_change is None, r.live_change or 0, r.name),
    "rating": lambda r: (r.rating is None, r.rating or 0, r.name),
    "games": lambda r: (r.games, r.name),
    "name": lambda r: (r.name, r.player_id),
}
ORDERING_CHOICES = [(f"{sign}{name}", f"{sign}{name}") for name in ORDERINGS for sign in ("", "-")]


class LiveFilter(django_filters.FilterSet):  # type: ignore[misc]
    """The live list's filters: the player's fields through the database (the club's
    players), the live figures in Python over the computed rows."""

    name = django_filters.CharFilter(
        field_name="name", lookup_expr="icontains", label="Part of the name."
    )
    federation = django_filters.CharFilter(
        field_name="federation", lookup_expr="iexact", label="Federation (three letters)."
    )
    title = django_filters.CharFilter(field_name="title", label="FIDE title (GM, IM, ...).")
    active = StrictBooleanFilter(field_name="active")
    played = StrictBooleanFilter(
        method="filter_noop", label="true: players with rated games this period; false: none."
    )
    ordering = django_filters.ChoiceFilter(
        choices=ORDERING_CHOICES,
        method="filter_noop",
        label="rank (default), live_rating, live_change, rating, games or name; - reverses.",
    )

    class Meta:
        model = Player
        fields = ["name", "federation", "title", "active"]

    def filter_noop(self, queryset: QuerySet[Player], name: str, value: Any) -> QuerySet[Player]:
        return queryset


class LiveListBase(ListScopedView):
    """What the JSON and the CSV of the live list share: the rows, filtered and ordered."""

    published_get = True
    published_scope = Generation.LIVE  # a game changes it
    filterset_class = LiveFilter
    # The rows are the service's, not a queryset's: the view applies the filter set, and
    # the schema documents it as django-filter's backend would.
    filter_backends: list[Any] = []
    schema_filter_backends = [DjangoFilterBackend]
    paged_get = True

    def get_queryset(self) -> QuerySet[Player]:
        if self.is_schema_view:
            return Player.objects.none()
        return club_players(club=self.club)

    def handle_exception(self, exc: Exception) -> Response:
        # Errors keep the one JSON error shape even when CSV was asked for.
        self.request.accepted_renderer = JSONRenderer()
        self.request.accepted_media_type = "application/json"
        return super().handle_exception(exc)

    def live_rows(self) -> tuple[RatingList, LiveList, list[LiveRow]]:
        rating_list = self.rating_list()
        filters = LiveFilter(self.request.query_params, queryset=self.get_queryset())
        if not filters.is_valid():
            field, errors = next(iter(filters.errors.items()))
            raise invalid_field(field, " ".join(str(e) for e in errors))
        live = live_list(rating_list=rating_list)
        rows: Sequence[LiveRow] = live.rows
        data = filters.form.cleaned_data
        if any(data.get(f) not in (None, "") for f in LiveFilter.Meta.fields):
            wanted = set(filters.qs.values_list("pk", flat=True))
            rows = [r for r in rows if r.player_id in wanted]
        played = data.get("played")
        if played not in (None, ""):
            rows = [r for r in rows if (r.games > 0) == played]
        ordering = data.get("ordering") or "rank"
        if ordering == "rank":
            # The figures come ranked (``ranked``: rank, then name and id; the unranked by
            # name and id), which is this order: sorting them again was a key call per
            # row on every first answer after a game (16 ms of 180 at 5,000 players).
            return rating_list, live, list(rows)
        key = ORDERINGS[ordering.removeprefix("-")]
        return rating_list, live, sorted(rows, key=key, reverse=ordering.startswith("-"))


LIVE_PARAMS = [CLUB_PARAM, LIST_PARAM]


@extend_schema(tags=["ratings"], parameters=LIVE_PARAMS)
class LiveListView(LiveListBase):
    """The live list: every player with games in the period the next close rates, or a
    rating, with the rating in force, the live rating the close would publish for the
    games entered so far and its change. Not published: the close may differ if games are
    added or corrected (``notice``). Computed by the close's own preview."""

    @extend_schema(operation_id="ratings_live", responses=LivePageSerializer)
    def get(self, request: Request, club: str, list: str) -> Response:
        return self.published(self._answer)

    def _answer(self) -> Response:
        rating_list, live, rows = self.live_rows()
        # DRF's paginator slices any sequence; its stubs name a queryset.
        page = self.paginate_queryset(rows)  # type: ignore[arg-type]
        context = {"name_order": rating_list.name_order}
        response = self.get_paginated_response(
            LiveRowSerializer(page, many=True, context=context).data
        )
        response.data.update(live_header(live))
        return response


class LiveCSVRenderer(RatingsCSVRenderer):
    """The live list as CSV, one row per player, in the asked order."""

    # Its own columns; the base's annotation is inferred as a tuple of its twelve.
    columns = (  # type: ignore[assignment]
        "rank",
        "player",
        "name",
        "title",
        "federation",
        "rating",
        "live_rating",
        "live_change",
        "games",
        "event",
        "period",
    )


@extend_schema(tags=["ratings"], parameters=LIVE_PARAMS)
class LiveCSVView(CSVOnlyView, LiveListBase):
    """The live list as CSV: every row, not paginated. Not published."""

    renderer_classes = [LiveCSVRenderer]
    # Every row in one file: no page parameters to declare.
    pagination_class = None  # type: ignore[assignment]

    @extend_schema(
        operation_id="ratings_live_csv",
        responses={
            (200, "text/csv"): OpenApiResponse(
                OpenApiTypes.STR,
                description="rank, player, name, title, federation, rating, live_rating, "
                "live_change, games, event, period.",
            )
        },
    )
    def get(self, request: Request, club: str, list: str) -> Response:
        response = self.published(self._answer)
        response["Content-Disposition"] = f'attachment; filename="{club}-{list}-live.csv"'
        return response

    def _answer(self) -> Response:
        rating_list, live, rows = self.live_rows()
        context = {"name_order": rating_list.name_order}
        body = LiveRowSerializer(rows, many=True, context=context).data
        return Response([{**row, "period": live.label} for row in body])


# -- one player ------------------------------------------------------------------------------


class LiveGameSerializer(serializers.Serializer):  # type: ignore[type-arg]
    game = serializers.IntegerField(source="game.pk")
    date = serializers.DateField(source="game.date")
    round = serializers.IntegerField(source="game.round", allow_null=True)
    tournament = serializers.IntegerField(source="game.tournament_id", allow_null=True)
    opponent = serializers.IntegerField(source="opponent.pk")
    opponent_name = serializers.CharField(source="opponent.name")
    colour = serializers.ChoiceField(choices=["white", "black"])
    result = serializers.CharField(source="game.result")
    score = serializers.FloatField()
    rated = serializers.BooleanField(source="played", help_text="Played over the board and rated.")
    own_rating = serializers.IntegerField(allow_null=True, help_text="In force for the game.")
    opponent_rating = serializers.IntegerField(allow_null=True, help_text="In force for the game.")
    counted = serializers.SerializerMethodField(help_text="The game counts on its own.")
    expected = serializers.SerializerMethodField(help_text="Expected score (null: none).")
    figure = serializers.SerializerMethodField(
        help_text="The figure the system scores it by (the counted difference; Glicko-2: the "
        "opponent's RD)."
    )
    change = serializers.SerializerMethodField(
        help_text="The game's contribution to the live change, unrounded."
    )
    note = serializers.SerializerMethodField(help_text="Why it counted as it did (engine's words).")

    def _line(self, game: Any, name: str) -> float | None:
        """A figure of the game's explanation (a Fraction, a float or None) as a float."""
        value: Number | None = None if game.line is None else getattr(game.line, name)
        return None if value is None else float(value)

    @extend_schema_field(OpenApiTypes.BOOL)
    def get_counted(self, game: Any) -> bool:
        return bool(game.line is not None and game.line.counted)

    @extend_schema_field(OpenApiTypes.DOUBLE)
    def get_expected(self, game: Any) -> float | None:
        return self._line(game, "expected")

    @extend_schema_field(OpenApiTypes.DOUBLE)
    def get_figure(self, game: Any) -> float | None:
        return self._line(game, "figure")

    @extend_schema_field(OpenApiTypes.DOUBLE)
    def get_change(self, game: Any) -> float | None:
        return self._line(game, "change")

    @extend_schema_field(OpenApiTypes.STR)
    def get_note(self, game: Any) -> str:
        return "" if game.line is None else game.line.note


class LivePlayerSerializer(serializers.Serializer):  # type: ignore[type-arg]
    player = serializers.IntegerField()
    list = serializers.CharField()
    period = serializers.CharField(allow_null=True, help_text="YYYY-MM; null: none open.")
    published = serializers.DateField(allow_null=True)
    rules = serializers.CharField(allow_blank=True)
    waiting_for_replay = serializers.CharField(allow_blank=True)
    notice = serializers.CharField(allow_blank=True)
    live = LiveRowSerializer(
        allow_null=True, help_text="The player's live row (null: no games and no rating)."
    )
    pooled = serializers.BooleanField(
        help_text="The games are pooled toward a first rating (FIDE 8.2), not scored one by one."
    )
    total = serializers.IntegerField(
        allow_null=True, help_text="The games' contributions added up and rounded."
    )
    games = LiveGameSerializer(many=True)


@extend_schema(tags=["players"], parameters=[CLUB_PARAM, PLAYER_PARAM, LIST_QUERY_PARAM])
class PlayerLiveView(PlayerObjectMixin):
    """The player's live figure on one list, with each of their games in the period the
    next close rates and its contribution (the list's rating system's explanation). Not
    published: the close may differ if games are added or corrected."""

    published_get = True
    published_scope = Generation.LIVE  # a game changes it

    @extend_schema(operation_id="players_live", responses=LivePlayerSerializer)
    def get(self, request: Request, club: str, id: int) -> Response:
        return self.published(self._answer)

    def _answer(self) -> Response:
        player, rating_list = self.player_on_list()
        rating_list.club = self.club
        figure = live_player(rating_list=rating_list, player=player)
        context = {"name_order": rating_list.name_order}
        body = {
            "player": player.pk,
            "list": rating_list.slug,
            **live_header(figure.live),
            "live": None
            if figure.row is None
            else LiveRowSerializer(figure.row, context=context).data,
            "pooled": figure.pooled,
            "total": figure.total,
            "games": LiveGameSerializer(figure.games, many=True).data,
        }
        body.pop("games_count")
        return Response(body)
