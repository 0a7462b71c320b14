"""Clubs (the tenant), memberships with their roles, and players."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from simple_history.models import HistoricalRecords

from players.models.audit import AuditFields
from players.models.common import Role, Sex, Title

# Slugs that would read as one of the site's own paths (/admin/, /api/, /accounts/...).
RESERVED_SLUGS = frozenset(
    {"admin", "api", "accounts", "static", "media", "clubs", "calculator", "new", "login", "logout"}
)


class Club(models.Model):
    """The tenant: every other row belongs to exactly one club."""

    slug = models.SlugField("slug", max_length=50, unique=True)
    name = models.CharField("name", max_length=200)
    public = models.BooleanField(
        "public", default=False, help_text="Anyone, anonymous too, may read a public club."
    )
    created = models.DateTimeField("created", auto_now_add=True)

    history = HistoricalRecords(bases=[AuditFields])

    class Meta:
        ordering = ["name", "id"]
        verbose_name = "club"
        verbose_name_plural = "clubs"
        constraints = [
            # "RiverSide" and "riverside" would be two clubs with one name in every URL.
            models.UniqueConstraint(Lower("slug"), name="club_slug_unique_ignoring_case"),
        ]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField("role", max_length=16, choices=Role.choices, default=Role.VIEWER)
    created = models.DateTimeField("created", auto_now_add=True)

    history = HistoricalRecords(bases=[AuditFields])

    class Meta:
        ordering = ["club", "user"]
        verbose_name = "membership"
        verbose_name_plural = "memberships"
        constraints = [
            models.UniqueConstraint(fields=["user", "club"], name="membership_user_club_unique"),
            models.CheckConstraint(condition=Q(role__in=Role.values), name="membership_role_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.club}: {self.role}"


class Player(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="players")
    name = models.CharField("name", max_length=200)
    birth_date = models.DateField("birth date", null=True, blank=True)
    # Kept equal to birth_date's year by the services when a date is known; the K rules
    # need only the year, and many players give only that.
    birth_year = models.PositiveSmallIntegerField("birth year", null=True, blank=True)
    sex = models.CharField("sex", max_length=1, choices=Sex.choices, blank=True)
    federation = models.CharField("federation", max_length=3, blank=True)
    title = models.CharField("title", max_length=3, choices=Title.choices, blank=True)
    fide_id = models.PositiveBigIntegerField("FIDE ID", null=True, blank=True)
    active = models.BooleanField("active", default=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="player_records",
        help_text="The member this player record belongs to (at most one per club).",
    )
    created = models.DateTimeField("created", auto_now_add=True)

    history = HistoricalRecords(bases=[AuditFields])

    class Meta:
        ordering = ["name", "id"]
        verbose_name = "player"
        verbose_name_plural = "players"
        constraints = [
            models.UniqueConstraint(
                fields=["club", "fide_id"],
                condition=Q(fide_id__isnull=False),
                name="player_fide_id_unique_in_club",
            ),
            models.UniqueConstraint(
                fields=["club", "user"],
                condition=Q(user__isnull=False),
                name="player_user_unique_in_club",
            ),
            models.CheckConstraint(
                condition=Q(birth_year__isnull=True)
                | Q(birth_year__gte=1850, birth_year__lte=2200),
                name="player_birth_year_range",
            ),
        ]
        indexes = [models.Index(fields=["club", "name"], name="player_club_name_idx")]

    def __str__(self) -> str:
        return self.name
