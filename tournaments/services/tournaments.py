"""Services for tournaments: create (one, or inside an import's transaction), update
(moving the games to the new end month's period), delete."""

from __future__ import annotations

import datetime
from typing import Any

from django.db import IntegrityError, transaction

from players.bulk import history_rows_copy_ids
from players.errors import ConflictError, invalid_field
from players.models import Club, RatingList, Role, date_out_of_bounds, month_start
from players.selectors import User, require_role
from players.services import club_published_changed
from tournaments.models import Game, Tournament
from tournaments.services.games import _periods_locked

_TOURNAMENT_FIELDS = (
    "name",
    "rating_list",
    "start_date",
    "end_date",
    "rounds",
    "city",
    "federation",
    "tournament_type",
    "time_control",
    "arbiter",
    "import_digest",
)
# The TRF headers a tournament keeps (free text, cut to their columns' sizes).
_HEADER_SIZES = {
    "city": 100,
    "federation": 3,
    "tournament_type": 100,
    "time_control": 100,
    "arbiter": 200,
}


def _clean_tournament(club: Club, values: dict[str, Any]) -> dict[str, Any]:
    name = (values.get("name") or "").strip()
    if not name:
        raise invalid_field("name", "A tournament needs a name.")
    values["name"] = name
    values["rating_list"] = _club_list(club, values.get("rating_list"))
    _check_dates(values.get("start_date"), values.get("end_date"))
    rounds = values.get("rounds")
    if rounds is not None and (not isinstance(rounds, int) or not 1 <= rounds <= 99):
        raise invalid_field("rounds", "From 1 to 99.")
    for field, size in _HEADER_SIZES.items():
        values[field] = " ".join((values.get(field) or "").split())[:size]
    return values


def _club_list(club: Club, raw_list: Any) -> RatingList:
    """The club's list named by its kind (or given as the list itself)."""
    kind = raw_list.slug if isinstance(raw_list, RatingList) else raw_list
    rating_list = RatingList.objects.filter(club=club, slug=kind).first()
    if rating_list is None or (isinstance(raw_list, RatingList) and raw_list.pk != rating_list.pk):
        raise invalid_field("list", "No such list in this club.")
    return rating_list


def _check_dates(start: Any, end: Any) -> None:
    """Both dates given, in order and within the dates the tracker keeps."""
    if not isinstance(start, datetime.date):
        raise invalid_field("start_date", "A start date is required.")
    if not isinstance(end, datetime.date):
        raise invalid_field("end_date", "An end date is required.")
    if end < start:
        raise invalid_field("end_date", "The tournament cannot end before it starts.")
    for field, day in (("start_date", start), ("end_date", end)):
        if why := date_out_of_bounds(day):
            raise invalid_field(field, why)


def tournament_create(
    *,
    club: Club,
    by: User,
    name: str,
    rating_list: RatingList | str,
    start_date: datetime.date,
    end_date: datetime.date,
    rounds: int | None = None,
    city: str = "",
    import_digest: str | None = None,
    **headers: str,
) -> Tournament:
    require_role(by, club, Role.ARBITER)
    with transaction.atomic(durable=True):
        return tournament_add(
            club=club,
            name=name,
            rating_list=rating_list,
            start_date=start_date,
            end_date=end_date,
            rounds=rounds,
            city=city,
            import_digest=import_digest,
            **headers,
        )


def tournament_add(
    *,
    club: Club,
    name: str,
    rating_list: RatingList | str,
    start_date: datetime.date,
    end_date: datetime.date,
    rounds: int | None = None,
    city: str = "",
    import_digest: str | None = None,
    **headers: str,
) -> Tournament:
    """tournament_create inside the caller's transaction (imports); the caller checks the
    role. ``headers``: federation, tournament_type, time_control, arbiter (a TRF's 032,
    092, 122, 102). A second import of the same file (same digest) raises ConflictError."""
    unknown = set(headers) - set(_HEADER_SIZES)
    if unknown:
        raise invalid_field(sorted(unknown)[0], "Unknown field.")
    values = _clean_tournament(
        club,
        {
            "name": name,
            "rating_list": rating_list,
            "start_date": start_date,
            "end_date": end_date,
            "rounds": rounds,
            "city": city,
            "import_digest": import_digest,
            **headers,
        },
    )
    try:
        with transaction.atomic():
            tournament = Tournament.objects.create(club=club, **values)
    except IntegrityError:
        raise ConflictError(
            "This tournament file was imported already.",
            fields={"import_digest": ["Already imported."]},
        ) from None
    club_published_changed(club_id=club.pk)
    return tournament


def tournament_update(*, tournament: Tournament, by: User, **changes: Any) -> Tournament:
    """Change a tournament; new dates move its games to the new end month's period, so
    both the old and the new periods must be open."""
    require_role(by, tournament.club, Role.ARBITER)
    unknown = set(changes) - set(_TOURNAMENT_FIELDS)
    if unknown:
        raise invalid_field(sorted(unknown)[0], "Unknown field.")
    values = {field: getattr(tournament, field) for field in _TOURNAMENT_FIELDS}
    values.update(changes)
    values = _clean_tournament(tournament.club, values)
    with transaction.atomic(durable=True):
        games = Game.objects.filter(tournament=tournament)
        old_months = set(games.values_list("period__month", flat=True))
        new_month = month_start(values["end_date"])
        if old_months:
            if values["rating_list"].pk != tournament.rating_list_id:
                raise invalid_field("rating_list", "The tournament has games on its list already.")
            outside = games.exclude(
                date__gte=values["start_date"], date__lte=values["end_date"]
            ).exists()
            if outside:
                raise invalid_field("end_date", "Some games fall outside the new dates.")
            periods = _periods_locked(
                rating_list_id=tournament.rating_list_id, months=old_months | {new_month}
            )
            moving = games.exclude(period=periods[new_month])
            moved = list(moving.order_by("id").values_list("id", flat=True))
            moving.update(period=periods[new_month])
            # The UPDATE skips the ORM's saves: the moved games' audit rows are copied.
            history_rows_copy_ids(Game, moved, by_id=by.pk)
        for field, value in values.items():
            setattr(tournament, field, value)
        tournament.save()
        club_published_changed(club_id=tournament.club_id)
    return tournament


def tournament_delete(*, tournament: Tournament, by: User) -> None:
    require_role(by, tournament.club, Role.ARBITER)
    with transaction.atomic(durable=True):
        if Game.objects.filter(tournament=tournament).exists():
            raise ConflictError("The tournament has games; delete them first.")
        club_id = tournament.club_id
        tournament.delete()
        club_published_changed(club_id=club_id)
