"""The club's two cache generations: the names of the current state of what its public
views show, kept in the cache by slug (what a request knows before the club is read;
slugs never change).

- ``PUBLISHED``: what publishing changes (a close, reopen or replay; a player's, list's or
  club's edit; an import). The rating list, the player page, the period report, the
  published list's answers and downloads are stored under it.
- ``LIVE``: what a game changes besides (the live list and its API, a player's live
  figures, the tournament pages, the head-to-head page). A game entered, edited or deleted
  replaces only this one; publishing replaces both (``club_published_changed``), since
  the live figures start from the published ratings.

So a round's games, one a second, leave the published pages cached. Every view stores
its answer under the generation of what it shows: a page that shows both (the player
page and its live block) stores each part under its own.
"""

from __future__ import annotations

import uuid
from enum import StrEnum

from django.core.cache import cache


class Generation(StrEnum):
    PUBLISHED = "published"
    LIVE = "live"


def generation_key(slug: str, scope: Generation = Generation.PUBLISHED) -> str:
    """Where the club's generation of ``scope`` is kept in the cache."""
    return f"{scope.value}:generation:{slug}"


def published_generation_key(slug: str) -> str:
    """Where the club's published generation is kept (players.http.cache)."""
    return generation_key(slug, Generation.PUBLISHED)


def generation_started(slug: str, scope: Generation) -> str | None:
    """A first generation of ``scope`` for the club, when it has none: the new token, or
    None when one is there already (a change gave it one meanwhile; what the caller built
    before it may be older and is not to be stored under it)."""
    token = uuid.uuid4().hex
    return token if cache.add(generation_key(slug, scope), token, timeout=None) else None


def club_generation(slug: str, scope: Generation) -> str | None:
    """The club's current generation of ``scope``, given a first one if it has none (a
    generation lost from the cache is a new one: what was stored under the old is never
    served again). None only if the cache keeps nothing (a dummy cache)."""
    key = generation_key(slug, scope)
    current: str | None = cache.get(key)
    if current is None:
        generation_started(slug, scope)
        current = cache.get(key)
    return current


def computed_key(slug: str, scope: Generation) -> str:
    """Where the club's generation of ``scope`` whose shared figures are computed is kept
    (``generation_computed``)."""
    return f"{scope.value}:computed:{slug}"


def generation_computed(slug: str, scope: Generation, generation: str) -> None:
    """The figures the club's pages of ``scope`` share (a list's live figures, which its
    live page, its API and every player's live block are built from) are computed for
    ``generation`` and in the cache: a page of that generation is now rebuilt from them
    cheaply, and need not wait for the club's rebuild slot (players.http.cache)."""
    cache.set(computed_key(slug, scope), generation, timeout=None)
