"""Merging a duplicate player record into the kept one (rating officer).

One transaction: the duplicate's games move to the kept player, their list entries merge,
their published rows and K history stay on record (not current) under the kept player,
the duplicate's blank-filling details move across, the duplicate is deleted, and every
closed period whose outcome changes is marked as needing a replay (from the first such
period of each list on, as a reopen does). One PlayerMerge row records it: the merge's
one entry in the club's audit trail (GET .../audit/?model=merge) and the admin's
"Player merges" pages.

Refused (409) where a merge cannot be right: the two played each other, or played in the
same round of one tournament, or hold different FIDE IDs.
"""

from __future__ import annotations

import datetime
from dataclasses import asdict, dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from players.bulk import history_rows_copy_ids
from players.errors import ConflictError, ValidationFailed
from players.models import (
    KFactorChange,
    Player,
    PlayerMerge,
    PlayerRating,
    RatingChange,
    RatingList,
    RatingPeriod,
    RatingRun,
    Role,
    month_label,
)
from players.models.audit import audit_via
from players.names import name_key
from players.selectors import User, require_role
from players.services import club_lists_locked, club_published_changed
from players.webhooks import players_changed
from tournaments.models import Game, TournamentBye, TournamentEntry

# Details the kept player takes from the duplicate where the kept player has none.
_FILLED = (
    "birth_date",
    "birth_year",
    "sex",
    "federation",
    "title",
    "women_title",
    "fide_id",
    "fide_standard",
    "fide_rapid",
    "fide_blitz",
    "fide_list_month",
)


