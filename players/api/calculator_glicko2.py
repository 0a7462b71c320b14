"""POST /api/v1/calculate/glicko2/: the calculator's Glicko-2 mode (one player, a rating
period's games with each opponent's rating and RD). Open to anonymous users (throttled,
like the Elo calculator)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from rest_framework import serializers

from players.api.calculator import MAX_RATING, CalculatorView, ResultField, calculator_schema
from players.rating.glicko2 import (
    DEFAULT_RD,
    DEFAULT_TAU,
    DEFAULT_VOLATILITY,
    Glicko2Game,
    Glicko2Rating,
    Glicko2Settings,
    expected_on_glicko_scale,
    published,
    rate_period,
)
from players.rating.rounding import round_half_away

RD_LIMIT = 1000


class Glicko2GameInSerializer(serializers.Serializer):  # type: ignore[type-arg]
    opponent_rating = serializers.FloatField(min_value=0, max_value=MAX_RATING)
    opponent_rd = serializers.FloatField(min_value=1, max_value=RD_LIMIT, default=DEFAULT_RD)
    result = ResultField(help_text='"1", "0.5", "0", "1/2", "½", "=", "win", "draw" or "loss".')


class Glicko2InSerializer(serializers.Serializer):  # type: ignore[type-arg]
    rating = serializers.FloatField(min_value=0, max_value=MAX_RATING, default=1500)
    rd = serializers.FloatField(min_value=1, max_value=RD_LIMIT, default=DEFAULT_RD)
    volatility = serializers.FloatField(min_value=0.000001, max_value=1, default=DEFAULT_VOLATILITY)
    tau = serializers.FloatField(
        min_value=0.01, max_value=10, default=DEFAULT_TAU, help_text="0.3 to 1.2 usual."
    )
    games: serializers.ListSerializer[Any] = serializers.ListSerializer(
        child=Glicko2GameInSerializer(), allow_empty=True, max_length=100
    )


class Glicko2GameOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    opponent_rating = serializers.FloatField()
    opponent_rd = serializers.FloatField()
    score = serializers.FloatField()
    expected_score = serializers.FloatField(help_text="E = 1 / (1 + exp(-g(phi_j)(mu - mu_j))).")


class Glicko2OutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    rating = serializers.FloatField()
    rd = serializers.FloatField()
    volatility = serializers.FloatField()
    tau = serializers.FloatField()
    games_count = serializers.IntegerField()
    score = serializers.FloatField()
    expected_score = serializers.FloatField()
    v = serializers.FloatField(allow_null=True, help_text="Step 3 (null without games).")
    delta = serializers.FloatField(allow_null=True, help_text="Step 4 (null without games).")
    new_rating = serializers.FloatField(help_text="r', unrounded.")
    new_rd = serializers.FloatField()
    new_volatility = serializers.FloatField()
    published_rating = serializers.IntegerField(help_text="r' as a list publishes it.")
    published_rd = serializers.FloatField(help_text="RD' to two decimals.")
    games = Glicko2GameOutSerializer(many=True)
    summary = serializers.CharField()


def run_glicko2(data: dict[str, Any]) -> dict[str, Any]:
    """Validated input (from the serializer or the page's form) -> the response body."""
    player = Glicko2Rating(data["rating"], data["rd"], data["volatility"])
    games = [
        Glicko2Game(g["opponent_rating"], g["opponent_rd"], float(g["result"]))
        for g in data["games"]
    ]
    # The paper's rules: no floor and no cap on RD (a list may set both).
    result = rate_period(player, games, Glicko2Settings(tau=data["tau"]))
    shown = published(result.after, lowest=0, highest=MAX_RATING)
    after = result.after
    summary = (
        f"{len(games)} game{'s' if len(games) != 1 else ''}, score "
        f"{Fraction(result.score).limit_denominator(2)}: {player.rating:g} (RD {player.rd:g}) -> "
        f"{after.rating:.2f} (RD {after.rd:.2f}), published {int(shown.rating)} ± "
        f"{round_half_away(2 * shown.rd)}."
    )
    body = {
        "rating": player.rating,
        "rd": player.rd,
        "volatility": player.volatility,
        "tau": data["tau"],
        "games_count": result.games,
        "score": result.score,
        "expected_score": result.expected,
        "v": result.v,
        "delta": result.delta,
        "new_rating": after.rating,
        "new_rd": after.rd,
        "new_volatility": after.volatility,
        "published_rating": int(shown.rating),
        "published_rd": shown.rd,
        "games": [
            {
                "opponent_rating": g.opponent_rating,
                "opponent_rd": g.opponent_rd,
                "score": g.score,
                "expected_score": expected_on_glicko_scale(
                    player.rating, g.opponent_rating, g.opponent_rd
                ),
            }
            for g in games
        ],
        "summary": summary,
    }
    return body


_GLICKMAN = {
    "rating": 1500,
    "rd": 200,
    "volatility": 0.06,
    "tau": 0.5,
    "games": [
        {"opponent_rating": 1400, "opponent_rd": 30, "result": "1"},
        {"opponent_rating": 1550, "opponent_rd": 100, "result": "0"},
        {"opponent_rating": 1700, "opponent_rd": 300, "result": "0"},
    ],
}


@calculator_schema("calculate_glicko2", "Glickman's example", _GLICKMAN)
class Glicko2CalculateView(CalculatorView):
    """Rate one player's rating period with Glicko-2: r, RD and volatility after it."""

    request_in = Glicko2InSerializer
    response_out = Glicko2OutSerializer

    def answer(self, data: dict[str, Any]) -> dict[str, Any]:
        return run_glicko2(data)
