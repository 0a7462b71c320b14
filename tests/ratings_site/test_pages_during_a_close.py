"""Pages while a close holds its locks, on PostgreSQL (real row locks).

A close runs in one transaction that locks the list's row, the period's row and every
PlayerRating row it updates, and writes the club's new cache generation (a row of the
database's cache table) just before it commits. Page reads are plain SELECTs, which never
wait on row locks; this holds the close at that last moment (every lock taken, nothing
committed) and asks the cached public pages and a member's pages with a lock timeout on
the asking connection: a page that waited on any of the close's locks would fail.
"""

from __future__ import annotations

import datetime
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import OperationalError, connection, connections, transaction
from django.db.models import F
from django.test import Client

from players.http.cache import STALE_HEADER
from players.models import Player, PlayerRating, RatingList, RatingPeriod
from players.selectors import published_generation_key
from players.services import membership_set
from ratings_site.env import CACHE_TABLE, env_cache
from tests.pages_data import build_club, refreshed
from tests.tournaments.helpers import period_of, play
from tournaments.services import period_close
from tournaments.services.close import run as close_run

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

WAIT_SECONDS = 60


@pytest.fixture
def deployed_cache(postgres_only: None, database_cache_table: None, settings: Any) -> None:
    """The cache as deployed (the database's unless CACHE_URL names Redis), public views
    cached: the close's new generation is a row its transaction holds."""
    settings.CACHES = {"default": env_cache("CACHE_URL")}
    settings.PUBLISHED_CACHE_SECONDS = 600


@contextmanager
def _lock_timeout() -> Iterator[None]:
    """This connection's statements fail after a second's wait on a lock, instead of
    waiting for the held close (which waits for this test)."""
    with connection.cursor() as cursor:
        cursor.execute("SET lock_timeout = '1s'")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")


def _locked(table: str, column: str, value: object) -> bool:
    """Whether another transaction holds the row of ``table`` whose ``column`` is
    ``value`` (a SELECT ... FOR UPDATE NOWAIT fails)."""
    quote = connection.ops.quote_name
    sql = f"SELECT 1 FROM {quote(table)} WHERE {quote(column)} = %s FOR UPDATE NOWAIT"  # noqa: S608
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, [value])
    except OperationalError:
        return True
    return False


@pytest.mark.usefixtures("deployed_cache")
def test_cached_public_pages_and_member_pages_answer_while_a_close_holds_its_locks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = build_club(crowd=4)
    club, owner = data.club, data.owner
    rated = [data.players[name] for name in ("magnus", "alice", "omar")] + data.crowd
    play(
        club,
        owner,
        [(white, rated[(i + 1) % len(rated)], "1-0") for i, white in enumerate(rated)],
        date=datetime.date(2026, 4, 11),
    )
    april = period_of(club, "2026-04")
    member = get_user_model().objects.create_user("alice-account")
    membership_set(club=club, user=member, role="viewer", by=owner)
    alice = data.players["alice"]
    Player.objects.filter(pk=alice.pk).update(user=member)
    public = [
        f"/clubs/{club.slug}/",
        f"/clubs/{club.slug}/lists/standard/",
        f"/clubs/{club.slug}/players/{alice.pk}/",
        f"/api/v1/clubs/{club.slug}/lists/standard/ratings/",
    ]
    members = [f"/clubs/{club.slug}/lists/standard/", f"/clubs/{club.slug}/players/{alice.pk}/"]
    visitor, signed_in = Client(), Client()
    signed_in.force_login(member)
    for url in public:  # stored for everyone
        assert visitor.get(url).status_code == 200

    holding, release = threading.Event(), threading.Event()
    emit = close_run.events_emit

    written: list[str] = []

    def held(**kwargs: Any) -> None:
        # The close's last step inside its transaction: everything written, not committed.
        written.append(cache.get(published_generation_key(club.slug)))
        holding.set()
        release.wait(WAIT_SECONDS)
        emit(**kwargs)

    monkeypatch.setattr(close_run, "events_emit", held)
    failed: list[BaseException] = []

    def close() -> None:
        try:
            period_close(period=april, by=owner)
        except BaseException as error:  # shown by the assertion below
            failed.append(error)
        finally:
            holding.set()
            connections.close_all()

    closing = threading.Thread(target=close)
    closing.start()
    try:
        assert holding.wait(WAIT_SECONDS)
        assert not failed, failed
        # The close holds its locks (the probe is real): the list, the period, the
        # players' ratings it updated and the club's cache generation.
        rating_list = RatingList.objects.get(club=club, kind="standard")
        row = PlayerRating.objects.filter(rating_list=rating_list, player=alice).get()
        assert _locked(RatingList._meta.db_table, "id", rating_list.pk)
        assert _locked(RatingPeriod._meta.db_table, "id", april.pk)
        assert _locked(PlayerRating._meta.db_table, "id", row.pk)
        if settings.CACHES["default"]["BACKEND"].endswith("DatabaseCache"):
            key = cache.make_key(published_generation_key(club.slug))
            assert _locked(CACHE_TABLE, "cache_key", key)
        with _lock_timeout():
            # The probe is real: what waits on the close's locks fails here, not waits.
            with pytest.raises(OperationalError, match="lock timeout"), transaction.atomic():
                PlayerRating.objects.filter(pk=row.pk).update(rating=F("rating"))
            for url in public:
                answer = visitor.get(url)
                assert answer.status_code == 200, url
                assert STALE_HEADER not in answer, url  # the stored page, as published
            for url in members:
                answer = signed_in.get(url)
                assert answer.status_code == 200, url
                assert "Log out" in answer.content.decode(), url
            assert '"period":"2026-03"' in visitor.get(public[3]).content.decode()
            # Uncached too: the page of a period that was never visited is computed from
            # the tables the close is writing.
            report = visitor.get(f"/clubs/{club.slug}/lists/standard/periods/2026-03/")
            assert report.status_code == 200
    finally:
        release.set()
        closing.join(WAIT_SECONDS)
    assert not failed, failed
    april.refresh_from_db()
    assert april.status == RatingPeriod.Status.CLOSED
    if settings.CACHES["default"]["BACKEND"].endswith("DatabaseCache"):
        # One new generation, committed with the close: a second one at the commit would
        # retire the pages the first visitors after it rebuilt.
        assert cache.get(published_generation_key(club.slug)) == written[0]
    # After the commit the pages show the closed month (its first visitor is answered as
    # before, marked, and rebuilds the answer once it is delivered).
    assert '"period":"2026-04"' in refreshed(visitor, public[3]).content.decode()
