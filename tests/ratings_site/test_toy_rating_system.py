"""The proof of the rating-system seam: a system added in the test suite alone ("score
only": +10 a win, -10 a loss, one toy state field, its wins so far) is registered, closes
a month through the same close as FIDE's lists, and its player page and period report
render (the shared default fragments, and one fragment of its own found by its name from
a test template directory).

Nothing of the product changes for it. What a real system needs, counted from this
test (docs/developers/howto-rating-system.md): its engine module (``plan`` and ``explain`` below), a
registry line (the ``RatingSystem(...)`` below), the migration ``makemigrations`` writes for
the list's choices and check constraint (the fixture's constraint swap stands in for it), and template
fragments where the defaults do not fit (the test template directory below).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client, override_settings

from players.models import PlayerRating, RatingChange, RatingList
from players.rating.period import (
    GAME_RESULTS,
    SCORES,
    PeriodEvent,
    PeriodInputs,
    PeriodPlan,
    PlannedChange,
)
from players.rating.systems import SYSTEMS, RatingSystem
from players.rating.systems.explain import (
    Column,
    GameExplanation,
    GameFacts,
    PeriodExplanation,
    PeriodFacts,
    StateField,
)
from players.services import club_create, player_create, rating_list_create
from tests.tournaments.helpers import make_owner, period_of
from tournaments.services import games_create_bulk, period_close

NAME = "score_only"
POINTS = 10
START = 1000
OCT = datetime.date(2026, 10, 5)
TEMPLATES = Path(__file__).parent / "toy_templates"


# -- the toy's engine: plain values, no Django ------------------------------------------------


def _points(score: Fraction) -> int:
    return POINTS if score == 1 else -POINTS if score == 0 else 0


def plan(inputs: PeriodInputs, *, progress: Any = None) -> PeriodPlan:
    """+10 a win, -10 a loss, 0 a draw; forfeits and unrated games do not count."""
    change = dict.fromkeys(inputs.starts, 0)
    games = dict.fromkeys(inputs.starts, 0)
    wins = dict.fromkeys(inputs.starts, 0)
    score = dict.fromkeys(inputs.starts, Fraction(0))
    columns = inputs.games
    for white, black, result, rated in zip(
        columns.white, columns.black, columns.result, columns.rated, strict=True
    ):
        white_score, black_score, played = GAME_RESULTS[result]
        if not (rated and played):
            continue
        for pid, side in ((white, SCORES[white_score]), (black, SCORES[black_score])):
            change[pid] += _points(side)
            games[pid] += 1
            wins[pid] += side == 1
            score[pid] += side
    planned = []
    for pid, start in sorted(inputs.starts.items()):
        before = START if start.rating is None else start.rating
        had = int((start.state or {}).get("wins", 0))
        planned.append(
            PlannedChange(
                player_id=pid,
                rating_before=before,
                rating_after=before + change[pid],
                change=change[pid],
                change_unrounded=change[pid],
                k_factor=None,
                k_reason="",
                games=games[pid],
                score=score[pid],
                expected=Fraction(games[pid], 2),
                event=PeriodEvent.RATED if games[pid] else PeriodEvent.NO_RATED_GAMES,
                rated_games_after=start.rated_games + games[pid],
                reached_2400_after=start.reached_2400,
                pool_after=[],
                k_next=None,
                last_active_month=inputs.month if games[pid] else start.last_active,
                state_before={"wins": float(had)},
                state_after={"wins": float(had + wins[pid])},
            )
        )
    return PeriodPlan(
        month=inputs.month,
        games_count=len(columns.white),
        changes=tuple(planned),
        k_changes=(),
        rules=NAME,
    )


def explain(facts: PeriodFacts, games: Sequence[GameFacts]) -> PeriodExplanation:
    lines = tuple(
        GameExplanation(True, None, None, _points(g.score), "") if g.played else None for g in games
    )
    return PeriodExplanation(lines, total=sum(line.change or 0 for line in lines if line))


SCORE_ONLY = RatingSystem(
    NAME,
    "Score only",
    plan,
    explain=explain,
    state_fields=(StateField("wins", "wins", 0, listed=True),),
    period_columns=(Column("state.wins", "wins"),),
    start_rating=START,
)


# -- registering it for one test ---------------------------------------------------------------


@pytest.fixture
def score_only(db: None) -> Iterator[RatingSystem]:
    """The toy in the registry and the list's choices for one test. The database's check
    of the list's system is what a system's own migration widens: here it is dropped
    inside the test's transaction on PostgreSQL (the rollback restores it), and SQLite is
    told to skip CHECK constraints for the test (its schema editor cannot run inside the
    test's transaction). A real system's migration, as ``makemigrations`` writes it, is
    followed by tests/test_howtos.py."""
    field = RatingList._meta.get_field("system")
    SYSTEMS[NAME] = SCORE_ONLY
    choices = field.choices
    field.choices = [*list(choices or []), (NAME, SCORE_ONLY.label)]
    if connection.vendor == "postgresql":
        constraint = next(
            c for c in RatingList._meta.constraints if c.name == "ratinglist_system_valid"
        )
        with connection.schema_editor() as editor:
            editor.remove_constraint(RatingList, constraint)
    else:
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA ignore_check_constraints = ON")
    try:
        yield SCORE_ONLY
    finally:
        if connection.vendor != "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("PRAGMA ignore_check_constraints = OFF")
        field.choices = choices
        del SYSTEMS[NAME]


def with_test_templates() -> Any:
    engines = [dict(engine) for engine in settings.TEMPLATES]
    engines[0]["DIRS"] = [TEMPLATES, *engines[0].get("DIRS", [])]
    return override_settings(TEMPLATES=engines)


def text(html: str) -> str:
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_a_system_added_in_the_tests_closes_a_month_and_renders_its_pages(
    score_only: RatingSystem, client: Client
) -> None:
    owner = make_owner()
    club = club_create(name="Toy club", slug="toy", public=True, by=owner)
    rating_list_create(club=club, by=owner, slug="scores", name="Scores", kind="rapid", system=NAME)
    ann = player_create(club=club, by=owner, name="Ann", ratings=[{"list": "scores"}])
    bob = player_create(
        club=club, by=owner, name="Bob", ratings=[{"list": "scores", "rating": 1200}]
    )
    games_create_bulk(
        club=club,
        by=owner,
        games=[
            {"list": "scores", "date": OCT, "white": ann, "black": bob, "result": result}
            for result in ("1-0", "1-0", "1/2-1/2", "0-1", "-+")
        ],
    )
    period_close(period=period_of(club, "2026-10", "scores"), by=owner)

    # The close wrote the toy's plan and its state by the name it declares.
    row = RatingChange.objects.get(player=ann, current=True)
    assert (row.rating_before, row.rating_after, row.change, row.games) == (1000, 1010, 10, 4)
    assert (row.state_before, row.state_after) == ({"wins": 0.0}, {"wins": 2.0})
    assert PlayerRating.objects.get(player=bob, rating_list__slug="scores").state == {"wins": 1.0}

    with with_test_templates():
        page = client.get(f"/clubs/toy/players/{ann.pk}/").content.decode()
    visible = text(page)
    # Its own current-rating fragment (toy_templates/systems/score_only/current.html)...
    assert "1010 points from scores alone, 2 wins" in visible
    # ...and the shared default period row and game lines: its declared column, and each
    # game's share as the toy explains it; no K, no FIDE wording.
    history = text(page.split('id="list-scores"', 1)[1].split("</section>", 1)[0])
    assert "wins" in history
    assert "2026-10 1000 ▲ +10 up 10 1010 2 4 2½" in history
    assert "Bob white 1 1200 – +10.00" in history
    assert "Bob white 0 1200 – −10.00" in history
    assert "not played: not rated" in history
    for other_systems in ("FIDE 8.2", "toward a first rating", "K not set", "Glicko"):
        assert other_systems not in visible

    report = text(client.get("/clubs/toy/lists/scores/periods/2026-10/").content.decode())
    assert "Games Score wins" in report
    assert "Ann 1000 ▲ +10 up 10 1010 4 2½ 2" in report
