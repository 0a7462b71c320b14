"""Rating lists with their rules, players' current state on each list, and K history."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from simple_history.models import HistoricalRecords

from players import rating as engine
from players.models.audit import AuditFields
from players.models.clubs import Club, Player
from players.models.common import (
    ExpectedMethod,
    FirstRatingPolicy,
    KChangeReason,
    KPolicy,
    KReason,
    k_range_check,
    list_kind_choices,
    list_kind_values,
    rating_range_check,
    translated_choices,
)
from players.names import NameOrder
from players.rating import kinds
from players.rating.classes import FIDE_FLOOR
from players.rating.fide_rules import BY_DATE, RULE_SETS
from players.rating.glicko2 import DEFAULT_RD, DEFAULT_TAU, Glicko2Settings
from players.rating.period import ListSettings
from players.rating.systems import SYSTEMS, RatingSystem, system_for

# Presets offered when a list is created or reset. "Club Elo" is the common club setup:
# the Elo formula without the 400-point cap, one K of 20 for everyone, no floor, and new
# players start at 1500 so that they are rated from their first game.
# FIDE's rules, the same on the three lists (FIDE applied its 1 March 2024 adjustment to
# all three).
_FIDE_RULES: dict[str, Any] = {
    "system": "fide",
    "expected_method": ExpectedMethod.FIDE_TABLE,
    "apply_400_rule": True,
    "k_policy": KPolicy.FIDE,
    "fixed_k": None,
    "floor": FIDE_FLOOR,
    "first_rating_policy": FirstRatingPolicy.FIDE,
    "starting_rating": None,
    "adjust_march_2024": True,
}
# The presets of a rating system, whatever the kind; list_presets() adds each kind's FIDE
# preset (players.rating.kinds).
LIST_PRESETS: dict[str, dict[str, Any]] = {
    "Club Elo": {
        "system": "elo",
        "expected_method": ExpectedMethod.FORMULA,
        "apply_400_rule": False,
        "k_policy": KPolicy.FIXED,
        "fixed_k": 20,
        "floor": None,
        "first_rating_policy": FirstRatingPolicy.FIXED,
        "starting_rating": 1500,
        "adjust_march_2024": False,
    },
}
FIDE_RULES_CHOICES = [(BY_DATE, "By date (the rules in force when each event started)")] + [
    (rule_set.name, f"Always the rules of {rule_set.name}") for rule_set in RULE_SETS
]
LIST_PRESETS["Glicko-2"] = {
    **LIST_PRESETS["Club Elo"],
    # The Elo fields stay valid for the database's checks; Glicko-2 reads none of them.
    "system": "glicko2",
    "starting_rating": 1500,
}
# The preset a list created for a system starts from (the kind's FIDE preset for a system
# that follows FIDE's rules).
SYSTEM_PRESETS: dict[str, str] = {s.name: s.preset for s in SYSTEMS.values() if s.preset}


def list_presets() -> dict[str, dict[str, Any]]:
    """Every preset by name: each registered kind's FIDE preset (``ListKind.fide_preset``,
    with its kind), then the systems' (``LIST_PRESETS``)."""
    fide = {kind.fide_preset: {"kind": kind.value, **_FIDE_RULES} for kind in kinds.list_kinds()}
    return {**fide, **LIST_PRESETS}


