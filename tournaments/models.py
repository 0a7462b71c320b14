"""Tournaments and games.

Only services write these rows. A game's period is derived by the services (the month of
its tournament's end date, else of its own date); a closed period's games are immutable
until the period is reopened.
"""

from __future__ import annotations

from fractions import Fraction

from django.db import models
from django.db.models import F, Q
from simple_history.models import HistoricalRecords

from players.models import Club, Player, RatingList, RatingPeriod, translated_choices
from players.models.audit import AuditFields
from players.rating.period import GameResult

# The engine's vocabulary (players.rating.period), declared there once.
Result = GameResult


class Tournament(models.Model):
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="tournaments")
    name = models.CharField("name", max_length=200)
    rating_list = models.ForeignKey(
        RatingList, on_delete=models.PROTECT, related_name="tournaments"
    )
    start_date = models.DateField("start date")
    end_date = models.DateField("end date")
    rounds = models.PositiveSmallIntegerField("rounds", null=True, blank=True)
    city = models.CharField("city", max_length=100, blank=True)
    # TRF headers kept from an import and written back by the export (032, 092, 122, 102).
    federation = models.CharField("federation", max_length=3, blank=True)
    tournament_type = models.CharField("type", max_length=100, blank=True)
    time_control = models.CharField("time control", max_length=100, blank=True)
    arbiter = models.CharField("chief arbiter", max_length=200, blank=True)
    # A digest of an imported file, so importing the same file twice creates nothing.
    import_digest = models.CharField(  # noqa: DJ001 - null keeps the unique constraint off hand-entered rows
        "import digest", max_length=64, null=True, blank=True
    )
    created = models.DateTimeField("created", auto_now_add=True)

    history = HistoricalRecords(bases=[AuditFields])

    class Meta:
        ordering = ["-start_date", "name", "id"]
        verbose_name = "tournament"
        verbose_name_plural = "tournaments"
        constraints = [
            models.CheckConstraint(
                condition=Q(end_date__gte=F("start_date")), name="tournament_end_after_start"
            ),
            models.CheckConstraint(
                condition=Q(rounds__isnull=True) | Q(rounds__gte=1, rounds__lte=99),
                name="tournament_rounds_range",
            ),
            models.UniqueConstraint(
                fields=["club", "import_digest"],
                condition=Q(import_digest__isnull=False),
                name="tournament_import_digest_unique",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.start_date:%Y-%m-%d})"


class Game(models.Model):
    # Every reference below is held by the database, but not as six foreign keys: PostgreSQL
    # checks a foreign key once per row, and six checks per game were a third of a
    # 100,000-game import. Triggers (migration 0010) check each statement's rows as one
    # set instead, lock what they refer to as a key's check does, and refuse the delete of
    # a player, tournament, period or list that games still name. They hold more than the
    # keys did: a game's period is a period of its list, and its list a list of its club.
    # ``club`` has no index of its own: (club, date) serves its lookups.
    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="games", db_constraint=False, db_index=False
    )
    rating_list = models.ForeignKey(
        RatingList, on_delete=models.PROTECT, related_name="games", db_constraint=False
    )
    period = models.ForeignKey(
        RatingPeriod, on_delete=models.PROTECT, related_name="games", db_constraint=False
    )
    tournament = models.ForeignKey(
        Tournament,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="games",
        db_constraint=False,
    )
    date = models.DateField("date")
    round = models.PositiveSmallIntegerField("round", null=True, blank=True)
    white = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="games_as_white", db_constraint=False
    )
    black = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="games_as_black", db_constraint=False
    )
    result = models.CharField("result", max_length=8, choices=translated_choices(Result))
    rated = models.BooleanField(
        "rated", default=True, help_text="Off: recorded but not rated (e.g. unequal time)."
    )
    created = models.DateTimeField("created", auto_now_add=True)

    # The audit rows of games are the most numerous (one per imported game): they keep
    # the indexes the audit log reads by (the game, the club, the date, the user) and no
    # key to the user, whose check at commit cost as much as writing the rows.
    history = HistoricalRecords(
        bases=[AuditFields],
        user_db_constraint=False,
        no_db_index=["rating_list", "period", "tournament", "white", "black"],
    )

    class Meta:
        ordering = ["date", "round", "id"]
        verbose_name = "game"
        verbose_name_plural = "games"
        constraints = [
            models.CheckConstraint(condition=~Q(white=F("black")), name="game_white_is_not_black"),
            models.CheckConstraint(
                condition=Q(result__in=[result.value for result in Result]),
                name="game_result_valid",
            ),
            models.CheckConstraint(
                condition=Q(round__isnull=True) | Q(round__gte=1), name="game_round_positive"
            ),
        ]
        indexes = [
            models.Index(fields=["club", "date"], name="game_club_date_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.white} - {self.black} {self.result} ({self.date:%Y-%m-%d})"


# What each kind of bye gives in the standings: TRF16's F and U a win, H a draw, Z nothing.
BYE_POINTS: dict[str, Fraction] = {
    "F": Fraction(1),
    "U": Fraction(1),
    "H": Fraction(1, 2),
    "Z": Fraction(0),
}


class TournamentBye(models.Model):
    """A round a player of the tournament had no game: not rated, but part of the
    standings (a TRF's H, F, U and Z codes), so an exported TRF gives the same points."""

    class Kind(models.TextChoices):
        HALF_POINT = "H", "half-point bye"
        FULL_POINT = "F", "full-point bye"
        PAIRING_ALLOCATED = "U", "pairing-allocated bye"
        ZERO_POINT = "Z", "zero-point bye or absent"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="byes")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="byes")
    round = models.PositiveSmallIntegerField("round")
    kind = models.CharField("kind", max_length=1, choices=Kind.choices)

    class Meta:
        ordering = ["tournament", "round", "player"]
        verbose_name = "bye"
        verbose_name_plural = "byes"
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player", "round"], name="tournamentbye_one_per_round"
            ),
            models.CheckConstraint(
                condition=Q(kind__in=["H", "F", "U", "Z"]), name="tournamentbye_kind_valid"
            ),
            models.CheckConstraint(condition=Q(round__gte=1), name="tournamentbye_round_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.player} round {self.round}: {self.get_kind_display()}"


class TournamentEntry(models.Model):
    """A player entered in a tournament before it is played: the entry list that the
    forecasts read (docs/tasks/forecasting.md). Entered by the officer (the admin's inline
    on the tournament, the API's PUT of the whole list) or from a TRF's player lines."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="entries")

    class Meta:
        ordering = ["tournament", "player"]
        verbose_name = "entry"
        verbose_name_plural = "entries"
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player"], name="tournamententry_one_per_player"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} in {self.tournament}"
