"""``seed_ratings`` of the FIDE list import: players unrated on a club's Elo list, with
nothing published there, start at their FIDE rating of that kind.

The start of a player's history on a list is their entry (``PlayerRating.entry_*``, which
the history endpoint answers as ``entry`` and the player page shows as the history's first
row); the seeding writes it with its reason in ``entry_note`` ("FIDE rating list of
YYYY-MM"). A K the seeding changes (an unrated newcomer's 40 becoming 10 at 2837) is a row
of the K history from the list's next period, with the same note; a player the import
creates with a FIDE rating has that note on the K they joined with. Runs inside the
import's transaction.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from django.db.models import Exists, OuterRef

from players import rating as engine
from players.bulk import insert_rows, update_rows
from players.models import (
    Club,
    KFactorChange,
    Player,
    PlayerRating,
    RatingChange,
    RatingList,
    month_label,
)
from players.rating.k_factor import has_reached_2400, junior_age
from players.rating.systems import SYSTEMS
from players.selectors import User
from players.services.k_factor import k_for
from players.services.lists import next_period_month
from players.services.players import K_ENTRY_FIELDS
from tournaments.interchange.fide_list import FideRecord

# FIDE's ratings are Elo ratings: they seed the club's Elo lists (FIDE's rules or its own).
# A Glicko-2 list of the same kind is left to its own start (1500 and its starting RD): a
# FIDE rating says nothing of a Glicko-2 RD, and the scales differ away from 1500, so
# seeding there would publish a number the list's own rules never made.
SEEDED_SYSTEMS = tuple(name for name, s in SYSTEMS.items() if s.takes_fide_ratings)
_SEEDED = (
    "rating",
    "entry_rating",
    "reached_2400",
    "entry_reached_2400",
    "entry_note",
    "k_factor",
    "k_reason",
)
# Ids per ``__in`` lookup: well under SQLite's 32,766 bound variables (a federation is more).
_CHUNK = 5000


def seeded_lists_of(club: Club) -> list[RatingList]:
    return list(RatingList.objects.filter(club=club, system__in=SEEDED_SYSTEMS).order_by("kind"))


def fide_note(month: datetime.date) -> str:
    """The reason a history starts at a FIDE rating (the pages translate it)."""
    return f"FIDE rating list of {month_label(month)}"


def seed_existing(
    *,
    club: Club,
    players: Mapping[int, Player],
    records: Mapping[int, FideRecord],
    month: datetime.date,
    by: User,
) -> tuple[list[dict[str, Any]], list[str]]:
    """Start ``players`` (by FIDE ID) unrated on a list, with nothing published there, at
    their FIDE rating of that kind. Returns the report's seeded entries {"player", "name",
    "list", "rating"} and its warnings."""
    found = {p.pk: (p, records[fide_id]) for fide_id, p in players.items() if fide_id in records}
    entries: list[dict[str, Any]] = []
    warnings: list[str] = []
    note = fide_note(month)
    ids = sorted(found)
    for rating_list in seeded_lists_of(club):
        # In chunks: a federation's players are more ids than SQLite binds in one query.
        candidates = (
            state
            for chunk in _chunks(ids)
            for state in PlayerRating.objects.filter(
                rating_list=rating_list, player_id__in=chunk, rating__isnull=True
            )
            .annotate(
                published=Exists(
                    RatingChange.objects.filter(
                        player_id=OuterRef("player_id"), rating_list=rating_list
                    )
                )
            )
            .order_by("player_id")
        )
        next_month = next_period_month(rating_list=rating_list)
        held_back = 0
        seeded: list[PlayerRating] = []
        k_rows: list[tuple[Any, ...]] = []
        for state in candidates:
            player, record = found[state.player_id]
            rating = getattr(record, rating_list.kind)
            if rating is None:
                continue
            if state.published:
                held_back += 1
                continue
            k_row = _start(state, player, rating, rating_list, next_month, note, by)
            if k_row is not None:
                k_rows.append(k_row)
            seeded.append(state)
            entries.append(
                {
                    "player": player.pk,
                    "name": player.name,
                    "list": rating_list.slug,
                    "rating": rating,
                }
            )
        update_rows(
            PlayerRating,
            _SEEDED,
            ([r.pk, *(getattr(r, name) for name in _SEEDED)] for r in seeded),
        )
        insert_rows(KFactorChange, K_ENTRY_FIELDS, k_rows)
        if held_back:
            warnings.append(
                f"{held_back} player(s) unrated on the {rating_list.slug} list already have published "
                "periods there: not seeded (their first rating comes from their games)."
            )
    return entries, warnings


def _start(
    state: PlayerRating,
    player: Player,
    rating: int,
    rating_list: RatingList,
    next_month: datetime.date,
    note: str,
    by: User,
) -> tuple[Any, ...] | None:
    """Set ``state``'s start at ``rating`` and the K it gives; the K history's row
    (``K_ENTRY_FIELDS``) when K changed, else None."""
    # A published FIDE rating of 2400 or more has reached 2400 (K 10 for good).
    reached = has_reached_2400(state.reached_2400, rating)
    k = k_for(
        rating_list=rating_list,
        state=engine.PlayerState(rating, state.rated_games, player.birth_year, reached),
        k_override=state.k_override,
        period_year=next_month.year,
    )
    old = (
        engine.KFactor(state.k_factor, engine.KReason(state.k_reason))
        if state.k_factor is not None and state.k_reason
        else None
    )
    state.rating = state.entry_rating = rating
    state.reached_2400 = state.entry_reached_2400 = reached
    state.entry_note = note
    state.k_factor, state.k_reason = k.value, k.reason.value
    reason = engine.k_change_reason(
        old, k, still_junior_age=junior_age(player.birth_year, period_year=next_month.year)
    )
    if reason is None:
        return None
    return (
        *(player.pk, rating_list.pk, next_month, old.value if old else None),
        *(k.value, k.reason.value, reason.value, note, by.pk),
    )


def seeded_new_players_note(*, started: Mapping[int, Sequence[int]], month: datetime.date) -> None:
    """Players the import created with a FIDE rating (ids by list id): their entry and the
    K they joined with (their only K row there) get the seeding's reason."""
    note = fide_note(month)
    for list_id, player_ids in started.items():
        for chunk in _chunks(player_ids):
            PlayerRating.objects.filter(rating_list_id=list_id, player_id__in=chunk).update(
                entry_note=note
            )
            KFactorChange.objects.filter(rating_list_id=list_id, player_id__in=chunk).update(
                note=note
            )


def _chunks(ids: Sequence[int]) -> Iterator[Sequence[int]]:
    for start in range(0, len(ids), _CHUNK):
        yield ids[start : start + _CHUNK]
