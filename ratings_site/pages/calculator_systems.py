"""The calculator's "every system" mode: one player's month under any rating system of the
registry (players.rating.systems), with the rules a new list of that system starts from.
No system is named here: one added to the registry is in the mode's choices and is
calculated by its own plan (players/rating/systems/one_month.py)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy

from players.models import RatingList, list_presets
from players.rating import ListKind, list_kind, parse_result
from players.rating.period import ListSettings
from players.rating.systems import SYSTEMS, RatingSystem, system_for
from players.rating.systems.one_month import one_month


def system_choices() -> list[tuple[str, str]]:
    # A callable: the systems registered when the form is shown.
    return [(system.name, system.label) for system in SYSTEMS.values()]


class SystemCalculatorForm(forms.Form):
    system = forms.ChoiceField(label=gettext_lazy("Rating system"), choices=system_choices)
    rating = forms.IntegerField(
        label=gettext_lazy("Your rating"), min_value=0, max_value=4000, required=False
    )


def settings_of(system: RatingSystem) -> ListSettings:
    """The rules of a new standard list of ``system``: its preset, as rating_list_create
    takes it (players.services.entries), on an unsaved list with the model's defaults."""
    kind = ListKind.STANDARD.value
    preset = list_presets()[system.preset or list_kind(kind).fide_preset]
    return RatingList(**{**preset, "kind": kind, "system": system.name}).settings()


def calculate(form: SystemCalculatorForm, games: forms.BaseFormSet[Any]) -> dict[str, Any]:
    """The month of the valid ``form`` and ``games`` as the page shows it."""
    system = system_for(form.cleaned_data["system"])
    played = [
        (g.cleaned_data["opponent_rating"], parse_result(g.cleaned_data["result"]))
        for g in games.forms
        if g.cleaned_data.get("opponent_rating") is not None
    ]
    change = one_month(
        system,
        settings_of(system),
        month=timezone.localdate().replace(day=1),
        rating=form.cleaned_data["rating"],
        games=played,
    )
    _, after = system.states_of(change)
    return {
        "system": system,
        "change": change,
        "score": Fraction(change.score),
        "state": [
            (field.label, value, field.places)
            for field in system.state_fields
            if (value := system.state_value(after, field.name)) is not None
        ],
    }
