"""Clubs and their members: create a club with its lists, rename it, give and take roles."""

from __future__ import annotations

import datetime
import re
import uuid
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import DEFAULT_CACHE_ALIAS, cache, caches
from django.core.cache.backends.db import DatabaseCache
from django.db import IntegrityError, transaction
from django.utils import timezone

from players.errors import (
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    ThrottledError,
    ValidationFailed,
    invalid_field,
)
from players.models import (
    RESERVED_SLUGS,
    Club,
    Membership,
    RatingList,
    Role,
    list_presets,
)
from players.rating import list_kinds
from players.selectors import Generation, User, generation_key, require_role


def club_published_changed(*, club_id: int, slug: str | None = None) -> None:
    """Retire every cached public view of the club (pages and API answers, published and
    live): each service that changes what is published calls this inside its transaction
    (a close, reopen or replay; a player's, list's or club's edit; an import).

    Both generations are replaced: the live figures start from the published ratings.
    ``slug``: the club's, where the caller has it (else it is read)."""
    _generations_replaced(
        club_id=club_id, slug=slug, scopes=(Generation.PUBLISHED, Generation.LIVE)
    )


def club_live_changed(*, club_id: int, slug: str | None = None) -> None:
    """Retire the club's cached live views (the live list and its API, a player's live
    figures, the tournament and head-to-head pages), not the published ones: what a game
    entered, edited or deleted changes. During a round a game a second emptied the whole
    cache, the rating list and player pages included, though nothing published changed.
    ``slug``: the club's, where the caller has it (else it is read)."""
    _generations_replaced(club_id=club_id, slug=slug, scopes=(Generation.LIVE,))


def _generations_replaced(
    *, club_id: int, slug: str | None, scopes: tuple[Generation, ...]
) -> None:
    """A new generation of each of ``scopes`` (a random token, so one lost from the cache
    never comes back as an old value) is written now and, unless the cache is the
    database's, again when the transaction commits. Now: with the database cache the write
    commits (or rolls back) with the change itself, and tests, whose transactions never
    commit, see it. At commit: with Redis, a visitor who read the new generation before
    the commit may have stored the old rows under it. With the database cache a second
    generation at commit would retire the pages the first visitors after the commit just
    rebuilt (a close of a federation-sized club: seconds of work each), and nothing can
    have been stored under the first before it.
    """
    if slug is None:
        slug = Club.objects.values_list("slug", flat=True).get(pk=club_id)
    keys = [generation_key(slug, scope) for scope in scopes]

    def replace() -> None:
        cache.set_many({key: uuid.uuid4().hex for key in keys}, timeout=None)

    replace()
    if not isinstance(caches[DEFAULT_CACHE_ALIAS], DatabaseCache):
        transaction.on_commit(replace)


def club_create(*, name: str, slug: str, public: bool = False, by: User) -> Club:
    """A new club; ``by`` becomes its owner; three lists on the FIDE presets.

    Who may create clubs is ``settings.CLUB_CREATORS`` ("signed_in", "staff" or
    "superusers"); anyone but a superuser creates at most ``settings.CLUBS_PER_DAY`` a day.
    Slugs and names are unique without regard to case, and the site's own path names
    are reserved."""
    if not by.is_authenticated:
        raise ValidationFailed("Only a signed-in user can create a club.")
    _require_club_creator(by)
    name = name.strip()
    if not name:
        raise invalid_field("name", "A club needs a name.")
    if slug.lower() in RESERVED_SLUGS:
        raise invalid_field("slug", f"{slug!r} is reserved; choose another slug.")
    with transaction.atomic(durable=True):
        if Club.objects.filter(slug__iexact=slug).exists():
            raise invalid_field("slug", f"The slug {slug!r} is taken.")
        _refuse_taken_name(name)
        try:
            with transaction.atomic():
                club = Club.objects.create(name=name, slug=slug, public=public)
        except IntegrityError:
            raise invalid_field("slug", f"The slug {slug!r} is taken.") from None
        Membership.objects.create(user_id=by.pk, club=club, role=Role.OWNER)
        # One save each rather than bulk_create: a save writes the list's "created" audit
        # row, without which its first edit would show every field changed from nothing.
        # A list of each kind, named by it, with the kind's FIDE preset.
        presets = list_presets()
        for kind in list_kinds():
            RatingList.objects.create(
                club=club, slug=kind.value, preset=kind.fide_preset, **presets[kind.fide_preset]
            )
    return club


