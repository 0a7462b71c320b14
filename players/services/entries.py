"""Who is on which list: a new player enters every list of the club with the ratings they
bring (``ratings_create``), and a new list every player of the club (``rating_list_create``),
so that every player of a club is on each of its lists: a game of theirs on any list
finds their state there when the month closes."""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from django.db import IntegrityError, transaction

from players import rating as engine
from players.bulk import insert_rows_sharing
from players.errors import invalid_field
from players.models import (
    Club,
    KFactorChange,
    Player,
    PlayerRating,
    RatingList,
    RatingPeriod,
    Role,
    list_kind_values,
    list_presets,
)
from players.names import NameOrder
from players.rating import ListKind, list_kind
from players.rating.systems import SYSTEMS, system_for
from players.selectors import User, require_role
from players.services.clubs import club_published_changed
from players.services.k_factor import k_for
from players.services.lists import (
    LIST_DISPLAY,
    LIST_RULES,
    SLUG,
    next_period_month,
    validate_list,
)


def rating_list_create(
    *,
    club: Club,
    by: User,
    slug: str,
    kind: str,
    system: str,
    name: str = "",
    **rules: Any,
) -> RatingList:
    """A further list of the club (owner only): its system's preset (FIDE's for its kind,
    Club Elo, Glicko-2), then ``rules`` field by field (``LIST_RULES``)."""
    require_role(by, club, Role.OWNER)
    if not SLUG.fullmatch(slug):
        raise invalid_field("slug", "Lower-case letters, digits, - and _ only (at most 32).")
    kinds = list_kind_values()
    if kind not in kinds:
        raise invalid_field("kind", f"Use one of {', '.join(kinds)}.")
    if system not in SYSTEMS:
        raise invalid_field("system", f"Use one of {', '.join(SYSTEMS)}.")
    display = {field: rules.pop(field) for field in LIST_DISPLAY if field in rules}
    unknown = set(rules) - set(LIST_RULES)
    if unknown:
        raise invalid_field(sorted(unknown)[0], "Not a list rule.")
    if display.get("name_order", NameOrder.GIVEN_FIRST) not in set(NameOrder):
        raise invalid_field("name_order", f"Use one of {', '.join(NameOrder)}.")
    presets = list_presets()
    preset = system_for(system).preset or list_kind(kind).fide_preset
    # The system chosen, whatever the preset it starts from names (a system of its own
    # may start from another's rules).
    values = {**presets[preset], "kind": kind, "system": system, **rules, **display}
    # How names are shown is not a rule: setting it keeps the list's preset.
    rating_list = RatingList(
        club=club, slug=slug, name=name.strip(), preset="" if rules else preset, **values
    )
    validate_list(rating_list)
    with transaction.atomic(durable=True):
        if RatingList.objects.filter(club=club, slug=slug).exists():
            raise invalid_field("slug", f"The club has a list {slug!r} already.")
        try:
            with transaction.atomic():
                rating_list.save()
        except IntegrityError:
            raise invalid_field("slug", f"The club has a list {slug!r} already.") from None
        ratings_create(new=_club_players(rating_list), lists=[rating_list], by=by)
        club_published_changed(club_id=club.pk)
    return rating_list


def players_enter_list(
    *, rating_list: RatingList, player_ids: Sequence[int], by: User | None
) -> int:
    """Players of the list's club who are not on it join it, as ``rating_list_create``
    enters the club's players; inside the caller's transaction (a close's, which found
    their games on a list created before lists took in the club's players). Returns how
    many joined."""
    on_list = set(
        PlayerRating.objects.filter(rating_list=rating_list, player_id__in=player_ids).values_list(
            "player_id", flat=True
        )
    )
    missing = sorted(set(player_ids) - on_list)
    joining = list(_club_players(rating_list, missing))
    ratings_create(new=joining, lists=[rating_list], by=by)
    return len(joining)


def _club_players(
    rating_list: RatingList, player_ids: Sequence[int] | None = None
) -> Iterator[tuple[Player, Mapping[str, Mapping[str, Any]]]]:
    """Every player of the list's club (or those of ``player_ids`` who are the club's), as
    a new player with no rating entered for it. On a rapid or blitz list their standard
    rating counts toward their K (they count as rated with it), as it does when a new
    player brings one."""
    standard: dict[int, int | None] = {}
    if rating_list.list_kind.counts_standard:
        standard = dict(
            PlayerRating.objects.filter(
                rating_list__club_id=rating_list.club_id,
                rating_list__kind=ListKind.STANDARD.value,
            ).values_list("player_id", "rating")
        )
    players = Player.objects.filter(club_id=rating_list.club_id)
    if player_ids is not None:
        players = players.filter(pk__in=player_ids)
    for player in players.only("pk", "birth_year").order_by("pk").iterator(chunk_size=10_000):
        rating = standard.get(player.pk)
        yield player, ({} if rating is None else {ListKind.STANDARD.value: {"rating": rating}})


