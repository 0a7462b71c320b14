"""Claims of player records: a member says "this is me", an officer approves or declines.

Approval links the record to the member's account with the check an officer's link by
hand makes (``member_for_link``); the claim and the player's link are both on the audit
trail (django-simple-history rows, saved here rather than updated in bulk for that).

The messages are translated: the member's pages show them (the API answers in English).
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from players.errors import (
    ConflictError,
    DomainError,
    NotFoundError,
    PermissionDeniedError,
    invalid_field,
)
from players.models import ClaimStatus, Club, Membership, Player, PlayerClaim, Role
from players.selectors import User, require_role
from players.services.clubs import club_published_changed
from players.services.players import member_for_link
from players.webhooks.services import players_changed

NOTE_MAX = 500


def _refused(message: str) -> ConflictError:
    """A claim the record's or the account's state refuses, named under ``player``."""
    return ConflictError(f"player: {message}", fields={"player": [message]})


def claim_create(*, club: Club, player_id: int, by: AbstractBaseUser) -> PlayerClaim:
    """``by`` (a member of ``club``, any role) claims the club's player ``player_id``.

    Refused, writing nothing: a record linked already (to anyone), a member whose account
    has a record of the club already or a claim waiting there (one account, one record per
    club), a player of another club (400 naming ``player``)."""
    require_role(by, club, Role.VIEWER)
    if not Membership.objects.filter(club=club, user_id=by.pk).exists():
        # A superuser sees every club, but a link is to a member (member_for_link).
        raise PermissionDeniedError(
            gettext("Only members of %(club)s can claim its records.") % {"club": club.name}
        )
    with transaction.atomic(durable=True):
        # The player first, then the claims: the order claim_decide locks them in.
        player = (
            Player.objects.select_for_update(no_key=True).filter(club=club, pk=player_id).first()
        )
        if player is None:
            raise invalid_field(
                "player",
                gettext("%(club)s has no player %(id)s.") % {"club": club.name, "id": player_id},
            )
        if player.user_id == by.pk:
            raise _refused(gettext("This record is linked to your account already."))
        if player.user_id is not None:
            raise _refused(gettext("This record is linked to another member's account already."))
        own = Player.objects.filter(club=club, user_id=by.pk).first()
        if own is not None:
            raise _refused(
                gettext(
                    "Your account is linked to %(name)s in %(club)s already: one account has "
                    "one record per club."
                )
                % {"name": own.name, "club": club.name}
            )
        waiting = PlayerClaim.objects.filter(
            club=club, user_id=by.pk, status=ClaimStatus.PENDING
        ).select_related("player")
        if (claim := waiting.first()) is not None:
            raise _refused(_waiting_message(claim))
        try:
            with transaction.atomic():
                claim = PlayerClaim.objects.create(club=club, player=player, user_id=by.pk)
        except IntegrityError:
            # A second claim of the same account sent at the same moment: the constraint
            # (player_claim_one_pending_per_user_and_club) kept one.
            claim = waiting.first()
            raise _refused(
                _waiting_message(claim) if claim is not None else gettext("Try again.")
            ) from None
    return claim


def _waiting_message(claim: PlayerClaim) -> str:
    return gettext(
        "You have a claim waiting in %(club)s already (%(name)s): an officer decides it first."
    ) % {"club": claim.club.name, "name": claim.player.name}


def claim_decide(*, claim: PlayerClaim, by: User, approve: bool, note: str = "") -> PlayerClaim:
    """An officer (or owner) of the claim's club approves or declines a waiting claim.

    Approving links the record to the claimant (the officer's link by hand, checked the
    same way) and declines the other claims waiting on that record. A decided claim, a
    record linked meanwhile or a claimant who left the club: refused, nothing written."""
    require_role(by, claim.club, Role.OFFICER)
    note = note.strip()
    if len(note) > NOTE_MAX:
        raise invalid_field("note", gettext("At most %(n)s characters.") % {"n": NOTE_MAX})
    with transaction.atomic(durable=True):
        player = Player.objects.select_for_update(no_key=True).get(pk=claim.player_id)
        locked = (
            PlayerClaim.objects.select_for_update(no_key=True)
            .select_related("club", "user")
            .filter(pk=claim.pk)
            .first()
        )
        if locked is None:
            raise NotFoundError(gettext("No such claim."))
        if locked.status != ClaimStatus.PENDING:
            message = gettext("This claim was decided already (%(status)s).") % {
                "status": locked.get_status_display()
            }
            raise ConflictError(f"status: {message}", fields={"status": [message]})
        now = timezone.now()
        if approve:
            _link(player=player, claim=locked)
            others = PlayerClaim.objects.select_for_update(no_key=True).filter(
                player=player, status=ClaimStatus.PENDING
            )
            for other in others.exclude(pk=locked.pk):
                other.status, other.decided, other.decided_by_id = ClaimStatus.DECLINED, now, by.pk
                other.note = gettext("Another member's claim on this record was approved.")
                other.save()
        locked.status = ClaimStatus.APPROVED if approve else ClaimStatus.DECLINED
        locked.decided, locked.decided_by_id, locked.note = now, by.pk, note
        locked.save()
    return locked


def _link(*, player: Player, claim: PlayerClaim) -> None:
    if player.user_id is not None:
        raise _refused(gettext("This record is linked to an account already; decline the claim."))
    user: AbstractBaseUser = claim.user
    try:
        player.user_id = member_for_link(player=player, username=user.get_username())
    except DomainError as error:  # the claimant left the club, say: named under "player"
        raise _refused(error.fields.get("user", [error.message])[0]) from None
    player.save(update_fields=["user"])
    club_published_changed(club_id=player.club_id)
    players_changed(club_id=player.club_id, action="updated", players=[player.pk])
