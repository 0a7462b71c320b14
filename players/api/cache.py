"""The cache of the public views (rating list, player, period report, head-to-head and
tournament pages, and the public GET API): what an anonymous visitor of a public club
would be shown, kept in Django's default cache.

Only anonymous visitors of public clubs are served from it or stored in it. Those pages
are the same for every such visitor; a signed-in user's page carries their own menu, the
CSRF token of the log-out form, member names and, in a private club, what only members
may see, so it is always computed afresh (members are few; the public are many).

A key names the club, the club's generation (``published_generation``: replaced by
``club_published_changed`` in every service that changes what these views show, so a
close, a replay or an edit retires every entry at once), the view's variant (HTML, or the
API's media type), the active language and the full URL (path, query string, host).
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.http import HttpRequest
from django.utils.translation import get_language

from players.models import Club
from players.selectors import User, published_generation


def published_cache_key(
    *, request: HttpRequest, user: User, club: Club, variant: str
) -> str | None:
    """The cache key of this request's answer; None: neither served from nor stored in
    the cache (a signed-in user, a private club, a write, caching switched off)."""
    if (
        settings.PUBLISHED_CACHE_SECONDS <= 0
        or request.method not in ("GET", "HEAD")
        or user.is_authenticated
        or not club.public
    ):
        return None
    generation = published_generation(club_id=club.pk)
    url = hashlib.md5(  # a key, not a secret
        request.build_absolute_uri().encode(), usedforsecurity=False
    ).hexdigest()
    return f"published:{club.pk}:{generation}:{variant}:{get_language()}:{url}"
