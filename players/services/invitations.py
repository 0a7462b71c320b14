"""Invitations: an owner offers a role in their club by a link, mailed or passed on.

The link's secret is shown once (to the owner, and in the mail) and only its SHA-256 is
stored, so a database leak gives no working link. A link works once, for seven days, and
until the owner revokes it.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
from collections.abc import Callable

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone

from players.errors import ConflictError, NotFoundError, PermissionDeniedError, invalid_field
from players.models import (
    INVITATION_VALID_FOR,
    Club,
    Invitation,
    InvitationStatus,
    Membership,
    Role,
)
from players.selectors import User, require_role
from players.services.clubs import club_published_changed
from players.services.usernames import username_refuse_look_alike

logger = logging.getLogger(__name__)

_GONE = "This invitation link does not work: it was used, revoked or expired."
_OTHER_ACCOUNT = "This invitation is for another account."
#: The name of the threads that mail a username's invitation (tests wait for them).
MAIL_THREAD = "invitation-mail"


def invitation_digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def invitation_create(
    *,
    club: Club,
    by: User,
    role: Role | str,
    email: str = "",
    username: str = "",
    accept_url: Callable[[str], str],
) -> tuple[Invitation, str]:
    """Invite ``email`` or the user ``username`` (one of them) to ``role``; returns the
    invitation and its link (``accept_url(secret)``). When an email address is known the
    link is mailed after the commit.

    By username the answer is the same whether or not an account has it (an owner must not
    learn which usernames exist): the invitation keeps the name typed, and names the account
    when there is one; only that account can accept, on its home page or by the link. Both
    ways do the same queries, and the mail to the account's address goes out from a thread
    after the commit, so the answer does not wait for the mail server either."""
    require_role(by, club, Role.OWNER)
    if role not in Role.values:
        raise invalid_field("role", f"{role!r} is not a role; use one of {', '.join(Role.values)}.")
    email, username = email.strip(), username.strip()
    if bool(email) == bool(username):
        raise invalid_field("email", "Give an email address or a username (one of them).")
    invitee = None
    if username:
        invitee = get_user_model()._default_manager.filter(username=username).first()
        # Members are listed to the owner already: saying so tells nothing new.
        if Membership.objects.filter(club=club, user_id=getattr(invitee, "pk", 0)).exists():
            raise invalid_field("username", f"{username} is already a member of {club.name}.")
    else:
        try:
            validate_email(email)
        except DjangoValidationError:
            raise invalid_field("email", "Enter a valid email address.") from None
    secret = secrets.token_urlsafe(32)
    with transaction.atomic(durable=True):
        invitation = Invitation.objects.create(
            club=club,
            email=email,
            user=invitee,
            username=username,
            role=Role(role),
            digest=invitation_digest(secret),
            created_by_id=by.pk,
            expires=timezone.now() + INVITATION_VALID_FOR,
        )
    url = accept_url(secret)
    if email:
        transaction.on_commit(lambda: _mail(invitation=invitation, to=email, url=url))
    elif to := getattr(invitee, "email", "") or "":
        transaction.on_commit(lambda: _mail_from_thread(invitation=invitation, to=to, url=url))
    return invitation, url


def _mail_from_thread(*, invitation: Invitation, to: str, url: str) -> None:
    def send() -> None:
        try:
            _mail(invitation=invitation, to=to, url=url)
        except Exception:  # a thread's error reaches no one: the log has it
            logger.exception("The invitation %s could not be mailed", invitation.pk)

    threading.Thread(target=send, name=MAIL_THREAD, daemon=True).start()


def _mail(*, invitation: Invitation, to: str, url: str) -> None:
    club = invitation.club
    send_mail(
        subject=f"You are invited to {club.name}",
        message=(
            f"You are invited to join {club.name} as {Role(invitation.role).label.lower()} "
            f"on Club ratings.\n\nAccept here (the link works once, until "
            f"{invitation.expires:%Y-%m-%d %H:%M} UTC):\n{url}\n"
        ),
        from_email=None,
        recipient_list=[to],
    )


def invitation_revoke(*, invitation: Invitation, by: User) -> Invitation:
    require_role(by, invitation.club, Role.OWNER)
    with transaction.atomic(durable=True):
        # Compare-and-set: a link being accepted right now is either accepted or revoked.
        changed = Invitation.objects.filter(
            pk=invitation.pk, revoked__isnull=True, accepted__isnull=True
        ).update(revoked=timezone.now())
        if changed:
            _record(invitation, "revoked")
    if not changed:
        raise ConflictError(
            "This invitation was already used or revoked.", fields={"status": [invitation.status]}
        )
    return invitation


def invitation_open(*, secret: str) -> Invitation:
    """The open invitation this link's secret names; any other state is 'not found'."""
    invitation = (
        Invitation.objects.select_related("club", "user")
        .filter(digest=invitation_digest(secret))
        .first()
    )
    if invitation is None or invitation.status != InvitationStatus.OPEN:
        raise NotFoundError(_GONE)
    return invitation


