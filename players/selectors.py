"""Read helpers for clubs, roles and players: access scoping used by every interface.

Each helper is set-based (annotate / prefetch), so a list of N rows costs a constant number
of queries.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Exists, OuterRef, Q, QuerySet

from players.models import Club, KFactorChange, Membership, Player, PlayerRating, RatingList, Role
from ratings_site.errors import NotFoundError, PermissionDeniedError

User = AbstractBaseUser | AnonymousUser


def _is_superuser(user: User | None) -> bool:
    return bool(user is not None and user.is_authenticated and getattr(user, "is_superuser", False))


def clubs_visible_to(user: User | None) -> QuerySet[Club]:
    """Public clubs, plus the clubs where ``user`` is a member; a superuser sees all."""
    if _is_superuser(user):
        return Club.objects.all()
    if user is None or not user.is_authenticated:
        return Club.objects.filter(public=True)
    member = Membership.objects.filter(club=OuterRef("pk"), user_id=user.pk)
    return Club.objects.filter(Q(public=True) | Exists(member))


def membership_role(user: User | None, club: Club) -> Role | None:
    """The user's role in the club; a superuser counts as owner everywhere."""
    if user is None or not user.is_authenticated:
        return None
    if _is_superuser(user):
        return Role.OWNER
    role = (
        Membership.objects.filter(user_id=user.pk, club_id=club.pk)
        .values_list("role", flat=True)
        .first()
    )
    return None if role is None else Role(role)


def require_role(user: User | None, club: Club, role: Role) -> Role:
    """The user's role when it includes ``role``'s rights.

    Raises NotFoundError when the user may not even see the club (so a private club's
    existence does not leak) and PermissionDeniedError when the role is too low.
    """
    held = membership_role(user, club)
    if held is None:
        if not club.public:
            raise NotFoundError("No such club.")
        raise PermissionDeniedError(f"This needs the {role.label.lower()} role in {club.name}.")
    if not Role.includes(held, role):
        raise PermissionDeniedError(f"This needs the {role.label.lower()} role in {club.name}.")
    return held


def club_get_visible(*, user: User | None, slug: str) -> Club:
    club = clubs_visible_to(user).filter(slug=slug).first()
    if club is None:
        raise NotFoundError(f"No club {slug!r}.")
    return club


def rating_list_get(*, club: Club, kind: str) -> RatingList:
    rating_list = RatingList.objects.filter(club=club, kind=kind).select_related("club").first()
    if rating_list is None:
        raise NotFoundError(f"No {kind!r} list in {club.name}.")
    return rating_list


def players_for_club(*, club: Club) -> QuerySet[Player]:
    """A club's players with their ratings on every list, prefetched in one extra query."""
    return Player.objects.filter(club=club).prefetch_related("ratings__rating_list")


def player_ratings_for_list(*, rating_list: RatingList) -> QuerySet[PlayerRating]:
    return PlayerRating.objects.filter(rating_list=rating_list).select_related("player")


def player_k_history(*, player: Player, rating_list: RatingList) -> QuerySet[KFactorChange]:
    """K changes in force (replayed-over rows excluded), oldest first."""
    return KFactorChange.objects.filter(
        player=player, rating_list=rating_list, current=True
    ).order_by("effective_month", "id")


def club_members(*, club: Club) -> QuerySet[Membership]:
    return Membership.objects.filter(club=club).select_related("user").order_by("user__username")


def roles_by_club(user: User | None) -> dict[int, Role]:
    """Every club id -> the user's role in it, in one query (for list views and admin)."""
    if user is None or not user.is_authenticated:
        return {}
    rows: Any = Membership.objects.filter(user_id=user.pk).values_list("club_id", "role")
    return {club_id: Role(role) for club_id, role in rows}
