"""FIDE's rules by date through the close: each dated rule on both sides of its date, and a
list pinned to today's rules (players.rating.fide_rules)."""

from __future__ import annotations

import datetime
import random
from typing import Any

import pytest

from players.models import RatingChange, RatingList, RatingRun
from players.rating.expected import table_pd_hundredths
from players.rating.fide_rules import BY_DATE, TODAY, rules_in_force
from players.rating.months import add_months
from players.rating.rounding import round_ratio_half_away
from players.selectors import rules_rated_under
from players.services import rating_list_update
from tests.tournaments.helpers import (
    change_of,
    close,
    make_club,
    make_owner,
    make_player,
    period_of,
    play,
    standard,
)
from tournaments.services import list_replay, period_reopen, tournament_create

pytestmark = pytest.mark.django_db
D = datetime.date


def _club(pinned: bool = False, slug: str = "club") -> tuple[Any, Any]:
    owner = make_owner(f"owner-{slug}")
    club = make_club(owner, slug)
    if pinned:
        for rating_list in RatingList.objects.filter(club=club):
            rating_list_update(rating_list=rating_list, by=owner, fide_rules=TODAY.name)
    return owner, club


def test_the_lookup_takes_each_set_from_its_date() -> None:
    assert rules_in_force(D(2013, 5, 1)).name == "2014-07"
    assert rules_in_force(D(2017, 6, 30)).name == "2014-07"
    assert rules_in_force(D(2017, 7, 1)).name == "2017-07"
    assert rules_in_force(D(2024, 2, 29)).name == "2022-10"
    assert rules_in_force(D(2024, 3, 1)).name == "2024-03"
    assert rules_in_force(D(2025, 9, 30)).name == "2024-12"
    assert rules_in_force(D(2025, 10, 1)) == TODAY


@pytest.mark.parametrize(("pinned", "expected"), [(False, 1920), (True, 1921)])
def test_a_2023_newcomer_gets_the_2014_first_rating(pinned: bool, expected: int) -> None:
    # Section 10's worked example: five games against 1900s, 3 points. 2014 rule: one half
    # point above 50% -> 1900 + 20. Today's: (9500 + 3600) / 7 = 1871.43, p 4/7 -> 57%,
    # dp 50 -> 1921.
    owner, club = _club(pinned)
    new = make_player(club, owner, "New", None, rated_games=0)
    others = [make_player(club, owner, f"O{i}", 1900) for i in range(5)]
    results = ["1-0", "1-0", "1-0", "0-1", "0-1"]
    play(
        club, owner, [(new, o, r) for o, r in zip(others, results, strict=True)], date=D(2023, 5, 6)
    )
    close(club, owner, "2023-05")
    row = change_of(new, "2023-05")
    assert (row.event, row.rating_after) == ("first_rating", expected)


@pytest.mark.parametrize(("pinned", "after"), [(False, 1191), (True, None)])
def test_a_2023_player_at_1200_is_not_dropped_by_the_1400_floor(
    pinned: bool, after: int | None
) -> None:
    # 1200 loses to 1250 (K 20): D -50 -> PD .43; 20 x -.43 = -8.6 -> -9. The floor of 2023
    # is 1000 (1191 is published); today's 1400 drops the player.
    owner, club = _club(pinned)
    a = make_player(club, owner, "A", 1200)
    b = make_player(club, owner, "B", 1250)
    play(club, owner, [(a, b, "0-1")], date=D(2023, 5, 6))
    close(club, owner, "2023-05")
    assert change_of(a, "2023-05").rating_after == after


def _elite_change(counted: int) -> int:
    # K 10 (reached 2400), a win: 10 x (1 - PD) in hundredths, rounded once.
    return round_ratio_half_away(10 * (100 - table_pd_hundredths(counted)), 100)


