"""Template helpers of the public club pages: built once in Python, not per row in
template logic, so a 100-row list page renders quickly."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from urllib.parse import urlencode

from django import template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeData, SafeString, mark_safe
from django.utils.translation import gettext, pgettext

from players.models import Club, KReason, Player, RatingChange, Title, translated_label
from players.names import display_name
from players.rating.adjustment import RAISED_TO_STANDARD_CLOSE
from players.rating.systems import RatingSystem
from players.rating.systems.explain import Column
from ratings_site.pages.engine_text import engine_text
from ratings_site.pages.games import PeriodGames
from ratings_site.pages.lists import RankedRow
from ratings_site.pages.systems import column_value, fragment
from ratings_site.templatetags.ratings import figure, score, signed
from tournaments.game_details import GameDetail

register = template.Library()
_TITLES = dict(Title.choices)


@register.filter
def arrow(change: int | None, event: str = "") -> SafeString:
    """A rating change with an arrow for the eye and words for screen readers."""
    if event == "first_rating":
        return format_html(
            '<span class="chg new">{}<span class="vh"> {}</span></span>',
            pgettext("a first rating", "new"),
            gettext("rating"),
        )
    if change is None:
        return mark_safe('<span class="muted">–</span>')
    if change > 0:
        return format_html(
            '<span class="chg up"><span aria-hidden="true">▲ +{}</span>'
            '<span class="vh">{}</span></span>',
            change,
            gettext("up %(points)s") % {"points": change},
        )
    if change < 0:
        return format_html(
            '<span class="chg down"><span aria-hidden="true">▼ −{}</span>'
            '<span class="vh">{}</span></span>',
            -change,
            gettext("down %(points)s") % {"points": -change},
        )
    return format_html(
        '<span class="chg same"><span aria-hidden="true">0</span><span class="vh">{}</span></span>',
        gettext("unchanged"),
    )


@register.filter
def k_reason(value: str) -> str:
    """``"junior"`` -> ``"40: junior under 2300"``."""
    if not value:
        return ""
    try:
        return str(translated_label(KReason(value)))
    except ValueError:
        return value


@register.filter
def title_badge(title: str) -> SafeString:
    if not title:
        return mark_safe("")
    return format_html(
        '<abbr class="title" title="{}">{}</abbr> ', _TITLES.get(title, title), title
    )


def player_url_prefix(club: Club) -> str:
    """``/clubs/<slug>/players/``: reversed once per page, not once per row."""
    return reverse("player", kwargs={"club": club.slug, "player_id": 0}).removesuffix("0/")


def _h(value: object) -> str:
    """Escape like format_html, without its lazy-string checks: rows are built by the
    hundred, and the checks cost more than the escaping."""
    if isinstance(value, SafeData):
        return str(value)
    return escape(str(value), quote=True)


def _fill(template: str, *values: object) -> str:
    return template.format(*(_h(v) for v in values))


_RANKING_ROW = (
    '<tr><td class="num">{}</td><th scope="row">{}<a href="{}{}/">{}</a>{}</th><td class="opt">{}</td>'
    '<td class="num opt">{}</td><td class="num strong">{}</td><td class="num">{}</td>'
    '{}<td class="num">{}</td><td class="num opt">{}</td></tr>\n'
)
_OPTIONAL_CELL = '<td class="num opt">{}</td>'


@register.simple_tag
def ranking_rows(
    rows: Sequence[RankedRow], club: Club, name_order: str = "", system: RatingSystem | None = None
) -> SafeString:
    """The rating list's body rows, names in the list's order, with the period columns
    the list's rating system declares (FIDE, Elo: K; Glicko-2: RD). Built here in one
    pass: a 100-row page through the template engine's tags and filters costs several
    times as much."""
    columns = () if system is None else system.period_columns
    prefix = player_url_prefix(club)
    inactive = format_html(' <span class="muted">({})</span>', gettext("inactive"))
    parts = []
    for ranked in rows:
        row = ranked.row
        player = row.player
        parts.append(
            _fill(
                _RANKING_ROW,
                ranked.rank,
                title_badge(player.title),
                prefix,
                player.pk,
                display_name(player.name, name_order) if name_order else player.name,
                inactive if getattr(row, "inactive", False) or not player.active else "",
                player.federation,
                player.birth_year or "",
                row.rating_after,
                arrow(row.change, row.event),
                mark_safe(  # noqa: S308 - every value went through _h (escaped)
                    "".join(
                        _fill(
                            _OPTIONAL_CELL,
                            _column_text(column, column_value(column, row, row.state_after)),
                        )
                        for column in columns
                    )
                ),
                row.games,
                row.rated_games_after,
            )
        )
    return mark_safe("".join(parts))  # noqa: S308 - every value went through _h (escaped)


_GAME_CELLS = (
    '<td>{}</td><td>{}</td><td><a href="{}{}/vs/{}/" title="{}">{}</a></td><td>{}</td>'
    '<td class="num">{}</td><td class="num">{}</td>'
)


def _game_cells(
    detail: PeriodGames, club: Club, player: Player, name_order: str = ""
) -> list[SafeString]:
    """The cells of a period's game lines every system shows (date, event, opponent with
    a link to the two players' head-to-head page, colour, result, the opponent's rating
    used), built in one pass; the system's fragment adds what the game meant."""
    prefix = player_url_prefix(club)
    club_game = gettext("club game")
    round_mark = gettext("r%(number)s")
    every_game = gettext("%(player)s against %(opponent)s: every game")
    colours = {"white": gettext("white"), "black": gettext("black")}
    unrated = gettext("unrated")

    def named(name: str) -> str:
        return display_name(name, name_order) if name_order else name

    cells = []
    for g in detail.games:
        game = g.game
        if game.tournament is not None:
            event = game.tournament.name + (
                " " + round_mark % {"number": game.round} if game.round else ""
            )
        else:
            event = club_game
        cells.append(
            mark_safe(  # noqa: S308 - every value went through _h (escaped)
                _fill(
                    _GAME_CELLS,
                    game.date.isoformat(),
                    event,
                    prefix,
                    player.pk,
                    g.opponent.pk,
                    every_game % {"player": named(player.name), "opponent": named(g.opponent.name)},
                    named(g.opponent.name),
                    colours.get(g.colour, g.colour),
                    score(g.score),
                    unrated if g.opponent_rating is None else g.opponent_rating,
                )
            )
        )
    return cells


