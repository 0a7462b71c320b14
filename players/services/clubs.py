"""Clubs and their members: create a club with its lists, rename it, give and take roles."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction

from players.errors import ConflictError, NotFoundError, ValidationFailed, invalid_field
from players.models import (
    FIDE_PRESET_FOR_KIND,
    LIST_PRESETS,
    Club,
    Membership,
    RatingList,
    Role,
)
from players.selectors import User, require_role


def club_create(*, name: str, slug: str, public: bool = False, by: User) -> Club:
    """A new club; ``by`` becomes its owner; three lists on the FIDE presets."""
    if not by.is_authenticated:
        raise ValidationFailed("Only a signed-in user can create a club.")
    name = name.strip()
    if not name:
        raise invalid_field("name", "A club needs a name.")
    with transaction.atomic(durable=True):
        if Club.objects.filter(slug=slug).exists():
            raise invalid_field("slug", f"The slug {slug!r} is taken.")
        try:
            with transaction.atomic():
                club = Club.objects.create(name=name, slug=slug, public=public)
        except IntegrityError:
            raise invalid_field("slug", f"The slug {slug!r} is taken.") from None
        Membership.objects.create(user_id=by.pk, club=club, role=Role.OWNER)
        RatingList.objects.bulk_create(
            RatingList(club=club, slug=kind, preset=preset, **LIST_PRESETS[preset])
            for kind, preset in FIDE_PRESET_FOR_KIND.items()
        )
    return club


def club_update(
    *, club: Club, by: User, name: str | None = None, public: bool | None = None
) -> Club:
    require_role(by, club, Role.OWNER)
    with transaction.atomic(durable=True):
        if name is not None:
            if not name.strip():
                raise invalid_field("name", "A club needs a name.")
            club.name = name.strip()
        if public is not None:
            club.public = public
        club.save(update_fields=["name", "public"])
    return club


def membership_set(*, club: Club, user: AbstractBaseUser, role: Role | str, by: User) -> Membership:
    """Give ``user`` ``role`` in the club (owner only); the last owner cannot step down."""
    require_role(by, club, Role.OWNER)
    if role not in Role.values:
        raise invalid_field("role", f"{role!r} is not a role; use one of {', '.join(Role.values)}.")
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
