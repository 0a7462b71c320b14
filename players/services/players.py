"""Players: create (one, or many for an import), update and delete; the ratings they bring."""

from __future__ import annotations

import datetime
import functools
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import connection, transaction

from players.bulk import history_rows_copy, insert_rows_returning_ids
from players.errors import ConflictError, ValidationFailed, invalid_field
from players.models import (
    RATING_MAX,
    RATING_MIN,
    Club,
    Membership,
    Player,
    RatingList,
    Role,
    Sex,
    Title,
)
from players.models.audit import audit_user_id, audit_via
from players.names import name_key
from players.rating.k_factor import has_reached_2400
from players.rating.systems import SYSTEMS
from players.rating.systems.explain import StateError
from players.selectors import User, require_role
from players.services.clubs import club_published_changed
from players.services.entries import K_ENTRY_FIELDS as K_ENTRY_FIELDS  # for fide_list_seed
from players.services.entries import ratings_create
from players.services.lists import club_lists_locked
from players.webhooks.services import players_changed

# The player's own fields, as the services accept them (the admin's forms use the same).
PLAYER_FIELDS = (
    "name",
    "birth_date",
    "birth_year",
    "sex",
    "federation",
    "title",
    "fide_id",
    "active",
)


# Built once: an enum's ``values`` makes a new list on every access, and an import cleans
# thousands of players.
_SEXES = frozenset((None, "", *Sex.values))
_TITLES = frozenset((None, "", *Title.values))


def _clean_player_fields(values: Mapping[str, Any]) -> dict[str, Any]:
    cleaned = dict(values)
    if "name" in cleaned:
        name = (cleaned["name"] or "").strip()
        if not name:
            raise invalid_field("name", "A player needs a name.")
        cleaned["name"] = name
        cleaned["name_key"] = name_key(name)[:200]
    birth_date = cleaned.get("birth_date")
    if birth_date is not None:
        # The year follows the date so the two cannot disagree.
        if cleaned.get("birth_year") not in (None, birth_date.year):
            raise invalid_field("birth_year", "Does not match the birth date.")
        cleaned["birth_year"] = birth_date.year
    year = cleaned.get("birth_year")
    if year is not None and not 1850 <= year <= 2200:
        raise invalid_field("birth_year", "Not a plausible birth year.")
    if cleaned.get("sex") not in _SEXES:
        raise invalid_field("sex", f"Use one of {', '.join(Sex.values)} or leave it blank.")
    if cleaned.get("title") not in _TITLES:
        raise invalid_field("title", f"Use one of {', '.join(Title.values)} or leave it blank.")
    for field in ("sex", "title", "federation"):
        if field in cleaned and cleaned[field] is None:
            cleaned[field] = ""
    return cleaned


def player_create(
    *,
    club: Club,
    by: User,
    name: str,
    birth_date: datetime.date | None = None,
    birth_year: int | None = None,
    sex: str = "",
    federation: str = "",
    title: str = "",
    fide_id: int | None = None,
    active: bool = True,
    ratings: Sequence[Mapping[str, Any]] = (),
) -> Player:
    """A new player on every list of the club (arbiter or above).

    ``ratings`` enters the player's existing ratings, e.g. ``[{"list": "standard",
    "rating": 1850, "rated_games": 45, "reached_2400": False}]`` (rating None = unrated);
    they are recorded as the start of the player's history. Lists not named start unrated.
    """
    require_role(by, club, Role.ARBITER)
    fields = _clean_player_fields(
        {
            "name": name,
            "birth_date": birth_date,
            "birth_year": birth_year,
            "sex": sex,
            "federation": federation,
            "title": title,
            "fide_id": fide_id,
            "active": active,
        }
    )
    with transaction.atomic(durable=True):
        lists = {rl.slug: rl for rl in RatingList.objects.filter(club=club)}
        entries = _entries_by_kind(ratings, lists)
        if fide_id is not None and Player.objects.filter(club=club, fide_id=fide_id).exists():
            raise invalid_field("fide_id", "Another player of the club has this FIDE ID.")
        player = Player.objects.create(club=club, **fields)
        ratings_create(new=[(player, entries)], lists=lists.values(), by=by)
        club_published_changed(club_id=club.pk)
        players_changed(club_id=club.pk, action="created", players=[player.pk])
    return player


