"""The rules engine: FIDE rating rules over plain values. Pure Python: no Django import here.

Everything the rest of the project uses is re-exported from this package, except
``players.rating.bulk`` (numpy), imported on its own by the period close so that the
calculator and the pages do not load numpy.
"""

from __future__ import annotations

from players.rating.adjustment import ADJUSTED_LIST, march_2024_adjustment
from players.rating.change import period_change
from players.rating.classes import RatingClass, apply_floor, rating_band, rating_class
from players.rating.differences import GameScore, counted_difference, not_rated_reason, score_game
from players.rating.expected import (
    expected_from_formula,
    expected_from_table,
    table_pd_hundredths,
)
from players.rating.first_rating import first_rating
from players.rating.k_factor import (
    cap_k,
    fixed_k,
    junior_age,
    k_change_reason,
    k_factor_for,
    list_k,
)
from players.rating.kinds import (
    ListKind,
    list_kind,
    list_kinds,
    register_list_kind,
    unregister_list_kind,
)
from players.rating.performance import (
    dp_from_percentage,
    performance_exact,
    performance_fide,
    performance_linear,
)
from players.rating.results import parse_result
from players.rating.rounding import round_half_away, round_ratio_half_away
from players.rating.types import (
    CountedDifference,
    ExpectedMethod,
    FirstRating,
    GameInput,
    GameLine,
    KChangeReason,
    KFactor,
    KReason,
    Number,
    PeriodChange,
    PeriodSums,
    PlayerState,
    RatingRules,
)

__all__ = [
    "ADJUSTED_LIST",
    "CountedDifference",
    "ExpectedMethod",
    "FirstRating",
    "GameInput",
    "GameLine",
    "GameScore",
    "KChangeReason",
    "KFactor",
    "KReason",
    "ListKind",
    "Number",
    "PeriodChange",
    "PeriodSums",
    "PlayerState",
    "RatingClass",
    "RatingRules",
    "apply_floor",
    "cap_k",
    "counted_difference",
    "dp_from_percentage",
    "expected_from_formula",
    "expected_from_table",
    "first_rating",
    "fixed_k",
    "junior_age",
    "k_change_reason",
    "k_factor_for",
    "list_k",
    "list_kind",
    "list_kinds",
    "march_2024_adjustment",
    "not_rated_reason",
    "parse_result",
    "performance_exact",
    "performance_fide",
    "performance_linear",
    "period_change",
    "rating_band",
    "rating_class",
    "register_list_kind",
    "round_half_away",
    "round_ratio_half_away",
    "score_game",
    "table_pd_hundredths",
    "unregister_list_kind",
]
