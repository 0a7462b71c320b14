"""The checks of game items shared by every way a game is written: what the items name,
looked up once per call (set-based), each item checked in the order its errors name its
fields, and the list and period month each game falls in."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from players.errors import ValidationFailed, invalid_field
from players.models import Club, Player, RatingList, date_out_of_bounds, month_start
from tournaments.models import Result, Tournament

GAME_KEYS = {"list", "date", "white", "black", "result", "tournament", "round", "rated"}


def game_period_month(*, date: datetime.date, tournament: Tournament | None) -> datetime.date:
    """FIDE rates a tournament on the list after its end: its games belong to the month
    of the tournament's end date; a game outside a tournament to its own month."""
    return month_start(tournament.end_date if tournament is not None else date)


def id_of(value: Any) -> Any:
    if type(value) is int:  # the common case, without the attribute lookup
        return value
    return value.pk if hasattr(value, "pk") else value


def _lookup_by_id(model: Any, club: Club, ids: set[Any], **extra: Any) -> dict[int, Any]:
    clean = {value for value in ids if isinstance(value, int) and not isinstance(value, bool)}
    return {obj.pk: obj for obj in model.objects.filter(club=club, pk__in=clean, **extra)}


def _ids_in_club(model: Any, club: Club, ids: set[Any]) -> dict[int, int]:
    clean = {value for value in ids if isinstance(value, int) and not isinstance(value, bool)}
    found = model.objects.filter(club=club, pk__any=sorted(clean)).values_list("pk", flat=True)
    return {pk: pk for pk in found}


class ValidGame(NamedTuple):
    """One validated game item, before it becomes a row."""

    rating_list: RatingList
    tournament: Tournament | None
    date: datetime.date
    round: int | None
    # Player instances; ids (ints) where the caller writes ids only (games_add).
    white: Player | int
    black: Player | int
    result: str
    rated: bool
    month: datetime.date


class Lookups(NamedTuple):
    """What the items name, looked up once per call (set-based)."""

    lists: dict[str, RatingList]
    lists_by_id: dict[int, RatingList]
    # By id: the players (games_add: their ids, which are all it writes).
    players: dict[int, Player] | dict[int, int]
    tournaments: dict[int, Tournament]
    # The distinct (list as given, tournament id, date) of the items, when asked for:
    # what their periods are, before the items are read again.
    keys: set[tuple[Any, Any, Any]]


class DistinctValues(NamedTuple):
    """What a sequence of game items names, each value once: what :func:`look_up` reads
    from the items, given by items that know it without being read (an import's games,
    kept column by column, have a few thousand players and a few dozen dates)."""

    player_ids: set[Any]
    tournament_ids: set[Any]
    # The distinct (list, tournament id, date) of the items.
    keys: set[tuple[Any, Any, Any]]


def look_up(*, club: Club, items: Sequence[Mapping[str, Any]], with_keys: bool) -> Lookups:
    lists = {rl.slug: rl for rl in RatingList.objects.filter(club=club)}
    distinct = getattr(items, "distinct_values", None)
    if distinct is not None:
        player_ids, tournament_ids, keys = distinct()
    else:
        # One pass for the ids to look up (an import's items are built as they are read).
        player_ids, tournament_ids, keys = set(), set(), set()
        for item in items:
            player_ids.add(id_of(item.get("white")))
            player_ids.add(id_of(item.get("black")))
            tournament = id_of(item.get("tournament"))
            tournament_ids.add(tournament)
            if with_keys:
                keys.add((_hashable(item.get("list")), tournament, _hashable(item.get("date"))))
    return Lookups(
        lists=lists,
        lists_by_id={rl.pk: rl for rl in lists.values()},
        # games_add writes ids only: the club's players' ids, without 8,000 instances.
        players=_ids_in_club(Player, club, player_ids)
        if with_keys
        else _lookup_by_id(Player, club, player_ids),
        tournaments=_lookup_by_id(Tournament, club, tournament_ids),
        keys=keys,
    )


def _hashable(value: Any) -> Any:
    return value if value is None or isinstance(value, str | datetime.date | RatingList) else None


def validate_games(
    *, club: Club, items: Sequence[Mapping[str, Any]], prefix_items: bool
) -> list[ValidGame]:
    """Every item checked (set-based lookups); a ValidationFailed names the first bad one."""
    lookups = look_up(club=club, items=items, with_keys=False)
    return list(validated(items=items, lookups=lookups, prefix_items=prefix_items))


