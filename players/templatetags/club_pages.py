"""Template helpers of the public club pages: built once in Python, not per row in
template logic, so a 100-row list page renders quickly."""

from __future__ import annotations

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from players.models import KReason, Title

register = template.Library()
_TITLES = dict(Title.choices)


@register.filter
def arrow(change: int | None, event: str = "") -> SafeString:
    """A rating change with an arrow for the eye and words for screen readers."""
    if event == "first_rating":
        return mark_safe('<span class="chg new">new<span class="vh"> rating</span></span>')
    if change is None:
        return mark_safe('<span class="muted">–</span>')
    if change > 0:
        return format_html(
            '<span class="chg up"><span aria-hidden="true">▲ +{}</span>'
            '<span class="vh">up {}</span></span>',
            change,
            change,
        )
    if change < 0:
        return format_html(
            '<span class="chg down"><span aria-hidden="true">▼ −{}</span>'
            '<span class="vh">down {}</span></span>',
            -change,
            -change,
        )
    return mark_safe(
        '<span class="chg same"><span aria-hidden="true">0</span><span class="vh">unchanged</span></span>'
    )


@register.filter
def k_reason(value: str) -> str:
    """``"junior"`` -> ``"40: junior under 2300"``."""
    if not value:
        return ""
    try:
        return str(KReason(value).label)
    except ValueError:
        return value


@register.filter
def title_badge(title: str) -> SafeString:
    if not title:
        return mark_safe("")
    return format_html(
        '<abbr class="title" title="{}">{}</abbr> ', _TITLES.get(title, title), title
    )
