"""Rows of the tournament page (standings and crosstable), built in one pass in Python
like the rating list's rows: a 300-player event through template tags and filters per
cell costs about a second."""

from __future__ import annotations

from html import escape

from django import template
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from players.models import Club, RatingPeriod
from players.names import display_name
from ratings_site.pages.tournaments import TournamentView
from ratings_site.templatetags.club_pages import _fill, arrow, player_url_prefix, title_badge
from ratings_site.templatetags.ratings import in_quarters, points

register = template.Library()

# On a phone the secondary tie-breaks and the performance give way ("opt"): the rank,
# player, rating, points, first tie-break and change stay in view.
_STANDING = (
    '<tr><td class="num">{}</td><th scope="row">{}<a href="{}{}/">{}</a></th>'
    '<td class="num">{}</td><td class="num strong">{}</td><td class="num">{}</td>'
    '<td class="num opt">{}</td><td class="num opt">{}</td><td class="num opt">{}</td>'
    '<td class="num opt">{}</td><td class="num opt">{}</td><td class="num">{}</td></tr>\n'
)


@register.simple_tag
def standings_rows(view: TournamentView, club: Club) -> SafeString:
    prefix = player_url_prefix(club)
    # One notation for the whole table: glyphs (8½, 3¼) unless some value is finer than a
    # quarter point, then decimals everywhere.
    decimals = not all(
        in_quarters(value)
        for row in view.rows
        for value in (
            row.standing.tiebreaks.score,
            row.standing.tiebreaks.buchholz_cut1,
            row.standing.tiebreaks.buchholz,
            row.standing.tiebreaks.sonneborn_berger,
            row.standing.tiebreaks.direct_encounter,
        )
    )
    order = view.tournament.rating_list.name_order
    # An open period is said once, beside its link above the table, not on every row (on
    # a phone each row's note took four lines).
    open_period = view.period is not None and view.period.status != RatingPeriod.Status.CLOSED
    parts = []
    for row in view.rows:
        t = row.standing.tiebreaks
        if row.change is None and open_period:
            change: object = "–"
        elif row.change is not None:
            change = arrow(row.change)
        else:
            change = mark_safe(f'<span class="muted">{_escape(row.change_note or "–")}</span>')  # noqa: S308 - escaped
        parts.append(
            _fill(
                _STANDING,
                f"{row.standing.rank}{'=' if row.standing.shared else ''}",
                title_badge(row.player.title),
                prefix,
                row.player.pk,
                display_name(row.player.name, order),
                "–" if row.rating is None else row.rating,
                points(t.score, decimals),
                points(t.buchholz_cut1, decimals),
                points(t.buchholz, decimals),
                points(t.sonneborn_berger, decimals),
                t.wins,
                "–" if t.direct_encounter is None else points(t.direct_encounter, decimals),
                "–" if row.performance is None else row.performance,
                change,
            )
        )
    return mark_safe("".join(parts))  # noqa: S308 - every value went through _h (escaped)


def _escape(text: str) -> str:
    return escape(text, quote=True)


_CROSS = '<tr><td class="num">{}</td><th scope="row"><a href="{}{}/">{}</a></th>{}<td class="num strong">{}</td></tr>\n'
_CELL = '<td class="num cell"><span title="{}">{}{} <b>{}</b></span></td>'
_EMPTY = '<td class="num cell"><span title="{}">{}</span></td>'


@register.simple_tag
def crosstable_rows(view: TournamentView, club: Club) -> SafeString:
    prefix = player_url_prefix(club)
    against = gettext("Round %(number)s against %(name)s")
    no_game = gettext("Round %(number)s: no game")
    byes = {
        "F": gettext("Round %(number)s: full-point bye"),
        "U": gettext("Round %(number)s: pairing-allocated bye"),
        "H": gettext("Round %(number)s: half-point bye"),
        "Z": gettext("Round %(number)s: zero-point bye"),
    }
    order = view.tournament.rating_list.name_order
    parts = []
    for number, row in enumerate(view.rows, start=view.first_number):
        cells = []
        for cell in row.cells:
            if cell.opponent is not None:
                title = against % {
                    "number": cell.round,
                    "name": display_name(cell.opponent.name, order),
                }
                cells.append(_fill(_CELL, title, cell.opponent_rank, cell.colour, cell.mark))
            else:
                title = byes.get(cell.bye, no_game) % {"number": cell.round}
                cells.append(_fill(_EMPTY, title, cell.mark))
        parts.append(
            _fill(
                _CROSS,
                number,
                prefix,
                row.player.pk,
                display_name(row.player.name, order),
                mark_safe("".join(cells)),  # noqa: S308 - each cell went through _fill
                points(row.standing.tiebreaks.score),
            )
        )
    return mark_safe("".join(parts))  # noqa: S308 - every value went through _h (escaped)
