"""Template filters for showing ratings and figures the way the seed calculators do."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from django import template

from players.names import display_name
from ratings_site.pages.engine_text import engine_text as translate_engine_text
from ratings_site.pages.engine_text import plain_number

register = template.Library()

Figure = int | float | Fraction | Decimal | None


def _decimal(value: int | float | Fraction | Decimal) -> Decimal:
    if isinstance(value, Fraction):
        return Decimal(value.numerator) / Decimal(value.denominator)
    return Decimal(str(value))


@register.filter
def figure(value: Figure, places: int = 2) -> str:
    """``0.58``, ``15.19``; half up at the last place shown, like the seed pages. Written
    with the active language's decimal mark (German ``15,19``) and never a thousands
    separator: the figures are ratings, changes and points (``2345``, as the lists print a
    rating, not ``2,345``). Pages only, never files."""
    if value is None:
        return "–"
    quantum = Decimal(1).scaleb(-int(places))
    rounded = _decimal(value).quantize(quantum, rounding=ROUND_HALF_UP)
    return plain_number(rounded, int(places)).replace("-", "−")


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


_QUARTERS = {1: "¼", 2: "½", 3: "¾"}


def in_quarters(value: Figure) -> bool:
    """Whether ``value`` is a whole number of quarter points (every score, Buchholz and
    Sonneborn-Berger of half-point games is)."""
    return value is None or (_decimal(value) * 4) % 1 == 0


@register.filter
def points(value: Figure, decimals: bool = False) -> str:
    """Points and tie-breaks in one notation: ``4½``, Sonneborn-Berger's quarters as
    ``3¼``/``¾``, so a table never shows ``3.25`` beside ``8½``. With ``decimals`` (for a
    table with a value finer than a quarter: then every value) ``4.50``, ``3.25``, in the
    page's language."""
    if value is None:
        return "–"
    if decimals or not in_quarters(value):
        return figure(value, 2)
    quarters = int(_decimal(value) * 4)
    sign = "−" if quarters < 0 else ""
    whole, part = divmod(abs(quarters), 4)
    if not part:
        return f"{sign}{whole}"
    return f"{sign}{whole or ''}{_QUARTERS[part]}"


@register.filter
def engine_text(value: str) -> str:
    """An engine sentence (a note, a K reason, a summary) in the page's language."""
    return translate_engine_text(str(value))


@register.filter
def named(name: str, order: object) -> str:
    """A person's name in ``order`` (a list's or the club's ``name_order``; blank: as stored)."""
    return display_name(name, str(order)) if order else name
