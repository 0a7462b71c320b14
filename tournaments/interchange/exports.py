"""Rating lists and a player's history, written as CSV or FIDE-style fixed-width text.

Pure functions over plain rows: the selectors (a later layer) turn models into
:class:`ListRow` / :class:`HistoryRow` in the order to print, and a view or command writes
the text these functions return.

The TXT list follows the look of FIDE's downloadable lists (one player per line, columns at
fixed positions, a header line naming them). Widths, in characters, each column padded to
its width and the text in it cut to leave at least one blank before the next column:

======  =====  =========================================================
ID      15     the list's own player id, left-aligned
Name    61     "Lastname, Firstname", left-aligned
Tit     5      title (GM, IM, ...), left-aligned
Fed     4      federation, left-aligned
Rtng    6      rating, right-aligned then a blank; blank when unrated
Gms     5      rated games in the period, right-aligned then a blank
B-day   6      birth year, left-aligned
Flag    5      FIDE-style flags: i inactive, w woman, wi both
K       3      K factor used next, right-aligned
======  =====  =========================================================

CSV text cells that start with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return get a
leading apostrophe, so a spreadsheet does not run a name as a formula (OWASP's CSV
injection advice); numbers are written as numbers. No text cell or TXT column carries a
line break or other control character (:mod:`.text`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from tournaments.interchange.text import csv_cell, one_line

__all__ = [
    "LIST_TXT_COLUMNS",
    "HistoryRow",
    "ListRow",
    "list_txt_columns",
    "write_history_csv",
    "write_list_csv",
    "write_list_txt",
]


@dataclass(frozen=True, slots=True)
class ListRow:
    """One player on a published list."""

    player_id: int
    name: str
    title: str
    federation: str
    #: None: unrated (no rating yet, or fell below the floor).
    rating: int | None
    #: Rated games in the period the list closes.
    games: int
    birth_year: int | None
    #: FIDE-style flags: "i" inactive, "w" woman, "wi" both, "" none.
    flag: str
    k: int | None
    fide_id: int | None = None
    sex: str = ""
    #: FIDE's rating of the list's kind from the FIDE list read last, and that list's month.
    fide_rating: int | None = None
    fide_month: str = ""
    #: What the list's rating system publishes beside the rating (its declared state
    #: fields shown on the list; Glicko-2: rd), one column each; empty on other lists.
    state: tuple[StateValue, ...] = ()


class StateValue(NamedTuple):
    """One figure of a rating system's state: its declared name, value (None: not set)
    and the decimals it is published with."""

    name: str
    value: float | None
    places: int


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """One closed period in a player's history on one list."""

    #: "YYYY-MM", the month the games were played.
    period: str
    #: The list's slug (a club's FIDE lists: "standard", "rapid", "blitz").
    list_kind: str
    rating_before: int | None
    rating_after: int | None
    #: The rounded change; None for a first rating.
    change: int | None
    change_unrounded: Fraction | float | None
    games: int
    score: Fraction
    expected: Fraction | float | None
    k: int | None
    #: Why this K (the rules engine's KReason value, e.g. "new_player").
    k_reason: str
    note: str = ""
    #: The state the list's rating system keeps beside the rating (its declared fields;
    #: Glicko-2: rd, volatility), before and after the period; empty on other lists.
    state_before: tuple[StateValue, ...] = ()
    state_after: tuple[StateValue, ...] = ()


#: (header, width, right-aligned) of the TXT list, in order: FIDE's list's columns (the
#: same labels and widths, left-aligned as FIDE's, so ``import_fide_list`` and other readers
#: of FIDE's file read it), then the tracker's own id in a column of its own: the
#: ``ID Number`` column holds FIDE IDs only (blank for a player without one), never our id.
#: The rating, games and K labels carry the list's kind (``SRtng``, ``RRtng``, ``BRtng``);
#: :func:`list_txt_columns` names them, this is the standard list's.
LIST_TXT_COLUMNS: tuple[tuple[str, int, bool], ...] = (
    ("ID Number", 15, False),
    ("Name", 61, False),
    ("Fed", 4, False),
    ("Sex", 4, False),
    ("Tit", 5, False),
    ("SRtng", 6, False),
    ("SGm", 4, False),
    ("SK", 3, False),
    ("B-day", 6, False),
    ("Flag", 5, False),
    ("Club-ID", 10, False),
)
# FIDE's letter for a list kind's rating columns; another kind's columns are unprefixed.
_KIND_PREFIX = {"standard": "S", "rapid": "R", "blitz": "B"}


def list_txt_columns(kind: str) -> tuple[tuple[str, int, bool], ...]:
    """The TXT columns of a ``kind`` list: ``RRtng``/``RGm``/``RK`` for rapid, and so on."""
    prefix = _KIND_PREFIX.get(kind, "")
    return tuple(
        ((prefix + header[1:]) if header in {"SRtng", "SGm", "SK"} else header, width, right)
        for header, width, right in LIST_TXT_COLUMNS
    )


LIST_CSV_HEADER = (
    "id",
    "fide_id",
    "name",
    "title",
    "federation",
    "sex",
    "rating",
    "games",
    "birth_year",
    "flag",
    "k",
    "fide_rating",
    "fide_month",
)
HISTORY_CSV_HEADER = (
    "period",
    "list",
    "rating_before",
    "rating_after",
    "change",
    "change_unrounded",
    "games",
    "score",
    "expected",
    "k",
    "k_reason",
    "note",
)


