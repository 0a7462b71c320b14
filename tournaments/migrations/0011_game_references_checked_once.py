# The games' reference check of 0010, reading the statement's rows once instead of ten
# times: on PostgreSQL a 100,000-game import spent about a quarter of its games' COPY in the
# trigger (ten scans of the new rows, each player locked twice, white and black). Now the
# players named (white and black together) are one distinct array, locked FOR KEY SHARE in
# one statement and counted; the few distinct (tournament, period, list, club) of the new
# rows are one small set the other references are checked on. Same references, same locks,
# same errors. SQLite's row triggers are unchanged.

import importlib

from django.db import migrations

_FUNCTION = r"""
CREATE OR REPLACE FUNCTION game_references_check() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
    missing text;
    found bigint;
    players bigint[];
    tournaments bigint[];
    periods bigint[];
    lists bigint[];
    clubs bigint[];
BEGIN
    SELECT array_agg(DISTINCT s.p) INTO players
      FROM (SELECT white_id AS p FROM new_games UNION ALL SELECT black_id FROM new_games) s
     WHERE s.p IS NOT NULL;
    IF players IS NOT NULL THEN
        PERFORM 1 FROM players_player t WHERE t.id = ANY(players) FOR KEY SHARE OF t;
        GET DIAGNOSTICS found = ROW_COUNT;
        IF found <> cardinality(players) THEN
            SELECT x::text INTO missing FROM unnest(players) x
             WHERE NOT EXISTS (SELECT 1 FROM players_player t WHERE t.id = x) LIMIT 1;
            IF missing IS NOT NULL THEN
                RAISE EXCEPTION 'a game names player %, which does not exist', missing
                    USING ERRCODE = 'foreign_key_violation', TABLE = 'tournaments_game';
            END IF;
        END IF;
    END IF;
    SELECT array_agg(d.t), array_agg(d.p), array_agg(d.l), array_agg(d.c)
      INTO tournaments, periods, lists, clubs
      FROM (SELECT DISTINCT tournament_id AS t, period_id AS p, rating_list_id AS l,
                   club_id AS c
              FROM new_games) d;
    PERFORM 1 FROM tournaments_tournament t WHERE t.id = ANY(tournaments) FOR KEY SHARE OF t;
    SELECT x::text INTO missing FROM unnest(tournaments) x
     WHERE x IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM tournaments_tournament t WHERE t.id = x)
     LIMIT 1;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'a game names tournament %, which does not exist', missing
            USING ERRCODE = 'foreign_key_violation', TABLE = 'tournaments_game';
    END IF;
    PERFORM 1 FROM tournaments_ratingperiod t
     WHERE (t.id, t.rating_list_id) IN (SELECT u.p, u.l FROM unnest(periods, lists) u(p, l))
       FOR KEY SHARE OF t;
    SELECT u.p::text || ' of ' || u.l::text INTO missing FROM unnest(periods, lists) u(p, l)
     WHERE u.p IS NOT NULL AND u.l IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM tournaments_ratingperiod t
                        WHERE t.id = u.p AND t.rating_list_id = u.l)
     LIMIT 1;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'a game names period %, which does not exist', missing
            USING ERRCODE = 'foreign_key_violation', TABLE = 'tournaments_game';
    END IF;
    PERFORM 1 FROM players_ratinglist t
     WHERE (t.id, t.club_id) IN (SELECT u.l, u.c FROM unnest(lists, clubs) u(l, c))
       FOR KEY SHARE OF t;
    SELECT u.l::text || ' of ' || u.c::text INTO missing FROM unnest(lists, clubs) u(l, c)
     WHERE u.l IS NOT NULL AND u.c IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM players_ratinglist t
                        WHERE t.id = u.l AND t.club_id = u.c)
     LIMIT 1;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'a game names list %, which does not exist', missing
            USING ERRCODE = 'foreign_key_violation', TABLE = 'tournaments_game';
    END IF;
    RETURN NULL;
END
$fn$
"""


def _previous():
    """0010's function (its module name starts with a digit: imported by name)."""
    module = importlib.import_module(
        "tournaments.migrations.0010_game_references_checked_per_statement"
    )
    return module._pg_game_check().replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)


def _run(sql):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        # A cursor without parameters: the function's RAISE uses % as its own placeholder.
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(sql() if callable(sql) else sql)

    return apply


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0010_game_references_checked_per_statement"),
    ]

    operations = [migrations.RunPython(_run(_FUNCTION), _run(_previous))]
