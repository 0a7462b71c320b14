"""Matching the file to the club: its persons to club players, its games to stored games.

Set-based: one query per chunk of FIDE IDs, of names, of players' games; nothing per row.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

import numpy

from players.models import Club, Player, RatingList
from players.names import name_key
from tournaments.models import Game
from tournaments.services.imports.plan import Person, PlannedGames
from tournaments.services.imports.report import (
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
    rows: dict[int, _Row] = {}
    fide_ids = sorted({p.fide_id for p in persons if p.fide_id is not None})
    for chunk in _chunks(fide_ids):
        for found in Player.objects.filter(club=club, fide_id__any=chunk).values_list(
            "id", "name", "birth_date", "birth_year", "fide_id"
        ):
            rows[found[0]] = found
    by_fide = {row[4]: row for row in rows.values()}
    unmatched = [p for p in persons if p.fide_id is None or p.fide_id not in by_fide]
    by_key: dict[str, list[_Row]] = defaultdict(list)
    keys = sorted({name_key(p.name) for p in unmatched})
    for chunk in _chunks(keys):
        for *named, key in Player.objects.filter(club=club, name_key__any=chunk).values_list(
            "id", "name", "birth_date", "birth_year", "fide_id", "name_key"
        ):
            by_key[key].append(tuple(named))
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


def _match_by_name(
    person: Person, candidates: list[_Row], report: ImportReport, match: str
) -> tuple[_Row | None, str]:
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
    if len(pool) > 1 and not exact and match == "new":
        report.possible_matches.extend(
            PossibleMatch(person.line, person.name, row[0], row[1], False) for row in pool
        )
    elif len(pool) > 1:
        report.errors.append(
            LineMessage(
                person.line,
                f"{len(pool)} club players are named {person.name!r} (in some form) "
                f"(#{', #'.join(str(row[0]) for row in pool)}); give a FIDE ID or birth "
                "date to say which",
            )
        )
    return None, ""


def drop_stored_games(
    *, club: Club, rating_list: RatingList, games: PlannedGames, report: ImportReport
) -> PlannedGames:
    """The file's games minus those the club has stored already (same list, date,
    players, result and round): a re-import in another format stores nothing twice."""
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
    stored: Counter[tuple[Any, ...]] = Counter()
    for chunk in _chunks(ids):
        rows = Game.objects.filter(
            club=club,
            rating_list=rating_list,
            date__range=(first, last),
            white_id__in=chunk,
        ).values_list("date", "white_id", "black_id", "result", "round")
        stored.update(rows)
    if not stored:
        return games
    keep = numpy.ones(len(games), dtype=bool)
    planned = games.rows("date", "white", "black", "result", "round", "line")
    for position, (day, white_person, black_person, result, round_, line) in enumerate(planned):
        key = (day, white_person.player_id, black_person.player_id, result, round_)
        if stored[key] > 0:
            stored[key] -= 1
            keep[position] = False
            report.games_skipped.append(
                LineMessage(line, f"{white_person.name} - {black_person.name} is stored already")
            )
    return games if keep.all() else games.select(keep)


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
