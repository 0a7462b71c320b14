"""A tournament's entry list (who is entered before it is played): the forecasts' field
(docs/tasks/forecasting.md). Set whole by the officer (the API's PUT, the admin's inline),
or added from a TRF's player lines inside an import's transaction."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from django.db import transaction

from players.errors import invalid_field
from players.models import Player, Role
from players.selectors import User, require_role
from players.services import club_live_changed
from tournaments.models import Tournament, TournamentEntry

# The most players one list may hold: a bound on what one PUT makes the database check
# (a forecast takes at most forecast.MAX_ENTRANTS of them).
MAX_ENTRIES = 1000


def _checked_ids(tournament: Tournament, player_ids: Sequence[object]) -> list[int]:
    """The ids, each a player of the tournament's club, each once; else a 400 naming
    ``players``."""
    if len(player_ids) > MAX_ENTRIES:
        raise invalid_field("players", f"At most {MAX_ENTRIES} players.")
    ids: list[int] = []
    for value in player_ids:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise invalid_field("players", f"{value!r} is not a player id.")
        ids.append(value)
    twice = sorted(pid for pid, times in Counter(ids).items() if times > 1)
    if twice:
        raise invalid_field("players", f"Entered twice: {', '.join(map(str, twice))}.")
    found = set(
        Player.objects.filter(club_id=tournament.club_id, pk__in=ids).values_list("pk", flat=True)
    )
    missing = [pid for pid in ids if pid not in found]
    if missing:
        shown = ", ".join(map(str, missing[:10]))
        raise invalid_field("players", f"Not players of this club: {shown}.")
    return ids


def tournament_entries_set(
    *, tournament: Tournament, by: User, player_ids: Sequence[object]
) -> list[int]:
    """Replace the tournament's entry list by ``player_ids`` (players of its club, each
    once); the officer's. Returns the ids entered, in the order given."""
    require_role(by, tournament.club, Role.OFFICER)
    ids = _checked_ids(tournament, player_ids)
    with transaction.atomic(durable=True):
        locked = Tournament.objects.select_for_update(no_key=True).get(pk=tournament.pk)
        entries = TournamentEntry.objects.filter(tournament=locked)
        entries.exclude(player_id__in=ids).delete()
        kept = set(entries.values_list("player_id", flat=True))
        TournamentEntry.objects.bulk_create(
            TournamentEntry(tournament=locked, player_id=pid) for pid in ids if pid not in kept
        )
        club_live_changed(club_id=tournament.club_id)
    return ids


def tournament_entries_add(*, tournament: Tournament, player_ids: Iterable[int]) -> int:
    """Enter ``player_ids`` (the club's, checked by the caller: an import's matched
    players) who are not entered yet, inside the caller's transaction; how many were."""
    kept = set(
        TournamentEntry.objects.filter(tournament=tournament).values_list("player_id", flat=True)
    )
    new = [pid for pid in dict.fromkeys(player_ids) if pid not in kept]
    TournamentEntry.objects.bulk_create(
        TournamentEntry(tournament=tournament, player_id=pid) for pid in new
    )
    if new:
        club_live_changed(club_id=tournament.club_id)
    return len(new)