@register.filter
def game_note(game: GameDetail, detail: PeriodGames) -> str:
    """Why a game counted as it did, in the page's language ("" when as usual)."""
    line = game.line
    if line is not None:
        return engine_text(line.note) if line.note else ""
    if not game.played:
        return gettext("not played: not rated")
    if detail.toward_first_rating:
        return gettext("toward a first rating")
    return ""


_GAMES_ROW = (
    '<tr class="games-row"><td colspan="{}"><details><summary>{}</summary>'
    '<table class="games"><caption class="vh">{}</caption>{}</table>{}</details></td></tr>\n'
)


_RATED_EVENTS = {RatingChange.Event.RATED, RatingChange.Event.BELOW_FLOOR}


def _event_note(change: RatingChange) -> str:
    event = "" if change.event == RatingChange.Event.RATED else str(change.get_event_display())
    if not change.adjustment:
        return event
    # The published rating is more than before + change: say why (the close of September
    # 2022 publishes the rapid and blitz lists of 1 October 2022, February 2024's the
    # lists of 1 March 2024).
    if change.period.month == RAISED_TO_STANDARD_CLOSE:
        text = gettext("FIDE one-off of 1 October 2022, to 100 below standard: +%(points)s")
    else:
        text = gettext("FIDE adjustment of 1 March 2024: +%(points)s")
    adjusted = text % {"points": change.adjustment}
    return f"{event}; {adjusted}" if event else adjusted


@register.simple_tag
def history_columns(system: RatingSystem) -> int:
    """How many columns the period table has (the games row spans them)."""
    return 8 + len(system.period_columns)


