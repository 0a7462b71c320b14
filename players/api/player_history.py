"""The player history answers' serializers: a player's published periods, the start
of their history on a list, and their K history."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from players.api.state import StateFigure, StateObject
from players.models import (
    KChangeReason,
    KReason,
    PlayerRating,
    RatingChange,
    translated_choices,
)
from players.rating import ListKind

PLAYER_PARAM = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The player's id.")
LIST_QUERY_PARAM = OpenApiParameter(
    "list",
    str,
    OpenApiParameter.QUERY,
    default=ListKind.STANDARD.value,
    description="The list's slug (default: standard).",
)


class HistoryOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    period = serializers.CharField(source="period.label", help_text="YYYY-MM.")
    rating_before = serializers.IntegerField(allow_null=True)
    rating_after = serializers.IntegerField(allow_null=True)
    change = serializers.IntegerField(allow_null=True)
    adjustment = serializers.IntegerField(
        help_text="FIDE's one-off adjustment inside rating_after (else 0): 1 March 2024 "
        "(ratings below 2000), or 1 October 2022 on rapid and blitz (to 100 below the "
        "standard rating; the close of 2022-09)."
    )
    change_unrounded = serializers.DecimalField(
        max_digits=12, decimal_places=4, allow_null=True, coerce_to_string=False
    )
    k_factor = serializers.IntegerField(allow_null=True)
    k_reason = serializers.CharField(allow_blank=True)
    games = serializers.IntegerField(help_text="Rated games in the period.")
    score = serializers.DecimalField(max_digits=7, decimal_places=1, coerce_to_string=False)
    expected_score = serializers.DecimalField(
        source="expected", max_digits=12, decimal_places=4, coerce_to_string=False
    )
    event = serializers.ChoiceField(choices=translated_choices(RatingChange.Event))
    rd_before = StateFigure(
        "rd", state_field="state_before", help_text="Glicko-2 lists (else null)."
    )
    rd_after = StateFigure("rd", state_field="state_after")
    volatility_before = StateFigure("volatility", state_field="state_before")
    volatility_after = StateFigure("volatility", state_field="state_after")
    state_before = StateObject(state_field="state_before")
    state_after = StateObject(state_field="state_after")


class HistoryEntrySerializer(serializers.Serializer):  # type: ignore[type-arg]
    """The start of the history: the rating the club entered, or the FIDE list seeded."""

    rating = serializers.IntegerField(
        source="entry_rating", allow_null=True, help_text="null: unrated."
    )
    rated_games = serializers.IntegerField(source="entry_rated_games")
    reached_2400 = serializers.BooleanField(source="entry_reached_2400")
    month = serializers.SerializerMethodField(
        help_text="YYYY-MM: the first period on the list; null: from the list's first period."
    )
    note = serializers.CharField(
        source="entry_note",
        allow_blank=True,
        help_text='Why it starts there when not typed in: "FIDE rating list of YYYY-MM" (the '
        "FIDE list import's seed_ratings).",
    )
    rd = StateFigure("rd", state_field="entry_state", help_text="Glicko-2 lists.")
    volatility = StateFigure("volatility", state_field="entry_state")
    state = StateObject(state_field="entry_state")

    def get_month(self, rating: PlayerRating) -> str | None:
        return None if rating.entry_month is None else f"{rating.entry_month:%Y-%m}"


class HistoryPageSerializer(serializers.Serializer):  # type: ignore[type-arg]
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = HistoryOutSerializer(many=True)
    entry = HistoryEntrySerializer(
        allow_null=True, help_text="Where the history starts, before its first period."
    )


class KHistoryOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    period = serializers.CharField(help_text="YYYY-MM: the first period the K applies to.")
    k_factor = serializers.IntegerField(source="new_k")
    old_k_factor = serializers.IntegerField(source="old_k", allow_null=True)
    k_reason = serializers.ChoiceField(source="new_reason", choices=translated_choices(KReason))
    reason = serializers.ChoiceField(
        choices=translated_choices(KChangeReason), help_text="Why K changed."
    )
    note = serializers.CharField(allow_blank=True)
