"""A list's statistics: the figures of the statistics page.

/api/v1/clubs/{club}/lists/{list}/statistics/   GET

Read by anyone who may see the club (a private club's members only), as the published
list is; published figures only, so the answer is kept under the club's published
generation (tournaments/statistics.py says what each figure counts).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from players.api.clubs import CLUB_PARAM, LIST_PARAM
from players.names import display_name
from tournaments.api.periods import ListScopedView
from tournaments.statistics import ListStatistics, list_statistics

# -- serializers -----------------------------------------------------------------------------


class BucketSerializer(serializers.Serializer):  # type: ignore[type-arg]
    lowest = serializers.IntegerField(help_text="The bar's lowest rating.")
    highest = serializers.IntegerField(help_text="Its highest: 100 points per bar.")
    players = serializers.IntegerField()


class ClassCountSerializer(serializers.Serializer):  # type: ignore[type-arg]
    band = serializers.CharField(help_text='The rating class, named by its numbers ("1600-1799").')
    lowest = serializers.IntegerField()
    highest = serializers.IntegerField(allow_null=True, help_text="null: the top class.")
    players = serializers.IntegerField()


class MonthSerializer(serializers.Serializer):  # type: ignore[type-arg]
    period = serializers.CharField(source="label", help_text="YYYY-MM.")
    games = serializers.IntegerField(help_text="Every game of the month (unrated, forfeits).")
    players = serializers.IntegerField(help_text="Players the close rated on games.")


class NamedSerializer(serializers.Serializer):  # type: ignore[type-arg]
    def shown(self, name: str) -> str:
        return display_name(name, str(self.context.get("name_order", "")))


class ClimberSerializer(NamedSerializer):
    player = serializers.IntegerField(source="player_id")
    name = serializers.SerializerMethodField(help_text="In the list's name order.")
    start = serializers.IntegerField(
        help_text="The rating in force when the year began (or the first rating, if later)."
    )
    rating = serializers.IntegerField(help_text="The rating on the list in force.")
    gain = serializers.IntegerField()

    def get_name(self, climber: Any) -> str:
        return self.shown(climber.name)


class PairingSerializer(NamedSerializer):
    player = serializers.IntegerField(source="player_id", help_text="The lower player id.")
    player_name = serializers.SerializerMethodField()
    opponent = serializers.IntegerField(source="opponent_id")
    opponent_name = serializers.SerializerMethodField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField(help_text="The first player's (forfeits count).")
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    score = serializers.FloatField(help_text="The first player's score.")
    opponent_score = serializers.FloatField()

    def get_player_name(self, pairing: Any) -> str:
        return self.shown(pairing.player_name)

    def get_opponent_name(self, pairing: Any) -> str:
        return self.shown(pairing.opponent_name)


class StatisticsSerializer(serializers.Serializer):  # type: ignore[type-arg]
    period = serializers.SerializerMethodField(
        help_text="YYYY-MM: the list in force (the latest closed period); null: none yet."
    )
    players = serializers.IntegerField(help_text="Rated players on the list in force.")
    median = serializers.IntegerField(
        allow_null=True, help_text="The middle rating (of two middles, the lower)."
    )
    distribution = BucketSerializer(source="buckets", many=True)
    classes = ClassCountSerializer(many=True, help_text="Highest first.")
    activity = MonthSerializer(many=True, help_text="The newest 24 closed months, oldest first.")
    climbers_since = serializers.SerializerMethodField(
        help_text="YYYY-MM: the first month of the climbers' twelve."
    )
    climbers = ClimberSerializer(many=True, help_text="The ten who gained most, who gained.")
    pairings = PairingSerializer(many=True, help_text="The ten pairs who met most often.")

    def get_period(self, stats: ListStatistics) -> str | None:
        return stats.period.label if stats.period else None

    def get_climbers_since(self, stats: ListStatistics) -> str | None:
        return f"{stats.since:%Y-%m}" if stats.since else None


# -- the view ----------------------------------------------------------------------------------


@extend_schema(tags=["ratings"], parameters=[CLUB_PARAM, LIST_PARAM])
class StatisticsView(ListScopedView):
    """The list in force in figures: distribution, rating classes, activity by month, the
    year's climbers, the most played pairings (the statistics page's figures)."""

    published_get = True

    @extend_schema(operation_id="statistics_read", responses=StatisticsSerializer)
    def get(self, request: Request, club: str, list: str) -> Response:
        return self.published(self._answer)

    def _answer(self) -> Response:
        rating_list = self.rating_list()
        stats = list_statistics(rating_list=rating_list)
        context = {"name_order": rating_list.name_order}
        return Response(StatisticsSerializer(stats, context=context).data)
