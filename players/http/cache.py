"""The cache of the public views (club home, rating list, player, period report,
head-to-head and tournament pages, the public GET API, and the list downloads
``export.csv`` and ``export.txt``): what an anonymous visitor of a public club is shown,
kept in Django's default cache.

Only anonymous visitors are served from it or stored in it, and only a public club's
answer is stored (as rendered bytes). Those answers are the same for every such visitor.
A signed-in user's page carries their own menu, the CSRF token of the log-out form and
member names, and in a private club what only members may see: the API answers them
afresh; the HTML pages of a public club take the stored page and render those parts into
it (ratings_site/pages/base.py: ``member_page``), never storing them.

An entry's key names the club (its slug), the view's variant (HTML, or the API's media
type), the active language and the full URL (path, query string, host); its value carries
the club's *generation* at the time the answer was computed, of the entry's scope
(players.selectors.generations): ``PUBLISHED`` for what publishing changes, ``LIVE`` for
what a game changes too. The published generation is replaced by ``club_published_changed``
in every service that publishes (a close, reopen or replay, an edit, an import; a club made
private), which replaces the live one too; the live generation alone by
``club_live_changed`` (a game entered, edited or deleted). An entry of an older generation
is never served again. One cache read fetches both the generation and the entry, before
the club is read: a warm hit costs that read alone.

A close retires every entry of the club at once, and the pages most asked for are then
asked by every worker in the same second. So the first rebuild of an entry is done once:
the request that misses *claims* it (``cache.add`` of a rebuild key, which only one caller
wins, held at most ``REBUILD_SECONDS``); the others meanwhile get the entry's previous
answer, kept under the same key and marked as being refreshed, or, where there is none,
wait for the rebuilt one (``wait``) and compute it themselves only if it has not come.

And while an older answer can be shown, a club's entries (of both scopes) are rebuilt one
at a time: the request that rebuilds one also takes the club's rebuild *slot*
(``cache.add``, held at most ``REBUILD_SECONDS`` too), and a request that misses another
entry of the club meanwhile gets that entry's previous answer, marked, instead of starting
a second rebuild. A close of a federation-sized club retires its home, list, player pages,
their live figures and API answers at once; their rebuilds, each seconds long under load,
took every web worker together, and for those seconds every request of the site (a 404
too) waited behind them. The next rebuild starts with the next request after the slot is
released (or lapses). Except for the live entries once the figures they are all built from
(a list's live figures) are computed for their generation (``generation_computed``): each
is then rebuilt from them cheaply, without the slot, so after a game the live list's page,
its API and the player pages' live blocks no longer wait for one another.

The request that claims a published entry's rebuild is itself shown the previous answer,
marked, when one is kept and the club is still public (``rebuilt_once``'s
``previous_first``), and rebuilds the entry after the server delivered that answer
(``after_response``). On the first of the month every close retires its club's pages,
and the first visitor of each waited for its rebuild (a federation's list 128 ms, a player page 128 ms, against 3-10 ms
stored), with the requests queued behind the web workers doing it: those rebuilds were the
pages' p99 during the storm. A live entry that a game retired is still rebuilt before it
is answered: the previous one lacks the game just entered, and a game must show within a
second (a live entry keeps the published generation it was built under, to tell).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.contrib.messages import get_messages
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.utils import translation
from django.utils.translation import get_language

from players.errors import NotFoundError
from players.models import Club
from players.selectors import (
    Generation,
    User,
    club_get_visible,
    computed_key,
    generation_key,
    generation_started,
)

# How long one request may hold an entry's rebuild: the longest the others are shown the
# previous answer (or wait) before one of them rebuilds it too.
REBUILD_SECONDS = 5.0
# How long a request that would rebuild an entry waits for the request rebuilding another
# entry of the club to vouch for the club (it reads the club first), to show the previous
# answer instead of starting a second rebuild.
VOUCH_SECONDS = 0.3
# The header that marks an answer as the previous one, shown while it is being rebuilt.
STALE_HEADER = "X-Published-Cache"
STALE_VALUE = "stale; refreshing"
PUBLIC = "public"

logger = logging.getLogger(__name__)
R = TypeVar("R", bound=HttpResponseBase)


@dataclass(frozen=True)
class PublishedEntry:
    key: str
    slug: str
    scope: Generation
    # Read before the answer is computed, so a change after it retires what is stored;
    # None: the club has none yet (or it was culled).
    generation: str | None
    value: Any  # the stored answer when it is of the current generation, else None
    # An older generation's answer: served, marked, while another request rebuilds it.
    stale: Any = None
    # The club's published generation (a live entry's too): names the rebuild slot.
    published: str | None = None
    # The figures the club's live pages share are computed for this entry's generation
    # (players.selectors.generations: ``generation_computed``): rebuilding it is cheap.
    computed: bool = False
    # The previous answer of a live entry was stored under an older published generation
    # too: something published since (a close), not a game alone, retired it.
    published_since: bool = False

    @property
    def claim_key(self) -> str:
        return f"{self.key}:rebuild:{self.generation or 'first'}"

    @property
    def slot_key(self) -> str:
        """The club's rebuild slot: whose rebuild runs (this entry's key), and once that
        request vouched for the club, ``PUBLIC`` before it. One for both scopes: a close
        retires the published and the live entries together, and a player page's and its
        live figures' rebuilds ran at once, each seconds long at a federation's size. Named
        by the published generation, which making a club private replaces: a rebuild's
        word that the club is public never outlives that."""
        return f"club:{self.slug}:rebuilding:{self.published or 'first'}"

    def claim(self, *, public: bool = False) -> bool:
        """Whether this request rebuilds the entry: True for one request per generation
        until it ``release``s (or ``REBUILD_SECONDS`` pass, should it die). With a
        previous answer it also takes the club's rebuild slot when it is free.
        ``public``: the request has read the club, public, and vouches for it at once
        (``vouch_public``)."""
        if not cache.add(self.claim_key, PUBLIC if public else 1, timeout=REBUILD_SECONDS):
            return False
        if self.stale is not None and not self.computed:
            holder = f"{PUBLIC} {self.key}" if public else self.key
            cache.add(self.slot_key, holder, timeout=REBUILD_SECONDS)
        return True

    def release(self) -> None:
        cache.delete(self.claim_key)
        if cache.get(self.slot_key) in (self.key, f"{PUBLIC} {self.key}"):
            cache.delete(self.slot_key)

    def vouch_public(self, club: Club) -> None:
        """Tell the requests waiting on this rebuild that the club is still public, so
        they may be shown the previous answer meanwhile (a club just made private also
        has a new generation: its old answers must not be shown while one is rebuilt)."""
        if club.public:
            cache.set(self.claim_key, PUBLIC, timeout=REBUILD_SECONDS)
            if cache.get(self.slot_key) == self.key:
                cache.set(self.slot_key, f"{PUBLIC} {self.key}", timeout=REBUILD_SECONDS)

    def club_rebuilding(self, seconds: float = VOUCH_SECONDS) -> bool:
        """Whether another request rebuilds an entry of this club (of either scope) and
        vouched that the club is public: this entry's previous answer may be shown. A
        request that took the slot but has not read the club yet is given ``seconds``."""
        deadline = time.monotonic() + seconds
        step = 0.01
        while True:
            holder = cache.get(self.slot_key)
            if not isinstance(holder, str) or holder in (self.key, f"{PUBLIC} {self.key}"):
                return False
            if holder.startswith(f"{PUBLIC} "):
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(step)
            step = min(step * 2, 0.1)

    def stale_answer(self) -> Any:
        """The previous answer, when there is one and the rebuild vouched for the club."""
        if self.stale is None or cache.get(self.claim_key) != PUBLIC:
            return None
        return self.stale

    def wait(self, seconds: float = REBUILD_SECONDS) -> tuple[Any, bool] | None:
        """The entry's answer once the request that claimed it stored it, or its previous
        answer (marked: ``(answer, True)``) as soon as that request vouched for the club;
        None when neither came within ``seconds``, or the rebuild gave up (a 404, an
        error). A web worker that waits serves nobody else meanwhile."""
        deadline = time.monotonic() + seconds
        step = 0.02
        while time.monotonic() < deadline:
            time.sleep(step)
            step = min(step * 2, 0.2)
            scope_key = generation_key(self.slug, self.scope)
            found = cache.get_many([scope_key, self.key, self.claim_key])
            stored = found.get(self.key)
            if stored is not None and stored[0] == found.get(scope_key):
                return stored[1], False
            claim = found.get(self.claim_key)
            if claim is None:
                return None
            if claim == PUBLIC and self.stale is not None:
                return self.stale, True
        return None

    def store(self, *, club: Club, value: Any) -> None:
        """Keep ``value`` (a 200's answer) for the next anonymous visitor, if the club is
        public."""
        if not club.public:
            return
        generation = self.generation
        if generation is None:
            # The club's first generation. add(): if a change gave it one since this
            # request began, that one stays, and this answer (perhaps older) is not kept.
            generation = generation_started(self.slug, self.scope)
            if generation is None:
                return
        # A live entry keeps the published generation it was built under
        # (``published_since``).
        stored: tuple[Any, ...] = (generation, value)
        if self.scope == Generation.LIVE:
            stored += (self.published,)
        cache.set(self.key, stored, settings.PUBLISHED_CACHE_SECONDS)


def published_entry(
    *,
    request: HttpRequest,
    user: User,
    slug: str,
    variant: str,
    scope: Generation = Generation.PUBLISHED,
) -> PublishedEntry | None:
    """This request's entry in the cache, kept under the club's generation of ``scope``;
    None: neither served from nor stored in it (a signed-in user, a write, a message
    waiting to be shown, caching switched off, a slug no club can have: its keys would be
    too long for the cache)."""
    if (
        settings.PUBLISHED_CACHE_SECONDS <= 0
        or len(slug) > (Club._meta.get_field("slug").max_length or len(slug))
        or request.method not in ("GET", "HEAD")
        or user.is_authenticated
        or (hasattr(request, "_messages") and get_messages(request))
    ):
        return None
    # The variant is hashed with the URL: an API answer's names the media type the client
    # asked for, parameters and all ("application/json; q=\xff"), and no cache key may
    # hold spaces or bytes that are not ASCII (a warning on most backends, an error on
    # memcached).
    url = hashlib.md5(  # a key, not a secret
        f"{variant}\n{request.build_absolute_uri()}".encode("utf-8", "surrogatepass"),
        usedforsecurity=False,
    ).hexdigest()
    return _entry_read(f"{scope.value}:{slug}:{get_language()}:{url}", slug, scope)


def _entry_read(key: str, slug: str, scope: Generation) -> PublishedEntry:
    """The entry under ``key`` with the club's generations, in one cache read."""
    scope_key = generation_key(slug, scope)
    published_key = generation_key(slug, Generation.PUBLISHED)
    done_key = computed_key(slug, scope)
    keys = [scope_key, key, published_key]
    if scope == Generation.LIVE:
        keys.append(done_key)
    found = cache.get_many(list(dict.fromkeys(keys)))
    generation: str | None = found.get(scope_key)
    stored = found.get(key)
    current = generation is not None and stored is not None and stored[0] == generation
    return PublishedEntry(
        key,
        slug,
        scope,
        generation,
        stored[1] if current and stored else None,
        stale=stored[1] if stored is not None and not current else None,
        published=found.get(published_key),
        computed=generation is not None and found.get(done_key) == generation,
        published_since=(
            stored is not None
            and not current
            and len(stored) > 2
            # None: the club had no published generation yet; nothing tells.
            and stored[2] is not None
            and stored[2] != found.get(published_key)
        ),
    )


def rebuilt_once(
    entry: PublishedEntry | None,
    *,
    previous_first: bool = False,
    public: Callable[[], bool] | None = None,
) -> tuple[Any, bool]:
    """What a request that missed ``entry`` does while another may be rebuilding it:
    ``(answer, False)`` with the previous answer (marked stale by the caller) or the
    rebuilt one, or ``(None, claimed)`` when the request computes the answer itself
    (``claimed``: it holds the rebuild and must ``release`` it).

    ``previous_first``, for a caller that can rebuild after it has answered
    (``after_response``): a request that claims a published entry's rebuild while its
    previous answer is kept and the club is public gets ``((previous, True), True)``, to
    answer with and then rebuild. A live entry that a game retired is rebuilt before it
    is answered (its previous answer lacks the game just entered); one that a publish
    retired is answered as before too. ``public``: whether the club is public, from the
    club the caller has read already (else it is read here)."""
    if entry is None or entry.value is not None:
        return None, False
    # One rebuild of the club's entries at a time, but a live page's, once the figures
    # they share are computed, is cheap: after a game the live list's page, its API and
    # the player pages' live blocks were rebuilt one after the other, and a game took a
    # third of a second to show in the API.
    if entry.stale is not None and not entry.computed and entry.club_rebuilding():
        return (entry.stale, True), False
    if (
        previous_first
        and entry.stale is not None
        and (entry.scope == Generation.PUBLISHED or entry.published_since)
    ):
        # The club is read before the claim, which then vouches for it in the same write:
        # with the database's cache each write is several queries, and these requests
        # were the pages' slowest while every club closed.
        if not (public() if public is not None else _public(entry.slug)):
            return None, False  # made private since: built afresh, never shown as before
        if entry.claim(public=True):
            return (entry.stale, True), True
    elif entry.claim():
        return None, True
    stale = entry.stale_answer()
    if stale is not None:
        return (stale, True), False
    return entry.wait(), False


def cached_or_claimed(
    entry: PublishedEntry | None,
    *,
    previous_first: bool = False,
    public: Callable[[], bool] | None = None,
) -> tuple[HttpResponse | None, bool]:
    """The first step of every cached public answer (pages, API views, downloads): the
    stored answer of a hit, or, after a change, the previous answer marked as being
    refreshed or the rebuilt one waited for (``rebuilt_once``); else ``(None, claimed)``,
    and the caller builds the answer (``claimed``: it holds the rebuild and must
    ``release`` it). With ``previous_first``, ``(previous answer, True)``: the caller
    answers with it and rebuilds the entry after (``after_response``), then releases."""
    if entry is not None and entry.value is not None:
        return stored_answer(entry.value), False
    served, claimed = rebuilt_once(entry, previous_first=previous_first, public=public)
    if served is not None:
        value, stale = served
        return stored_answer(value, stale=stale), claimed
    return None, claimed


def _public(slug: str) -> bool:
    """Whether the club ``slug`` is public (an anonymous visitor may see it)."""
    try:
        return club_get_visible(user=AnonymousUser(), slug=slug).public
    except NotFoundError:
        return False


def after_response(response: R, work: Callable[[], object]) -> R:
    """``response`` with ``work`` done once the server has delivered it: a WSGI server
    calls the response's ``close()`` after its last byte (gunicorn, runserver, the test
    client alike), and ``work`` runs there before Django's own ``close()``, whose
    ``request_finished`` lets the database connection go. In the request's language; an
    error is logged, never raised into the server (the visitor has the answer)."""
    language = get_language()
    close = response.close

    def closed() -> None:
        try:
            with translation.override(language):
                work()
        except Exception:
            logger.exception("rebuilding a cached answer after the response failed")
        finally:
            close()

    response.close = closed  # type: ignore[method-assign]
    return response


def stored_answer(value: tuple[Any, ...], *, stale: bool = False) -> HttpResponse:
    """A stored answer as a response (``stale``: marked as being refreshed): ``(content,
    content_type)``, or ``(content, content_type, headers)`` for an answer that carries
    more (a download's file name)."""
    content, content_type, *more = value
    response = HttpResponse(content, content_type=content_type)
    for header, header_value in (more[0] if more else {}).items():
        response[header] = header_value
    if stale:
        response[STALE_HEADER] = STALE_VALUE
    return response


# A streamed answer larger than this is not kept (the 200,000-row CSV is about 12 MB).
MAX_STORED_BYTES = 64 * 1024 * 1024


def kept_while_streamed(
    chunks: Iterable[bytes],
    *,
    entry: PublishedEntry,
    club: Club,
    content_type: str,
    release: Callable[[], None] | None,
) -> Iterator[bytes]:
    """``chunks`` as they come, stored together once the last one was sent (a stream cut
    short stores nothing); ``release`` (the rebuild's) when the stream ends either way."""
    kept: list[bytes] = []
    size = 0
    try:
        for chunk in chunks:
            size += len(chunk)
            if size <= MAX_STORED_BYTES:
                kept.append(chunk)
            yield chunk
        if size <= MAX_STORED_BYTES:
            entry.store(club=club, value=(b"".join(kept), content_type))
    finally:
        if release is not None:
            release()
