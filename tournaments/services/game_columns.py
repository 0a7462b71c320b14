"""Game items kept column by column (an import's), checked and written without an item each.

:func:`tournaments.services.game_checks.validated` checks a game item at a time: for an
import's 100,000 games that was a dict per game, a dozen look-ups per dict and a tuple per
row, about a third of the import's own time. An import's games name a few thousand players,
a few dozen dates and one or two tournaments, so here every distinct value is checked once,
with the same rules, and the one check between two fields of a row (a player against
themself) is done on whole columns. Only when every item passes are the rows made, straight
from the columns; when any would be refused the caller runs ``validated`` over the items,
which refuses the first bad one with the usual error (same message, same ``[index]``).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy

from tournaments.models import Result
from tournaments.services.game_checks import Lookups, Placed, id_of, placement

#: Rows made per step from the columns (each column's indices turned into values at once).
_CHUNK = 8192


class GameColumns(NamedTuple):
    """Game items as columns: for each item field (``list``, ``date``, ``white``,
    ``black``, ``result``, ``tournament``, ``round``, ``rated``) the field's distinct
    values, as an item would hold them, and a column of indices into them, one per item."""

    size: int
    values: Mapping[str, Sequence[Any]]
    codes: Mapping[str, numpy.ndarray[Any, Any]]


class ValidColumns(NamedTuple):
    """What :func:`validated_columns` found: per field, the checked value of each distinct
    value (the list and period month per distinct list, tournament and date: ``placed``)
    and the per-item indices into them."""

    size: int
    values: Mapping[str, Sequence[Any]]
    codes: Mapping[str, numpy.ndarray[Any, Any]]


def _used(codes: numpy.ndarray[Any, Any]) -> list[int]:
    """The distinct values an item names (a table's values may outlive dropped items)."""
    return numpy.unique(codes).tolist() if len(codes) else []


def _checked(values: Sequence[Any], codes: numpy.ndarray[Any, Any], check: Any) -> list[Any] | None:
    """``check`` of each distinct value the items use (None: refused); None when any is."""
    out: list[Any] = [None] * len(values)
    for index in _used(codes):
        value = check(values[index])
        if value is _REFUSED:
            return None
        out[index] = value
    return out


_REFUSED = object()


def validated_columns(columns: GameColumns, lookups: Lookups) -> ValidColumns | None:
    """validated()'s checks on columns; None when any item would be refused."""
    values, codes = columns.values, columns.codes
    checked = _checked_fields(columns, lookups)
    if checked is None:
        return None
    tournaments, white, black, result, round_, rated = checked
    if _plays_themselves(white, black, codes, columns.size):
        return None
    found = _placements(values, codes, tournaments, lookups)
    if found is None:
        return None
    placed, inverse = found
    return ValidColumns(
        size=columns.size,
        values={
            "placed": placed,
            "tournament": [None if t is None else t.pk for t in tournaments],
            "white": white,
            "black": black,
            "date": values["date"],
            "result": result,
            "round": round_,
            "rated": rated,
        },
        codes={**codes, "placed": inverse.reshape(-1).astype(numpy.int32)},
    )


def _checked_fields(columns: GameColumns, lookups: Lookups) -> tuple[list[Any], ...] | None:
    """The checked tournament, White, Black, result, round and rated of each distinct
    value; None when any is refused."""
    values, codes = columns.values, columns.codes
    tournaments = _checked(
        values["tournament"],
        codes["tournament"],
        lambda raw: None if raw is None else lookups.tournaments.get(id_of(raw), _REFUSED),
    )
    white = _checked(values["white"], codes["white"], _player(lookups))
    black = _checked(values["black"], codes["black"], _player(lookups))
    result = _checked(values["result"], codes["result"], lambda v: v if v in _RESULTS else _REFUSED)
    round_ = _checked(values["round"], codes["round"], _round)
    rated = _checked(values["rated"], codes["rated"], lambda v: v if type(v) is bool else _REFUSED)
    checked = (tournaments, white, black, result, round_, rated)
    if tournaments is None or white is None or black is None or None in checked:
        return None
    assert result is not None and round_ is not None and rated is not None  # noqa: PT018
    return tournaments, white, black, result, round_, rated


def _plays_themselves(
    white: list[Any], black: list[Any], codes: Mapping[str, numpy.ndarray[Any, Any]], size: int
) -> bool:
    """Whether any item names one player on both sides: the only check between two
    fields of one item."""
    white_ids = numpy.array([-1 if v is None else v for v in white], numpy.int64)
    black_ids = numpy.array([-2 if v is None else v for v in black], numpy.int64)
    for start in range(0, size, _CHUNK):
        # A chunk at a time: no whole-file temporaries (a file may hold a million games).
        end = start + _CHUNK
        if (white_ids[codes["white"][start:end]] == black_ids[codes["black"][start:end]]).any():
            return True
    return False


def _placements(
    values: Mapping[str, Sequence[Any]],
    codes: Mapping[str, numpy.ndarray[Any, Any]],
    tournaments: list[Any],
    lookups: Lookups,
) -> tuple[list[Placed], numpy.ndarray[Any, Any]] | None:
    """The list and period month per distinct (list, tournament, date), as validated()
    derives them, and each item's index into them; None when any is refused."""
    dates = values["date"]
    width_t, width_d = len(values["tournament"]), len(dates)
    keys = codes["tournament"].astype(numpy.int64)
    keys *= width_d
    keys += codes["date"]
    if len(values["list"]) > 1:
        keys += codes["list"].astype(numpy.int64) * (width_t * width_d)
    distinct, inverse = numpy.unique(keys, return_inverse=True)
    placed: list[Placed] = []
    for key in distinct.tolist():
        list_code, rest = divmod(key, width_t * width_d)
        tournament_code, date_code = divmod(rest, width_d)
        date = dates[date_code]
        found = placement(
            values["list"][list_code],
            tournaments[tournament_code],
            date if isinstance(date, datetime.date) else None,
            lookups.lists,
            lookups.lists_by_id,
        )
        if not isinstance(found, Placed):
            return None
        placed.append(found)
    return placed, inverse


_RESULTS = frozenset(Result)


def _player(lookups: Lookups) -> Any:
    players = lookups.players

    def check(raw: Any) -> Any:
        found = players.get(id_of(raw))
        return _REFUSED if found is None else (found if isinstance(found, int) else found.pk)

    return check


def _round(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        return _REFUSED
    return value