def write_list_csv(rows: Iterable[ListRow]) -> str:
    """The list as CSV (comma, header row, ``\\r\\n`` line ends as RFC 4180 asks); a
    Glicko-2 list's has an ``rd`` column after ``rating``'s columns (the last one)."""
    out = io.StringIO()
    writer = csv.writer(out)
    rows = list(rows)
    names = _state_names(row.state for row in rows)
    writer.writerow((*LIST_CSV_HEADER, *names))
    for row in rows:
        listed = {v.name: v.value for v in row.state}
        writer.writerow(
            (
                row.player_id,
                _blank(row.fide_id),
                _text(row.name),
                _text(row.title),
                _text(row.federation),
                _text(row.sex),
                _blank(row.rating),
                row.games,
                _blank(row.birth_year),
                _text(row.flag),
                _blank(row.k),
                _blank(row.fide_rating),
                row.fide_month,
                *("" if (v := listed.get(name)) is None else v for name in names),
            )
        )
    return out.getvalue()


def write_list_txt(rows: Iterable[ListRow], *, kind: str = "standard") -> str:
    """The list as FIDE's fixed-width text (columns in :func:`list_txt_columns`), ``\n``
    line ends. Sex as FIDE writes it (``M``/``F``)."""
    columns = list_txt_columns(kind)
    lines = [_fixed(tuple(header for header, _width, _right in columns), columns)]
    for row in rows:
        lines.append(
            _fixed(
                (
                    str(row.fide_id or ""),
                    row.name,
                    row.federation,
                    row.sex.upper(),
                    row.title,
                    str(row.rating or ""),
                    str(row.games),
                    str(row.k or ""),
                    str(row.birth_year or ""),
                    row.flag,
                    str(row.player_id),
                ),
                columns,
            )
        )
    return "\n".join(lines) + "\n"


def write_history_csv(rows: Iterable[HistoryRow]) -> str:
    """A player's history as CSV: one row per closed period and list. When a row is a
    Glicko-2 list's, RD and volatility columns follow (blank on the other lists' rows);
    a history on FIDE and Elo lists only has none."""
    out = io.StringIO()
    writer = csv.writer(out)
    rows = list(rows)
    names = _history_state_names(rows)
    writer.writerow(_history_header(names))
    writer.writerows(_history_cells(row, names) for row in rows)
    return out.getvalue()


def write_list_history_csv(rows: Iterable[tuple[int, str, HistoryRow]]) -> str:
    """A whole list's history as CSV: the player's id and name, then a player history's
    columns; one row per player and closed period."""
    out = io.StringIO()
    writer = csv.writer(out)
    rows = list(rows)
    names = _history_state_names(row for _player, _name, row in rows)
    writer.writerow(("player", "name", *_history_header(names)))
    writer.writerows(
        (player, _text(name), *_history_cells(row, names)) for player, name, row in rows
    )
    return out.getvalue()


def _state_names(states: Iterable[tuple[StateValue, ...]]) -> tuple[str, ...]:
    """The state fields any row has, in the order first met (a list's system declares
    them; rows of a system that keeps none add no column)."""
    return tuple(dict.fromkeys(value.name for state in states for value in state))


def _history_state_names(rows: Iterable[HistoryRow]) -> tuple[str, ...]:
    return _state_names(row.state_before + row.state_after for row in rows)


def _history_header(names: tuple[str, ...]) -> tuple[str, ...]:
    """The history columns, then each state field before and after (Glicko-2: rd_before,
    rd_after, volatility_before, volatility_after)."""
    return (*HISTORY_CSV_HEADER, *(f"{name}_{when}" for name in names for when in WHENS))


WHENS = ("before", "after")


def _history_cells(row: HistoryRow, names: tuple[str, ...] = ()) -> tuple[object, ...]:
    # As published: each figure to its declared decimals (RD two, volatility six); blank
    # where the row's system does not keep it.
    states = (
        {v.name: v for v in row.state_before},
        {v.name: v for v in row.state_after},
    )
    state_cells = tuple(
        "" if (v := state.get(name)) is None else _decimal(v.value, places=v.places)
        for name in names
        for state in states
    )
    return (
        row.period,
        row.list_kind,
        _blank(row.rating_before),
        _blank(row.rating_after),
        _blank(row.change),
        _decimal(row.change_unrounded),
        row.games,
        _decimal(row.score, places=1),
        _decimal(row.expected),
        _blank(row.k),
        _text(row.k_reason),
        _text(row.note),
        *state_cells,
    )


def _fixed(values: tuple[str, ...], columns: tuple[tuple[str, int, bool], ...]) -> str:
    cells = []
    for value, (_header, width, right) in zip(values, columns, strict=True):
        value = one_line(value)[: width - 1]
        cells.append(f"{value:>{width - 1}} " if right else f"{value:<{width}}")
    return "".join(cells).rstrip()


def _text(value: str) -> str:
    return csv_cell(value)


def _blank(value: int | None) -> str | int:
    return "" if value is None else value


def _decimal(value: Fraction | float | None, *, places: int = 2) -> str:
    """Fixed decimals; Fractions exactly (half away from zero), not through a float."""
    if value is None:
        return ""
    if isinstance(value, Fraction):
        scaled = value * 10**places
        whole = int(abs(scaled) + Fraction(1, 2))
        sign = "-" if scaled < 0 and whole else ""
        text = str(whole).rjust(places + 1, "0")
        return f"{sign}{text[:-places]}.{text[-places:]}" if places else f"{sign}{text}"
    return f"{value:.{places}f}"
