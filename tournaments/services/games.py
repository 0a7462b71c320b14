"""Services for tournaments and games: validation, period derivation, period locks.

A game write locks its period row (``select_for_update(no_key=True)``) and checks the
period is not closed while holding it, so a game written while a close runs either lands
before the close reads the games or is refused; it is never lost.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from django.db import transaction
from django.db.models import Max

from players.bulk import history_rows_copy, insert_rows
from players.errors import ConflictError, ValidationFailed, invalid_field
from players.models import (
    Club,
    Player,
    RatingList,
    RatingPeriod,
    Role,
    date_out_of_bounds,
    month_start,
)
from players.models.audit import audit_user_id, audit_via
from players.selectors import User, require_role
from players.services import club_published_changed
from tournaments.models import Game, Result, Tournament

_GAME_KEYS = {"list", "date", "white", "black", "result", "tournament", "round", "rated"}


def game_period_month(*, date: datetime.date, tournament: Tournament | None) -> datetime.date:
    """FIDE rates a tournament on the list after its end: its games belong to the month
    of the tournament's end date; a game outside a tournament to its own month."""
    return month_start(tournament.end_date if tournament is not None else date)


def _periods_locked(
    *, rating_list_id: int, months: Iterable[datetime.date]
) -> dict[datetime.date, RatingPeriod]:
    """Get or create the list's periods for ``months`` and lock them in id order.

    Refuses (ConflictError) when one is closed, or when a later period of the list is
    closed: a game there would change what that later list should have been.
    """
    wanted = sorted(set(months))
    if not wanted:
        return {}
    existing = set(
        RatingPeriod.objects.filter(rating_list_id=rating_list_id, month__in=wanted).values_list(
            "month", flat=True
        )
    )
    missing = [month for month in wanted if month not in existing]
    if missing:
        # ignore_conflicts: another writer may create the same month at the same moment.
        RatingPeriod.objects.bulk_create(
            [RatingPeriod(rating_list_id=rating_list_id, month=month) for month in missing],
            ignore_conflicts=True,
        )
    locked = list(
        RatingPeriod.objects.select_for_update(no_key=True)
        .filter(rating_list_id=rating_list_id, month__in=wanted)
        .order_by("id")
    )
    for period in locked:
        if period.status == RatingPeriod.Status.CLOSED:
            raise ConflictError(
                f"Period {period.label} is closed; reopen it to change its games.",
                fields={"period": [f"{period.label} is closed."]},
            )
    later_closed = (
        RatingPeriod.objects.filter(
            rating_list_id=rating_list_id,
            month__gt=wanted[0],
            status=RatingPeriod.Status.CLOSED,
        )
        .order_by("month")
        .first()
    )
    if later_closed is not None:
        raise ConflictError(
            f"Period {later_closed.label} is already closed; a game of "
            f"{wanted[0]:%Y-%m} would change it. Reopen {wanted[0]:%Y-%m} first.",
            fields={"period": [f"{later_closed.label} is closed."]},
        )
    return {period.month: period for period in locked}


def _id_of(value: Any) -> Any:
    if type(value) is int:  # the common case, without the attribute lookup
        return value
    return value.pk if hasattr(value, "pk") else value


def _lookup_by_id(model: Any, club: Club, ids: set[Any], **extra: Any) -> dict[int, Any]:
    clean = {value for value in ids if isinstance(value, int) and not isinstance(value, bool)}
    return {obj.pk: obj for obj in model.objects.filter(club=club, pk__in=clean, **extra)}


def _ids_in_club(model: Any, club: Club, ids: set[Any]) -> dict[int, int]:
    clean = {value for value in ids if isinstance(value, int) and not isinstance(value, bool)}
    found = model.objects.filter(club=club, pk__in=clean).values_list("pk", flat=True)
    return {pk: pk for pk in found}


class _ValidGame(NamedTuple):
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


def _instance(player: Player | int) -> Player:
    # _prepare_games's lookups hold instances (the games it returns show their players).
    assert isinstance(player, Player)
    return player


