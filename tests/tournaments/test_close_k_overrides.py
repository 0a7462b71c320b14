"""K overrides through the close and the replay: each month is rated with the override
in force in it, and a lifted override ends in its month."""

from __future__ import annotations

import datetime

import pytest

from players.models import RatingChange, RatingList
from players.selectors import parse_month
from tests.tournaments.helpers import close, make_club, make_owner, make_player, period_of, play

pytestmark = pytest.mark.django_db


def row_of(player: object, month: str, kind: str = "standard") -> RatingChange:
    return RatingChange.objects.get(
        player=player, period__month=parse_month(month), rating_list__kind=kind, current=True
    )


# -- K overrides by month ---------------------------------------------------------------------


def test_replay_uses_the_k_override_in_force_in_each_month() -> None:
    from players.models import KFactorChange, PlayerRating
    from players.services import k_override_set
    from tournaments.services import list_replay, period_reopen

    owner = make_owner()
    club = make_club(owner)
    a = make_player(club, owner, "A", 1800)
    b = make_player(club, owner, "B", 1700)
    for month in (1, 2):
        play(club, owner, [(a, b, "1-0")], date=datetime.date(2026, month, 10))
        close(club, owner, f"2026-0{month}")
    rating = PlayerRating.objects.get(player=a, rating_list__kind="standard")
    k_override_set(player_rating=rating, k=30, note="federation profile", by=owner)
    play(club, owner, [(a, b, "1-0")], date=datetime.date(2026, 3, 10))
    close(club, owner, "2026-03")
    assert (row_of(a, "2026-03").k_factor, row_of(a, "2026-03").k_reason) == (30, "manual")

    period_reopen(period=period_of(club, "2026-01"), by=owner)
    run = list_replay(rating_list=RatingList.objects.get(club=club, kind="standard"), by=owner)
    # The run says where its time went, step by step, as a close's run does.
    assert set(run.summary["seconds"]) == {"retire", "read", "compute", "write", "report"}
    assert all(seconds >= 0 for seconds in run.summary["seconds"].values())
    used = {m: (row_of(a, m).k_factor, row_of(a, m).k_reason) for m in ("2026-01", "2026-02")}
    assert used == {"2026-01": (20, "standard"), "2026-02": (20, "standard")}
    march = row_of(a, "2026-03")
    assert (march.k_factor, march.k_reason) == (30, "manual")
    # February's list announces the K of March; the officer's row is the only record of it.
    assert (row_of(a, "2026-02").k_next, row_of(a, "2026-02").k_next_reason) == (30, "manual")
    manual = KFactorChange.objects.filter(player=a, new_reason="manual", current=True)
    assert [(c.effective_month, c.new_k) for c in manual] == [(datetime.date(2026, 3, 1), 30)]
    # The replayed January and February are what a fresh close gives: 1800 v 1700 won,
    # D 100 -> PD .64, K 20 x 0.36 = 7.2 -> +7, then 1807 v 1693 (D 114 -> .65) +7.
    assert [row_of(a, m).rating_after for m in ("2026-01", "2026-02")] == [1807, 1814]


def test_a_lifted_override_ends_in_its_month() -> None:
    from players.models import PlayerRating
    from players.services import k_override_set
    from tournaments.services import list_replay, period_reopen

    owner = make_owner()
    club = make_club(owner)
    a = make_player(club, owner, "A", 1800)
    b = make_player(club, owner, "B", 1700)
    rating = PlayerRating.objects.get(player=a, rating_list__kind="standard")
    for month in (1, 2, 3):
        if month == 2:  # from February
            k_override_set(player_rating=rating, k=30, note="federation profile", by=owner)
        if month == 3:  # lifted from March
            k_override_set(player_rating=rating, k=None, by=owner)
        play(club, owner, [(a, b, "1-0")], date=datetime.date(2026, month, 10))
        close(club, owner, f"2026-0{month}")
    expected = {"2026-01": (20, "standard"), "2026-02": (30, "manual"), "2026-03": (20, "standard")}
    used = {m: (row_of(a, m).k_factor, row_of(a, m).k_reason) for m in expected}
    assert used == expected
    period_reopen(period=period_of(club, "2026-01"), by=owner)
    run = list_replay(rating_list=RatingList.objects.get(club=club, kind="standard"), by=owner)
    # The run says where its time went, step by step, as a close's run does.
    assert set(run.summary["seconds"]) == {"retire", "read", "compute", "write", "report"}
    assert all(seconds >= 0 for seconds in run.summary["seconds"].values())
    used = {m: (row_of(a, m).k_factor, row_of(a, m).k_reason) for m in expected}
    assert used == expected
