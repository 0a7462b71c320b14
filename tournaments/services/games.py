"""Services for games: store, change and delete them, with their periods locked.

A game write locks its period row (``select_for_update(no_key=True)``) and checks the
period is not closed while holding it, so a game written while a close runs either lands
before the close reads the games or is refused; it is never lost. The checks of the items
and the derivation of their periods are in :mod:`tournaments.services.game_checks`.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy
from django.db import transaction
from django.db.models import Max

from players.bulk import history_rows_copy, insert_columns, insert_rows
from players.errors import ConflictError, invalid_field
from players.models import Club, Player, RatingPeriod, Role
from players.models.audit import audit_user_id, audit_via
from players.selectors import User, require_role
from players.services import club_live_changed
from tournaments.models import Game
from tournaments.services.game_checks import (
    Lookups,
    look_up,
    periods_wanted,
    validate_games,
    validated,
)
from tournaments.services.game_columns import validated_columns


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
    lock = (
        RatingPeriod.objects.select_for_update(no_key=True)
        .filter(rating_list_id=rating_list_id, month__in=wanted)
        .order_by("id")
    )
    # Usually every month's period exists (a round's games go to one): one query locks them.
    locked = list(lock)
    missing = set(wanted) - {period.month for period in locked}
    if missing:
        # ignore_conflicts: another writer may create the same month at the same moment.
        RatingPeriod.objects.bulk_create(
            [RatingPeriod(rating_list_id=rating_list_id, month=month) for month in sorted(missing)],
            ignore_conflicts=True,
        )
        locked = list(lock.all())
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
        for valid in validate_games(club=club, items=items, prefix_items=prefix_items)
    ]


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
    lookups = look_up(club=club, items=games, with_keys=True)
    periods: dict[tuple[int, datetime.date], int] = {}
    club_id = club.pk
    wanted = periods_wanted(lookups)
    for list_id in sorted(wanted):
        for month, period in _periods_locked(
            rating_list_id=list_id, months=wanted[list_id]
        ).items():
            periods[(list_id, month)] = period.pk
    columns = getattr(games, "columns", None)
    valid = validated_columns(columns(), lookups) if columns is not None else None
    if valid is not None:
        # Every item passed checked a distinct value at a time: the rows and their audit
        # rows go in straight from the columns.
        placed, codes, values = valid.values["placed"], valid.codes, valid.values
        stored = insert_columns(
            Game,
            _GAME_FIELDS,
            valid.size,
            [
                (numpy.broadcast_to(numpy.int32(0), (valid.size,)), [club_id]),
                (codes["placed"], [p.rating_list.id for p in placed]),
                (codes["placed"], [periods[(p.rating_list.id, p.month)] for p in placed]),
                *(
                    (codes[name], values[name])
                    for name in ("tournament", "date", "round", "white", "black", "result", "rated")
                ),
            ],
            by_id=None,
        )
    else:
        latest = Game.objects.aggregate(latest=Max("id"))["latest"] or 0
        stored = insert_rows(Game, _GAME_FIELDS, _game_rows(club_id, games, lookups, periods))
        # The audit rows of the new games, copied inside the database (ids above the
        # latest before the insert; games of this club only).
        if stored:
            history_rows_copy(
                Game.objects.filter(club_id=club_id, id__gt=latest),
                via=audit_via(),
                user_id=audit_user_id(),
            )
    if stored:
        club_live_changed(club_id=club_id)
    return stored


_GAME_FIELDS = (
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
)


def _game_rows(
    club_id: int,
    games: Sequence[Mapping[str, Any]],
    lookups: Lookups,
    periods: Mapping[tuple[int, datetime.date], int],
) -> Iterator[tuple[Any, ...]]:
    """games_add's rows (``_GAME_FIELDS``), each game checked before its row is made
    (``validated`` refuses the first bad item by its index)."""
    for game in validated(items=games, lookups=lookups, prefix_items=True):
        yield (
            club_id,
            game.rating_list.id,
            periods[(game.rating_list.id, game.month)],
            game.tournament.id if game.tournament is not None else None,
            game.date,
            game.round,
            game.white,  # ids: see game_checks.look_up
            game.black,
            game.result,
            game.rated,
        )


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
            # The games were made with their club (_prepare_games): its slug is at hand.
            club = created[0].club
            club_live_changed(club_id=club.pk, slug=club.slug)
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
        # A period's month never changes: the one read with the game will do.
        months = {(game.rating_list_id, game.period.month), (new.rating_list_id, month)}
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
        club_live_changed(club_id=game.club_id, slug=game.club.slug)
    return game


def game_delete(*, game: Game, by: User) -> None:
    require_role(by, game.club, Role.ARBITER)
    with transaction.atomic(durable=True):
        _periods_locked(rating_list_id=game.rating_list_id, months=[game.period.month])
        club = game.club
        game.delete()
        club_live_changed(club_id=club.pk, slug=club.slug)
