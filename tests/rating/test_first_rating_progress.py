"""An unrated player's way to a first rating, from the pool a period's plan leaves
(``first_rating_progress``, the registry's entry for the Elo family): the close's own
formula on the same pool, saying what is missing. By hand from FIDE 8.2: Ru = Ra + dp,
Ra = (sum of opponents + 2 x 1800) / (n + 2), p = (points + 1) / (n + 2)."""

from __future__ import annotations

import datetime

from players.rating.systems import SYSTEMS
from players.rating.systems.elo_progress import first_rating_progress
from tests.rating.elo_helpers import fide_standard

OCT = datetime.date(2026, 10, 1)


def pool(*events: list[tuple[int | None, str, bool]]) -> list[dict[str, object]]:
    return [
        {"event": index, "month": "2026-10", "games": [list(game) for game in games]}
        for index, games in enumerate(events)
    ]


def test_too_few_games_says_how_many_are_needed() -> None:
    progress = first_rating_progress(
        fide_standard(floor=1400), OCT, pool([(1800, "1/2", True), (1800, "1", True)])
    )
    assert (progress.rating, progress.games_counted) == (None, 2)
    assert progress.note == "2 games against rated opponents; a first rating needs 5"


def test_unrated_opponents_and_forfeits_do_not_count() -> None:
    progress = first_rating_progress(
        fide_standard(floor=1400),
        OCT,
        pool([(None, "1", True), (1800, "1", False), (1700, "1/2", True)]),
    )
    assert progress.games_counted == 1


def test_enough_games_below_the_floor_say_so() -> None:
    # A draw, then five losses, all against 1400s (six games): Ra = (6 x 1400 + 3600) / 8
    # = 1500, p = (1/2 + 1) / 8 = 19% -> dp -251 (table 8.1.1), Ru = 1249: below the floor
    # of 1400, not published.
    progress = first_rating_progress(
        fide_standard(floor=1400), OCT, pool([(1400, "1/2", True)], [(1400, "0", True)] * 5)
    )
    assert progress.rating is None
    assert progress.games_counted == 6
    assert progress.note == "1249 is below the minimum of 1400: not published"


def test_the_registry_gives_it_to_the_elo_family_only() -> None:
    assert SYSTEMS["fide"].first_rating_progress is first_rating_progress
    assert SYSTEMS["elo"].first_rating_progress is first_rating_progress
    # Glicko-2 rates everyone from the start: no way to a first rating to show.
    assert SYSTEMS["glicko2"].first_rating_progress is None
