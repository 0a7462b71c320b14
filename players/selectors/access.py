"""Access scoping used by every interface: the clubs a user may see, their role in each,
the club's members and what a member sees at /accounts/."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from players.errors import NotFoundError, PermissionDeniedError
from players.models import ApiToken, Club, Invitation, Membership, Player, Role

User = AbstractBaseUser | AnonymousUser


def user_by_username(*, username: str) -> Any:
    """The account named ``username`` (None: no such account)."""
    return get_user_model()._default_manager.filter(username=username).first()


def first_superuser() -> Any:
    """The oldest superuser (None: none): whom a command acts as when not told."""
    return get_user_model()._default_manager.filter(is_superuser=True).order_by("pk").first()


def club_first_owner(*, club: Club) -> Membership | None:
    """The club's oldest owner membership, with its user."""
    return (
        Membership.objects.filter(club=club, role=Role.OWNER)
        .select_related("user")
        .order_by("id")
        .first()
    )


def is_superuser(user: User | None) -> bool:
    return bool(user is not None and user.is_authenticated and getattr(user, "is_superuser", False))


def clubs_visible_to(user: User | None) -> QuerySet[Club]:
    """Public clubs, plus the clubs where ``user`` is a member; a superuser sees all."""
    if is_superuser(user):
        return Club.objects.all()
    if user is None or not user.is_authenticated:
        return Club.objects.filter(public=True)
    member = Membership.objects.filter(club=OuterRef("pk"), user_id=user.pk)
    return Club.objects.filter(Q(public=True) | Exists(member))


# The user's role, read with the club by club_get_visible: (user id, role or None). The
# views check the role and the services check it again; a request reads it once.
_VIEWER_ROLE = "_viewer_role"


def membership_role(user: User | None, club: Club) -> Role | None:
    """The user's role in the club; a superuser counts as owner everywhere."""
    if user is None or not user.is_authenticated:
        return None
    if is_superuser(user):
        return Role.OWNER
    known: tuple[Any, Role | None] | None = getattr(club, _VIEWER_ROLE, None)
    if known is not None and known[0] == user.pk:
        return known[1]
    role = (
        Membership.objects.filter(user_id=user.pk, club_id=club.pk)
        .order_by()
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
    """The club named ``slug`` if ``user`` may see it (NotFoundError otherwise), with the
    user's role in it read in the same query."""
    if is_superuser(user) or user is None or not user.is_authenticated:
        club = clubs_visible_to(user).filter(slug=slug).first()
        if club is None:
            raise NotFoundError(f"No club {slug!r}.")
        return club
    held = Membership.objects.filter(club=OuterRef("pk"), user_id=user.pk).order_by()
    club = (
        Club.objects.annotate(held_role=Subquery(held.values("role")[:1]))
        .filter(Q(public=True) | Q(held_role__isnull=False), slug=slug)
        .first()
    )
    if club is None:
        raise NotFoundError(f"No club {slug!r}.")
    role: Any = club.held_role
    setattr(club, _VIEWER_ROLE, (user.pk, None if role is None else Role(role)))
    return club


def club_members(*, club: Club) -> QuerySet[Membership]:
    return Membership.objects.filter(club=club).select_related("user").order_by("user__username")


def club_invitations(*, club_id: int) -> QuerySet[Invitation]:
    """The club's invitations with who was invited, who invited and who accepted."""
    return Invitation.objects.filter(club_id=club_id).select_related(
        "user", "created_by", "accepted_by"
    )


def roles_by_club(user: User | None) -> dict[int, Role]:
    """Every club id -> the user's role in it, in one query (for list views and admin)."""
    if user is None or not user.is_authenticated:
        return {}
    rows: Any = Membership.objects.filter(user_id=user.pk).values_list("club_id", "role")
    return {club_id: Role(role) for club_id, role in rows}


# -- periods and what they published ------------------------------------------------------


@dataclass(frozen=True)
class MemberHome:
    """What a member sees at /accounts/: their roles, their player records (with each
    list's current rating) and their API tokens."""

    memberships: list[Membership]
    players: list[Player]
    tokens: list[ApiToken]


def member_home(*, user: AbstractBaseUser) -> MemberHome:
    """Three queries plus one prefetch, whatever the number of clubs and records."""
    memberships = list(
        Membership.objects.filter(user_id=user.pk).select_related("club").order_by("club__name")
    )
    players = list(
        Player.objects.filter(user_id=user.pk)
        .select_related("club")
        .prefetch_related("ratings__rating_list")
        .order_by("club__name", "name")
    )
    # An expired token works nowhere; it is deleted when the user makes a new one.
    live = Q(expiry__isnull=True) | Q(expiry__gte=timezone.now())
    tokens = list(ApiToken.objects.filter(live, user_id=user.pk).order_by("-created"))
    return MemberHome(memberships=memberships, players=players, tokens=tokens)