def test_the_2650_exception_by_the_tournaments_start() -> None:
    # A tournament begun on 28 September 2025 keeps September's rules in its October
    # games: the 400-point cap applies to a 2700 player. A game outside tournaments in
    # October 2025: today's rules, the real difference (500).
    owner, club = _club()
    a = make_player(club, owner, "A", 2700, reached_2400=True)
    b = make_player(club, owner, "B", 2200)
    c = make_player(club, owner, "C", 2700, reached_2400=True)
    d = make_player(club, owner, "D", 2200)
    event = tournament_create(
        club=club,
        by=owner,
        name="Autumn",
        rating_list="standard",
        start_date=D(2025, 9, 28),
        end_date=D(2025, 10, 3),
    )
    play(club, owner, [(a, b, "1-0")], date=D(2025, 10, 2), tournament=event)
    play(club, owner, [(c, d, "1-0")], date=D(2025, 10, 12))
    close(club, owner, "2025-10")
    assert _elite_change(400) != _elite_change(500)
    assert change_of(a, "2025-10").change == _elite_change(400)
    assert change_of(c, "2025-10").change == _elite_change(500)
    run = RatingRun.objects.get(kind="close")
    assert run.summary["rules"] == "FIDE 2025-10"
    assert "Rules: FIDE 2025-10." in run.report


def test_the_2650_exception_does_not_exist_before_october_2025() -> None:
    owner, club = _club()
    c = make_player(club, owner, "C", 2700, reached_2400=True)
    d = make_player(club, owner, "D", 2200)
    play(club, owner, [(c, d, "1-0")], date=D(2025, 9, 12))
    close(club, owner, "2025-09")
    assert change_of(c, "2025-09").change == _elite_change(400)


@pytest.mark.parametrize(("month", "games"), [("2024-11", 1), ("2024-12", 0)])
def test_the_600_2600_rule_from_december_2024(month: str, games: int) -> None:
    owner, club = _club()
    a = make_player(club, owner, "A", 2650, kind="blitz", reached_2400=True)
    b = make_player(club, owner, "B", 2000, kind="blitz")
    year, number = (int(part) for part in month.split("-"))
    play(club, owner, [(a, b, "1-0")], date=D(year, number, 10), kind="blitz")
    close(club, owner, month, kind="blitz")
    assert change_of(a, month).games == games


@pytest.mark.parametrize(("month", "k"), [("2017-06", 40), ("2017-07", 35)])
def test_the_700_rule_from_july_2017(month: str, k: int) -> None:
    # K 40 (10 rated games) over 20 games: 40 before the rule, 700 / 20 = 35 after.
    owner, club = _club()
    a = make_player(club, owner, "A", 1800, rated_games=10)
    b = make_player(club, owner, "B", 1800)
    year, number = (int(part) for part in month.split("-"))
    play(club, owner, [(a, b, "1/2-1/2")] * 20, date=D(year, number, 3))
    close(club, owner, month)
    assert change_of(a, month).k_factor == k


@pytest.mark.parametrize(("month", "k"), [("2017-06", 20), ("2017-07", 40)])
def test_the_junior_limit_by_date(month: str, k: int) -> None:
    # Born 1999: 18 in 2017. Until June 2017 junior through the 17th birthday's year (the
    # year-only reading of "until the 18th birthday"): K 20. From July 2017, through the
    # year of the 18th birthday: K 40.
    owner, club = _club()
    a = make_player(club, owner, "A", 1800, birth_year=1999)
    b = make_player(club, owner, "B", 1800)
    year, number = (int(part) for part in month.split("-"))
    play(club, owner, [(a, b, "1-0")], date=D(year, number, 3))
    close(club, owner, month)
    assert change_of(a, month).k_factor == k


@pytest.mark.parametrize(
    ("month", "k", "reason"), [("2022-09", 20, "fixed"), ("2022-10", 40, "new_player")]
)
def test_rapid_k_by_date(month: str, k: int, reason: str) -> None:
    owner, club = _club()
    a = make_player(club, owner, "A", 1800, rated_games=5, kind="rapid")
    b = make_player(club, owner, "B", 1800, kind="rapid")
    year, number = (int(part) for part in month.split("-"))
    play(club, owner, [(a, b, "1-0")], date=D(year, number, 3), kind="rapid")
    close(club, owner, month, kind="rapid")
    row = change_of(a, month)
    assert (row.k_factor, row.k_reason) == (k, reason)


