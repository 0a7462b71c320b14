"""The models' choice enums mirror the engine's enums (the engine cannot import Django, so
the values are written twice): a value added on one side only would be stored but not
understood, or understood but refused by the database's check constraints."""

from __future__ import annotations

from enum import Enum

import pytest
from django.db import models

from players import models as player_models
from players import rating as engine
from players.rating.period import GAME_RESULTS, PeriodEvent
from tournaments.models import Result


@pytest.mark.parametrize(
    ("model_enum", "engine_enum"),
    [
        (player_models.ListKind, engine.ListKind),
        (player_models.ExpectedMethod, engine.ExpectedMethod),
        (player_models.KReason, engine.KReason),
        (player_models.KChangeReason, engine.KChangeReason),
        (player_models.RatingChange.Event, PeriodEvent),
        (Result, GAME_RESULTS),
    ],
)
def test_model_choices_have_the_engine_values(
    model_enum: type[models.TextChoices], engine_enum: type[Enum] | dict[str, object]
) -> None:
    engine_values = (
        set(engine_enum) if isinstance(engine_enum, dict) else {m.value for m in engine_enum}
    )
    assert set(model_enum.values) == engine_values
