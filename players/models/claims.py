"""A member's claim of a player record as their own ("this is me"), decided by an officer.

Approving one links the record to the member's account (``Player.user``), the same link an
officer sets by hand; the claim stays as the record of who asked, who decided and when.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from players.models.audit import AuditFields
from players.models.clubs import Club, Player


class ClaimStatus(models.TextChoices):
    PENDING = "pending", _("Waiting for an officer")
    APPROVED = "approved", _("Approved")
    DECLINED = "declined", _("Declined")


class PlayerClaim(models.Model):
    """``user`` says ``player`` (of ``club``) is their record; an officer decides."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="player_claims")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="claims")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="player_claims"
    )
    status = models.CharField(
        "status", max_length=8, choices=ClaimStatus.choices, default=ClaimStatus.PENDING
    )
    created = models.DateTimeField("created", auto_now_add=True)
    decided = models.DateTimeField("decided", null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="player_claims_decided",
    )
    #: The officer's word to the member (why declined, say); shown on their home page.
    note = models.CharField("note", max_length=500, blank=True)

    history = HistoricalRecords(bases=[AuditFields])

    class Meta:
        ordering = ["-created", "-id"]
        verbose_name = "player claim"
        verbose_name_plural = "player claims"
        constraints = [
            # One account, one record per club: one claim waiting at a time (the link
            # itself is held by player_user_unique_in_club).
            models.UniqueConstraint(
                fields=["club", "user"],
                condition=Q(status="pending"),
                name="player_claim_one_pending_per_user_and_club",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["pending", "approved", "declined"]),
                name="player_claim_status_valid",
            ),
            # Decided exactly when no longer waiting.
            models.CheckConstraint(
                condition=Q(status="pending", decided__isnull=True)
                | (~Q(status="pending") & Q(decided__isnull=False)),
                name="player_claim_decided_when_not_pending",
            ),
        ]
        indexes = [models.Index(fields=["club", "status"], name="player_claim_club_status_idx")]

    def __str__(self) -> str:
        return f"{self.user} claims {self.player} in {self.club}: {self.status}"
