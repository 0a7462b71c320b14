"""The club archive's fast paths: on PostgreSQL the database writes each line
(export.py's ``_json_lines_selected``), and it must write what Python's encoder writes
elsewhere (``_json_lines_encoded``); the restore's helpers (club_archive/fast.py) give
what the code they replace gave."""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, models, transaction

from players import services as player_services
from players.models import Club, Job, Player
from tests.tournaments.test_club_archive import demo_club
from tournaments.services.club_archive import club_tables, fast
from tournaments.services.club_archive.export import (
    _json_lines_encoded,
    _json_lines_selected,
    _user_model,
)

pytestmark = pytest.mark.django_db

# Every character JSON must escape, and some it need not.
AWKWARD = 'Quote " back \\ slash, line\nbreak, tab\t, bell \x07, é, 漢, 😀 and \u2028'


def _decoded(blocks: Any, table: Any) -> list[dict[str, Any]]:
    data = b"".join(block for block, _ in blocks)
    assert data.endswith(b"\n") or not data
    rows = [json.loads(line) for line in data.splitlines()]
    times = [
        f.name for f in table.fields if isinstance(f, models.DateTimeField) and not f.is_relation
    ]
    # The database writes a time's fraction without its trailing zeros (.83486, where
    # Python writes .834860): the same instant, read by the same parser.
    for row in rows:
        for name in times:
            if row[name] is not None:
                row[name] = datetime.datetime.fromisoformat(row[name])
    return rows


@pytest.fixture
def postgres_server() -> None:
    """The paths under test are PostgreSQL's own (SQLite's lines are Python's, its ids
    come from its own inserts)."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: the path tested is PostgreSQL's only")


def test_the_database_writes_the_lines_python_writes(postgres_server: None) -> None:
    club = demo_club()
    admin = get_user_model().objects.get(username="admin")
    player = player_services.player_create(club=club, by=admin, name="Awkward")
    # The name past the services' clean-up (which folds breaks and tabs), as a row of an
    # older version or another path may hold it; and a player's account: a live row's
    # user reference, written by username.
    linked = get_user_model().objects.create_user("linked")
    Player.objects.filter(pk=player.pk).update(name=AWKWARD, user=linked)
    user_model = _user_model()
    compared = 0
    with transaction.atomic():
        for table in club_tables():
            by_database = _decoded(_json_lines_selected(table, club, user_model), table)
            by_python = _decoded(_json_lines_encoded(table, club, user_model), table)
            assert by_database == by_python, table.label
            # Same keys in the same order: the field order of the manifest.
            assert [list(row) for row in by_database] == [list(row) for row in by_python]
            compared += len(by_database)
    assert compared > 1000
    player_table = next(t for t in club_tables() if t.model is Player)
    players = _decoded(_json_lines_selected(player_table, club, user_model), player_table)
    assert {"name": AWKWARD, "user": "linked"}.items() <= next(
        row for row in players if row["name"] == AWKWARD
    ).items()


def test_club_tables_are_the_clubs_only() -> None:
    assert fast.is_club_table(Player)
    assert fast.is_club_table(Club)
    assert not fast.is_club_table(Job)  # the club's, but left out of the archive
    assert not fast.is_club_table(get_user_model())


def test_a_chunk_of_lines_decodes_as_its_lines() -> None:
    lines = [b'{"id": 1, "name": "a, b"}\n', b'{"id": 2, "list": [1, 2]}\n', b'{"id": 3}']
    assert fast.lines_decode(lines) == [json.loads(line) for line in lines]
    for broken in (
        [b'{"id": 1}\n', b"\n"],  # an empty line
        [b'{"id": 1}, {"id": 2}\n', b'{"id": 3}\n'],  # two values on a line
        [b'{"id": [1,\n', b"2]}\n"],  # one value across two lines
        [b'{"id": 1\n'],
    ):
        with pytest.raises(json.JSONDecodeError):
            fast.lines_decode(broken)


def test_reserved_ids_are_new_and_ascending(postgres_server: None) -> None:
    club = Club.objects.create(name="Ids", slug="ids")
    taken = fast.ids_reserve(Club, 5)
    assert taken == sorted(taken)
    assert len(set(taken)) == 5
    assert min(taken) > club.pk
    assert Club.objects.create(name="Next", slug="next").pk > max(taken)


def test_the_server_reads_iso_text_on_postgresql() -> None:
    date_field = Player._meta.get_field("birth_date")
    name_field = Player._meta.get_field("name")
    assert fast.server_parses(date_field) is (connection.vendor == "postgresql")
    assert not fast.server_parses(name_field)
