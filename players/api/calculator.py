"""POST /api/v1/calculate/: the rating calculator for API consumers and our own page.

Open to anonymous users (throttled). The request and response contract is fixed: see
the input and output serializers, which drf-spectacular turns into the OpenAPI schema.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from datetime import date
from fractions import Fraction
from typing import Any

from django.utils import timezone
from drf_spectacular.utils import (
    OpenApiExample,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from players.http.api import ListKindField
from players.rating import ExpectedMethod, ListKind, RatingRules, list_kind, parse_result
from players.rating.calculator import CalculatorGame, CalculatorResult, PlayerDetails, calculate

MAX_RATING = 4000


RESULT_SPELLINGS = ["1", "0.5", "0", "1/2", "½", "=", "win", "draw", "loss"]


# One type per field: client generators cannot express a union of a string enum and a
# number enum (the operation is left out of the client), so the schema offers strings
# only. JSON numbers 1, 0.5 and 0 are still accepted, undocumented, so clients written
# against the old schema keep working.
@extend_schema_field({"type": "string", "enum": RESULT_SPELLINGS})
class ResultField(serializers.Field):  # type: ignore[type-arg]
    """A game result in any spelling people type: "1", "0.5", "1/2", "½", "=", "win", ..."""

    default_error_messages = {
        "invalid": (
            'Unknown result {value!r}: use 1, 0.5 or 0 (also "1/2", "½", "=", "win", "draw", "loss").'
        )
    }

    def to_internal_value(self, data: Any) -> Fraction:
        try:
            return parse_result(data)
        except ValueError:
            self.fail("invalid", value=data)
            raise  # unreachable: fail() raises; keeps type checkers satisfied

    def to_representation(self, value: Fraction) -> float:
        return float(value)


class GameInSerializer(serializers.Serializer):  # type: ignore[type-arg]
    opponent_rating = serializers.IntegerField(
        min_value=0,
        max_value=MAX_RATING,
        allow_null=True,
        help_text="The opponent's rating, 0 to 4000 (null: unrated opponent, the game is not rated).",
    )
    result = ResultField(
        help_text='Your result: "1", "0.5", "0", "1/2", "½", "=", "win", "draw" or "loss".'
    )


class PlayerInSerializer(serializers.Serializer):  # type: ignore[type-arg]
    rated_games = serializers.IntegerField(min_value=0, max_value=100_000, default=0)
    birth_year = serializers.IntegerField(
        min_value=1850, max_value=2100, allow_null=True, default=None
    )
    reached_2400 = serializers.BooleanField(default=False)
    as_of = serializers.DateField(
        required=False,
        help_text="Date of the period (default: today); its year decides the junior rule.",
    )


class CalculateInSerializer(serializers.Serializer):  # type: ignore[type-arg]
    rating = serializers.IntegerField(
        min_value=0,
        max_value=MAX_RATING,
        allow_null=True,
        help_text="Your rating; null if unrated.",
    )
    games: serializers.ListSerializer[Any] = serializers.ListSerializer(
        child=GameInSerializer(), allow_empty=False, min_length=1, max_length=100
    )
    k_factor = serializers.IntegerField(min_value=1, max_value=100, required=False, allow_null=True)
    player = PlayerInSerializer(required=False, allow_null=True)
    expected_score = serializers.ChoiceField(
        choices=[m.value for m in ExpectedMethod], default=ExpectedMethod.FIDE_TABLE.value
    )
    rating_list = ListKindField(default=ListKind.STANDARD.value)
    apply_400_rule = serializers.BooleanField(default=True)


class GameOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    opponent_rating = serializers.IntegerField(allow_null=True)
    score = serializers.FloatField()
    rating_difference = serializers.IntegerField(
        allow_null=True, help_text="Your rating minus the opponent's."
    )
    counted_difference = serializers.IntegerField(
        allow_null=True, help_text="After the 400-point rule."
    )
    capped = serializers.BooleanField()
    expected_score = serializers.FloatField(allow_null=True)
    change = serializers.FloatField(allow_null=True, help_text="K x (score - expected), unrounded.")
    rated = serializers.BooleanField()
    note = serializers.CharField(allow_blank=True)


class PerformanceOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    fide = serializers.IntegerField(allow_null=True, help_text="FIDE TPR: Ra + dp.")
    exact = serializers.FloatField(allow_null=True, help_text="Formula-exact; null at 0% or 100%.")
    linear = serializers.FloatField(allow_null=True, help_text="Average + 400 x (W - L) / n.")


class CalculateOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    rating = serializers.IntegerField(allow_null=True)
    k_factor = serializers.IntegerField(
        allow_null=True, help_text="The K used, after the 700 rule."
    )
    k_factor_base = serializers.IntegerField(allow_null=True, help_text="K before the 700 rule.")
    k_reason = serializers.CharField(
        allow_null=True, help_text="fixed, new_player, junior, standard, reached_2400."
    )
    k_reason_text = serializers.CharField(allow_blank=True)
    games_count = serializers.IntegerField(help_text="Rated games counted.")
    score = serializers.FloatField()
    expected_score = serializers.FloatField(allow_null=True)
    change_unrounded = serializers.FloatField(allow_null=True)
    change = serializers.IntegerField(allow_null=True)
    new_rating = serializers.IntegerField(allow_null=True)
    rating_class = serializers.CharField(allow_null=True)
    games = GameOutSerializer(many=True)
    performance = PerformanceOutSerializer()
    initial_rating = serializers.IntegerField(
        allow_null=True, help_text="First rating (FIDE 8.2) when rating is null."
    )
    initial_rating_note = serializers.CharField(allow_blank=True)
    notes = serializers.ListField(child=serializers.CharField())
    summary = serializers.CharField()


def result_as_dict(result: CalculatorResult) -> dict[str, Any]:
    """The response body; Fractions become JSON numbers only here, at the edge."""
    return {
        "rating": result.rating,
        "k_factor": result.k_factor,
        "k_factor_base": result.k_factor_base,
        "k_reason": result.k_reason,
        "k_reason_text": result.k_reason_text,
        "games_count": result.games_count,
        "score": result.score,
        "expected_score": result.expected_score,
        "change_unrounded": result.change_unrounded,
        "change": result.change,
        "new_rating": result.new_rating,
        "rating_class": result.rating_class,
        "games": [
            {
                "opponent_rating": line.opponent_rating,
                "score": line.score,
                "rating_difference": line.rating_difference,
                "counted_difference": line.counted_difference,
                "capped": line.capped,
                "expected_score": line.expected,
                "change": line.change,
                "rated": line.rated,
                "note": line.note,
            }
            for line in result.lines
        ],
        "performance": {
            "fide": result.performance.fide,
            "exact": result.performance.exact,
            "linear": result.performance.linear,
        },
        "initial_rating": result.initial_rating,
        "initial_rating_note": result.initial_rating_note,
        "notes": list(result.notes),
        "summary": result.summary,
    }


def run_calculation(data: dict[str, Any]) -> CalculatorResult:
    """Validated input (from the serializer or the page's form) -> engine result."""
    player_data = data.get("player")
    player = None
    if player_data is not None:
        as_of: date = player_data.get("as_of") or timezone.localdate()
        player = PlayerDetails(
            rated_games=player_data["rated_games"],
            birth_year=player_data["birth_year"],
            reached_2400=player_data["reached_2400"],
            as_of=as_of,
        )
    rules = RatingRules(
        list_kind=list_kind(data["rating_list"]),
        method=ExpectedMethod(data["expected_score"]),
        apply_400_rule=data["apply_400_rule"],
    )
    games = [
        CalculatorGame(opponent_rating=g["opponent_rating"], score=g["result"])
        for g in data["games"]
    ]
    return calculate(
        rating=data["rating"],
        games=games,
        rules=rules,
        k_factor=data.get("k_factor"),
        player=player,
    )


class CalculatorView(APIView, ABC):
    """A mode of the calculator: open to anonymous callers, the modes throttled together.
    ``request_in`` reads the request, ``answer`` rates it, ``response_out`` writes it."""

    permission_classes = [AllowAny]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "calculator"
    request_in: type[serializers.Serializer[Any]]
    response_out: type[serializers.Serializer[Any]]

    @abstractmethod
    def answer(self, data: dict[str, Any]) -> dict[str, Any]:
        """The response body for the request's validated data."""

    def post(self, request: Request) -> Response:
        serializer = self.request_in(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(self.response_out(self.answer(serializer.validated_data)).data)


def calculator_schema(
    operation_id: str, example: str, value: dict[str, Any]
) -> Callable[[type[CalculatorView]], type[CalculatorView]]:
    """The OpenAPI operation of a calculator mode, with one worked request as its example."""

    def decorate(view: type[CalculatorView]) -> type[CalculatorView]:
        post = extend_schema(
            operation_id=operation_id,
            request=view.request_in,
            responses={200: view.response_out},
            tags=["calculator"],
            examples=[OpenApiExample(example, value=value, request_only=True)],
        )
        return extend_schema_view(post=post)(view)

    return decorate


# Seed 002's worked example.
_FIVE_GAMES = {
    "rating": 1850,
    "k_factor": 20,
    "games": [
        {"opponent_rating": 1792, "result": "1"},
        {"opponent_rating": 1911, "result": "1/2"},
        {"opponent_rating": 2010, "result": "0"},
        {"opponent_rating": 2290, "result": "draw"},
        {"opponent_rating": 1745, "result": "win"},
    ],
}


@calculator_schema("calculate", "FIDE table, five games (seed 002)", _FIVE_GAMES)
class CalculateView(CalculatorView):
    """Rate one player's games of one period: expected scores, K, change, new rating."""

    request_in = CalculateInSerializer
    response_out = CalculateOutSerializer

    def answer(self, data: dict[str, Any]) -> dict[str, Any]:
        return result_as_dict(run_calculation(data))
