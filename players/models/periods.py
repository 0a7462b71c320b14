"""A list's monthly rating periods and what each close publishes: the rating changes and
the runs (who closed, replayed or reopened what, and what changed).

The tables keep the names they had when these models lived in the tournaments app
(``db_table``): moving the models changed no row (players migration 0007).
"""

from __future__ import annotations

import datetime

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from players.models.clubs import Player
from players.models.common import KReason, k_range_check, rating_range_check, translated_choices
from players.models.lists import RatingList
from players.rating.months import add_months, month_label
from players.rating.period import PeriodEvent

#: No game, tournament or period before this day: older dates are typing errors.
EARLIEST_DATE = datetime.date(1900, 1, 1)


def latest_date() -> datetime.date:
    """The last day a game may be dated: tomorrow (a club in another time zone may already
    be there); a later date is a typing error, and would open a period nobody can close."""
    return timezone.localdate() + datetime.timedelta(days=1)


def date_out_of_bounds(value: datetime.date) -> str:
    """Why ``value`` cannot be a game's or tournament's date; "" when it can."""
    if value < EARLIEST_DATE:
        return f"{value.isoformat()} is before {EARLIEST_DATE.year}."
    if value > latest_date():
        return f"{value.isoformat()} is after tomorrow ({latest_date().isoformat()})."
    return ""


# FIDE: no rated game for a year makes a player inactive.
INACTIVE_AFTER_MONTHS = 12


def inactive_cutoff(month: datetime.date) -> datetime.date:
    """On the list published after ``month``, a player whose last active month is on or
    before this date has played no rated game in the 12 months up to ``month``."""
    return add_months(month, -INACTIVE_AFTER_MONTHS)


class RatingPeriod(models.Model):
    """One list's month. Closing it publishes the list dated the first of the next month."""

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        CLOSED = "closed", _("Closed")
        NEEDS_REPLAY = "needs_replay", _("Needs replay")

    rating_list = models.ForeignKey(RatingList, on_delete=models.CASCADE, related_name="periods")
    month = models.DateField("month", help_text="The first day of the month.")
    status = models.CharField("status", max_length=16, choices=Status.choices, default=Status.OPEN)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    closed_at = models.DateTimeField("closed at", null=True, blank=True)

    class Meta:
        ordering = ["rating_list", "month"]
        db_table = "tournaments_ratingperiod"
        verbose_name = "rating period"
        verbose_name_plural = "rating periods"
        constraints = [
            models.UniqueConstraint(
                fields=["rating_list", "month"], name="ratingperiod_list_month_unique"
            ),
            models.CheckConstraint(
                condition=Q(status__in=["open", "closed", "needs_replay"]),
                name="ratingperiod_status_valid",
            ),
            # The services hold the upper bound (tomorrow's month), which a check
            # constraint cannot name; the database holds the fixed lower one.
            models.CheckConstraint(
                condition=Q(month__gte=EARLIEST_DATE), name="ratingperiod_month_from_1900"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.rating_list} {self.label}"

    @property
    def label(self) -> str:
        return month_label(self.month)

    @property
    def last_day(self) -> datetime.date:
        return add_months(self.month, 1) - datetime.timedelta(days=1)

    def month_over(self, today: datetime.date | None = None) -> bool:
        """Whether the month has ended: its last day is before today. A close before
        that publishes a list dated next month while games can still come in."""
        return self.last_day < (today or timezone.localdate())


class RatingRun(models.Model):
    """One close, replay, reopen or K override: who, when, what changed."""

    class Kind(models.TextChoices):
        CLOSE = "close", _("Close")
        REPLAY = "replay", _("Replay")
        REOPEN = "reopen", _("Reopen")
        OVERRIDE = "override", _("K override")

    rating_list = models.ForeignKey(RatingList, on_delete=models.CASCADE, related_name="runs")
    kind = models.CharField("kind", max_length=16, choices=Kind.choices)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="rating_runs",
    )
    started = models.DateTimeField("started")
    finished = models.DateTimeField("finished", null=True, blank=True)
    periods = models.JSONField("periods", default=list, help_text="Period labels, YYYY-MM.")
    players_changed = models.PositiveIntegerField("players changed", default=0)
    report = models.TextField("report", blank=True)
    summary = models.JSONField("summary", default=dict, blank=True)
    # Written in the run's own transaction (players/jobs/services.py): a job whose worker
    # died after the commit finds its run, and answers its result instead of redoing it.
    job = models.ForeignKey(
        "players.Job",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="runs",
        help_text="The job that made this run, if a job did.",
    )

    class Meta:
        ordering = ["-started", "-id"]
        db_table = "tournaments_ratingrun"
        verbose_name = "rating run"
        verbose_name_plural = "rating runs"
        get_latest_by = "started"

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {', '.join(self.periods)} ({self.rating_list})"


