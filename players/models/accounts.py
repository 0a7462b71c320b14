"""What members hold beside their roles: API tokens (with a name and when last used) and
invitations (an owner's offer of a role, by link)."""

from __future__ import annotations

import datetime

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from knox.models import AbstractAuthToken
from simple_history.models import HistoricalRecords

from players.models.audit import AuditFields
from players.models.clubs import Club
from players.models.common import Role

INVITATION_VALID_FOR = datetime.timedelta(days=7)


class InvitationStatus(models.TextChoices):
    OPEN = "open", "Open"
    ACCEPTED = "accepted", "Accepted"
    EXPIRED = "expired", "Expired"
    REVOKED = "revoked", "Revoked"


class ApiToken(AbstractAuthToken):  # type: ignore[misc]
    """A knox token (only its hash is stored) with the name its owner gave it and when it
    was last used, so that a member can tell their tokens apart and revoke the right one.
    ``KNOX_TOKEN_MODEL`` points knox here."""

    name: models.CharField[str, str] = models.CharField("name", max_length=100, blank=True)
    last_used: models.DateTimeField[datetime.datetime | None, datetime.datetime | None] = (
        models.DateTimeField("last used", null=True, blank=True)
    )

    class Meta:
        ordering = ["-created"]
        verbose_name = "API token"
        verbose_name_plural = "API tokens"

    def __str__(self) -> str:
        return f"{self.name or 'token'} ({self.token_key}…) of {self.user}"


class Invitation(models.Model):
    """An owner's offer of ``role`` in ``club`` to an email address or a user.

    Only the SHA-256 of the link's secret is stored: the link is shown once, to the owner
    who created it, and mailed to the invitee. It works once (``accepted``), until
    ``expires`` and until revoked (``revoked``)."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField("email", blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="invitations",
        help_text="The existing user invited, when invited by username.",
    )
    #: The username the owner typed: kept whether or not an account has it, so that the
    #: invitations list (and every answer) looks the same either way.
    username = models.CharField("username invited", max_length=150, blank=True)
    role = models.CharField("role", max_length=16, choices=Role.choices, default=Role.VIEWER)
    digest = models.CharField("secret's SHA-256", max_length=64, unique=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="invitations_sent",
    )
    created = models.DateTimeField("created", auto_now_add=True)
    expires = models.DateTimeField("expires")
    accepted = models.DateTimeField("accepted", null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="invitations_accepted",
    )
    revoked = models.DateTimeField("revoked", null=True, blank=True)

    # The secret's hash stays out of the record.
    history = HistoricalRecords(bases=[AuditFields], excluded_fields=["digest"])

    class Meta:
        ordering = ["-created", "-id"]
        verbose_name = "invitation"
        verbose_name_plural = "invitations"
        constraints = [
            models.CheckConstraint(
                condition=~Q(email="") | Q(user__isnull=False) | ~Q(username=""),
                name="invitation_has_invitee",
            ),
            models.CheckConstraint(condition=Q(role__in=Role.values), name="invitation_role_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.invitee} to {self.club}: {self.role}"

    @property
    def invitee(self) -> str:
        return self.email or self.username_invited

    @property
    def for_account(self) -> bool:
        """Invited by username: only that account accepts (whether or not it exists)."""
        return self.user_id is not None or bool(self.username)

    @property
    def username_invited(self) -> str:
        """The username invited (typed by the owner; older rows: the user's)."""
        return self.username or (self.user.get_username() if self.user else "")

    @property
    def status(self) -> InvitationStatus:
        if self.revoked:
            return InvitationStatus.REVOKED
        if self.accepted:
            return InvitationStatus.ACCEPTED
        if self.expires <= timezone.now():
            return InvitationStatus.EXPIRED
        return InvitationStatus.OPEN
