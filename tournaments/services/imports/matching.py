"""Matching the file to the club: its persons to club players, its games to stored games.

Set-based: one query per chunk of FIDE IDs, of names, of players' games; nothing per row.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

import numpy

from players.models import Club, Player, RatingList
from players.names import name_key
from tournaments.models import Game
from tournaments.services.imports.plan import Person, PlannedGames
from tournaments.services.imports.report import (
    REPORT_MAX_LINES,
    ImportReport,
    LineMessage,
    PlayerEntry,
    PossibleMatch,
)

# Chunk size of ``__in`` lookups: well under SQLite's 32,766 bound variables.
_CHUNK = 5000


#: What an import does with a possible match (same name key, birth data missing on one
#: side): take the club's player ("possible", the default) or create a new one ("new").
MATCH_CHOICES: tuple[str, ...] = ("possible", "new")

_Row = tuple[Any, ...]  # (id, name, birth_date, birth_year, fide_id)


def match_players(
    *, club: Club, persons: list[Person], report: ImportReport, match: str = "possible"
) -> None:
    """Give each person of the file the club player they are, where one is: by FIDE ID,
    else by the name key (:func:`players.names.name_key`: case, accents, punctuation and
    the order of the parts ignored) and birth date (or year). Same key with birth data
    missing on one side is a possible match: listed in the report and taken or not as
    ``match`` says. Two persons matching one club player, or a key matching several, are
    errors."""
    by_fide = _by_fide_id(club, persons)
    by_key = _by_name_key(
        club, [p for p in persons if p.fide_id is None or p.fide_id not in by_fide]
    )
    taken: dict[int, Person] = {}
    for person in persons:
        how = ""
        row: _Row | None = by_fide.get(person.fide_id)
        if row is not None:
            how = "fide_id"
        else:
            row, how = _match_by_name(person, by_key.get(name_key(person.name), []), report, match)
        if row is None:
            continue
        if row[0] in taken:
            report.errors.append(
                LineMessage(
                    person.line,
                    f"{person.name} and {taken[row[0]].name} (line {taken[row[0]].line}) "
                    f"both match club player #{row[0]} {row[1]!r}; give them FIDE IDs or "
                    "birth dates",
                    taken[row[0]].line,
                )
            )
            continue
        taken[row[0]] = person
        person.player_id = row[0]
        if how != "fide_id" and person.fide_id is not None:
            report.warnings.append(
                LineMessage(
                    person.line,
                    f"{person.name} matched by name; the club has no FIDE ID "
                    f"{person.fide_id} on record for them",
                )
            )
        report.players_matched.append(
            PlayerEntry(person.line, person.name, person.fide_id, row[0], how)
        )


def _by_fide_id(club: Club, persons: list[Person]) -> dict[int | None, _Row]:
    """The club's players with the persons' FIDE IDs, by FIDE ID."""
    rows: dict[int, _Row] = {}
    fide_ids = sorted({p.fide_id for p in persons if p.fide_id is not None})
    for chunk in _chunks(fide_ids):
        for found in Player.objects.filter(club=club, fide_id__any=chunk).values_list(
            "id", "name", "birth_date", "birth_year", "fide_id"
        ):
            rows[found[0]] = found
    return {row[4]: row for row in rows.values()}


def _by_name_key(club: Club, unmatched: list[Person]) -> dict[str, list[_Row]]:
    """The club's players with the name keys of the persons not matched by FIDE ID."""
    by_key: dict[str, list[_Row]] = defaultdict(list)
    keys = sorted({name_key(p.name) for p in unmatched})
    for chunk in _chunks(keys):
        for *named, key in Player.objects.filter(club=club, name_key__any=chunk).values_list(
            "id", "name", "birth_date", "birth_year", "fide_id", "name_key"
        ):
            by_key[key].append(tuple(named))
    return by_key


def _match_by_name(
    person: Person, candidates: list[_Row], report: ImportReport, match: str
) -> tuple[_Row | None, str]:
    compatible, exact = _name_candidates(person, candidates)
    if len(exact) == 1:
        return exact[0], "name_birth"
    pool = exact or compatible
    if len(pool) == 1 and not exact:
        # Same name key, birth data missing on one side (or both): only possible.
        chosen = match != "new"
        report.possible_matches.append(
            PossibleMatch(person.line, person.name, pool[0][0], pool[0][1], chosen)
        )
        return (pool[0], "name") if chosen else (None, "")
    if len(pool) > 1:
        _several(person, pool, bool(exact), report, match)
    return None, ""


def _name_candidates(person: Person, candidates: list[_Row]) -> tuple[list[_Row], list[_Row]]:
    """The club players the person may be (same name key), and of them those whose birth
    data agrees with the person's on both sides."""
    # A club player with another FIDE ID is another person, whatever the name; so is one
    # whose birth date or year differs.
    compatible = [
        row
        for row in candidates
        if (person.fide_id is None or row[4] is None or row[4] == person.fide_id)
        and _birth_agrees(person, row)
    ]
    has_birth = person.birth_date is not None or person.birth_year is not None
    exact = [row for row in compatible if has_birth and (row[2] or row[3])]
    return compatible, exact


def _several(
    person: Person, pool: list[_Row], exact: bool, report: ImportReport, match: str
) -> None:
    """Several club players the person may be: listed as possible matches not taken when
    ``match`` is "new" and none is exact, else an error."""
    if not exact and match == "new":
        report.possible_matches.extend(
            PossibleMatch(person.line, person.name, row[0], row[1], False) for row in pool
        )
    else:
        report.errors.append(
            LineMessage(
                person.line,
                f"{len(pool)} club players are named {person.name!r} (in some form) "
                f"(#{', #'.join(str(row[0]) for row in pool)}); give a FIDE ID or birth "
                "date to say which",
            )
        )


