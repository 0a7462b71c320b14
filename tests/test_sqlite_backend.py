"""SQLite's table rebuild keeps the triggers that name the table (ratings_site/sqlite_backend):
the migration ``makemigrations`` writes for a changed constraint applies as written."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from players.models import RatingList

pytestmark = pytest.mark.skipif(
    connection.vendor != "sqlite", reason="PostgreSQL alters a table in place"
)

# A trigger on the rebuilt table itself: DROP TABLE takes it, Django would not make it again.
OWN = (
    "CREATE TRIGGER test_ratinglist_own BEFORE UPDATE OF slug ON players_ratinglist "
    "BEGIN SELECT RAISE(ABORT, 'slug frozen') WHERE NEW.slug = 'frozen'; END"
)


def _triggers() -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")
        return dict(cursor.fetchall())


@pytest.mark.slow
def test_a_rebuild_of_a_table_the_games_triggers_name_keeps_every_trigger(
    transactional_db: None,
) -> None:
    with connection.cursor() as cursor:
        cursor.execute(OWN)
    before = _triggers()
    assert "game_references_on_insert" in before
    check = next(c for c in RatingList._meta.constraints if c.name == "ratinglist_kind_valid")
    try:
        # What a new kind's migration does: SQLite rebuilds players_ratinglist twice.
        with connection.schema_editor() as editor:
            editor.remove_constraint(RatingList, check)
            editor.add_constraint(RatingList, check)
        assert _triggers() == before
        # And they still hold: a game naming rows that are not there is refused.
        with (
            pytest.raises(IntegrityError, match="a game names a"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(
                "INSERT INTO tournaments_game (club_id, rating_list_id, white_id, black_id,"
                " date, result, rated, round) VALUES (1, 999999, 1, 2, '2026-10-05',"
                " '1-0', 1, '')"
            )
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TRIGGER IF EXISTS test_ratinglist_own")
