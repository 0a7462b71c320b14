"""Template filters for showing ratings and figures the way the seed calculators do."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from django import template
from django.utils.formats import number_format

from ratings_site.pages.engine_text import engine_text as translate_engine_text

register = template.Library()

Figure = int | float | Fraction | Decimal | None


def _decimal(value: int | float | Fraction | Decimal) -> Decimal:
    if isinstance(value, Fraction):
        return Decimal(value.numerator) / Decimal(value.denominator)
    return Decimal(str(value))


@register.filter
def figure(value: Figure, places: int = 2) -> str:
    """``0.58``, ``15.19``; half up at the last place shown, like the seed pages. Written
    the active language's way (``1,234.5``; German ``1.234,5``): pages only, never files."""
    if value is None:
        return "–"
    quantum = Decimal(1).scaleb(-int(places))
    rounded = _decimal(value).quantize(quantum, rounding=ROUND_HALF_UP)
    return number_format(rounded, int(places), force_grouping=True).replace("-", "−")


@register.filter
def signed(value: Figure, places: int = 0) -> str:
    """``+8.40``, ``−5.80``, ``+20``, ``0``: changes always carry their sign."""
    if value is None:
        return "–"
    shown = figure(value, places)
    if _decimal(value) > 0:
        return f"+{shown}"
    return shown


@register.filter
def score(value: Figure) -> str:
    """A score in half points: ``3``, ``2½``, ``½``."""
    if value is None:
        return "–"
    halves = int(_decimal(value) * 2)
    whole, half = divmod(halves, 2)
    if half and whole == 0:
        return "½"
    return f"{whole}½" if half else str(whole)


@register.filter
def points(value: Figure) -> str:
    """Tie-break points: halves as ``4½``, anything finer (Sonneborn-Berger's quarters)
    as a decimal, ``2.25``."""
    if value is None:
        return "–"
    if (_decimal(value) * 2) % 1 == 0:
        return score(value)
    return figure(value, 2)


@register.filter
def engine_text(value: str) -> str:
    """An engine sentence (a note, a K reason, a summary) in the page's language."""
    return translate_engine_text(str(value))