class RatingList(models.Model):
    """A club's standard, rapid or blitz list and the rules it is computed with."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="rating_lists")
    # The list's name in URLs and the API; a new club's three FIDE lists are named by their
    # kind ("standard", "rapid", "blitz"), a list a club adds by its owner.
    slug = models.SlugField("slug", max_length=32)
    name = models.CharField("name", max_length=100, blank=True)
    # A callable: the kinds' registry (players.rating.kinds) is the one list of kinds.
    kind = models.CharField("kind", max_length=16, choices=list_kind_choices)
    preset = models.CharField(
        "preset",
        max_length=32,
        blank=True,
        help_text="The preset the rules were last set from; blank once changed by hand.",
    )
    # Which rating system turns the list's periods into ratings (players.rating.systems);
    # the rules below are that system's settings.
    system = models.CharField(
        "rating system",
        max_length=16,
        choices=[(system.name, system.label) for system in SYSTEMS.values()],
        default="fide",
    )
    expected_method = models.CharField(
        "expected score", max_length=16, choices=translated_choices(ExpectedMethod)
    )
    apply_400_rule = models.BooleanField("400-point rule", default=True)
    k_policy = models.CharField("K policy", max_length=8, choices=KPolicy.choices)
    fixed_k = models.PositiveSmallIntegerField("fixed K", null=True, blank=True)
    floor = models.PositiveSmallIntegerField(
        "floor", null=True, blank=True, default=FIDE_FLOOR, help_text="Blank: no floor."
    )
    first_rating_policy = models.CharField(
        "first rating", max_length=8, choices=FirstRatingPolicy.choices
    )
    starting_rating = models.PositiveSmallIntegerField("starting rating", null=True, blank=True)
    name_order = models.CharField(
        "names shown as",
        max_length=16,
        choices=[
            (NameOrder.SURNAME_FIRST.value, "Surname, Given (as FIDE)"),
            (NameOrder.GIVEN_FIRST.value, "Given Surname"),
        ],
        default=NameOrder.GIVEN_FIRST.value,
        help_text="How the list's pages and downloads show names; TRF files always carry "
        "Surname, Given.",
    )
    adjust_march_2024 = models.BooleanField(
        "FIDE adjustment of 1 March 2024",
        default=False,
        help_text="The close of February 2024 raises every published rating below 2000 by "
        "0.4 x (2000 - R), as FIDE did once. Matters only to a history that crosses it.",
    )

    # The list's rules are audited; the close's rows (PlayerRating, KFactorChange) are not.
    history = HistoricalRecords(bases=[AuditFields])
    # FIDE lists: the rules in force when each tournament started, or one rule set always.
    fide_rules = models.CharField(
        "FIDE rules",
        max_length=16,
        choices=FIDE_RULES_CHOICES,
        default=BY_DATE,
        help_text="FIDE lists: the rules in force when each tournament (and each month) "
        "started, or always one rule set (the latest: today's rules).",
    )
    # Glicko-2 lists (system "glicko2"): the system constant and the RD bounds.
    glicko_tau = models.FloatField(
        "Glicko-2 tau", default=DEFAULT_TAU, help_text="How fast volatility moves (0.3-1.2)."
    )
    glicko_rd_start = models.FloatField(
        "Glicko-2 starting RD", default=DEFAULT_RD, help_text="A new player's RD."
    )
    glicko_rd_min = models.FloatField(
        "Glicko-2 lowest RD", default=0, help_text="0: no floor (the paper sets none)."
    )
    glicko_rd_max = models.FloatField(
        "Glicko-2 highest RD", default=DEFAULT_RD, help_text="RD never grows beyond it."
    )

    class Meta:
        ordering = ["club", "kind", "slug"]
        verbose_name = "rating list"
        verbose_name_plural = "rating lists"
        constraints = [
            models.UniqueConstraint(fields=["club", "slug"], name="ratinglist_slug_unique"),
            models.CheckConstraint(
                condition=Q(glicko_tau__gt=0)
                & Q(glicko_rd_min__gte=0)
                & Q(glicko_rd_min__lte=F("glicko_rd_start"))
                & Q(glicko_rd_start__lte=F("glicko_rd_max")),
                name="ratinglist_glicko_settings_valid",
                violation_error_message="Glicko-2: tau must be above 0, and 0 <= lowest RD "
                "<= starting RD <= highest RD.",
            ),
            # The kinds registered at import: a new kind's row changes it, and
            # makemigrations writes the migration that lets the database take the kind.
            models.CheckConstraint(
                condition=Q(kind__in=list_kind_values()), name="ratinglist_kind_valid"
            ),
            models.CheckConstraint(
                condition=Q(system__in=list(SYSTEMS)), name="ratinglist_system_valid"
            ),
            models.CheckConstraint(
                condition=Q(expected_method__in=[method.value for method in ExpectedMethod]),
                name="ratinglist_method_valid",
            ),
            k_range_check("fixed_k", "ratinglist_fixed_k_range"),
            models.CheckConstraint(
                condition=Q(k_policy=KPolicy.FIDE)
                | Q(k_policy=KPolicy.FIXED, fixed_k__isnull=False),
                name="ratinglist_fixed_k_required",
            ),
            rating_range_check("floor", "ratinglist_floor_range"),
            rating_range_check("starting_rating", "ratinglist_starting_rating_range"),
            models.CheckConstraint(
                condition=Q(first_rating_policy=FirstRatingPolicy.FIDE)
                | Q(first_rating_policy=FirstRatingPolicy.FIXED, starting_rating__isnull=False),
                name="ratinglist_starting_rating_required",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.club} {self.label.lower() if self.name else self.get_kind_display().lower()}"

    @property
    def label(self) -> str:
        return self.name or self.get_kind_display()

    @property
    def list_kind(self) -> engine.ListKind:
        """The list's kind: its row, which the rules and the pages ask (players.rating.kinds)."""
        return kinds.list_kind(self.kind)

    def rules(self) -> engine.RatingRules:
        """The engine's rules for games on this list."""
        return self.settings().rules()

    def settings(self) -> ListSettings:
        """The list's rules as its rating system takes them."""
        return ListSettings(
            system=self.system,
            kind=self.list_kind,
            method=engine.ExpectedMethod(self.expected_method),
            apply_400_rule=self.apply_400_rule,
            fixed_k=self.fixed_k if self.k_policy == KPolicy.FIXED else None,
            floor=self.floor,
            adjust_march_2024=self.adjust_march_2024,
            glicko=self.glicko_settings(),
            fide_rules=self.fide_rules if self.rating_system.follows_fide else None,
        )

    @property
    def rating_system(self) -> RatingSystem:
        """The list's rating system: what every floor asks instead of naming it."""
        return system_for(self.system)

    def glicko_settings(self) -> Glicko2Settings | None:
        if self.rating_system.settings_group != "glicko":
            return None
        return Glicko2Settings(
            tau=self.glicko_tau,
            rd_start=self.glicko_rd_start,
            rd_min=self.glicko_rd_min,
            rd_max=self.glicko_rd_max,
        )


