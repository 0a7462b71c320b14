"""The order a club shows its players' names in, where a page is about a person rather
than one list (the player page, the member's home, the rating e-mail, the API's games).

A list has its own order (``RatingList.name_order``) and a page of one list uses it; a
person outside any one list is shown as the club's first list (the lists' order: kind,
then slug) shows them, so a club with one list shows every name one way everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable

from players.models import Player, RatingList
from players.names import NameOrder, display_name


def club_name_orders(club_ids: Iterable[int]) -> dict[int, str]:
    """Each club's name order, in one query; a club without lists shows names given first."""
    ids = set(club_ids)
    orders: dict[int, str] = {}
    rows = (
        RatingList.objects.filter(club_id__in=ids)
        .order_by("club_id", "kind", "slug")
        .values_list("club_id", "name_order")
    )
    for club_id, order in rows:
        orders.setdefault(club_id, order)
    return {club_id: orders.get(club_id, NameOrder.GIVEN_FIRST.value) for club_id in ids}


def club_name_order(club_id: int) -> str:
    return club_name_orders([club_id])[club_id]


def club_name_order_by_slug(slug: str) -> str:
    """The order of the club with this slug, in one query (the context of its pages)."""
    first = (
        RatingList.objects.filter(club__slug=slug)
        .order_by("kind", "slug")
        .values_list("name_order", flat=True)
        .first()
    )
    return first or NameOrder.GIVEN_FIRST.value


def club_display_name(name: str, club_id: int) -> str:
    """``name`` as the club's pages show it (one query)."""
    return display_name(name, club_name_order(club_id))


def with_shown_names(players: list[Player]) -> list[Player]:
    """The players, each with ``shown_name``: the name as its club shows it (one query for
    every club among them)."""
    orders = club_name_orders(player.club_id for player in players)
    for player in players:
        setattr(player, "shown_name", display_name(player.name, orders[player.club_id]))  # noqa: B010 - not a field
    return players