def invitation_accept(*, secret: str, user: AbstractBaseUser) -> Membership:
    """``user`` takes the invitation's role (never lowering a role they hold already)."""
    invitation = invitation_open(secret=secret)
    if invitation.for_account and invitation.user_id != user.pk:
        raise PermissionDeniedError(_OTHER_ACCOUNT)
    with transaction.atomic(durable=True):
        return _take(invitation=invitation, user=user)


def invitations_for(*, user: AbstractBaseUser) -> list[Invitation]:
    """The open invitations addressed to ``user``'s account (their home page lists them)."""
    return [
        invitation
        for invitation in Invitation.objects.filter(
            user_id=user.pk, accepted__isnull=True, revoked__isnull=True
        ).select_related("club", "created_by")
        if invitation.status == InvitationStatus.OPEN
    ]


def invitation_accept_mine(*, invitation_id: int, user: AbstractBaseUser) -> Membership:
    """``user`` accepts, from their home page, an open invitation addressed to their account
    (no link needed); any other invitation is 'not found'."""
    invitation = (
        Invitation.objects.select_related("club").filter(pk=invitation_id, user_id=user.pk).first()
    )
    if invitation is None or invitation.status != InvitationStatus.OPEN:
        raise NotFoundError(_GONE)
    with transaction.atomic(durable=True):
        return _take(invitation=invitation, user=user)


def invitation_accept_new_user(*, secret: str, username: str, password: str) -> Membership:
    """A new account (username and password chosen on the invitation's page) that accepts
    the invitation, in one transaction: a used link creates no account. The caller
    validated both (Django's UserCreationForm); a look-alike of an existing username is
    refused here."""
    invitation = invitation_open(secret=secret)
    if invitation.for_account:
        raise PermissionDeniedError("This invitation is for an existing account: log in to accept.")
    username_refuse_look_alike(username)
    with transaction.atomic(durable=True):
        user = get_user_model()._default_manager.create_user(
            username=username, email=invitation.email, password=password
        )
        return _take(invitation=invitation, user=user)


def _take(*, invitation: Invitation, user: AbstractBaseUser) -> Membership:
    # Compare-and-set: of two concurrent acceptances of one link, one wins.
    taken = Invitation.objects.filter(
        pk=invitation.pk, accepted__isnull=True, revoked__isnull=True, expires__gt=timezone.now()
    ).update(accepted=timezone.now(), accepted_by=user.pk)
    if not taken:
        raise NotFoundError(_GONE)
    _record(invitation, "accepted", "accepted_by")
    current = Membership.objects.filter(club=invitation.club, user_id=user.pk).first()
    if current is not None and Role.includes(current.role, invitation.role):
        return current
    membership, _ = Membership.objects.update_or_create(
        club=invitation.club, user_id=user.pk, defaults={"role": Role(invitation.role)}
    )
    club_published_changed(club_id=invitation.club_id)
    return membership


def _record(invitation: Invitation, *fields: str) -> None:
    """Put a compare-and-set's result on the audit trail: the library records saves, not
    queryset updates, so the row is read back and saved once more (same values)."""
    invitation.refresh_from_db()
    invitation.save(update_fields=list(fields))
