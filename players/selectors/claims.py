"""Who sees which claims of player records: a club's officers (and owners) its claims, a
member their own, nobody else any."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.utils.translation import gettext

from players.errors import NotFoundError, PermissionDeniedError
from players.models import ClaimStatus, Club, Membership, Player, PlayerClaim, Role
from players.selectors.access import User, membership_role, roles_by_club


def _claims() -> QuerySet[PlayerClaim]:
    return PlayerClaim.objects.select_related("club", "player", "user", "decided_by")


def claims_of_club(*, club: Club) -> QuerySet[PlayerClaim]:
    """Every claim of ``club`` (the caller checked the officer role)."""
    return _claims().filter(club=club)


def claims_of_user(*, user: AbstractBaseUser) -> QuerySet[PlayerClaim]:
    """The claims ``user`` made, in every club."""
    return _claims().filter(user_id=user.pk)


def claims_to_decide(*, user: AbstractBaseUser) -> list[PlayerClaim]:
    """The waiting claims of the clubs where ``user`` is an officer or the owner, oldest
    first (the member's home lists them)."""
    clubs = [c for c, role in roles_by_club(user).items() if Role.includes(role, Role.OFFICER)]
    if not clubs:
        return []
    return list(
        _claims().filter(club_id__in=clubs, status=ClaimStatus.PENDING).order_by("created", "id")
    )


def claim_get_visible(*, club: Club, claim_id: int, user: User | None) -> PlayerClaim:
    """One claim of ``club``: an officer's any, a member's own; another's claim is 403 to a
    member, and a claim of another club 404 to everyone."""
    claim = _claims().filter(club=club, pk=claim_id).first()
    if claim is None:
        raise NotFoundError(
            gettext("%(club)s has no claim %(id)s.") % {"club": club.name, "id": claim_id}
        )
    if user is not None and user.is_authenticated and claim.user_id == user.pk:
        return claim
    role = membership_role(user, club)
    if role is None or not Role.includes(role, Role.OFFICER):
        raise PermissionDeniedError(
            gettext("Only the claimant and the officers of %(club)s see this claim.")
            % {"club": club.name}
        )
    return claim


def claim_to_decide(*, claim_id: int, user: User | None) -> PlayerClaim:
    """The claim ``claim_id`` when ``user`` is an officer or the owner of its club; 404 to
    everyone else, so a claim's existence does not leak past its club's officers."""
    claim = _claims().filter(pk=claim_id).first()
    role = None if claim is None else membership_role(user, claim.club)
    if claim is None or role is None or not Role.includes(role, Role.OFFICER):
        raise NotFoundError(gettext("No such claim among your clubs' claims."))
    return claim


def claim_choice(*, user: User | None, player: Player) -> str:
    """What the player page offers ``user`` about ``player``: "claim" (a "this is me"
    button: a member of the club with no record there, no claim waiting, and the record
    linked to nobody), "waiting" (their claim of it waits for an officer), or ""."""
    if user is None or not user.is_authenticated or player.user_id is not None:
        return ""
    if not Membership.objects.filter(club_id=player.club_id, user_id=user.pk).exists():
        return ""
    if Player.objects.filter(club_id=player.club_id, user_id=user.pk).exists():
        return ""
    waiting = (
        PlayerClaim.objects.filter(
            club_id=player.club_id, user_id=user.pk, status=ClaimStatus.PENDING
        )
        .values_list("player_id", flat=True)
        .first()
    )
    if waiting is None:
        return "claim"
    return "waiting" if waiting == player.pk else ""