class PlayerRating(models.Model):
    """A player's current state on one list (the state after the latest closed period).

    ``pool`` holds the games an unrated player has played toward a first rating, so the
    close reads every player's state in one query. Its shape is a JSON list of events in
    play order, each ``{"event": str, "month": "YYYY-MM", "games": [[opponent_rating or
    null, "score as a fraction", played], ...]}`` where the opponent's rating is the one in
    force at the start of that event.

    ``entry_*`` record the rating the club entered when the player joined: the start of the
    player's history on this list. ``entry_month`` is the first period the player is on the
    list (null: from the list's first period).
    """

    # Indexes only on columns a close never changes: the unique (player, rating_list) and
    # (rating_list). With no index on rating, and room left on each page (fillfactor,
    # migration 0004), PostgreSQL updates the 200,000 rows of a federation-sized close in
    # place (HOT), without a new entry in every index: the UPDATE took half the time. A
    # list sorted by rating reads its rows through the rating_list index and sorts them.
    # The player and the list are checked by triggers once per statement on PostgreSQL,
    # not by foreign keys once per row (migration 0033); SQLite keeps its foreign keys.
    player = models.ForeignKey(
        Player,
        on_delete=models.CASCADE,
        related_name="ratings",
        db_index=False,
        db_constraint=False,
    )
    rating_list = models.ForeignKey(
        RatingList,
        on_delete=models.CASCADE,
        related_name="player_ratings",
        db_index=False,
        db_constraint=False,
    )
    rating = models.PositiveSmallIntegerField("rating", null=True, blank=True)
    rated_games = models.PositiveIntegerField("rated games", default=0)
    reached_2400 = models.BooleanField("reached 2400", default=False)
    k_factor = models.PositiveSmallIntegerField("K", null=True, blank=True)
    k_reason = models.CharField(
        "K reason", max_length=16, choices=translated_choices(KReason), blank=True
    )
    k_override = models.PositiveSmallIntegerField("K override", null=True, blank=True)
    k_override_note = models.CharField("K override note", max_length=500, blank=True)
    pool = models.JSONField("games toward a first rating", default=list, blank=True)
    entry_rating = models.PositiveSmallIntegerField("entered rating", null=True, blank=True)
    entry_rated_games = models.PositiveIntegerField("entered rated games", default=0)
    entry_reached_2400 = models.BooleanField("entered reached 2400", default=False)
    entry_month = models.DateField("on the list from", null=True, blank=True)
    # Where the entered rating came from when not typed in (e.g. "FIDE standard list of
    # 2026-11"): the reason the history starts there.
    entry_note = models.CharField("entry note", max_length=200, blank=True)
    # What the list's rating system keeps beside the rating (RatingSystem.state_fields,
    # {name: value}; Glicko-2: rd, volatility): the current state, and the one the club
    # entered. Null on a system that keeps none.
    state = models.JSONField("state", null=True, blank=True)
    entry_state = models.JSONField("entered state", null=True, blank=True)
    updated = models.DateTimeField("updated", auto_now=True)

    class Meta:
        ordering = ["rating_list", "-rating", "player__name"]
        verbose_name = "player rating"
        verbose_name_plural = "player ratings"
        constraints = [
            models.UniqueConstraint(
                fields=["player", "rating_list"], name="playerrating_player_list_unique"
            ),
            rating_range_check("rating", "playerrating_rating_range"),
            rating_range_check("entry_rating", "playerrating_entry_rating_range"),
            k_range_check("k_factor", "playerrating_k_range"),
            k_range_check("k_override", "playerrating_k_override_range"),
        ]
        indexes = [models.Index(fields=["rating_list"], name="playerrating_list_idx")]

    def __str__(self) -> str:
        shown = "unrated" if self.rating is None else str(self.rating)
        return f"{self.player} ({self.rating_list.kind}): {shown}"