@dataclass
class MergeReport:
    """What the merge did (or, in a dry run, would do)."""

    kept: int
    duplicate: int
    kept_name: str
    duplicate_name: str
    dry_run: bool
    games_moved: int = 0
    #: Tournament entries without a game (a TRF's byes) moved to the kept player.
    byes_moved: int = 0
    #: Published rows of the duplicate kept on record under the kept player (not current).
    history_moved: int = 0
    k_changes_moved: int = 0
    #: Lists whose entry rating the kept player took from the duplicate (kept one unrated).
    entries_taken: list[str] = field(default_factory=list)
    #: Details the kept player took from the duplicate (field names).
    details_taken: list[str] = field(default_factory=list)
    #: Per list, the closed periods now needing a replay (YYYY-MM).
    needs_replay: dict[str, list[str]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Rollback(Exception):
    pass


def player_merge(
    *, kept: Player, duplicate: Player, by: User, dry_run: bool = False
) -> MergeReport:
    """Merge ``duplicate`` into ``kept`` (rating officer of their club); see the module.

    Raises ValidationFailed (400) for a player of another club or the same player twice,
    ConflictError (409) where the two cannot be one person.
    """
    require_role(by, kept.club, Role.OFFICER)
    if duplicate.club_id != kept.club_id:
        raise ValidationFailed(
            "duplicate: No such player in this club.",
            fields={"duplicate": ["No such player in this club."]},
        )
    if duplicate.pk == kept.pk:
        raise ValidationFailed(
            "duplicate: A player cannot be merged into themselves.",
            fields={"duplicate": ["The same player as the one kept."]},
        )
    report = MergeReport(kept.pk, duplicate.pk, kept.name, duplicate.name, dry_run)
    try:
        with transaction.atomic(durable=True):
            _merge(kept, duplicate, by, report)
            if dry_run:
                raise _Rollback
            club_published_changed(club_id=kept.club_id)
            players_changed(
                club_id=kept.club_id,
                action="merged",
                players=[kept.pk, duplicate.pk],
                kept=kept.pk,
                duplicate=duplicate.pk,
            )
    except _Rollback:
        pass
    return report


def _merge(kept: Player, duplicate: Player, by: User, report: MergeReport) -> None:
    lists = club_lists_locked(club_id=kept.club_id)
    locked = {
        p.pk: p
        for p in Player.objects.select_for_update()
        .filter(pk__in=[kept.pk, duplicate.pk])
        .order_by("id")
    }
    if len(locked) != 2:
        raise ConflictError("One of the players was deleted meanwhile.")
    keep, dup = locked[kept.pk], locked[duplicate.pk]
    _refuse_impossible(keep, dup)
    months = _affected_months(keep, dup, lists, report)
    moved = list(
        Game.objects.filter(Q(white=dup) | Q(black=dup)).order_by("id").values_list("id", flat=True)
    )
    report.games_moved = Game.objects.filter(white=dup).update(white=keep) + Game.objects.filter(
        black=dup
    ).update(black=keep)
    # The UPDATEs skip the ORM's saves: the moved games' audit rows are copied after them.
    history_rows_copy_ids(Game, moved, by_id=by.pk)
    report.byes_moved = TournamentBye.objects.filter(player=dup).update(player=keep)
    # The duplicate's entries go to the kept player, once per tournament.
    TournamentEntry.objects.filter(player=dup, tournament__entries__player=keep).delete()
    TournamentEntry.objects.filter(player=dup).update(player=keep)
    report.history_moved = RatingChange.objects.filter(player=dup).update(
        player=keep, current=False
    )
    report.k_changes_moved = KFactorChange.objects.filter(player=dup).update(
        player=keep, current=False
    )
    PlayerRating.objects.filter(player=dup).delete()
    taken = {
        name: getattr(dup, name)
        for name in _FILLED
        if getattr(keep, name) in (None, "") and getattr(dup, name) not in (None, "")
    }
    dup_name, dup_id = dup.name, dup.pk
    dup.delete()
    if taken:
        for name, value in taken.items():
            setattr(keep, name, value)
        keep.name_key = name_key(keep.name)[:200]
        keep.save(update_fields=[*taken, "name_key"])
    report.details_taken = sorted(taken)
    report.needs_replay = _mark_for_replay(lists, months, by, dup_name, keep)
    PlayerMerge.objects.create(
        club_id=keep.club_id,
        kept=keep,
        duplicate_id=dup_id,
        duplicate_name=dup_name,
        by_id=by.pk,
        via=audit_via(),
        summary={k: v for k, v in report.as_dict().items() if k not in ("dry_run",)},
    )


def _refuse_impossible(keep: Player, dup: Player) -> None:
    between = Game.objects.filter(Q(white=keep, black=dup) | Q(white=dup, black=keep)).values_list(
        "date", flat=True
    )
    played = list(between[:1])
    if played:
        raise ConflictError(
            f"{keep.name} and {dup.name} played each other on {played[0]}: one person cannot "
            "play themselves.",
            fields={"duplicate": ["The two players are in the same game."]},
        )
    # One person has one game or bye a round: the two records' (tournament, round) pairs.
    clash = next(iter(_rounds_of(keep) & _rounds_of(dup)), None)
    if clash is not None:
        raise ConflictError(
            f"{keep.name} and {dup.name} both played round {clash[1]} of tournament "
            f"#{clash[0]}: one person has one game (or bye) a round.",
            fields={"duplicate": ["Both are in the same round of one tournament."]},
        )
    if keep.fide_id is not None and dup.fide_id is not None and keep.fide_id != dup.fide_id:
        raise ConflictError(
            f"{keep.name} (FIDE ID {keep.fide_id}) and {dup.name} (FIDE ID {dup.fide_id}) hold "
            "different FIDE IDs: two people, not one.",
            fields={"duplicate": ["Another FIDE ID."]},
        )


def _rounds_of(player: Player) -> set[tuple[int, int]]:
    played = Game.objects.filter(
        Q(white=player) | Q(black=player), tournament__isnull=False, round__isnull=False
    ).values_list("tournament_id", "round")
    byes = TournamentBye.objects.filter(player=player).values_list("tournament_id", "round")
    return {(t, r) for t, r in played if t is not None and r is not None} | set(byes)


def _affected_months(
    keep: Player, dup: Player, lists: list[RatingList], report: MergeReport
) -> dict[int, datetime.date]:
    """Per list id, the first closed month whose outcome the merge changes: the
    duplicate's published rows and games there, and, when the kept player takes the
    duplicate's entry rating, the kept player's own first published month. Merges the
    entries as it goes."""
    first: dict[int, datetime.date] = {}

    def note(list_id: int, month: datetime.date | None) -> None:
        if month is not None and (list_id not in first or month < first[list_id]):
            first[list_id] = month

    for list_id, month in RatingChange.objects.filter(player=dup).values_list(
        "rating_list_id", "period__month"
    ):
        note(list_id, month)
    for list_id, month in (
        Game.objects.filter(Q(white=dup) | Q(black=dup))
        .exclude(period__status=RatingPeriod.Status.OPEN)
        .values_list("rating_list_id", "period__month")
        .distinct()
    ):
        note(list_id, month)
    entries = {
        (r.player_id, r.rating_list_id): r
        for r in PlayerRating.objects.filter(player__in=[keep, dup])
    }
    kinds = {rl.pk: rl.slug for rl in lists}
    for rating_list in lists:
        mine = entries.get((keep.pk, rating_list.pk))
        theirs = entries.get((dup.pk, rating_list.pk))
        if theirs is None:
            continue
        if mine is None:
            # Rare (every player gets a row on every list); the duplicate's row moves.
            PlayerRating.objects.filter(pk=theirs.pk).update(player=keep)
            continue
        changed = []
        if mine.entry_rating is None and theirs.entry_rating is not None:
            mine.entry_rating = theirs.entry_rating
            mine.entry_rated_games = theirs.entry_rated_games
            mine.entry_reached_2400 = theirs.entry_reached_2400
            changed += ["entry_rating", "entry_rated_games", "entry_reached_2400"]
            report.entries_taken.append(kinds[rating_list.pk])
            own = (
                RatingChange.objects.filter(player=keep, rating_list=rating_list)
                .order_by("period__month")
                .values_list("period__month", flat=True)
                .first()
            )
            note(rating_list.pk, own)
        # On the list from the earlier of the two months (None: from its first period).
        if mine.entry_month is not None and (
            theirs.entry_month is None or theirs.entry_month < mine.entry_month
        ):
            mine.entry_month = theirs.entry_month
            changed.append("entry_month")
        if changed:
            mine.save(update_fields=changed)
    return first


def _mark_for_replay(
    lists: list[RatingList], first: dict[int, datetime.date], by: User, dup_name: str, keep: Player
) -> dict[str, list[str]]:
    marked: dict[str, list[str]] = {}
    now = timezone.now()
    for rating_list in lists:
        month = first.get(rating_list.pk)
        if month is None:
            continue
        periods = list(
            RatingPeriod.objects.select_for_update(no_key=True)
            .filter(rating_list=rating_list, month__gte=month)
            .exclude(status=RatingPeriod.Status.OPEN)
            .order_by("month")
        )
        labels = [p.label for p in periods]
        RatingPeriod.objects.filter(pk__in=[p.pk for p in periods]).update(
            status=RatingPeriod.Status.NEEDS_REPLAY
        )
        if not labels:
            continue
        marked[rating_list.slug] = labels
        RatingRun.objects.create(
            rating_list=rating_list,
            kind=RatingRun.Kind.REOPEN,
            by_id=by.pk,
            started=now,
            finished=now,
            periods=labels,
            report=f"Merged {dup_name} into {keep.name} (#{keep.pk}); needing replay from "
            f"{month_label(month)}: {', '.join(labels)}.",
            summary={"needs_replay": labels, "merge": keep.pk},
        )
    return marked