_RATING_FIELDS = (
    "player",
    "rating_list",
    "rating",
    "rated_games",
    "reached_2400",
    "k_factor",
    "k_reason",
    "entry_rating",
    "entry_rated_games",
    "entry_reached_2400",
    "entry_month",
    "state",
    "entry_state",
)
# The KFactorChange fields of a K given outside a close (a player's entry, a seeded start),
# in the order of their rows.
K_ENTRY_FIELDS = (
    "player",
    "rating_list",
    "effective_month",
    "old_k",
    "new_k",
    "new_reason",
    "reason",
    "note",
    "created_by",
)


def ratings_create(
    *,
    new: Iterable[tuple[Player, Mapping[str, Mapping[str, Any]]]],
    lists: Iterable[RatingList],
    by: User | None,
) -> None:
    """New players' states on every list of the club, from the ratings they bring
    (``entries`` by list kind; a list not named starts unrated), with the K the rules give
    recorded as their first KFactorChange. Bulk rows: one player or a whole import."""
    # The lists' next month and whether they have history are the same for every player.
    list_facts = []
    for rating_list in lists:
        month = next_period_month(rating_list=rating_list)
        has_history = (
            RatingPeriod.objects.filter(rating_list=rating_list)
            .exclude(status=RatingPeriod.Status.OPEN)
            .exists()
        )
        list_facts.append((rating_list, month, has_history))
    # Rows as (player, the rest): players in the same state share the rest, written once.
    rating_rows: list[tuple[int, tuple[Any, ...]]] = []
    k_rows: list[tuple[int, tuple[Any, ...]]] = []
    # The K rules are pure and an import's players share a few states (most are unrated
    # with no games): each distinct state is worked out once per list, its rows' rest too.
    rests: dict[tuple[Any, ...], tuple[tuple[Any, ...], tuple[Any, ...] | None]] = {}
    for player, entries in new:
        standard = _entered_standard(entries)
        for rating_list, month, has_history in list_facts:
            entry = entries.get(rating_list.slug, {})
            if not rating_list.rating_system.uses_k:
                row = _row_without_k(player, rating_list, entry, month, has_history)
                rating_rows.append((row[0], row[1:]))
                continue
            rating = entry.get("rating")
            rated_games = entry.get("rated_games", 0)
            reached = entry.get("reached_2400", False)
            key = (rating_list.pk, rating, rated_games, player.birth_year, reached, standard)
            known = rests.get(key)
            if known is None:
                state = engine.PlayerState(rating, rated_games, player.birth_year, reached)
                k = k_for(
                    rating_list=rating_list,
                    state=state,
                    k_override=None,
                    period_year=month.year,
                    standard_rating=standard,
                )
                # entry_*: the start of the history. A list with published history: the
                # player appears from the next list on (entry_month).
                rating_rest = (
                    *(rating_list.pk, rating, rated_games, reached),
                    *(k.value, k.reason.value, rating, rated_games, reached),
                    *(month if has_history else None, None, None),
                )
                reason = engine.k_change_reason(None, k)
                k_rest = (
                    None
                    if reason is None
                    else (
                        *(rating_list.pk, month, None, k.value, k.reason.value),
                        *(
                            reason.value,
                            "entered when the player joined",
                            None if by is None else by.pk,
                        ),
                    )
                )
                known = rests[key] = (rating_rest, k_rest)
            rating_rows.append((player.pk, known[0]))
            if known[1] is not None:
                k_rows.append((player.pk, known[1]))
    insert_rows_sharing(PlayerRating, _RATING_FIELDS, rating_rows)
    insert_rows_sharing(KFactorChange, K_ENTRY_FIELDS, k_rows)


def _row_without_k(
    player: Player,
    rating_list: RatingList,
    entry: Mapping[str, Any],
    month: datetime.date,
    has_history: bool,
) -> tuple[Any, ...]:
    """A new player's row (``_RATING_FIELDS``) on a list whose system has no K
    (Glicko-2): no rating entered is the system's start (Glicko-2 rates everyone: 1500),
    with the state ``_state_entered`` filled in."""
    system = rating_list.rating_system
    rating = system.start_rating if entry.get("rating") is None else entry["rating"]
    games, reached = entry.get("rated_games", 0), entry.get("reached_2400", False)
    state = None
    if system.keeps_state:
        # An import's entries come without one: the system's start on the list.
        state = entry.get("state") or system.entered_state({}, rating_list.settings())
    entry_month = month if has_history else None
    return (
        *(player.pk, rating_list.pk, rating, games, reached, None, ""),
        *(rating, games, reached, entry_month, state, state),
    )


def _entered_standard(entries: Mapping[str, Mapping[str, Any]]) -> int | None:
    """A new player's standard rating in force: the one entered (nothing is published for
    them yet). On rapid and blitz an unrated player counts as rated with it, K included."""
    rating: int | None = entries.get(ListKind.STANDARD.value, {}).get("rating")
    return rating