def _entries_by_kind(
    ratings: Sequence[Mapping[str, Any]], lists: Mapping[str, RatingList]
) -> dict[str, dict[str, Any]]:
    entries: dict[str, dict[str, Any]] = {}
    for index, entry in enumerate(ratings):
        prefix = f"ratings[{index}]"
        raw_kind = entry.get("list")
        kind = raw_kind.slug if isinstance(raw_kind, RatingList) else str(raw_kind)
        if kind not in lists:
            raise invalid_field(f"{prefix}.list", f"Use one of {', '.join(sorted(lists))}.")
        if kind in entries:
            raise invalid_field(f"{prefix}.list", "This list is given twice.")
        rating = entry.get("rating")
        if rating is not None and (
            isinstance(rating, bool)
            or not isinstance(rating, int)
            or not RATING_MIN <= rating <= RATING_MAX
        ):
            raise invalid_field(
                f"{prefix}.rating", f"A whole number from {RATING_MIN} to {RATING_MAX}."
            )
        games = entry.get("rated_games", 0) or 0
        if isinstance(games, bool) or not isinstance(games, int) or games < 0:
            raise invalid_field(f"{prefix}.rated_games", "A whole number, 0 or more.")
        entries[kind] = {
            "rating": rating,
            "rated_games": games,
            "reached_2400": has_reached_2400(bool(entry.get("reached_2400", False)), rating),
            **_state_entered(prefix, entry, lists[kind]),
        }
    return entries


@functools.cache
def _state_names_known(systems: tuple[str, ...]) -> frozenset[str]:
    """Every state figure a registered system keeps (an entry may name any of them; the
    list's own system refuses those it does not keep). Worked out once per set of systems:
    an import enters thousands of players on every list."""
    return frozenset(name for system in systems for name in SYSTEMS[system].state_names)


def _state_entered(
    prefix: str, entry: Mapping[str, Any], rating_list: RatingList
) -> dict[str, Any]:
    """The state the list's rating system keeps, as entered (the system's declared fields
    by name; the system fills in its defaults and refuses a figure it does not keep)."""
    system = rating_list.rating_system
    known = _state_names_known(tuple(SYSTEMS))
    given = {key: entry[key] for key in sorted(known) if entry.get(key) is not None}
    try:
        state = system.entered_state(given, rating_list.settings())
    except StateError as error:
        raise invalid_field(f"{prefix}.{error.field}", error.message) from None
    return {"state": state} if system.keeps_state else {}


def player_update(*, player: Player, by: User, **changes: Any) -> Player:
    """Change a player's details (arbiter or above). Ratings change only through closes;
    the K depends on the birth year only from the next close on. ``user`` (a member's
    username, or None to unlink) links the player record to a member (officer or above)."""
    require_role(by, player.club, Role.ARBITER)
    link = "user" in changes
    username = changes.pop("user", None)
    if link:
        # Whose record this is decides what a member sees as "theirs": an officer's call.
        require_role(by, player.club, Role.OFFICER)
    unknown = set(changes) - set(PLAYER_FIELDS)
    if unknown:
        raise invalid_field(sorted(unknown)[0], "This field cannot be changed here.")
    merged = {field: getattr(player, field) for field in PLAYER_FIELDS}
    # Giving only a year drops a date that would contradict it.
    old_date = merged["birth_date"]
    if (
        "birth_year" in changes
        and "birth_date" not in changes
        and old_date is not None
        and old_date.year != changes["birth_year"]
    ):
        merged["birth_date"] = None
    merged.update(changes)
    fields = _clean_player_fields(merged)
    with transaction.atomic(durable=True):
        if link:
            player.user_id = member_for_link(player=player, username=username)
        fide_id = fields.get("fide_id")
        if (
            fide_id is not None
            and Player.objects.filter(club=player.club_id, fide_id=fide_id)
            .exclude(pk=player.pk)
            .exists()
        ):
            raise invalid_field("fide_id", "Another player of the club has this FIDE ID.")
        for field, value in fields.items():
            setattr(player, field, value)
        player.save()
        club_published_changed(club_id=player.club_id)
        players_changed(club_id=player.club_id, action="updated", players=[player.pk])
    return player


def member_for_link(*, player: Player, username: str | None) -> int | None:
    """The id of the club member ``username`` (None unlinks), whom no other player of the
    club is linked to: the officer's link by hand and an approved claim (services/claims.py)
    check the same."""
    if username is None or username == "":
        return None
    member = (
        Membership.objects.filter(club_id=player.club_id, user__username=username)
        .values_list("user_id", flat=True)
        .first()
    )
    if member is None:
        raise invalid_field("user", f"{username!r} is not a member of {player.club.name}.")
    taken = Player.objects.filter(club_id=player.club_id, user_id=member).exclude(pk=player.pk)
    if taken.exists():
        raise invalid_field("user", f"{username!r} is linked to another player of the club.")
    user_id: int = member
    return user_id


