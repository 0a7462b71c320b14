"""The period jobs' answers are built below the HTTP layer (tournaments/services/results.py)
and still have the shapes the API's schema documents: each body equals what the API's
out-serializer gives for the same rows (a stored close, a preview's plan, a reopen, a
replay), and is plain JSON."""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest

from players.models import RatingPeriod
from tests.tournaments.helpers import close, make_club, make_owner, make_player, period_of, play
from tournaments.api.periods import CloseOutSerializer, ReopenOutSerializer, ReplayOutSerializer
from tournaments.selectors import period_changes
from tournaments.services import list_replay, period_preview, period_reopen
from tournaments.services.results import changes_body, reopen_body, replay_body

pytestmark = pytest.mark.django_db


def _plain(data: Any) -> Any:
    return json.loads(json.dumps(data))


@pytest.fixture
def world() -> tuple[Any, Any]:
    owner = make_owner()
    club = make_club(owner)
    strong = make_player(club, owner, "Strong", 1800)
    weak = make_player(club, owner, "Weak", 1700)
    # Unrated: no rating before, no unrounded change; a first rating needs more games.
    newcomer = make_player(club, owner, "Newcomer", None, rated_games=0)
    play(
        club,
        owner,
        [(strong, weak, "1/2-1/2"), (weak, newcomer, "0-1"), (newcomer, strong, "0-1")],
        date=datetime.date(2026, 1, 10),
    )
    play(club, owner, [(weak, strong, "1-0")], date=datetime.date(2026, 2, 10))
    return owner, club


def _serialized_close(period: RatingPeriod, changes: Any, games_count: int) -> Any:
    source = {
        "period": period.label,
        "status": period.status,
        "games_count": games_count,
        "changes": list(changes),
    }
    return _plain(CloseOutSerializer(source).data)


def test_a_close_and_a_preview_answer_what_the_schema_documents(world: tuple[Any, Any]) -> None:
    owner, club = world
    january = period_of(club, "2026-01")
    plan = period_preview(period=january, by=owner)
    preview = changes_body(january, plan.changes, plan.games_count)
    assert _plain(preview) == preview
    assert preview == _serialized_close(january, plan.changes, plan.games_count)
    assert {row["player"] for row in preview["changes"]} == {c.player_id for c in plan.changes}

    close(club, owner, "2026-01")
    january.refresh_from_db()
    stored = changes_body(january, period_changes(january), 3)
    assert _plain(stored) == stored
    assert stored == _serialized_close(january, period_changes(january), 3)
    assert stored["status"] == "closed"
    assert len(stored["changes"]) == 3
    # What the close wrote is what the preview showed.
    assert sorted(stored["changes"], key=lambda row: row["player"]) == sorted(
        preview["changes"], key=lambda row: row["player"]
    )


def test_a_reopen_and_a_replay_answer_what_the_schema_documents(
    world: tuple[Any, Any],
) -> None:
    owner, club = world
    close(club, owner, "2026-01")
    close(club, owner, "2026-02")
    january = period_of(club, "2026-01")
    run = period_reopen(period=january, by=owner)
    january.refresh_from_db()
    reopened = reopen_body(january, run.periods)
    assert reopened == _plain(
        ReopenOutSerializer(
            {"period": january.label, "status": january.status, "needs_replay": run.periods}
        ).data
    )
    assert reopened["needs_replay"] == ["2026-01", "2026-02"]

    replay = list_replay(rating_list=january.rating_list, by=owner)
    replayed = replay_body(replay)
    assert _plain(replayed) == replayed
    assert replayed == _plain(
        ReplayOutSerializer(
            {
                "periods": replay.periods,
                "players_changed": replay.players_changed,
                "report": replay.report,
            }
        ).data
    )
    assert replayed["periods"] == ["2026-01", "2026-02"]