def _refuse_taken_name(name: str, *, other_than: int | None = None) -> None:
    """Two clubs named alike ("Riverside", "riverside") would read as one in every list
    and page, whatever their slugs: a name is the club's alone, ignoring case."""
    alike = Club.objects.filter(name__iexact=name)
    if other_than is not None:
        alike = alike.exclude(pk=other_than)
    if alike.exists():
        raise invalid_field("name", f"A club named {name!r} exists already; choose another name.")


def may_create_clubs(user: User) -> bool:
    """Whether ``settings.CLUB_CREATORS`` lets ``user`` create clubs at all (the daily
    limit aside): what the site's "create a club" link and page ask."""
    if not user.is_authenticated:
        return False
    if getattr(user, "is_superuser", False):
        return True
    who = settings.CLUB_CREATORS
    return not (who == "superusers" or (who == "staff" and not getattr(user, "is_staff", False)))


def _require_club_creator(by: User) -> None:
    if getattr(by, "is_superuser", False):
        return
    if not may_create_clubs(by):
        raise PermissionDeniedError("Creating clubs is not open to this account; ask the staff.")
    since = timezone.now() - datetime.timedelta(days=1)
    user_id: Any = by.pk
    made = Membership.objects.filter(user_id=user_id, role=Role.OWNER, club__created__gte=since)
    if made.count() >= settings.CLUBS_PER_DAY:
        raise ThrottledError(
            f"At most {settings.CLUBS_PER_DAY} new clubs a day; try again tomorrow."
        )


def club_update(
    *,
    club: Club,
    by: User,
    name: str | None = None,
    public: bool | None = None,
    embed_origins: Sequence[object] | None = None,
) -> Club:
    """Rename the club, open or close it to anonymous readers, or change the websites
    that may embed its widgets (the owner's). Every cached view of the club is retired:
    the name is on every page, and a widget's answer carries the origins."""
    require_role(by, club, Role.OWNER)
    origins = None if embed_origins is None else embed_origins_checked(embed_origins)
    with transaction.atomic(durable=True):
        if name is not None:
            if not name.strip():
                raise invalid_field("name", "A club needs a name.")
            _refuse_taken_name(name.strip(), other_than=club.pk)
            club.name = name.strip()
        if public is not None:
            club.public = public
        if origins is not None:
            club.embed_origins = origins
        club.save(update_fields=["name", "public", "embed_origins"])
        club_published_changed(club_id=club.pk)
    return club


# A club's websites: a few (a site, its www twin, a test copy); more is not a club's.
EMBED_ORIGINS_MAX = 20
# Longer than any origin a club's website has (the API's field refuses longer entries too).
ORIGIN_MAX_LENGTH = 200
# Host names as DNS spells them (letters, digits, hyphens, dots; IDNs in their xn-- form)
# or an IPv4 address; IPv6 literals in brackets.
# What no origin holds but a directive's syntax does (a list, a new directive, a quote,
# a wildcard, white space) or a path does.
_NOT_IN_AN_ORIGIN = frozenset(";,'\"*\\ \t?#")
_DEFAULT_PORTS = {"https": 443, "http": 80}
_HOST = re.compile(r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.(?!$)|$))+$|^\[[0-9a-f:.]+\]$")