class KFactorChange(models.Model):
    """When and why a player's K on one list changed; the K history."""

    # No single-column index: kchange_player_list_month_idx leads with player, and each
    # index costs every import of new players and every close a write per K change. The
    # player and created_by are checked by triggers once per statement on PostgreSQL (as
    # PlayerRating's references are: migration 0033).
    player = models.ForeignKey(
        Player,
        on_delete=models.CASCADE,
        related_name="k_changes",
        db_index=False,
        db_constraint=False,
    )
    # rating_list, run and source_period have no database foreign keys, like RatingChange's
    # rating_list and run: a close writes each with the one value of its run, holding the
    # list and the period locked, so the keys cannot fail; a month of tens of thousands of
    # K changes spent a fifth of a second checking them at commit. Django still cascades.
    rating_list = models.ForeignKey(
        RatingList, on_delete=models.CASCADE, related_name="k_changes", db_constraint=False
    )
    # The first day of the month of the period from which the new K applies; the period
    # row itself may not exist yet when K changes for "next month".
    effective_month = models.DateField("effective from")
    old_k = models.PositiveSmallIntegerField("old K", null=True, blank=True)
    new_k = models.PositiveSmallIntegerField("new K")
    new_reason = models.CharField("K reason", max_length=16, choices=translated_choices(KReason))
    reason = models.CharField(
        "why it changed", max_length=16, choices=translated_choices(KChangeReason)
    )
    note = models.CharField("note", max_length=500, blank=True)
    run = models.ForeignKey(
        "players.RatingRun",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="k_changes",
        db_constraint=False,
    )
    # The closed period whose close produced this change; a replay marks the rows of the
    # periods it recomputes current=False and writes new ones.
    source_period = models.ForeignKey(
        "players.RatingPeriod",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="k_changes",
        db_constraint=False,
    )
    current = models.BooleanField("current", default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        db_constraint=False,
    )
    created_at = models.DateTimeField("created", auto_now_add=True)

    class Meta:
        ordering = ["rating_list", "player", "effective_month", "id"]
        verbose_name = "K factor change"
        verbose_name_plural = "K factor changes"
        constraints = [
            k_range_check("old_k", "kfactorchange_old_k_range"),
            k_range_check("new_k", "kfactorchange_new_k_range"),
        ]
        indexes = [
            models.Index(
                fields=["player", "rating_list", "effective_month"],
                name="kchange_player_list_month_idx",
            )
        ]

    def __str__(self) -> str:
        return f"{self.player} K {self.old_k} -> {self.new_k} from {self.period}"

    @property
    def period(self) -> str:
        return self.effective_month.strftime("%Y-%m")