def validated(
    *, items: Sequence[Mapping[str, Any]], lookups: Lookups, prefix_items: bool
) -> Iterator[ValidGame]:
    """The items checked one by one, in order; a ValidationFailed names the first bad one.
    A generator, so that an import writes each game as soon as it is checked."""
    # One loop over what may be an import's 100,000 items, the fields checked in the order
    # the errors name them: where the game goes inline, with the per-value cache beside it;
    # who played and how it ended in one call per item (not one per field).
    lists, lists_by_id = lookups.lists, lookups.lists_by_id
    players, tournaments = lookups.players, lookups.tournaments
    result_values = frozenset(Result)
    # A file's 100,000 games have a few dozen dates and one list: the list, date and month
    # of a game are derived once per distinct (list, tournament, date), not once per game.
    placements: dict[tuple[Any, int | None, datetime.date | None], Placed | _Refused] = {}
    index = 0

    def bad(field: str, message: str) -> ValidationFailed:
        return invalid_field(f"[{index}].{field}" if prefix_items else field, message)

    for index, item in enumerate(items):  # noqa: B007 - bad() reads the current index
        unknown = item.keys() - GAME_KEYS
        if unknown:
            raise bad(sorted(unknown)[0], "Unknown field.")
        tournament: Tournament | None = None
        if item.get("tournament") is not None:
            tournament = tournaments.get(id_of(item["tournament"]))
            if tournament is None:
                raise bad("tournament", "No such tournament in this club.")
        raw_list = item.get("list")
        date: Any = item.get("date")  # checked by placement below
        # Any value that is not a date is refused alike, so it needs no key of its own
        # (and may be unhashable).
        date_key = date if isinstance(date, datetime.date) else None
        key = (
            ("id", raw_list.pk)
            if isinstance(raw_list, RatingList)
            else raw_list
            if raw_list is None or isinstance(raw_list, str)
            else ("object", id(raw_list)),
            tournament.pk if tournament is not None else None,
            date_key,
        )
        placed = placements.get(key)
        if placed is None:
            placed = placements[key] = placement(raw_list, tournament, date_key, lists, lists_by_id)
        if isinstance(placed, _Refused):
            raise bad(placed.field, placed.message)
        white, black, result, round_, rated = _played(item, players, result_values, bad)
        yield ValidGame(
            rating_list=placed.rating_list,
            tournament=tournament,
            date=date,
            round=round_,
            white=white,
            black=black,
            result=result,
            rated=rated,
            month=placed.month,
        )


def _played(
    item: Mapping[str, Any],
    players: Mapping[Any, Any],
    result_values: frozenset[Result],
    bad: Callable[[str, str], ValidationFailed],
) -> tuple[Any, Any, Any, Any, bool]:
    """Who played and how it ended: White, Black, result, round and whether rated; a
    ValidationFailed names the first bad field."""
    white = players.get(id_of(item.get("white")))
    black = players.get(id_of(item.get("black")))
    if white is None:
        raise bad("white", "No such player in this club.")
    if black is None:
        raise bad("black", "No such player in this club.")
    if white == black:
        raise bad("black", "A player cannot play themselves.")
    result = item.get("result")
    if result not in result_values:
        raise bad("result", f"Use one of {', '.join(Result)}.")
    round_ = item.get("round")
    if round_ is not None and (
        isinstance(round_, bool) or not isinstance(round_, int) or round_ < 1
    ):
        raise bad("round", "A round is a whole number, 1 or more.")
    rated = item.get("rated", True)
    if not isinstance(rated, bool):
        raise bad("rated", "True or false.")
    return white, black, result, round_, rated


def periods_wanted(lookups: Lookups) -> dict[int, set[datetime.date]]:
    """The months of each list that the items' distinct (list, tournament, date) fall in,
    derived by :func:`placement` as :func:`validated` derives them; an item it would
    refuse is left out (it refuses it when it gets there)."""
    wanted: dict[int, set[datetime.date]] = {}
    for raw_list, tournament_id, date in lookups.keys:
        tournament = lookups.tournaments.get(tournament_id) if tournament_id is not None else None
        if tournament_id is not None and tournament is None:
            continue
        placed = placement(raw_list, tournament, date, lookups.lists, lookups.lists_by_id)
        if isinstance(placed, Placed):
            wanted.setdefault(placed.rating_list.pk, set()).add(placed.month)
    return wanted


class Placed(NamedTuple):
    """A game's list and the month of its period."""

    rating_list: RatingList
    month: datetime.date


class _Refused(NamedTuple):
    """Why a game has no list or period month: the field to name and the message."""

    field: str
    message: str


def placement(
    raw_list: Any,
    tournament: Tournament | None,
    date: Any,
    lists: Mapping[str, RatingList],
    lists_by_id: Mapping[int, RatingList],
) -> Placed | _Refused:
    """A game's list and period month, checked in the order the errors name them (list,
    then date); or the first reason it has none. The tournament is already known to
    exist."""
    rating_list = _list_of(raw_list, tournament, lists, lists_by_id)
    if isinstance(rating_list, str):
        return _Refused("list", rating_list)
    if not isinstance(date, datetime.date) or isinstance(date, datetime.datetime):
        return _Refused("date", "A date is required.")
    why = date_out_of_bounds(date)
    if why:
        return _Refused("date", why)
    if tournament is not None and not tournament.start_date <= date <= tournament.end_date:
        return _Refused("date", "The date is outside the tournament's dates.")
    return Placed(rating_list, game_period_month(date=date, tournament=tournament))


def _list_of(
    raw_list: RatingList | str | None,
    tournament: Tournament | None,
    lists: Mapping[str, RatingList],
    lists_by_id: Mapping[int, RatingList],
) -> RatingList | str:
    """A game's list: the one named (a kind or a list of the club), else its tournament's;
    or why it has none."""
    if raw_list is None:
        if tournament is None:
            return "Say which list the game is rated on."
        return lists_by_id[tournament.rating_list_id]
    kind = raw_list.slug if isinstance(raw_list, RatingList) else raw_list
    rating_list = lists.get(kind)
    if rating_list is None or (isinstance(raw_list, RatingList) and raw_list.pk != rating_list.pk):
        return "No such list in this club."
    if tournament is not None and tournament.rating_list_id != rating_list.pk:
        return f"The tournament is rated on the {tournament.rating_list.slug} list."
    return rating_list
