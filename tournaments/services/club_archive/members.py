"""What a restore does with the archive's members: it grants no role but to the owner the
operator names, and invites the others to theirs (docs/reference/backup.md)."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.utils import timezone

from players.models import INVITATION_VALID_FOR, Invitation, Membership, Role


def fresh_secret(value: Any) -> Any:
    """Never the archive's: its secrets are its author's, and a link of the original must
    not open the copy. Accounts invited accept on their home page, without the link."""
    return hashlib.sha256(secrets.token_bytes(32)).hexdigest() if value else value


def members_restore(
    *, club_id: int, memberships: list[tuple[str, str]], users: dict[str, Any], owner: Any
) -> tuple[str | None, list[str]]:
    """The owner named (a user or None) made the club's owner, and each other member of
    the archive (username, role; found here: ``users`` maps usernames to ids) invited to
    their role, the highest when listed twice, to accept on their home page. Returns the
    owner's username and the invitations as "username: role". Bulk writes: no signal,
    like the rest of the restore (no audit row for it)."""
    now = timezone.now()
    invitations: dict[str, Invitation] = {}
    for username, role in memberships:
        user_id = users.get(username)
        if owner is not None and user_id == owner.pk:
            continue
        if username not in invitations or Role.includes(role, invitations[username].role):
            invitations[username] = Invitation(
                club_id=club_id,
                user_id=user_id,
                username=username,
                role=role,
                digest=fresh_secret("restored"),
                created_by_id=None if owner is None else owner.pk,
                expires=now + INVITATION_VALID_FOR,
            )
    if owner is not None:
        Membership.objects.bulk_create(
            [Membership(club_id=club_id, user_id=owner.pk, role=Role.OWNER)]
        )
    Invitation.objects.bulk_create(invitations.values())
    named = None if owner is None else owner.get_username()
    return named, [f"{i.username}: {i.role}" for i in invitations.values()]