def test_a_new_list_rates_by_date_and_can_be_pinned() -> None:
    owner, club = _club()
    standard = RatingList.objects.get(club=club, slug="standard")
    assert standard.fide_rules == BY_DATE
    assert standard.settings().for_month(D(2023, 1, 1)).floor == 1000
    rating_list_update(rating_list=standard, by=owner, fide_rules=TODAY.name)
    standard.refresh_from_db()
    assert standard.settings().for_month(D(2023, 1, 1)).floor == 1400


def test_a_replay_from_2019_to_today_gives_what_closing_month_by_month_gave() -> None:
    # Generated data across every rule set since 2017: a newcomer, a junior, a player near
    # the old floor, an elite player; one month in three has games, some in tournaments
    # that began the month before. Closing month by month, then reopening January 2019 and
    # replaying everything, publishes the very same figures.
    rng = random.Random(2019)
    owner, club = _club()
    people = [
        make_player(club, owner, "Newcomer", None, rated_games=0),
        make_player(club, owner, "Junior", 1500, birth_year=2003, rated_games=5),
        make_player(club, owner, "Low", 1150),
        make_player(club, owner, "Elite", 2660, reached_2400=True),
        make_player(club, owner, "Mid", 1700),
        make_player(club, owner, "Club", 1900),
    ]
    months = []
    day = D(2019, 1, 1)
    while day <= D(2026, 10, 1):
        months.append(day)
        games = []
        for _ in range(rng.randint(3, 6)):
            white, black = rng.sample(people, 2)
            games.append((white, black, rng.choice(["1-0", "0-1", "1/2-1/2"])))
        event = None
        if rng.random() < 0.4:
            event = tournament_create(
                club=club,
                by=owner,
                name=f"Open {day:%Y-%m}",
                rating_list="standard",
                start_date=add_months(day, -1) + datetime.timedelta(days=27),
                end_date=day + datetime.timedelta(days=2),
            )
        play(club, owner, games, date=day + datetime.timedelta(days=1), tournament=event)
        day = add_months(day, 3)
    for month in months:
        close(club, owner, f"{month:%Y-%m}")

    def published() -> list[tuple[Any, ...]]:
        return sorted(
            RatingChange.objects.filter(rating_list__club=club, current=True).values_list(
                "player__name", "period__month", "rating_after", "change", "k_factor", "event"
            ),
            key=repr,
        )

    first = published()
    assert {row[5] for row in first} >= {"rated", "first_rating"}
    period_reopen(period=period_of(club, "2019-01"), by=owner)
    run = list_replay(rating_list=RatingList.objects.get(club=club, slug="standard"), by=owner)
    assert published() == first
    assert run.summary["rules"]["2019-01"] == "FIDE 2017-07"
    assert run.summary["rules"]["2026-10"] == "FIDE 2025-10"


def test_the_list_page_and_the_api_say_which_rules(client: Any) -> None:
    owner, club = _club()
    a = make_player(club, owner, "A", 1800)
    b = make_player(club, owner, "B", 1700)
    play(club, owner, [(a, b, "1-0")], date=D(2023, 5, 6))
    close(club, owner, "2023-05")
    client.force_login(owner)
    page = client.get(f"/clubs/{club.slug}/lists/standard/").content.decode()
    assert "Rated under: FIDE 2022-10." in page
    period = client.get(f"/api/v1/clubs/{club.slug}/lists/standard/periods/2023-05/").json()
    assert period["rules"] == "FIDE 2022-10"


def test_a_closed_period_keeps_the_rules_it_was_rated_under_when_the_list_is_pinned(
    client: Any,
) -> None:
    # The close rated May 2023 under 2022-10's rules; pinning the list afterwards changes
    # what the next close uses, not what the published list was rated under.
    owner, club = _club()
    a = make_player(club, owner, "A", 1800)
    b = make_player(club, owner, "B", 1700)
    play(club, owner, [(a, b, "1-0")], date=D(2023, 5, 6))
    close(club, owner, "2023-05")
    play(club, owner, [(a, b, "0-1")], date=D(2023, 6, 6))
    rating_list_update(rating_list=standard(club), by=owner, fide_rules=TODAY.name)
    client.force_login(owner)
    page = client.get(f"/clubs/{club.slug}/lists/standard/?period=2023-05").content.decode()
    assert "Rated under: FIDE 2022-10." in page
    base = f"/api/v1/clubs/{club.slug}/lists/standard/periods/"
    assert client.get(f"{base}2023-05/").json()["rules"] == "FIDE 2022-10"
    rules = {row["period"]: row["rules"] for row in client.get(base).json()["results"]}
    # The open June 2023 is rated by the next close, under the list's rules as they are now.
    assert rules == {"2023-05": "FIDE 2022-10", "2023-06": f"FIDE {TODAY.name}"}