def player_delete(*, player: Player, by: User) -> None:
    """Delete a player who has no games and no published history (arbiter or above)."""
    require_role(by, player.club, Role.ARBITER)
    with transaction.atomic(durable=True):
        # A close running now finishes before the checks below read its rows; one
        # starting later no longer finds the player.
        club_lists_locked(club_id=player.club_id)
        if player.games_as_white.exists() or player.games_as_black.exists():
            raise ConflictError("The player has games; mark them inactive instead.")
        if player.rating_changes.exists():
            raise ConflictError("The player has published ratings; mark them inactive instead.")
        club_id, player_id = player.club_id, player.pk
        player.delete()
        club_published_changed(club_id=club_id)
        players_changed(club_id=club_id, action="deleted", players=[player_id])


def players_add_bulk(*, club: Club, by: User, players: Sequence[Mapping[str, Any]]) -> list[Player]:
    """Create many players at once inside the caller's transaction (imports).

    Each item takes player_create's keyword arguments (``name``, ``birth_date``, ...,
    ``ratings``) and is validated the same way; errors name the item (``[3].name``). Set-based:
    one query for the FIDE IDs, the lists' next months computed once, bulk inserts. The
    caller checks the role (arbiter or above) and owns the transaction, so an import stores
    its players, tournament and games all or nothing.
    """
    if not players:
        return []
    lists = {rl.slug: rl for rl in RatingList.objects.filter(club=club)}
    cleaned = _bulk_items_cleaned(club, players, lists)
    created = _bulk_players_stored(club, by, [fields for fields, _ in cleaned])
    new = zip(created, (entries for _, entries in cleaned), strict=True)
    ratings_create(new=new, lists=lists.values(), by=by)
    club_published_changed(club_id=club.pk)
    players_changed(club_id=club.pk, action="created", players=[p.pk for p in created])
    return created


_Cleaned = tuple[dict[str, Any], dict[str, dict[str, Any]]]


def _bulk_items_cleaned(
    club: Club, players: Sequence[Mapping[str, Any]], lists: Mapping[str, RatingList]
) -> list[_Cleaned]:
    """Every item cleaned (its player's fields, its entries by list kind), and refused if
    a FIDE ID is given twice or is another player's of the club (one query)."""
    cleaned: list[_Cleaned] = []
    seen_fide: set[int] = set()
    for index, item in enumerate(players):
        fields, entries = _bulk_item_cleaned(index, item, lists)
        fide_id = fields.get("fide_id")
        if fide_id is not None:
            if fide_id in seen_fide:
                raise invalid_field(f"[{index}].fide_id", "Given to two new players.")
            seen_fide.add(fide_id)
        cleaned.append((fields, entries))
    taken = {
        fide_id
        for fide_id in Player.objects.filter(club=club, fide_id__any=sorted(seen_fide)).values_list(
            "fide_id", flat=True
        )
        if fide_id is not None
    }
    if taken:
        raise invalid_field("fide_id", f"Another player of the club has FIDE ID {min(taken)}.")
    return cleaned


def _bulk_players_stored(club: Club, by: User, items: list[dict[str, Any]]) -> list[Player]:
    """The players of ``items`` (their cleaned fields) stored with their audit rows, as
    model instances that a later save() updates."""
    # Plain rows rather than model instances: an import's thousands of players.
    names = sorted({name for fields in items for name in fields})
    by_name = {field.name: field for field in Player._meta.concrete_fields}
    defaults = {name: by_name[name].get_default() for name in names}
    ids = insert_rows_returning_ids(
        Player,
        ["club", *names],
        [(club.pk, *(fields.get(name, defaults[name]) for name in names)) for fields in items],
    )
    created = []
    for pk, fields in zip(ids, items, strict=True):
        player = Player(pk=pk, club=club, **fields)
        player._state.adding = False  # stored: a later save() updates it
        player._state.db = connection.alias
        created.append(player)
    if created:
        # Bulk creates skip the audit's per-object signal: the rows are copied in bulk.
        history_rows_copy(
            Player.objects.filter(
                club=club,
                pk__gte=min(player.pk for player in created),
                pk__lte=max(player.pk for player in created),
            ),
            via=audit_via(),
            user_id=audit_user_id() or by.pk,
        )
    return created


def _bulk_item_cleaned(
    index: int, item: Mapping[str, Any], lists: Mapping[str, RatingList]
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """One item of players_add_bulk cleaned as player_create would; errors name the item."""
    values = {field: item[field] for field in PLAYER_FIELDS if field in item}
    try:
        fields = _clean_player_fields({"name": item.get("name"), **values})
        entries = _entries_by_kind(item.get("ratings", ()), lists)
    except ValidationFailed as error:
        raise ValidationFailed(
            f"[{index}].{error.message}",
            fields={f"[{index}].{key}": value for key, value in error.fields.items()},
        ) from None
    return fields, entries
