"""Clubs (the tenant), memberships with their roles, and players."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from simple_history.models import HistoricalRecords

from players.models.audit import AuditFields, Via
from players.models.common import Role, Sex, Title, rating_range_check

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
    # The club's own websites, which may show its widgets in a frame (Content-Security-
    # Policy frame-ancestors of the widgets alone; every other page keeps 'none').
    embed_origins = models.JSONField(
        "websites that may embed the widgets",
        default=list,
        blank=True,
        help_text="Origins such as https://club.example.org, one per line.",
    )

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
    # No single-column index: player_club_name_idx and player_club_name_key_idx lead with
    # club, and an import of thousands of new players writes every index of each.
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="players", db_index=False)
    name = models.CharField("name", max_length=200)
    # players.names.name_key(name), kept by the services: the imports and the duplicates
    # finder look players up by it (accents, case, punctuation and the parts' order
    # ignored). db_default: rows written by COPY without the column still get one.
    name_key = models.CharField(
        "name key", max_length=200, default="", db_default="", editable=False
    )
    birth_date = models.DateField("birth date", null=True, blank=True)
    # Kept equal to birth_date's year by the services when a date is known; the K rules
    # need only the year, and many players give only that.
    birth_year = models.PositiveSmallIntegerField("birth year", null=True, blank=True)
    sex = models.CharField("sex", max_length=1, choices=Sex.choices, blank=True)
    federation = models.CharField("federation", max_length=3, blank=True)
    title = models.CharField("title", max_length=3, choices=Title.choices, blank=True)
    fide_id = models.PositiveBigIntegerField("FIDE ID", null=True, blank=True)
    # From FIDE's monthly rating list (the FIDE list import), beside the club's own ratings.
    women_title = models.CharField("women's title", max_length=3, blank=True)
    fide_standard = models.PositiveSmallIntegerField("FIDE standard", null=True, blank=True)
    fide_rapid = models.PositiveSmallIntegerField("FIDE rapid", null=True, blank=True)
    fide_blitz = models.PositiveSmallIntegerField("FIDE blitz", null=True, blank=True)
    fide_list_month = models.DateField(
        "FIDE list of", null=True, blank=True, help_text="The month of the FIDE list read last."
    )
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

    # The name key is derived from the name: the audit shows the name change alone.
    history = HistoricalRecords(bases=[AuditFields], excluded_fields=["name_key"])

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
            rating_range_check("fide_standard", "player_fide_standard_range"),
            rating_range_check("fide_rapid", "player_fide_rapid_range"),
            rating_range_check("fide_blitz", "player_fide_blitz_range"),
        ]
        indexes = [
            models.Index(fields=["club", "name"], name="player_club_name_idx"),
            models.Index(fields=["club", "name_key"], name="player_club_name_key_idx"),
        ]

    def __str__(self) -> str:
        return self.name


class PlayerMerge(models.Model):
    """One merge of a duplicate player record into the kept one: who, when, what moved.

    The record outlives the duplicate (whose row is deleted), so it keeps the duplicate's
    id and name as plain values.
    """

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="player_merges")
    kept = models.ForeignKey(
        Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="merges"
    )
    duplicate_id = models.PositiveBigIntegerField("duplicate's id")
    duplicate_name = models.CharField("duplicate's name", max_length=200)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    at = models.DateTimeField("merged at", auto_now_add=True)
    #: Through what the merge came (admin, API...), as the audit trail's rows say it.
    via = models.CharField("through", max_length=8, choices=Via.choices, default=Via.COMMAND)
    #: What moved (counts) and the periods marked as needing a replay.
    summary = models.JSONField("summary", default=dict, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = "player merge"
        verbose_name_plural = "player merges"

    def __str__(self) -> str:
        return f"#{self.duplicate_id} {self.duplicate_name} merged into #{self.kept_id}"
