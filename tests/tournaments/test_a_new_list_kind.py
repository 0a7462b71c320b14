"""The proof of the list-kind seam: a fourth kind ("bullet", under FIDE's rapid and blitz
rules) added in the test suite alone (its row, and the database's check constraint
changed the way its migration would) is a list of every new club, is closed and shows
its list page; nothing else in the product is told about it (docs/developers/howto-list-kind.md)."""

from __future__ import annotations

import datetime
from collections.abc import Iterator

import pytest
from django.apps import apps
from django.db import connection, migrations, models
from django.db.migrations.state import ProjectState
from django.db.models import Q
from django.test import Client
from django.utils import translation

from players.errors import ValidationFailed
from players.models import RatingChange, RatingList, list_kind_values, translated_choices
from players.rating import (
    KReason,
    ListKind,
    RatingRules,
    list_kind,
    register_list_kind,
    score_game,
    unregister_list_kind,
)
from players.rating.results import WIN
from players.services import rating_list_create
from ratings_site.pages.forms import CalculatorForm
from tests.tournaments.helpers import change_of, close, make_club, make_owner, make_player, play

OCT = datetime.date(2026, 10, 5)
CONSTRAINT = "ratinglist_kind_valid"
BULLET = ListKind("bullet", "Bullet", fast=True, counts_standard=True, fide_preset="FIDE bullet")


def _kind_check(values: list[str]) -> models.CheckConstraint:
    return models.CheckConstraint(condition=Q(kind__in=values), name=CONSTRAINT)


def _migrate_kind_check(values: list[str]) -> None:
    """What the migration of a new kind does (docs/developers/howto-list-kind.md), run through the
    migration operations themselves: the list's kind check replaced by one over
    ``values`` as ``makemigrations`` writes it, with no wrapper: SQLite rebuilds the
    table under the games' triggers (ratings_site/sqlite_backend keeps them). The model's
    own check follows (as the kind's row changes it at import)."""
    state = ProjectState.from_apps(apps)
    operations = [
        migrations.RemoveConstraint("ratinglist", CONSTRAINT),
        migrations.AddConstraint("ratinglist", _kind_check(values)),
    ]
    with connection.schema_editor() as editor:
        for operation in operations:
            after = state.clone()
            operation.state_forwards("players", after)
            operation.database_forwards("players", editor, state, after)
            state = after
    meta = RatingList._meta
    meta.constraints = [
        _kind_check(values) if c.name == CONSTRAINT else c for c in meta.constraints
    ]


@pytest.fixture
def bullet(transactional_db: None) -> Iterator[ListKind]:
    """The bullet kind, for one test: its row in the registry and the database's check
    taking it; both as they were afterwards. A transactional test: SQLite's schema editor
    cannot run inside the test's transaction."""
    product = list_kind_values()
    register_list_kind(BULLET)
    try:
        _migrate_kind_check(list_kind_values())
        try:
            yield BULLET
        finally:
            # The old check refuses a bullet list: the test's go (with the flush after
            # it) as a kind the old check takes.
            RatingList.objects.filter(kind=BULLET.value).update(kind=ListKind.BLITZ.value)
            _migrate_kind_check(product)
    finally:
        unregister_list_kind(BULLET)


def test_the_kind_is_a_row_of_the_registry(bullet: ListKind) -> None:
    assert list_kind("bullet") is bullet
    assert list_kind_values()[-1] == "bullet"
    # FIDE's rapid and blitz rules come from the row: 600+ apart with a player above
    # 2600 is not rated on a fast list, rated on the standard one.
    fast = score_game(2700, 2050, WIN, True, RatingRules(list_kind=bullet))
    slow = score_game(2700, 2050, WIN, True, RatingRules(list_kind=ListKind.STANDARD))
    assert (fast[4], slow[4]) == ("rapid/blitz: 600+ points apart with a player above 2600", None)
    assert "bullet" in dict(CalculatorForm().fields["rating_list"].choices)


def test_a_close_and_the_list_page_with_the_new_kind(bullet: ListKind, client: Client) -> None:
    owner = make_owner()
    club = make_club(owner)
    # A new club gets a list of every kind, with the kind's FIDE preset.
    the_list = RatingList.objects.get(club=club, slug="bullet")
    assert (the_list.kind, the_list.preset, the_list.list_kind) == ("bullet", "FIDE bullet", bullet)
    strong = make_player(club, owner, "Strong", 2700, kind="bullet")
    weak = make_player(club, owner, "Weak", 2050, kind="bullet")
    one = make_player(club, owner, "One", 1800, kind="bullet")
    # Unrated on bullet, rated 1700 on standard: counts as rated with it (counts_standard).
    other = make_player(club, owner, "Other", 1700)
    play(club, owner, [(strong, weak, "1-0"), (one, other, "1-0")], date=OCT, kind="bullet")

    close(club, owner, "2026-10", kind="bullet")

    assert change_of(strong, "2026-10").games == 0  # the 600/2600 rule: not rated
    rated = change_of(one, "2026-10")
    assert (rated.games, rated.k_reason, rated.event) == (1, KReason.STANDARD, "rated")
    assert rated.rating_after is not None
    assert rated.rating_after > 1800
    # The unrated player's game counted, at 1700: they are rated as counting with it.
    assert change_of(other, "2026-10").rating_before is None
    assert RatingChange.objects.filter(period__rating_list=the_list).count() == 4

    client.force_login(owner)
    page = client.get("/clubs/club/lists/bullet/")
    assert page.status_code == 200
    body = page.content.decode()
    assert "Bullet" in body
    assert "One" in body


def test_a_kind_not_registered_is_refused(db: None) -> None:
    owner = make_owner()
    club = make_club(owner)
    with pytest.raises(ValidationFailed) as refused:
        rating_list_create(club=club, by=owner, slug="b2", kind="bullet", system="fide")
    assert refused.value.fields == {"kind": ["Use one of standard, rapid, blitz."]}


@pytest.mark.django_db
def test_a_german_page_shows_the_vocabularies_translated(client: Client) -> None:
    """One declaration per vocabulary (players.rating), translated where the site shows
    it: the calculator's list kinds and a K reason, in German."""
    page = client.get("/calculator/", HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9")
    body = page.content.decode()
    assert "Schnellschach" in body
    assert "Elo-Formel" in body
    with translation.override("de"):
        assert dict(translated_choices(KReason))["manual"] == "Vom Wertungsreferenten gesetzt"
    with translation.override("en"):
        assert dict(translated_choices(KReason))["manual"] == "Set by the rating officer"
