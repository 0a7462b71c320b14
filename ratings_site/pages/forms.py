"""Forms of the players app's pages."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.http import QueryDict
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext, gettext_lazy, pgettext, pgettext_lazy

from players.models import Title, list_kind_choices, translated_choices
from players.rating import ExpectedMethod, ListKind, parse_result
from players.rating.categories import AGE_CATEGORIES, AgeCategory

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

K_CHOICES = [
    ("40", gettext_lazy("40 (new player or junior)")),
    ("20", "20"),
    ("10", gettext_lazy("10 (reached 2400)")),
    ("auto", gettext_lazy("Automatic from my details")),
    ("custom", pgettext_lazy("a K factor", "Custom")),
]
RESULT_CHOICES = [
    ("1", gettext_lazy("Win")),
    ("0.5", gettext_lazy("Draw")),
    ("0", gettext_lazy("Loss")),
]
METHOD_CHOICES = translated_choices(ExpectedMethod)


class CalculatorForm(forms.Form):
    rating = forms.IntegerField(
        label=gettext_lazy("Your rating"),
        min_value=0,
        max_value=4000,
        required=False,
        help_text=gettext_lazy(
            "Leave empty if you are unrated: the calculator then works out a first rating."
        ),
    )
    k_choice = forms.ChoiceField(label=gettext_lazy("K factor"), choices=K_CHOICES, initial="20")
    custom_k = forms.IntegerField(
        label=gettext_lazy("Custom K"), min_value=1, max_value=100, required=False
    )
    rated_games = forms.IntegerField(
        label=gettext_lazy("Rated games so far"), min_value=0, max_value=100_000, required=False
    )
    birth_year = forms.IntegerField(
        label=gettext_lazy("Birth year"), min_value=1850, max_value=2100, required=False
    )
    reached_2400 = forms.BooleanField(
        label=gettext_lazy("Published rating has reached 2400"), required=False
    )
    expected_score = forms.ChoiceField(
        label=gettext_lazy("Expected score"),
        choices=METHOD_CHOICES,
        initial=ExpectedMethod.FIDE_TABLE.value,
    )
    rating_list = forms.ChoiceField(
        # A callable: the kinds registered when the form is shown (players.rating.kinds).
        label=gettext_lazy("List"),
        choices=list_kind_choices,
        initial=ListKind.STANDARD.value,
    )
    apply_400_rule = forms.BooleanField(
        label=gettext_lazy("400-point rule"), required=False, initial=True
    )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("k_choice") == "custom" and cleaned.get("custom_k") is None:
            self.add_error(
                "custom_k", gettext("Enter a K from 1 to 100, or pick one of the K factors.")
            )
        return cleaned


class GameForm(forms.Form):
    opponent_rating = forms.IntegerField(
        label=gettext_lazy("Opponent rating"), min_value=0, max_value=4000, required=False
    )
    result = forms.ChoiceField(label=gettext_lazy("Result"), choices=RESULT_CHOICES, initial="1")


class BaseGameFormSet(forms.BaseFormSet):  # type: ignore[type-arg]
    def clean(self) -> None:
        if any(self.errors):
            return
        if not any(form.cleaned_data.get("opponent_rating") is not None for form in self.forms):
            raise forms.ValidationError(
                gettext("Enter at least one game: an opponent's rating and your result.")
            )


GameFormSet = forms.formset_factory(
    GameForm,
    formset=BaseGameFormSet,
    extra=0,
    min_num=1,
    max_num=100,
    validate_max=True,
    absolute_max=100,
)


def field_errors(form: forms.Form, games: forms.BaseFormSet[Any]) -> list[dict[str, str]]:
    """Every field in error as ``{"id", "label", "message"}``: the result fragment lists
    them (each a link to its field) and the page's script marks the same fields as the form
    without JavaScript does. Errors not tied to a field have an empty ``id``."""
    found: list[dict[str, str]] = []
    game = gettext("Game %(number)s: ")
    rows = [(form, ""), *((g, game % {"number": n}) for n, g in enumerate(games.forms, start=1))]
    for each, prefix in rows:
        for name, errors in each.errors.items():
            if name == "__all__":
                found += [{"id": "", "label": "", "message": str(e)} for e in errors]
                continue
            bound = each[name]
            label = f"{prefix}{bound.label}"
            found += [{"id": bound.auto_id, "label": label, "message": str(e)} for e in errors]
    found += [{"id": "", "label": "", "message": str(e)} for e in games.non_form_errors()]
    return found


def calculation_data(form: CalculatorForm, games: forms.BaseFormSet[Any]) -> dict[str, Any]:
    """The page's valid input in the shape the API's serializer produces, so both interfaces
    run the very same calculation."""
    data = form.cleaned_data
    choice = data["k_choice"]
    k_factor: int | None
    player: dict[str, Any] | None = None
    if choice == "custom":
        k_factor = data["custom_k"]
    elif choice == "auto":
        k_factor = None
        player = {
            "rated_games": data.get("rated_games") or 0,
            "birth_year": data.get("birth_year"),
            "reached_2400": bool(data.get("reached_2400")),
            "as_of": timezone.localdate(),
        }
    else:
        k_factor = int(choice)
    rows = [
        g.cleaned_data for g in games.forms if g.cleaned_data.get("opponent_rating") is not None
    ]
    return {
        "rating": data.get("rating"),
        "k_factor": k_factor,
        "player": player,
        "expected_score": data["expected_score"],
        "rating_list": data["rating_list"],
        "apply_400_rule": bool(data.get("apply_400_rule")),
        "games": [
            {"opponent_rating": r["opponent_rating"], "result": parse_result(r["result"])}
            for r in rows
        ],
    }


SORTS = ("rank", "name", "rating", "change", "games")


def _age_label(category: AgeCategory) -> StrOrPromise:
    """The engine's "Under 20" or "Seniors 50+" in the page's language."""
    if category.kind == "under":
        return format_lazy(gettext_lazy("Under {age}"), age=category.age)
    return format_lazy(gettext_lazy("Seniors {age}+"), age=category.age)


class ListFilterForm(forms.Form):
    """The rating list's search, categories, "top N" and order (a GET form: the URL is
    shareable; the column heads are links that set ``sort``)."""

    q = forms.CharField(label=gettext_lazy("Name"), required=False, max_length=100, strip=True)
    title = forms.ChoiceField(
        label=gettext_lazy("Title"),
        required=False,
        choices=[
            ("", pgettext_lazy("any title", "Any")),
            ("titled", gettext_lazy("Any title")),
            *Title.choices,
        ],
    )
    category = forms.ChoiceField(
        label=gettext_lazy("Age"),
        required=False,
        choices=[("", gettext_lazy("Any age")), *((c.code, _age_label(c)) for c in AGE_CATEGORIES)],
    )
    women = forms.BooleanField(label=gettext_lazy("Girls and women"), required=False)
    federation = forms.RegexField(
        label=gettext_lazy("Federation"),
        required=False,
        regex=r"^[A-Za-z]{3}$",
        max_length=3,
        error_messages={"invalid": gettext_lazy("A federation is three letters, such as NOR.")},
    )
    junior = forms.BooleanField(label=gettext_lazy("Juniors only"), required=False)
    active = forms.BooleanField(label=gettext_lazy("Active players only"), required=False)
    top = forms.IntegerField(label=gettext_lazy("Top"), required=False, min_value=1, max_value=1000)
    sort = forms.ChoiceField(
        required=False, choices=[(f"{d}{s}", s) for s in SORTS for d in ("", "-")]
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.fields["q"].widget.attrs.update(
            {"type": "search", "placeholder": gettext("Search a name")}
        )
        self.fields["federation"].widget.attrs.update(
            {"size": "4", "autocapitalize": "characters", "placeholder": "NOR"}
        )
        self.fields["top"].widget.attrs.update(
            {"placeholder": pgettext("all players", "all"), "inputmode": "numeric"}
        )

    def clean_federation(self) -> str:
        return str(self.cleaned_data.get("federation") or "").upper()


LIST_FILTERS = ("q", "title", "junior", "active", "category", "women", "federation", "top", "sort")


def sort_links(query: QueryDict, current: str) -> dict[str, dict[str, str]]:
    """For each sortable column: the URL query that sorts by it (the other way round when
    it is the current order; the page reset), and its ``aria-sort`` value."""
    column = current.removeprefix("-") or "rank"
    descending_now = current.startswith("-")
    links: dict[str, dict[str, str]] = {}
    for name in SORTS:
        keep = query.copy()
        keep.pop("page", None)
        active = name == column
        keep["sort"] = f"-{name}" if active and not descending_now else name
        # Rank and rating read "best first" in their natural order; name reads A to Z.
        natural = "ascending" if name in ("rank", "name") else "descending"
        reverse = "descending" if natural == "ascending" else "ascending"
        links[name] = {
            "query": keep.urlencode(),
            "aria": (reverse if descending_now else natural) if active else "none",
        }
    return links


class PlayerSearchForm(forms.Form):
    q = forms.CharField(label=gettext_lazy("Player"), required=False, max_length=100, strip=True)


class Glicko2Form(forms.Form):
    """The calculator's Glicko-2 mode: you, and the paper's system constant."""

    rating = forms.FloatField(
        label=gettext_lazy("Your rating (r)"), min_value=0, max_value=4000, initial=1500
    )
    rd = forms.FloatField(label=gettext_lazy("Your RD"), min_value=1, max_value=1000, initial=350)
    volatility = forms.FloatField(
        label=gettext_lazy("Your volatility"), min_value=0.000001, max_value=1, initial=0.06
    )
    tau = forms.FloatField(label="tau", min_value=0.01, max_value=10, initial=0.5)


class Glicko2GameForm(forms.Form):
    opponent_rating = forms.FloatField(
        label=gettext_lazy("Opponent rating"), min_value=0, max_value=4000, required=False
    )
    opponent_rd = forms.FloatField(
        label=gettext_lazy("Opponent RD"), min_value=1, max_value=1000, initial=350
    )
    result = forms.ChoiceField(label=gettext_lazy("Result"), choices=RESULT_CHOICES, initial="1")


Glicko2GameFormSet = forms.formset_factory(
    Glicko2GameForm, extra=0, min_num=1, max_num=100, validate_max=True, absolute_max=100
)


def glicko2_data(form: Glicko2Form, games: forms.BaseFormSet[Any]) -> dict[str, Any]:
    """The page's valid input in the API serializer's shape (one calculation for both)."""
    rows = [
        g.cleaned_data for g in games.forms if g.cleaned_data.get("opponent_rating") is not None
    ]
    return {
        **form.cleaned_data,
        "games": [
            {
                "opponent_rating": r["opponent_rating"],
                "opponent_rd": r["opponent_rd"],
                "result": parse_result(r["result"]),
            }
            for r in rows
        ],
    }
