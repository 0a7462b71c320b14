"""Template helpers of the pages' live view (ratings_site/pages/live.py): the live list's
rows and a player's live game lines, built in one pass as the published list's are."""

from __future__ import annotations

from collections.abc import Sequence

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext

from players.models import Club, Player
from players.names import display_name
from players.rating.systems import RatingSystem
from ratings_site.pages.engine_text import engine_text
from ratings_site.pages.live import LiveDetail
from ratings_site.pages.systems import column_value, fragment
from ratings_site.templatetags.club_pages import (
    _column_text,
    _fill,
    _game_cells,
    arrow,
    player_url_prefix,
    title_badge,
)
from tournaments.services.live import LiveRow

register = template.Library()

_LIVE_ROW = (
    '<tr><td class="num">{}</td><th scope="row">{}<a href="{}{}/">{}</a></th>'
    '<td class="num opt">{}</td><td class="num strong">{}</td><td class="num">{}</td>{}'
    '<td class="num">{}</td></tr>\n'
)
_CELL = '<td class="num opt">{}</td>'


@register.filter
def live_rating_text(row: LiveRow) -> str:
    """The live rating, or an unrated player's way to a first rating."""
    if row.live_rating is not None:
        return str(row.live_rating)
    if row.first_rating_games is not None:
        # The engine's sentence says what is missing (games, or the minimum rating).
        if row.first_rating_missing:
            return engine_text(row.first_rating_missing)
        return ngettext(
            "%(games)s game toward a first rating",
            "%(games)s games toward a first rating",
            row.first_rating_games,
        ) % {"games": row.first_rating_games}
    return gettext("unrated")


@register.simple_tag
def live_rows(
    rows: Sequence[LiveRow], club: Club, name_order: str, system: RatingSystem
) -> SafeString:
    """The live list's body rows: rank, player, rating in force, live rating (or the way
    to a first rating), live change, the system's period columns after the period, games."""
    prefix = player_url_prefix(club)
    unrated = gettext("unrated")
    parts = []
    for row in rows:
        cells = "".join(
            _fill(_CELL, _column_text(column, column_value(column, row, row.live_state)))
            for column in system.period_columns
        )
        parts.append(
            _fill(
                _LIVE_ROW,
                "–" if row.rank is None else row.rank,
                title_badge(row.title),
                prefix,
                row.player_id,
                display_name(row.name, name_order) if name_order else row.name,
                unrated if row.rating is None else row.rating,
                live_rating_text(row),
                arrow(row.live_change, row.event),
                mark_safe(cells),  # noqa: S308 - every value went through _h (escaped)
                row.games,
            )
        )
    return mark_safe("".join(parts))  # noqa: S308 - every value went through _h (escaped)


@register.simple_tag
def live_game_lines(detail: LiveDetail, club: Club, player: Player) -> SafeString:
    """The player's games of the live period through the list's system's game-lines
    fragment, as a closed period's are shown."""
    lines = fragment(detail.system, "game_lines.html").render(
        {
            "system": detail.system,
            "detail": detail,
            "rows": list(zip(_game_cells(detail, club, player), detail.games, strict=True)),  # type: ignore[arg-type]
        }
    )
    return mark_safe(lines)  # noqa: S308 - rendered by the template engine (escaped)
