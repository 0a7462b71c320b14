"""Services for clubs, members, players and K overrides: the only code that writes them.

Every function is keyword-only, checks the caller's role through the selectors, owns its
transaction and raises players.errors domain errors (never DRF or admin errors).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from players import rating as engine
from players.bulk import insert_rows
from players.errors import ConflictError, NotFoundError, ValidationFailed
from players.models import (
    FIDE_PRESET_FOR_KIND,
    K_MAX,
    K_MIN,
    LIST_PRESETS,
    RATING_MAX,
    RATING_MIN,
    Club,
    KFactorChange,
    KPolicy,
    ListKind,
    Membership,
    Player,
    PlayerRating,
    RatingList,
    RatingPeriod,
    RatingRun,
    Role,
    Sex,
    Title,
    add_months,
    month_start,
)
from players.selectors import User, require_role

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


def _invalid(field: str, message: str) -> ValidationFailed:
    return ValidationFailed(f"{field}: {message}", fields={field: [message]})


def k_for(
    *,
    rating_list: RatingList,
    state: engine.PlayerState,
    k_override: int | None,
    period_year: int,
    standard_rating: int | None = None,
) -> engine.KFactor:
    """The K a player has for a period on ``rating_list`` (the engine's ``list_k``: the
    officer's override, the list's fixed K, or FIDE 8.3.3 from the player's state).

    ``standard_rating``: the player's standard rating in force at the period's start; on a
    rapid or blitz list where the player is unrated it is the rating they count as rated
    with, K included (None: none, or not known to matter).
    """
    return engine.list_k(
        state,
        list_fixed_k=rating_list.settings().fixed_k,
        k_override=k_override,
        period_year=period_year,
        list_kind=engine.ListKind(rating_list.kind),
        standard_rating=standard_rating,
    )


def next_period_month(*, rating_list: RatingList) -> datetime.date:
    """The month the next list applies to: after the latest closed (or reopened) period,
    else the current month."""
    latest = (
        RatingPeriod.objects.filter(rating_list=rating_list)
        .exclude(status=RatingPeriod.Status.OPEN)
        .order_by("-month")
        .values_list("month", flat=True)
        .first()
    )
    if latest is None:
        return month_start(timezone.now().date())
    return add_months(latest, 1)


# -- clubs and members -------------------------------------------------------------------


def club_create(*, name: str, slug: str, public: bool = False, by: User) -> Club:
    """A new club; ``by`` becomes its owner; three lists on the FIDE presets."""
    if not by.is_authenticated:
        raise ValidationFailed("Only a signed-in user can create a club.")
    name = name.strip()
    if not name:
        raise _invalid("name", "A club needs a name.")
    with transaction.atomic(durable=True):
        if Club.objects.filter(slug=slug).exists():
            raise _invalid("slug", f"The slug {slug!r} is taken.")
        try:
            with transaction.atomic():
                club = Club.objects.create(name=name, slug=slug, public=public)
        except IntegrityError:
            raise _invalid("slug", f"The slug {slug!r} is taken.") from None
        Membership.objects.create(user_id=by.pk, club=club, role=Role.OWNER)
        RatingList.objects.bulk_create(
            RatingList(club=club, preset=preset, **LIST_PRESETS[preset])
            for preset in FIDE_PRESET_FOR_KIND.values()
        )
    return club


def club_update(
    *, club: Club, by: User, name: str | None = None, public: bool | None = None
) -> Club:
    require_role(by, club, Role.OWNER)
    with transaction.atomic(durable=True):
        if name is not None:
            if not name.strip():
                raise _invalid("name", "A club needs a name.")
            club.name = name.strip()
        if public is not None:
            club.public = public
        club.save(update_fields=["name", "public"])
    return club


def membership_set(*, club: Club, user: AbstractBaseUser, role: Role | str, by: User) -> Membership:
    """Give ``user`` ``role`` in the club (owner only); the last owner cannot step down."""
    require_role(by, club, Role.OWNER)
    if role not in Role.values:
        raise _invalid("role", f"{role!r} is not a role; use one of {', '.join(Role.values)}.")
    with transaction.atomic(durable=True):
        # Lock the club row: two owners demoting each other at once must not leave none.
        Club.objects.select_for_update(no_key=True).filter(pk=club.pk).first()
        current = Membership.objects.filter(club=club, user_id=user.pk).first()
        if current is not None and current.role == Role.OWNER and role != Role.OWNER:
            _require_another_owner(club=club, leaving=current)
        membership, _ = Membership.objects.update_or_create(
            club=club, user_id=user.pk, defaults={"role": Role(role)}
        )
    return membership


def membership_remove(*, club: Club, user: AbstractBaseUser, by: User) -> None:
    require_role(by, club, Role.OWNER)
    with transaction.atomic(durable=True):
        Club.objects.select_for_update(no_key=True).filter(pk=club.pk).first()
        current = Membership.objects.filter(club=club, user_id=user.pk).first()
        if current is None:
            raise NotFoundError("That user is not a member.")
        if current.role == Role.OWNER:
            _require_another_owner(club=club, leaving=current)
        current.delete()


def _require_another_owner(*, club: Club, leaving: Membership) -> None:
    others = Membership.objects.filter(club=club, role=Role.OWNER).exclude(pk=leaving.pk)
    if not others.exists():
        raise ConflictError("A club needs at least one owner.", fields={"role": ["Last owner."]})


def rating_list_update(
    *, rating_list: RatingList, by: User, preset: str | None = None, **rules: Any
) -> RatingList:
    """Change a list's rules (owner only), from a preset and/or field by field.

    Closed periods keep what they published; the new rules apply from the next close.
    """
    require_role(by, rating_list.club, Role.OWNER)
    allowed = {
        "expected_method",
        "apply_400_rule",
        "k_policy",
        "fixed_k",
        "floor",
        "first_rating_policy",
        "starting_rating",
        "adjust_march_2024",
    }
    unknown = set(rules) - allowed
    if unknown:
        raise _invalid(sorted(unknown)[0], "Not a list rule.")
    values: dict[str, Any] = {}
    if preset is not None:
        if preset not in LIST_PRESETS:
            raise _invalid("preset", f"Unknown preset; use one of {', '.join(LIST_PRESETS)}.")
        values.update({k: v for k, v in LIST_PRESETS[preset].items() if k != "kind"})
    values.update(rules)
    with transaction.atomic(durable=True):
        locked = RatingList.objects.select_for_update(no_key=True).get(pk=rating_list.pk)
        for field, value in values.items():
            setattr(locked, field, value)
        locked.preset = preset if preset is not None and not rules else ""
        _validate_list(locked)
        locked.save()
    return locked


def _validate_list(rating_list: RatingList) -> None:
    if rating_list.k_policy == KPolicy.FIXED and rating_list.fixed_k is None:
        raise _invalid("fixed_k", "A fixed K policy needs a K.")
    if rating_list.fixed_k is not None and not K_MIN <= rating_list.fixed_k <= K_MAX:
        raise _invalid("fixed_k", f"K must be from {K_MIN} to {K_MAX}.")
    if rating_list.first_rating_policy == "fixed" and rating_list.starting_rating is None:
        raise _invalid("starting_rating", "A fixed first-rating policy needs a starting rating.")
    for field in ("floor", "starting_rating"):
        value = getattr(rating_list, field)
        if value is not None and not RATING_MIN <= value <= RATING_MAX:
            raise _invalid(field, f"Must be from {RATING_MIN} to {RATING_MAX}.")


# -- players ------------------------------------------------------------------------------


def _clean_player_fields(values: Mapping[str, Any]) -> dict[str, Any]:
    cleaned = dict(values)
    if "name" in cleaned:
        name = (cleaned["name"] or "").strip()
        if not name:
            raise _invalid("name", "A player needs a name.")
        cleaned["name"] = name
    birth_date = cleaned.get("birth_date")
    if birth_date is not None:
        # The year follows the date so the two cannot disagree.
        if cleaned.get("birth_year") not in (None, birth_date.year):
            raise _invalid("birth_year", "Does not match the birth date.")
        cleaned["birth_year"] = birth_date.year
    year = cleaned.get("birth_year")
    if year is not None and not 1850 <= year <= 2200:
        raise _invalid("birth_year", "Not a plausible birth year.")
    if cleaned.get("sex") not in (None, "", *Sex.values):
        raise _invalid("sex", f"Use one of {', '.join(Sex.values)} or leave it blank.")
    if cleaned.get("title") not in (None, "", *Title.values):
        raise _invalid("title", f"Use one of {', '.join(Title.values)} or leave it blank.")
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
        lists = {rl.kind: rl for rl in RatingList.objects.filter(club=club)}
        entries = _entries_by_kind(ratings, lists)
        if fide_id is not None and Player.objects.filter(club=club, fide_id=fide_id).exists():
            raise _invalid("fide_id", "Another player of the club has this FIDE ID.")
        player = Player.objects.create(club=club, **fields)
        _player_ratings_create(player=player, lists=lists.values(), entries=entries, by=by)
    return player


def _entries_by_kind(
    ratings: Sequence[Mapping[str, Any]], lists: Mapping[str, RatingList]
) -> dict[str, dict[str, Any]]:
    entries: dict[str, dict[str, Any]] = {}
    for index, entry in enumerate(ratings):
        prefix = f"ratings[{index}]"
        raw_kind = entry.get("list")
        kind = raw_kind.kind if isinstance(raw_kind, RatingList) else str(raw_kind)
        if kind not in lists:
            raise _invalid(f"{prefix}.list", f"Use one of {', '.join(ListKind.values)}.")
        if kind in entries:
            raise _invalid(f"{prefix}.list", "This list is given twice.")
        rating = entry.get("rating")
        if rating is not None and (
            isinstance(rating, bool)
            or not isinstance(rating, int)
            or not RATING_MIN <= rating <= RATING_MAX
        ):
            raise _invalid(f"{prefix}.rating", f"A whole number from {RATING_MIN} to {RATING_MAX}.")
        games = entry.get("rated_games", 0) or 0
        if isinstance(games, bool) or not isinstance(games, int) or games < 0:
            raise _invalid(f"{prefix}.rated_games", "A whole number, 0 or more.")
        entries[kind] = {
            "rating": rating,
            "rated_games": games,
            "reached_2400": bool(entry.get("reached_2400", False))
            or (rating is not None and rating >= 2400),
        }
    return entries


def _entered_standard(entries: Mapping[str, Mapping[str, Any]]) -> int | None:
    """A new player's standard rating in force: the one entered (nothing is published for
    them yet). On rapid and blitz an unrated player counts as rated with it, K included."""
    rating: int | None = entries.get(ListKind.STANDARD, {}).get("rating")
    return rating


def _player_ratings_create(
    *,
    player: Player,
    lists: Iterable[RatingList],
    entries: Mapping[str, Mapping[str, Any]],
    by: User,
) -> None:
    ratings: list[PlayerRating] = []
    k_changes: list[KFactorChange] = []
    for rating_list in lists:
        entry = entries.get(rating_list.kind, {})
        rating = entry.get("rating")
        rated_games = entry.get("rated_games", 0)
        reached = entry.get("reached_2400", False)
        month = next_period_month(rating_list=rating_list)
        has_history = (
            RatingPeriod.objects.filter(rating_list=rating_list)
            .exclude(status=RatingPeriod.Status.OPEN)
            .exists()
        )
        state = engine.PlayerState(rating, rated_games, player.birth_year, reached)
        k = k_for(
            rating_list=rating_list,
            state=state,
            k_override=None,
            period_year=month.year,
            standard_rating=_entered_standard(entries),
        )
        ratings.append(
            PlayerRating(
                player=player,
                rating_list=rating_list,
                rating=rating,
                rated_games=rated_games,
                reached_2400=reached,
                k_factor=k.value,
                k_reason=k.reason,
                entry_rating=rating,
                entry_rated_games=rated_games,
                entry_reached_2400=reached,
                # A list with published history: the player appears from the next list on.
                entry_month=month if has_history else None,
            )
        )
        reason = engine.k_change_reason(None, k)
        if reason is not None:
            k_changes.append(
                KFactorChange(
                    player=player,
                    rating_list=rating_list,
                    effective_month=month,
                    old_k=None,
                    new_k=k.value,
                    new_reason=k.reason,
                    reason=reason,
                    note="entered when the player joined",
                    created_by_id=by.pk,
                )
            )
    PlayerRating.objects.bulk_create(ratings)
    KFactorChange.objects.bulk_create(k_changes)


def player_update(*, player: Player, by: User, **changes: Any) -> Player:
    """Change a player's details (arbiter or above). Ratings change only through closes;
    the K depends on the birth year only from the next close on."""
    require_role(by, player.club, Role.ARBITER)
    unknown = set(changes) - set(PLAYER_FIELDS)
    if unknown:
        raise _invalid(sorted(unknown)[0], "This field cannot be changed here.")
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
        fide_id = fields.get("fide_id")
        if (
            fide_id is not None
            and Player.objects.filter(club=player.club_id, fide_id=fide_id)
            .exclude(pk=player.pk)
            .exists()
        ):
            raise _invalid("fide_id", "Another player of the club has this FIDE ID.")
        for field, value in fields.items():
            setattr(player, field, value)
        player.save()
    return player


def player_delete(*, player: Player, by: User) -> None:
    """Delete a player who has no games and no published history (arbiter or above)."""
    require_role(by, player.club, Role.ARBITER)
    with transaction.atomic(durable=True):
        if player.games_as_white.exists() or player.games_as_black.exists():
            raise ConflictError("The player has games; mark them inactive instead.")
        if player.rating_changes.exists():
            raise ConflictError("The player has published ratings; mark them inactive instead.")
        player.delete()


def k_override_set(
    *, player_rating: PlayerRating, k: int | None, note: str = "", by: User
) -> PlayerRating:
    """Set (or with ``k=None`` lift) an officer's K override for the player on one list.

    Recorded as a KFactorChange (reason MANUAL, or RULES when lifted) effective from the
    next period to close, and as a RatingRun of kind override.
    """
    rating_list = player_rating.rating_list
    require_role(by, rating_list.club, Role.OFFICER)
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or not K_MIN <= k <= K_MAX):
        raise _invalid("k", f"K must be a whole number from {K_MIN} to {K_MAX}.")
    if k is not None and not note.strip():
        raise _invalid("note", "Say why K is set by hand.")
    with transaction.atomic(durable=True):
        RatingList.objects.select_for_update(no_key=True).filter(pk=rating_list.pk).first()
        locked = (
            PlayerRating.objects.select_for_update(no_key=True)
            .select_related("player")
            .get(pk=player_rating.pk)
        )
        month = next_period_month(rating_list=rating_list)
        state = engine.PlayerState(
            locked.rating, locked.rated_games, locked.player.birth_year, locked.reached_2400
        )
        old = (
            engine.KFactor(locked.k_factor, engine.KReason(locked.k_reason))
            if locked.k_factor is not None and locked.k_reason
            else None
        )
        new = k_for(
            rating_list=rating_list,
            state=state,
            k_override=k,
            period_year=month.year,
            standard_rating=_current_standard(locked, rating_list),
        )
        locked.k_override = k
        locked.k_override_note = note.strip() if k is not None else ""
        locked.k_factor, locked.k_reason = new.value, new.reason
        locked.save()
        now = timezone.now()
        run = RatingRun.objects.create(
            rating_list=rating_list,
            kind=RatingRun.Kind.OVERRIDE,
            by_id=by.pk,
            started=now,
            finished=now,
            periods=[month.strftime("%Y-%m")],
            players_changed=1,
            report=f"{locked.player}: K {old.value if old else '-'} -> {new.value} ({note})",
        )
        reason = engine.k_change_reason(old, new)
        if reason is not None:
            KFactorChange.objects.create(
                player=locked.player,
                rating_list=rating_list,
                effective_month=month,
                old_k=old.value if old else None,
                new_k=new.value,
                new_reason=new.reason,
                reason=reason,
                note=note.strip(),
                run=run,
                created_by_id=by.pk,
            )
    return locked


def _current_standard(player_rating: PlayerRating, rating_list: RatingList) -> int | None:
    """The player's standard rating now, when they are unrated on ``rating_list``, a rapid
    or blitz list (they count as rated with it, K included); None where it cannot matter."""
    if player_rating.rating is not None or rating_list.kind == ListKind.STANDARD:
        return None
    return (
        PlayerRating.objects.filter(
            player_id=player_rating.player_id,
            rating_list__club_id=rating_list.club_id,
            rating_list__kind=ListKind.STANDARD,
        )
        .values_list("rating", flat=True)
        .first()
    )


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
    lists = {rl.kind: rl for rl in RatingList.objects.filter(club=club)}
    cleaned: list[tuple[dict[str, Any], dict[str, dict[str, Any]]]] = []
    seen_fide: set[int] = set()
    for index, item in enumerate(players):
        values = {field: item[field] for field in PLAYER_FIELDS if field in item}
        try:
            fields = _clean_player_fields({"name": item.get("name"), **values})
            entries = _entries_by_kind(item.get("ratings", ()), lists)
        except ValidationFailed as error:
            raise ValidationFailed(
                f"[{index}].{error.message}",
                fields={f"[{index}].{key}": value for key, value in error.fields.items()},
            ) from None
        fide_id = fields.get("fide_id")
        if fide_id is not None:
            if fide_id in seen_fide:
                raise _invalid(f"[{index}].fide_id", "Given to two new players.")
            seen_fide.add(fide_id)
        cleaned.append((fields, entries))
    taken = {
        fide_id
        for fide_id in Player.objects.filter(club=club, fide_id__in=sorted(seen_fide)).values_list(
            "fide_id", flat=True
        )
        if fide_id is not None
    }
    if taken:
        raise _invalid("fide_id", f"Another player of the club has FIDE ID {min(taken)}.")
    created = Player.objects.bulk_create(
        [Player(club=club, **fields) for fields, _ in cleaned], batch_size=2000
    )
    # The lists' next month and whether they have history are the same for every player.
    list_facts = []
    for rating_list in lists.values():
        month = next_period_month(rating_list=rating_list)
        has_history = (
            RatingPeriod.objects.filter(rating_list=rating_list)
            .exclude(status=RatingPeriod.Status.OPEN)
            .exists()
        )
        list_facts.append((rating_list, month, has_history))
    rating_rows: list[tuple[Any, ...]] = []
    k_rows: list[tuple[Any, ...]] = []
    for player, (_, entries) in zip(created, cleaned, strict=True):
        for rating_list, month, has_history in list_facts:
            entry = entries.get(rating_list.kind, {})
            rating = entry.get("rating")
            rated_games = entry.get("rated_games", 0)
            reached = entry.get("reached_2400", False)
            state = engine.PlayerState(rating, rated_games, player.birth_year, reached)
            k = k_for(
                rating_list=rating_list,
                state=state,
                k_override=None,
                period_year=month.year,
                standard_rating=_entered_standard(entries),
            )
            rating_rows.append(
                (
                    player.pk,
                    rating_list.pk,
                    rating,
                    rated_games,
                    reached,
                    k.value,
                    k.reason.value,
                    rating,
                    rated_games,
                    reached,
                    month if has_history else None,
                )
            )
            reason = engine.k_change_reason(None, k)
            if reason is not None:
                k_rows.append(
                    (
                        player.pk,
                        rating_list.pk,
                        month,
                        None,
                        k.value,
                        k.reason.value,
                        reason.value,
                        "entered when the player joined",
                        by.pk,
                    )
                )
    insert_rows(
        PlayerRating,
        (
            "player",
            "rating_list",
            "rating",
            "rated_games",
            "reached_2400",
            "k_factor",
            "k_reason",
            "entry_rating",
            "entry_rated_games",
            "entry_reached_2400",
            "entry_month",
        ),
        rating_rows,
    )
    insert_rows(
        KFactorChange,
        (
            "player",
            "rating_list",
            "effective_month",
            "old_k",
            "new_k",
            "new_reason",
            "reason",
            "note",
            "created_by",
        ),
        k_rows,
    )
    return created
