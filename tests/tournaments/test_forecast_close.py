"""The decisive test of the forecasts: play a forecast's results as real games, close the
period through the real service, and the close gives exactly the forecast's figures.

The round robins played are ones the forecast's own assumption describes for every
player at once (a score's wins go against the weakest opponents first, unrated ones
counting as the weakest): the stronger player wins, except that the newcomer (unrated)
beats the weakest rated player, who loses every game, and two neighbours draw.
"""

from __future__ import annotations

import datetime
import itertools
from fractions import Fraction
from typing import Any

import pytest

from players.models import Club, Player, RatingChange
from players.rating.period import PeriodEvent
from players.rating.systems.forecast import weakest_first
from players.services import club_create, player_create, rating_list_create
from tests.tournaments.helpers import change_of, close, make_club, make_owner, make_player, play
from tournaments.models import Tournament
from tournaments.services import tournament_create, tournament_entries_set
from tournaments.services.forecast import TournamentForecast, tournament_forecast

pytestmark = pytest.mark.django_db
_serial = itertools.count()


def _round_robin(
    players: list[Player], ratings: dict[int, int | None], draw: tuple[int, int] | None
) -> list[tuple[Player, Player, str]]:
    """The games (white, black, result): by ``weakest_first``, the later player wins,
    except the newcomer (first, unrated) beats the next (who loses everything) and the
    pair of positions ``draw`` draws."""
    order = weakest_first([p.pk for p in players], ratings)
    by_id = {p.pk: p for p in players}
    games = []
    for low, high in itertools.combinations(range(len(order)), 2):
        weak, strong = by_id[order[low]], by_id[order[high]]
        if (low, high) == (0, 1) and ratings[weak.pk] is None:
            games.append((weak, strong, "1-0"))
        elif (low, high) == draw:
            games.append((strong, weak, "1/2-1/2"))
        else:
            games.append((strong, weak, "1-0"))
    return games


def _scores(games: list[tuple[Player, Player, str]]) -> dict[int, Fraction]:
    points = {"1-0": (Fraction(1), Fraction(0)), "1/2-1/2": (Fraction(1, 2),) * 2}
    scores: dict[int, Fraction] = {}
    for white, black, result in games:
        w, b = points[result]
        scores[white.pk] = scores.get(white.pk, Fraction(0)) + w
        scores[black.pk] = scores.get(black.pk, Fraction(0)) + b
    return scores


def _play_and_close(
    club: Club,
    owner: Any,
    tournament: Tournament,
    players: list[Player],
    *,
    kind: str,
    draw: tuple[int, int] | None,
) -> tuple[TournamentForecast, dict[int, Fraction]]:
    tournament_entries_set(tournament=tournament, by=owner, player_ids=[p.pk for p in players])
    forecast = tournament_forecast(tournament=tournament)
    ratings = {entrant.player_id: f.rating for entrant, f in forecast.rows}
    games = _round_robin(players, ratings, draw)
    play(club, owner, games, date=tournament.end_date, tournament=tournament, kind=kind)
    close(club, owner, f"{tournament.end_date:%Y-%m}", kind)
    return forecast, _scores(games)


def _assert_close_gives_the_forecast(
    forecast: TournamentForecast, scores: dict[int, Fraction], month: str
) -> None:
    for entrant, figures in forecast.rows:
        row = figures.at(scores[entrant.player_id])
        change: RatingChange = change_of(Player.objects.get(pk=entrant.player_id), month)
        assert (entrant.name, change.rating_after, change.change, str(change.event)) == (
            entrant.name,
            row.rating_after,
            row.change,
            str(row.event),
        )
        if figures.rating is not None and figures.k_factor is not None:
            assert change.k_factor == figures.k_factor
            assert float(change.expected) == pytest.approx(float(figures.expected or 0))


