"""The close asks the list's rating system for the plan: a system is a registry entry,
and the orchestration (locks, read, write, the run) does not change with it."""

from __future__ import annotations

import dataclasses
import datetime

import pytest

from players.models import RatingChange, RatingList
from players.rating.period import PeriodInputs, PeriodPlan
from players.rating.systems import SYSTEMS, RatingSystem, system_for
from players.services import rating_list_update
from tests.tournaments.helpers import close, make_club, make_owner, make_player, play

pytestmark = pytest.mark.django_db
OCT = datetime.date(2026, 10, 5)


def test_a_list_names_its_system_and_presets_set_it() -> None:
    owner = make_owner()
    club = make_club(owner)
    standard = RatingList.objects.get(club=club, kind="standard")
    assert standard.system == "fide"
    rating_list_update(rating_list=standard, by=owner, preset="Club Elo")
    standard.refresh_from_db()
    assert standard.system == "elo"
    assert standard.settings().system == "elo"


def test_unknown_system_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown rating system 'glicko9'"):
        system_for("glicko9")


def test_the_close_plans_with_the_lists_system(monkeypatch: pytest.MonkeyPatch) -> None:
    owner = make_owner()
    club = make_club(owner)
    a = make_player(club, owner, "A", 1800)
    b = make_player(club, owner, "B", 1700)
    play(club, owner, [(a, b, "1-0")], date=OCT)
    asked: list[PeriodInputs] = []
    fide = SYSTEMS["fide"]

    def plan(inputs: PeriodInputs, *, progress: object = None) -> PeriodPlan:
        # A system of its own: FIDE's plan, with every published rating one point higher.
        asked.append(inputs)
        planned = fide.plan(inputs, progress=progress)
        return dataclasses.replace(
            planned,
            changes=tuple(
                c._replace(rating_after=None if c.rating_after is None else c.rating_after + 1)
                for c in planned.changes
            ),
        )

    monkeypatch.setitem(SYSTEMS, "fide", RatingSystem("fide", "Test", plan))
    close(club, owner, "2026-10")

    assert len(asked) == 1
    assert set(asked[0].starts) == {a.pk, b.pk}
    # FIDE: 1800 beats 1700 (D 100, PD .64), K 20 (50 rated games): 20 x .36 = 7.2 -> +7;
    # then the test system's +1.
    after = dict(RatingChange.objects.values_list("player_id", "rating_after"))
    assert after == {a.pk: 1808, b.pk: 1694}