def test_a_replayed_period_names_the_rules_of_the_replay() -> None:
    # A replay records one rule set per period: the period shows the one of its own label.
    owner, club = _club()
    a = make_player(club, owner, "A", 1800)
    b = make_player(club, owner, "B", 1700)
    play(club, owner, [(a, b, "1-0")], date=D(2023, 5, 6))
    play(club, owner, [(a, b, "1-0")], date=D(2024, 5, 6))
    close(club, owner, "2023-05")
    close(club, owner, "2024-05")
    period_reopen(period=period_of(club, "2023-05"), by=owner)
    list_replay(rating_list=standard(club), by=owner)
    rating_list_update(rating_list=standard(club), by=owner, fide_rules=TODAY.name)
    assert rules_rated_under(period_of(club, "2023-05")) == "FIDE 2022-10"
    assert rules_rated_under(period_of(club, "2024-05")) == "FIDE 2024-03"


def _by_date_club_without_the_march_2024_adjustment() -> tuple[Any, Any]:
    # The close of February 2024 would also raise every rating below 2000 (FIDE's one-off
    # of 1 March 2024): off, so February shows only the rules of its date.
    owner, club = _club()
    rating_list_update(rating_list=standard(club), by=owner, adjust_march_2024=False)
    assert standard(club).fide_rules == BY_DATE
    return owner, club


@pytest.mark.parametrize(
    ("month", "after", "event", "rules"),
    [
        ("2024-02", 1396, "rated", "FIDE 2022-10"),
        ("2024-03", None, "below_floor", "FIDE 2024-03"),
    ],
)
def test_the_1400_floor_from_march_2024_through_the_close(
    month: str, after: int | None, event: str, rules: str
) -> None:
    # 1405 loses to 1455 (K 20): D -50 -> PD .43; 20 x -.43 = -8.6 -> -9: 1396, above
    # February's floor of 1000 (published), below March's 1400 (dropped).
    owner, club = _by_date_club_without_the_march_2024_adjustment()
    a = make_player(club, owner, "A", 1405)
    b = make_player(club, owner, "B", 1455)
    year, number = (int(part) for part in month.split("-"))
    play(club, owner, [(a, b, "0-1")], date=D(year, number, 6))
    run = close(club, owner, month)
    row = change_of(a, month)
    assert (row.rating_before, row.change, row.rating_after, row.event) == (
        1405,
        -9,
        after,
        event,
    )
    assert run.summary["rules"] == rules
    assert run.summary["events"].get("below_floor", 0) == (1 if event == "below_floor" else 0)


@pytest.mark.parametrize(
    ("month", "expected", "rules"),
    [("2024-02", 1920, "FIDE 2022-10"), ("2024-03", 1921, "FIDE 2024-03")],
)
def test_the_first_rating_formula_changes_in_march_2024_through_the_close(
    month: str, expected: int, rules: str
) -> None:
    # Section 10's worked example on both sides of 1 March 2024: five games against 1900s,
    # 3 points. 2014 rule: 1900 + 20 per half point above 50% -> 1920. 2024 rule: two 1800
    # draws join, (9500 + 3600) / 7 = 1871.43, p 4/7 -> .57, dp 50 -> 1921.
    owner, club = _by_date_club_without_the_march_2024_adjustment()
    new = make_player(club, owner, "New", None, rated_games=0)
    others = [make_player(club, owner, f"O{i}", 1900) for i in range(5)]
    results = ["1-0", "1-0", "1-0", "0-1", "0-1"]
    year, number = (int(part) for part in month.split("-"))
    play(
        club,
        owner,
        [(new, o, r) for o, r in zip(others, results, strict=True)],
        date=D(year, number, 6),
    )
    run = close(club, owner, month)
    row = change_of(new, month)
    assert (row.event, row.rating_after) == ("first_rating", expected)
    assert run.summary["rules"] == rules