def _prepare_games(
    *, club: Club, items: Sequence[Mapping[str, Any]], prefix_items: bool
) -> list[tuple[Game, datetime.date]]:
    """Validate every item (set-based lookups) -> unsaved games and their period months."""
    return [
        (
            Game(
                club=club,
                rating_list=valid.rating_list,
                tournament=valid.tournament,
                date=valid.date,
                round=valid.round,
                white=_instance(valid.white),
                black=_instance(valid.black),
                result=valid.result,
                rated=valid.rated,
            ),
            valid.month,
        )
        for valid in _validate_games(club=club, items=items, prefix_items=prefix_items)
    ]


class _Lookups(NamedTuple):
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
    """What a sequence of game items names, each value once: what :func:`_lookups` reads
    from the items, given by items that know it without being read (an import's games,
    kept column by column, have a few thousand players and a few dozen dates)."""

    player_ids: set[Any]
    tournament_ids: set[Any]
    # The distinct (list, tournament id, date) of the items.
    keys: set[tuple[Any, Any, Any]]


def _lookups(*, club: Club, items: Sequence[Mapping[str, Any]], with_keys: bool) -> _Lookups:
    lists = {rl.slug: rl for rl in RatingList.objects.filter(club=club)}
    distinct = getattr(items, "distinct_values", None)
    if distinct is not None:
        player_ids, tournament_ids, keys = distinct()
    else:
        # One pass for the ids to look up (an import's items are built as they are read).
        player_ids, tournament_ids, keys = set(), set(), set()
        for item in items:
            player_ids.add(_id_of(item.get("white")))
            player_ids.add(_id_of(item.get("black")))
            tournament = _id_of(item.get("tournament"))
            tournament_ids.add(tournament)
            if with_keys:
                keys.add((_hashable(item.get("list")), tournament, _hashable(item.get("date"))))
    return _Lookups(
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


def _validate_games(
    *, club: Club, items: Sequence[Mapping[str, Any]], prefix_items: bool
) -> list[_ValidGame]:
    """Every item checked (set-based lookups); a ValidationFailed names the first bad one."""
    lookups = _lookups(club=club, items=items, with_keys=False)
    return list(_validated(items=items, lookups=lookups, prefix_items=prefix_items))


def _validated(
    *, items: Sequence[Mapping[str, Any]], lookups: _Lookups, prefix_items: bool
) -> Iterator[_ValidGame]:
    """The items checked one by one, in order; a ValidationFailed names the first bad one.
    A generator, so that an import writes each game as soon as it is checked."""
    # Over 80 lines on purpose: one loop over what may be an import's 100,000 items, each
    # field checked inline in the order the errors name them, with the per-value cache
    # beside it; split up, it would make a call per item and field in an import's
    # hottest loop.
    lists, lists_by_id = lookups.lists, lookups.lists_by_id
    players, tournaments = lookups.players, lookups.tournaments
    result_values = frozenset(Result.values)  # Result.values builds a new list per access
    # A file's 100,000 games have a few dozen dates and one list: the list, date and month
    # of a game are derived once per distinct (list, tournament, date), not once per game.
    placements: dict[tuple[Any, int | None, datetime.date | None], _Placed | _Refused] = {}
    index = 0

    def bad(field: str, message: str) -> ValidationFailed:
        return invalid_field(f"[{index}].{field}" if prefix_items else field, message)

    for index, item in enumerate(items):  # noqa: B007 - bad() reads the current index
        unknown = item.keys() - _GAME_KEYS
        if unknown:
            raise bad(sorted(unknown)[0], "Unknown field.")
        tournament: Tournament | None = None
        if item.get("tournament") is not None:
            tournament = tournaments.get(_id_of(item["tournament"]))
            if tournament is None:
                raise bad("tournament", "No such tournament in this club.")
        raw_list = item.get("list")
        date: Any = item.get("date")  # checked by _placement below
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
            placed = placements[key] = _placement(
                raw_list, tournament, date_key, lists, lists_by_id
            )
        if isinstance(placed, _Refused):
            raise bad(placed.field, placed.message)
        white = players.get(_id_of(item.get("white")))
        black = players.get(_id_of(item.get("black")))
        if white is None:
            raise bad("white", "No such player in this club.")
        if black is None:
            raise bad("black", "No such player in this club.")
        if white == black:
            raise bad("black", "A player cannot play themselves.")
        result = item.get("result")
        if result not in result_values:
            raise bad("result", f"Use one of {', '.join(Result.values)}.")
        round_ = item.get("round")
        if round_ is not None and (
            isinstance(round_, bool) or not isinstance(round_, int) or round_ < 1
        ):
            raise bad("round", "A round is a whole number, 1 or more.")
        rated = item.get("rated", True)
        if not isinstance(rated, bool):
            raise bad("rated", "True or false.")
        yield _ValidGame(
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


def _periods_wanted(lookups: _Lookups) -> dict[int, set[datetime.date]]:
    """The months of each list that the items' distinct (list, tournament, date) fall in,
    derived by :func:`_placement` as :func:`_validated` derives them; an item it would
    refuse is left out (it refuses it when it gets there)."""
    wanted: dict[int, set[datetime.date]] = {}
    for raw_list, tournament_id, date in lookups.keys:
        tournament = lookups.tournaments.get(tournament_id) if tournament_id is not None else None
        if tournament_id is not None and tournament is None:
            continue
        placed = _placement(raw_list, tournament, date, lookups.lists, lookups.lists_by_id)
        if isinstance(placed, _Placed):
            wanted.setdefault(placed.rating_list.pk, set()).add(placed.month)
    return wanted


class _Placed(NamedTuple):
    """A game's list and the month of its period."""

    rating_list: RatingList
    month: datetime.date


class _Refused(NamedTuple):
    """Why a game has no list or period month: the field to name and the message."""

    field: str
    message: str


def _placement(
    raw_list: Any,
    tournament: Tournament | None,
    date: Any,
    lists: Mapping[str, RatingList],
    lists_by_id: Mapping[int, RatingList],
) -> _Placed | _Refused:
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
    return _Placed(rating_list, game_period_month(date=date, tournament=tournament))


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


def games_create_bulk(*, club: Club, by: User, games: Sequence[Mapping[str, Any]]) -> list[Game]:
    """Store every game or none (arbiter or above).

    Each item: ``list`` (kind, optional with a tournament), ``date``, ``white``, ``black``
    (players or ids of this club), ``result``, ``tournament`` (optional), ``round``,
    ``rated``. Errors name the item: ``fields={"[3].white": [...]}``. A game whose period is
    closed raises ConflictError.
    """
    require_role(by, club, Role.ARBITER)
    if not games:
        raise invalid_field("games", "No games given.")
    prepared = _prepare_games(club=club, items=games, prefix_items=True)
    return _games_store(prepared, by_id=by.pk)


def games_add(*, club: Club, games: Sequence[Mapping[str, Any]]) -> int:
    """games_create_bulk's validation, period derivation and period locks, inside the
    caller's transaction (imports: the tournament, players and games commit together);
    returns how many games were stored.

    The caller checks the role (arbiter or above) and owns the durable transaction. The
    periods are locked first (from the items' distinct lists, tournaments and dates); then
    each game goes to the database as soon as it is checked (COPY on PostgreSQL), so the
    server stores one game while the next is checked. A bad item stops the write and the
    caller's transaction rolls back what came before it.
    """
    if not games:
        return 0
    lookups = _lookups(club=club, items=games, with_keys=True)
    periods: dict[tuple[int, datetime.date], int] = {}
    club_id = club.pk
    wanted = _periods_wanted(lookups)
    for list_id in sorted(wanted):
        for month, period in _periods_locked(
            rating_list_id=list_id, months=wanted[list_id]
        ).items():
            periods[(list_id, month)] = period.pk
    valid = _validated(items=games, lookups=lookups, prefix_items=True)
    latest = Game.objects.aggregate(latest=Max("id"))["latest"] or 0
    stored = insert_rows(
        Game,
        (
            "club",
            "rating_list",
            "period",
            "tournament",
            "date",
            "round",
            "white",
            "black",
            "result",
            "rated",
        ),
        (
            (
                club_id,
                game.rating_list.id,
                periods[(game.rating_list.id, game.month)],
                game.tournament.id if game.tournament is not None else None,
                game.date,
                game.round,
                game.white,  # ids: see _lookups
                game.black,
                game.result,
                game.rated,
            )
            for game in valid
        ),
    )
    # The audit rows of the new games, copied inside the database (ids above the latest
    # before the insert; games of this club only).
    if stored:
        history_rows_copy(
            Game.objects.filter(club_id=club_id, id__gt=latest),
            via=audit_via(),
            user_id=audit_user_id(),
        )
        club_published_changed(club_id=club_id)
    return stored


def game_create(*, club: Club, by: User, **game: Any) -> Game:
    """One game (arbiter or above); fields as in games_create_bulk, errors unprefixed."""
    require_role(by, club, Role.ARBITER)
    prepared = _prepare_games(club=club, items=[game], prefix_items=False)
    return _games_store(prepared, by_id=by.pk)[0]


def _range_of(model: Any, rows: Sequence[Any], *, club_id: int) -> Any:
    """The rows just bulk-created, by their id range (a list of ids could pass SQLite's
    limit of bound parameters)."""
    ids = [row.pk for row in rows]
    return model.objects.filter(club_id=club_id, pk__gte=min(ids), pk__lte=max(ids))


def _games_store(
    prepared: list[tuple[Game, datetime.date]], *, by_id: int | None, durable: bool = True
) -> list[Game]:
    with transaction.atomic(durable=durable):
        by_list: dict[int, set[datetime.date]] = {}
        for game, month in prepared:
            by_list.setdefault(game.rating_list_id, set()).add(month)
        periods: dict[tuple[int, datetime.date], RatingPeriod] = {}
        for list_id in sorted(by_list):
            for month, period in _periods_locked(
                rating_list_id=list_id, months=by_list[list_id]
            ).items():
                periods[(list_id, month)] = period
        for game, month in prepared:
            game.period = periods[(game.rating_list_id, month)]
        created = Game.objects.bulk_create([game for game, _ in prepared], batch_size=2000)
        if created:
            history_rows_copy(
                _range_of(Game, created, club_id=created[0].club_id),
                via=audit_via(),
                user_id=by_id,
            )
            club_published_changed(club_id=created[0].club_id)
        return created


def game_update(*, game: Game, by: User, **changes: Any) -> Game:
    """Change a game of an open (or reopened) period; moving it to another period needs
    that period open too."""
    require_role(by, game.club, Role.ARBITER)
    current = {
        "list": game.rating_list,
        "date": game.date,
        "white": game.white_id,
        "black": game.black_id,
        "result": game.result,
        "tournament": game.tournament_id,
        "round": game.round,
        "rated": game.rated,
    }
    current.update(changes)
    ((new, month),) = _prepare_games(club=game.club, items=[current], prefix_items=False)
    with transaction.atomic(durable=True):
        old_period = RatingPeriod.objects.get(pk=game.period_id)
        months = {(game.rating_list_id, old_period.month), (new.rating_list_id, month)}
        periods: dict[tuple[int, datetime.date], RatingPeriod] = {}
        for list_id, wanted in sorted(months):
            for got, period in _periods_locked(rating_list_id=list_id, months=[wanted]).items():
                periods[(list_id, got)] = period
        for field in (
            "rating_list",
            "tournament",
            "date",
            "round",
            "white",
            "black",
            "result",
            "rated",
        ):
            setattr(game, field, getattr(new, field))
        game.period = periods[(new.rating_list_id, month)]
        game.save()
        club_published_changed(club_id=game.club_id)
    return game


def game_delete(*, game: Game, by: User) -> None:
    require_role(by, game.club, Role.ARBITER)
    with transaction.atomic(durable=True):
        month = RatingPeriod.objects.values_list("month", flat=True).get(pk=game.period_id)
        _periods_locked(rating_list_id=game.rating_list_id, months=[month])
        club_id = game.club_id
        game.delete()
        club_published_changed(club_id=club_id)
