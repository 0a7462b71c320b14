"""K factors: the K a player has for a period, and the officer's override of it."""

from __future__ import annotations

import datetime

from django.db import transaction
from django.utils import timezone

from players import rating as engine
from players.errors import invalid_field
from players.models import (
    K_MAX,
    K_MIN,
    KFactorChange,
    PlayerRating,
    RatingList,
    RatingPeriod,
    RatingRun,
    Role,
)
from players.selectors import User, require_role
from players.services.clubs import club_published_changed
from players.services.lists import next_period_month


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
        list_kind=rating_list.list_kind,
        standard_rating=standard_rating,
    )


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
        raise invalid_field("k", f"K must be a whole number from {K_MIN} to {K_MAX}.")
    if k is not None and not note.strip():
        raise invalid_field("note", "Say why K is set by hand.")
    with transaction.atomic(durable=True):
        RatingList.objects.select_for_update(no_key=True).filter(pk=rating_list.pk).first()
        locked = (
            PlayerRating.objects.select_for_update(no_key=True)
            .select_related("player")
            .get(pk=player_rating.pk)
        )
        month = _next_close_month(rating_list)
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
        club_published_changed(club_id=rating_list.club_id)
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


def _next_close_month(rating_list: RatingList) -> datetime.date:
    """The month of the next period to close, from which an override takes effect: after
    the latest closed (or reopened) period; on a list that has never closed, its earliest
    open period when that is before the current month (its games wait for that close)."""
    month = next_period_month(rating_list=rating_list)
    if (
        RatingPeriod.objects.filter(rating_list=rating_list)
        .exclude(status=RatingPeriod.Status.OPEN)
        .exists()
    ):
        return month
    earliest = (
        RatingPeriod.objects.filter(rating_list=rating_list, status=RatingPeriod.Status.OPEN)
        .order_by("month")
        .values_list("month", flat=True)
        .first()
    )
    return month if earliest is None else min(month, earliest)


def _current_standard(player_rating: PlayerRating, rating_list: RatingList) -> int | None:
    """The player's standard rating now, when they are unrated on ``rating_list``, a list
    whose kind counts the standard rating (rapid, blitz: they count as rated with it, K
    included); None where it cannot matter."""
    if player_rating.rating is not None or not rating_list.list_kind.counts_standard:
        return None
    return (
        PlayerRating.objects.filter(
            player_id=player_rating.player_id,
            rating_list__club_id=rating_list.club_id,
            rating_list__kind=engine.ListKind.STANDARD.value,
        )
        .values_list("rating", flat=True)
        .first()
    )