@register.simple_tag
def history_rows(
    history: Sequence[tuple[RatingChange, PeriodGames | None]],
    player: Player,
    club: Club,
    kind: str,
    system: RatingSystem,
    name_order: object = "",
) -> SafeString:
    """The player's periods on one list, each followed by its games in a <details>; the
    period row and the game lines through the list's rating system's fragments
    (``systems/<name>/period_row.html``, ``game_lines.html``)."""
    report = reverse("period-report", kwargs={"club": club.slug, "kind": kind, "month": "0000-00"})
    unrated = gettext("unrated")
    period_row = fragment(system, "period_row.html")
    game_lines = fragment(system, "game_lines.html")
    span = history_columns(system)
    pooled = format_html(
        '<p class="note">{}</p>',
        gettext(
            "Before a first rating, games are pooled (FIDE 8.2) rather than scored one by one."
        ),
    )
    name_order = str(name_order)
    shown = display_name(player.name, name_order) if name_order else player.name
    parts: list[str] = []
    for change, detail in history:
        label = change.period.label
        parts.append(
            period_row.render(
                {
                    "system": system,
                    "change": change,
                    "report_url": report.replace("0000-00", label),
                    "label": label,
                    "before": unrated if change.rating_before is None else change.rating_before,
                    "arrow": arrow(change.change, change.event),
                    "after": unrated if change.rating_after is None else change.rating_after,
                    "columns": [
                        (column, column_value(column, change, change.state_after))
                        for column in system.period_columns
                    ],
                    "expected": change.expected if change.event in _RATED_EVENTS else None,
                    "note": _event_note(change),
                }
            )
        )
        if detail is None:
            continue
        if detail.toward_first_rating:
            note: SafeString | str = pooled
        elif detail.engine_change is not None and detail.engine_change != change.change:
            note = format_html(
                '<p class="note">{}</p>',
                gettext(
                    "These per-game figures add up to %(sum)s, not the published %(published)s:"
                    " the period was closed with other ratings in force."
                )
                % {"sum": signed(detail.engine_change), "published": signed(change.change)},
            )
        else:
            note = ""
        lines = game_lines.render(
            {
                "system": system,
                "detail": detail,
                "rows": list(
                    zip(
                        _game_cells(detail, club, player, str(name_order)),
                        detail.games,
                        strict=True,
                    )
                ),
            }
        )
        parts.append(
            _fill(
                _GAMES_ROW,
                span,
                gettext("Games of %(period)s (%(count)s)")
                % {"period": label, "count": len(detail.games)},
                gettext("%(name)s's games in %(period)s") % {"name": shown, "period": label},
                mark_safe(lines),  # noqa: S308 - rendered by the template engine (escaped)
                note,
            )
        )
    return mark_safe("".join(parts))  # noqa: S308 - every value went through _h (escaped)


_CHANGE_ROW = (
    '<tr><th scope="row">{}<a href="{}{}/">{}</a></th><td class="num">{}</td><td class="num">{}</td>'
    '<td class="num">{}</td><td class="num">{}</td><td class="num">{}</td>{}</tr>\n'
)
_COLUMN_CELL = '<td class="num">{}</td>'


@register.simple_tag
def change_rows(
    rows: Sequence[RatingChange], club: Club, empty: str, system: RatingSystem
) -> SafeString:
    """Rows of a period report's table (gains, losses, first ratings, the floor), with the
    period columns the list's rating system declares (FIDE, Elo: K; Glicko-2: RD)."""
    columns = system.period_columns
    if not rows:
        return format_html(
            '<tr><td colspan="{}" class="muted">{}</td></tr>', 6 + len(columns), empty
        )
    prefix = player_url_prefix(club)
    unrated = gettext("unrated")
    parts = []
    for row in rows:
        player = row.player
        cells = "".join(
            _fill(_COLUMN_CELL, _column_text(column, column_value(column, row, row.state_after)))
            for column in columns
        )
        parts.append(
            _fill(
                _CHANGE_ROW,
                title_badge(player.title),
                prefix,
                player.pk,
                player.name,
                unrated if row.rating_before is None else row.rating_before,
                arrow(row.change, row.event),
                "–" if row.rating_after is None else row.rating_after,
                row.games,
                score(row.score),
                mark_safe(cells),  # noqa: S308 - every value went through _h (escaped)
            )
        )
    return mark_safe("".join(parts))  # noqa: S308 - every value went through _h (escaped)


def _column_text(column: Column, value: object) -> str:
    if value is None:
        return "–"
    if isinstance(value, int | float):
        return figure(value, column.places)
    return str(value)


@register.simple_tag(takes_context=True)
def oembed_discovery(context: template.Context, club: Club, title: str) -> SafeString:
    """The oEmbed discovery link of a public club's page (ratings_site/oembed.py): the
    page's own address, without its query, is what a consumer asks about."""
    request = context.get("request")
    if request is None or not club.public:
        return mark_safe("")
    page = request.build_absolute_uri(request.path)
    return format_html(
        '<link rel="alternate" type="application/json+oembed" href="{}?{}" title="{}">',
        reverse("oembed"),
        urlencode({"url": page, "format": "json"}),
        title,
    )