def _fide_field(club: Club, owner: Any) -> list[Player]:
    return [
        player_create(club=club, by=owner, name="Newcomer", birth_year=1995),
        make_player(club, owner, "Grandmaster", 2700, rated_games=900, reached_2400=True),
        make_player(club, owner, "Master", 2310, rated_games=400),
        make_player(club, owner, "Junior", 1890, rated_games=40, birth_year=2010),
        make_player(club, owner, "Beginner", 1520, rated_games=12),
        make_player(club, owner, "Club player", 1615, rated_games=80),
        make_player(club, owner, "Veteran", 1900, rated_games=300, birth_year=1950),
    ]


def test_a_fide_round_robin_closes_as_forecast() -> None:
    # A 2700 against 1500s (the 400-point rule and its 2650 exception), K 40, 20 and 10,
    # and an unrated newcomer's first rating (2024's formula).
    owner = make_owner()
    club = make_club(owner)
    players = _fide_field(club, owner)
    tournament = tournament_create(
        club=club,
        by=owner,
        name="Autumn round robin",
        rating_list="standard",
        start_date=datetime.date(2026, 10, 2),
        end_date=datetime.date(2026, 10, 9),
    )
    forecast, scores = _play_and_close(
        club, owner, tournament, players, kind="standard", draw=(3, 4)
    )
    newcomer = forecast.rows[-1][1]
    assert newcomer.rating is None
    assert newcomer.expected is None
    assert newcomer.at(Fraction(1)).event == PeriodEvent.FIRST_RATING
    _assert_close_gives_the_forecast(forecast, scores, "2026-10")


def test_a_tournament_begun_under_the_2014_rules_closes_as_forecast() -> None:
    # Begun on 26 February 2024, ended in March: 2014's first-rating formula (Ra + dp(p)
    # below 50%: 1500 - 240 = 1260, above the floor of 1000), though the period is March's.
    owner = make_owner()
    club = make_club(owner)
    newcomer = player_create(club=club, by=owner, name="Nova", birth_year=1990)
    field = [make_player(club, owner, f"Rated {i}", 1500, rated_games=60) for i in range(5)]
    tournament = tournament_create(
        club=club,
        by=owner,
        name="Leap Open",
        rating_list="standard",
        start_date=datetime.date(2024, 2, 26),
        end_date=datetime.date(2024, 3, 3),
    )
    forecast, scores = _play_and_close(
        club, owner, tournament, [newcomer, *field], kind="standard", draw=None
    )
    assert forecast.rules == "FIDE 2022-10"
    assert scores[newcomer.pk] == 1
    figures = {e.player_id: f for e, f in forecast.rows}[newcomer.pk]
    assert figures.at(Fraction(1)).rating_after == 1260
    assert change_of(newcomer, "2024-03").rating_after == 1260
    _assert_close_gives_the_forecast(forecast, scores, "2024-03")


def test_a_glicko2_round_robin_closes_as_forecast() -> None:
    owner = make_owner()
    serial = next(_serial)
    club = club_create(name=f"Online {serial}", slug=f"online-{serial}", by=owner)
    rating_list_create(club=club, by=owner, slug="online", kind="blitz", system="glicko2")
    entries: list[dict[str, Any]] = [
        {"rating": 1850, "rd": 60, "volatility": 0.06},
        {"rating": 1700, "rd": 120},
        {"rating": 1500, "rd": 300},
        {"rating": 1620, "rd": 80, "volatility": 0.05},
        {},
    ]
    players = [
        player_create(
            club=club,
            by=owner,
            name=f"Player {i}",
            ratings=[{"list": "online", **entry}] if entry else [],
        )
        for i, entry in enumerate(entries)
    ]
    tournament = tournament_create(
        club=club,
        by=owner,
        name="Blitz arena",
        rating_list="online",
        start_date=datetime.date(2026, 11, 3),
        end_date=datetime.date(2026, 11, 3),
    )
    forecast, scores = _play_and_close(club, owner, tournament, players, kind="online", draw=(1, 2))
    # Glicko-2: every score changes the rating, and more points never give less.
    for _, figures in forecast.rows:
        afters = [row.rating_after or 0 for row in figures.scores]
        assert afters == sorted(afters)
    _assert_close_gives_the_forecast(forecast, scores, "2026-11")