class RatingChange(models.Model):
    """One player's result of one closed period (one row per player on the list).

    Besides what was published (before, after, change, K, games, score, expected), each
    row keeps the player's full state after the period (rated games, reached 2400, the
    first-rating pool, the K for the next period), so a replay can restart from any
    period without reading anything else. A replay keeps the rows it replaces with
    ``current=False``.
    """

    # The engine's vocabulary (players.rating.period), declared there once.
    Event = PeriodEvent

    # No single-column indexes on these: the composite indexes below lead with period and
    # with player, and every index costs time on each of a big close's 200,000 inserts.
    # period has no database foreign key either, like rating_list and run below: only the
    # close writes it, with the one period it holds locked (select_for_update) in the same
    # transaction, so the key cannot fail; checking it cost a federation-sized close 200,000
    # trigger runs at commit (about a second). Django still cascades a period's deletion.
    period = models.ForeignKey(
        RatingPeriod,
        on_delete=models.CASCADE,
        related_name="changes",
        db_index=False,
        db_constraint=False,
    )
    # player neither: the close writes one row for each player it read on the list it
    # holds locked, and every way a player goes (player_delete, the merge) first locks the
    # club's lists the same way, so a player cannot go while a close of theirs runs. The
    # key's check at commit locked each of a federation's 200,000 players (FOR KEY SHARE):
    # 0.8 s of a 6 s close.
    player = models.ForeignKey(
        Player,
        on_delete=models.CASCADE,
        related_name="rating_changes",
        db_index=False,
        db_constraint=False,
    )
    # rating_list repeats the period's list and run is an audit link; only the close writes
    # them, each with the one value of its run. Without database foreign keys, committing a
    # close skips 400,000 deferred key checks (a quarter of a federation-sized close).
    rating_list = models.ForeignKey(
        RatingList,
        on_delete=models.CASCADE,
        related_name="rating_changes",
        db_index=False,
        db_constraint=False,
    )
    run = models.ForeignKey(
        RatingRun, on_delete=models.PROTECT, related_name="changes", db_constraint=False
    )
    rating_before = models.PositiveSmallIntegerField("rating before", null=True, blank=True)
    rating_after = models.PositiveSmallIntegerField("rating after", null=True, blank=True)
    change = models.SmallIntegerField("change", null=True, blank=True)
    # FIDE's one-off adjustment of 1 March 2024, added after the games' change (and the
    # floor): rating_after = rating_before + change + adjustment for a rated player.
    adjustment = models.SmallIntegerField("FIDE 1 March 2024 adjustment", default=0)
    change_unrounded = models.DecimalField(
        "change before rounding", max_digits=12, decimal_places=4, null=True, blank=True
    )
    k_factor = models.PositiveSmallIntegerField("K used", null=True, blank=True)
    k_reason = models.CharField(
        "K reason", max_length=16, choices=translated_choices(KReason), blank=True
    )
    games = models.PositiveIntegerField("rated games in the period", default=0)
    score = models.DecimalField("score", max_digits=7, decimal_places=1, default=0)
    expected = models.DecimalField("expected score", max_digits=12, decimal_places=4, default=0)
    event = models.CharField("event", max_length=16, choices=translated_choices(PeriodEvent))
    current = models.BooleanField("current", default=True)
    # The state after the period: what the next period starts from.
    rated_games_after = models.PositiveIntegerField("rated games after", default=0)
    reached_2400_after = models.BooleanField("reached 2400 after", default=False)
    pool_after = models.JSONField("first-rating pool after", default=list, blank=True)
    k_next = models.PositiveSmallIntegerField("K next period", null=True, blank=True)
    k_next_reason = models.CharField(
        "K reason next period", max_length=16, choices=translated_choices(KReason), blank=True
    )
    # FIDE: a player with no rated game on the list for 12 months is inactive (still
    # listed, flagged). The month of the player's latest rated game on the list; for one
    # who has played none here yet, their first month on the list (an entered rating is
    # active when entered). Carried forward by every close, like the state above.
    last_active_month = models.DateField("last active month", null=True, blank=True)
    # What the list's rating system keeps beside the rating, before and after the period,
    # as published: {name: value} by the names the system declares
    # (RatingSystem.state_fields; Glicko-2: rd, volatility). Null on a system that keeps
    # none (the Elo family).
    state_before = models.JSONField("state before", null=True, blank=True)
    state_after = models.JSONField("state after", null=True, blank=True)

    class Meta:
        ordering = ["period", "-rating_after", "player"]
        db_table = "tournaments_ratingchange"
        verbose_name = "rating change"
        verbose_name_plural = "rating changes"
        constraints = [
            models.UniqueConstraint(
                fields=["player", "period"],
                condition=Q(current=True),
                name="ratingchange_one_current_per_player_period",
            ),
            rating_range_check("rating_before", "ratingchange_rating_before_range"),
            rating_range_check("rating_after", "ratingchange_rating_after_range"),
            k_range_check("k_factor", "ratingchange_k_range"),
            k_range_check("k_next", "ratingchange_k_next_range"),
            models.CheckConstraint(
                condition=Q(
                    event__in=[
                        "rated",
                        "first_rating",
                        "below_floor",
                        "not_yet_rated",
                        "no_rated_games",
                    ]
                ),
                name="ratingchange_event_valid",
            ),
        ]
        indexes = [
            # The period's current rows, for the close's reads; rating_after makes a
            # published list's ranks and order an index scan (the list page of a
            # 200,000-player list, a player's best rank). Partial: a replay's retired rows
            # (current=False) get no entry, which is a quarter of the index work of
            # retiring them.
            models.Index(
                fields=["period", "rating_after"],
                condition=Q(current=True),
                name="ratingchange_current_rank_idx",
            ),
            models.Index(
                fields=["player", "rating_list", "current"], name="ratingchange_player_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} {self.period.label}: {self.rating_before} -> {self.rating_after}"