#: A game as the check for stored games compares it: day (ordinal), white, black, result
#: (a small code) and round (-1: none), in 40 bytes; the tuples and Counter it replaces took
#: about 250 bytes a game (145 MB for a re-import of 580,000 games).
_GAME_KEY = numpy.dtype(
    [(name, numpy.int64) for name in ("day", "white", "black", "result", "round")]
)


def drop_stored_games(
    *, club: Club, rating_list: RatingList, games: PlannedGames, report: ImportReport
) -> PlannedGames:
    """The file's games minus those the club has stored already (same list, date,
    players, result and round): a re-import in another format stores nothing twice. Each
    stored game drops one game of the file (a game played twice in a day, stored once,
    leaves one in the file)."""
    if not len(games):
        return games
    # Each game's players' club ids, through the persons' (0: a player still to create).
    white, black = (
        numpy.array([p.player_id or 0 for p in games.values(side)], numpy.int64)[games.column(side)]
        for side in ("white", "black")
    )
    known = (white > 0) & (black > 0)
    if not known.any():
        return games
    ids = numpy.union1d(white[known], black[known]).tolist()
    days = games.values("date")
    used = numpy.unique(games.column("date")[known]).tolist()
    first, last = min(days[i] for i in used), max(days[i] for i in used)
    # Results as small codes, the same in both sets of keys.
    codes: dict[Any, int] = {}
    stored = _stored_keys(club, rating_list, ids, (first, last), codes)
    if not len(stored):
        return games
    drop = _matched(stored, _planned_keys(games, white, black, codes)) & known
    if not drop.any():
        return games
    _report_dropped(games, drop, report)
    return games.select(~drop)


def _stored_keys(
    club: Club,
    rating_list: RatingList,
    ids: list[int],
    days: tuple[Any, Any],
    codes: dict[Any, int],
) -> numpy.ndarray:
    """The keys of the list's stored games in those days whose White is one of ``ids``."""
    return numpy.concatenate(
        [
            numpy.fromiter(
                (
                    (day.toordinal(), w, b, codes.setdefault(_text(result), len(codes)), _round(r))
                    for day, w, b, result, r in Game.objects.filter(
                        club=club,
                        rating_list=rating_list,
                        date__range=days,
                        white_id__in=chunk,
                    ).values_list("date", "white_id", "black_id", "result", "round")
                ),
                dtype=_GAME_KEY,
            )
            for chunk in _chunks(ids)
        ]
    )


def _planned_keys(
    games: PlannedGames, white: numpy.ndarray, black: numpy.ndarray, codes: dict[Any, int]
) -> numpy.ndarray:
    """The keys of the file's games (their players' club ids: ``white``, ``black``)."""
    planned = numpy.empty(len(games), dtype=_GAME_KEY)
    days = games.values("date")
    planned["day"] = numpy.array([d.toordinal() for d in days], numpy.int64)[games.column("date")]
    planned["white"], planned["black"] = white, black
    results = [codes.setdefault(_text(r), len(codes)) for r in games.values("result")]
    planned["result"] = numpy.array(results, numpy.int64)[games.column("result")]
    rounds = [_round(r) for r in games.values("round")]
    planned["round"] = numpy.array(rounds, numpy.int64)[games.column("round")]
    return planned


def _report_dropped(games: PlannedGames, drop: numpy.ndarray, report: ImportReport) -> None:
    """The games stored already, counted, the first listed."""
    dropped = numpy.flatnonzero(drop)
    report.games_skipped_count += len(dropped)
    for position in dropped[: REPORT_MAX_LINES - len(report.games_skipped)].tolist():
        game = games[position]
        report.games_skipped.append(
            LineMessage(game.line, f"{game.white.name} - {game.black.name} is stored already")
        )


def _text(value: Any) -> str:
    """A result as stored: the enum's value (str() of a str enum is its name)."""
    return str(getattr(value, "value", value))


def _round(value: int | None) -> int:
    return -1 if value is None else int(value)


def _matched(stored: numpy.ndarray, planned: numpy.ndarray) -> numpy.ndarray:
    """Which of ``planned`` a game of ``stored`` stands for: of the planned games with one
    key, the first n in file order when n stored games have that key."""
    keys, counts = numpy.unique(stored, return_counts=True)
    groups, inverse = numpy.unique(planned, return_inverse=True)
    inverse = inverse.reshape(-1)
    at = numpy.minimum(numpy.searchsorted(keys, groups), len(keys) - 1)
    in_store = numpy.where(keys[at] == groups, counts[at], 0)
    # Each planned game's rank among the planned games of its key, in file order.
    order = numpy.argsort(inverse, kind="stable")
    starts = numpy.searchsorted(inverse[order], numpy.arange(len(groups)))
    rank = numpy.empty(len(planned), dtype=numpy.int64)
    rank[order] = numpy.arange(len(planned)) - starts[inverse[order]]
    return rank < in_store[inverse]


def _birth_agrees(person: Person, row: _Row) -> bool:
    _id, _name, birth_date, birth_year, _fide = row
    if person.birth_date is not None and birth_date is not None:
        return bool(person.birth_date == birth_date)
    if person.birth_year is not None and birth_year is not None:
        return bool(person.birth_year == birth_year)
    return True


def _chunks(values: Sequence[Any]) -> Iterable[Sequence[Any]]:
    for start in range(0, len(values), _CHUNK):
        yield values[start : start + _CHUNK]