def embed_origins_checked(values: Sequence[object]) -> list[str]:
    """``values`` as origins a frame-ancestors directive can name (``scheme://host[:port]``,
    lower case, without a trailing slash), each once, in the order given; anything else
    is refused naming ``embed_origins`` and the entry. A path, a query, a user name, a
    wildcard or a space could widen or break the policy a widget is served with, so none
    is taken."""
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        raise invalid_field(
            "embed_origins", 'A list of origins, such as ["https://club.example.org"].'
        )
    if len(values) > EMBED_ORIGINS_MAX:
        raise invalid_field(
            "embed_origins", f"At most {EMBED_ORIGINS_MAX} websites; {len(values)} were given."
        )
    origins: list[str] = []
    for number, value in enumerate(values, start=1):
        origin = _origin(value)
        if origin is None:
            shown = repr(value)[:80] if isinstance(value, str) else type(value).__name__
            raise invalid_field(
                "embed_origins",
                f"Entry {number}, {shown}, is not a website's origin: give its scheme (https "
                "or http), its host and perhaps a port, such as https://club.example.org, "
                "with no path.",
            )
        if origin not in origins:
            origins.append(origin)
    return origins


def _origin(value: object) -> str | None:
    """``value`` as ``scheme://host[:port]`` (lower case, the scheme's own port left out),
    or None when it is anything else."""
    if not isinstance(value, str) or len(value) > ORIGIN_MAX_LENGTH or not value.isascii():
        return None
    text = value.strip().lower().removesuffix("/")
    if any(c in text for c in _NOT_IN_AN_ORIGIN):
        return None
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:  # a port that is not a number below 65536
        return None
    if parts.scheme not in _DEFAULT_PORTS or "@" in parts.netloc:
        return None
    if parts.path or parts.query or parts.fragment or port == 0:
        return None
    host = _host(parts.netloc, parts.hostname)
    if host is None:
        return None
    shown_port = "" if port in (None, _DEFAULT_PORTS[parts.scheme]) else f":{port}"
    return f"{parts.scheme}://{host}{shown_port}"


def _host(netloc: str, hostname: str | None) -> str | None:
    """The origin's host as a frame-ancestors source writes it (an IPv6 address in
    brackets), or None for a host DNS cannot spell."""
    if not hostname:
        return None
    host = f"[{hostname}]" if netloc.startswith("[") else hostname
    return host if _HOST.match(host) else None


def membership_set(*, club: Club, user: AbstractBaseUser, role: Role | str, by: User) -> Membership:
    """Give ``user`` ``role`` in the club (owner only); the last owner cannot step down."""
    require_role(by, club, Role.OWNER)
    if role not in Role.values:
        raise invalid_field("role", f"{role!r} is not a role; use one of {', '.join(Role.values)}.")
    with transaction.atomic(durable=True):
        # Lock the club row: two owners demoting each other at once must not leave none.
        Club.objects.select_for_update(no_key=True).filter(pk=club.pk).first()
        current = Membership.objects.filter(club=club, user_id=user.pk).first()
        if current is not None and current.role == Role.OWNER and role != Role.OWNER:
            _require_another_owner(club=club, leaving=current)
        membership, _ = Membership.objects.update_or_create(
            club=club, user_id=user.pk, defaults={"role": Role(role)}
        )
        club_published_changed(club_id=club.pk)
    return membership


def membership_remove(*, club: Club, user: AbstractBaseUser, by: User) -> None:
    require_role(by, club, Role.OWNER)
    with transaction.atomic(durable=True):
        Club.objects.select_for_update(no_key=True).filter(pk=club.pk).first()
        current = Membership.objects.filter(club=club, user_id=user.pk).first()
        if current is None:
            raise NotFoundError("That user is not a member.")
        if current.role == Role.OWNER:
            _require_another_owner(club=club, leaving=current)
        current.delete()
        club_published_changed(club_id=club.pk)


def _require_another_owner(*, club: Club, leaving: Membership) -> None:
    others = Membership.objects.filter(club=club, role=Role.OWNER).exclude(pk=leaving.pk)
    if not others.exists():
        raise ConflictError("A club needs at least one owner.", fields={"role": ["Last owner."]})
