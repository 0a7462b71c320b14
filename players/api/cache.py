"""The cache of the public views (club home, rating list, player, period report,
head-to-head and tournament pages, and the public GET API): what an anonymous visitor of a
public club is shown, kept in Django's default cache.

Only anonymous visitors are served from it or stored in it, and only a public club's
answer is stored. Those answers are the same for every such visitor; a signed-in user's
page carries their own menu, the CSRF token of the log-out form, member names and, in a
private club, what only members may see, so it is always computed afresh (members are
few; the public are many).

An entry's key names the club (its slug), the view's variant (HTML, or the API's media
type), the active language and the full URL (path, query string, host); its value carries
the club's *generation* at the time the answer was computed. The generation is replaced by
``club_published_changed`` in every service that changes what these views show (a close,
a replay, an edit; a club made private), so an entry of an older generation is never
served again. One cache read fetches both the generation and the entry, before the club
is read: a warm hit costs that read alone.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.messages import get_messages
from django.core.cache import cache
from django.http import HttpRequest
from django.utils.translation import get_language

from players.models import Club
from players.selectors import User, published_generation_key


@dataclass(frozen=True)
class PublishedEntry:
    key: str
    slug: str
    # Read before the answer is computed, so a change after it retires what is stored;
    # None: the club has none yet (or it was culled).
    generation: str | None
    value: Any  # the stored answer when it is of the current generation, else None

    def store(self, *, club: Club, value: Any) -> None:
        """Keep ``value`` (a 200's answer) for the next anonymous visitor, if the club is
        public."""
        if not club.public:
            return
        generation = self.generation
        if generation is None:
            # The club's first generation. add(): if a change gave it one since this
            # request began, that one stays, and this answer (perhaps older) is not kept.
            generation = uuid.uuid4().hex
            if not cache.add(published_generation_key(self.slug), generation, timeout=None):
                return
        cache.set(self.key, (generation, value), settings.PUBLISHED_CACHE_SECONDS)


def published_entry(
    *, request: HttpRequest, user: User, slug: str, variant: str
) -> PublishedEntry | None:
    """This request's entry in the cache; None: neither served from nor stored in it (a
    signed-in user, a write, a message waiting to be shown, caching switched off)."""
    if (
        settings.PUBLISHED_CACHE_SECONDS <= 0
        or request.method not in ("GET", "HEAD")
        or user.is_authenticated
        or (hasattr(request, "_messages") and get_messages(request))
    ):
        return None
    url = hashlib.md5(  # a key, not a secret
        request.build_absolute_uri().encode(), usedforsecurity=False
    ).hexdigest()
    key = f"published:{slug}:{variant}:{get_language()}:{url}"
    generation_key = published_generation_key(slug)
    found = cache.get_many([generation_key, key])
    generation: str | None = found.get(generation_key)
    stored = found.get(key)
    current = generation is not None and stored is not None and stored[0] == generation
    return PublishedEntry(key, slug, generation, stored[1] if current and stored else None)
