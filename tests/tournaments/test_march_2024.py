"""FIDE's adjustment of 1 March 2024 through the tracker: the close of February 2024
raises every published rating below 2000, records it, and a replay does the same."""

from __future__ import annotations

import datetime
import re

import pytest
from django.test import Client

from players.models import RatingChange, RatingRun
from players.services import rating_list_update
from tests.tournaments.helpers import change_of, close, make_club, make_owner, make_player, play
from tournaments.services import list_replay, period_reopen

pytestmark = pytest.mark.django_db
FEB, MAR = datetime.date(2024, 2, 10), datetime.date(2024, 3, 10)


def _club(adjust: bool = True) -> tuple:  # type: ignore[type-arg]
    owner = make_owner()
    club = make_club(owner)
    if not adjust:
        rating_list_update(
            rating_list=club.rating_lists.get(kind="standard"), by=owner, adjust_march_2024=False
        )
    players = {
        "quiet": make_player(club, owner, "Quiet", 1500),
        "low": make_player(club, owner, "Low", 1900),
        "high": make_player(club, owner, "High", 2100),
        "new": make_player(club, owner, "New", None, rated_games=0),
    }
    # 1900 v 2100, drawn: D = -200, PD 0.24; K 20 x 0.26 = 5.2 -> +5 and -5.
    play(club, owner, [(players["low"], players["high"], "1/2-1/2")], date=FEB)
    play(club, owner, [(players["new"], players["high"], "0-1")], date=FEB)
    return owner, club, players


def test_february_2024_close_adds_the_adjustment() -> None:
    owner, club, p = _club()
    run = close(club, owner, "2024-02")
    quiet = change_of(p["quiet"], "2024-02")
    # No games: 1500 + round(0.4 x 500) = 1700.
    assert (quiet.event, quiet.change, quiet.adjustment, quiet.rating_after) == (
        "no_rated_games",
        0,
        200,
        1700,
    )
    low = change_of(p["low"], "2024-02")
    # After the games: 1905, + round(0.4 x 95) = 38.
    assert (low.change, low.adjustment, low.rating_after) == (5, 38, 1943)
    high = change_of(p["high"], "2024-02")
    assert (high.change, high.adjustment, high.rating_after) == (-5, 0, 2095)
    new = change_of(p["new"], "2024-02")
    assert (new.rating_after, new.adjustment) == (None, 0)
    assert run.summary["adjusted"] == 2
    assert "raised 2 ratings below 2000" in run.report
    # The next month is rated from the adjusted list, and adds nothing more.
    play(club, owner, [(p["quiet"], p["low"], "1-0")], date=MAR)
    close(club, owner, "2024-03")
    assert change_of(p["quiet"], "2024-03").rating_before == 1700
    assert change_of(p["quiet"], "2024-03").adjustment == 0


def test_a_list_without_the_rule_is_not_adjusted() -> None:
    owner, club, p = _club(adjust=False)
    close(club, owner, "2024-02")
    assert change_of(p["quiet"], "2024-02").rating_after == 1500
    assert change_of(p["low"], "2024-02").rating_after == 1905


def test_replay_applies_it_again_exactly_once() -> None:
    owner, club, p = _club()
    close(club, owner, "2024-02")
    period = change_of(p["quiet"], "2024-02").period
    period_reopen(period=period, by=owner)
    run = list_replay(rating_list=period.rating_list, by=owner)
    assert run.kind == RatingRun.Kind.REPLAY
    quiet = change_of(p["quiet"], "2024-02")
    assert (quiet.adjustment, quiet.rating_after) == (200, 1700)


def test_period_report_and_api_show_the_adjustment(client: Client) -> None:
    owner, club, p = _club()
    close(club, owner, "2024-02")
    client.force_login(owner)
    page = client.get(f"/clubs/{club.slug}/lists/standard/periods/2024-02/").content.decode()
    pool = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page.split('id="pool-heading"')[1]))
    assert "FIDE's adjustment of 1 March 2024 (2 ratings below 2000 raised" in pool
    assert "+238" in pool
    rows = RatingChange.objects.filter(period__rating_list__club=club, current=True)
    before = sum(r.rating_before or 0 for r in rows)
    after = sum(r.rating_after or 0 for r in rows)
    # 0 from the games (+5 -5 ... and New's loss is in no published rating), +238 adjusted.
    assert after - before == 238
    history = client.get(f"/api/v1/clubs/{club.slug}/players/{p['low'].pk}/history/").json()
    row = next(r for r in history["results"] if r["period"] == "2024-02")
    assert (row["change"], row["adjustment"], row["rating_after"]) == (5, 38, 1943)


def test_history_csv_says_why_the_rating_rose() -> None:
    from tournaments.exports import history_csv

    owner, club, p = _club()
    close(club, owner, "2024-02")
    lines = history_csv(player=p["quiet"]).splitlines()
    assert lines[1].startswith("2024-02,standard,1500,1700,0,")
    assert lines[1].endswith("No rated games; FIDE adjustment of 1 March 2024 +200")


def test_player_page_says_why_the_rating_rose(client: Client) -> None:
    owner, club, p = _club()
    close(club, owner, "2024-02")
    client.force_login(owner)
    page = client.get(f"/clubs/{club.slug}/players/{p['low'].pk}/").content.decode()
    assert "FIDE adjustment of 1 March 2024: +38" in page
