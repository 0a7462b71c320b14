"""Forecasts before a tournament, and of a player's next game (docs/tasks/forecasting.md).

A selector: it reads the close's inputs for the games' period as the close reads them
(``close.read.forecast_inputs``) and asks the list's rating system's own plan through the
pure engine (``players.rating.systems.forecast``), so a forecast gives exactly what the
close would give for the same results (tests/tournaments/test_forecast_close.py). A
tournament's forecast is kept in Django's cache under the club's live generation: an
entry list set, a game, a close or any published change gives the club a new one.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, replace

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from players.errors import ConflictError, invalid_field
from players.models import Player, RatingList
from players.rating.months import month_start
from players.rating.period import PeriodInputs, PlayerStart
from players.rating.systems.forecast import (
    MAX_ENTRANTS,
    EntrantForecast,
    FieldForecast,
    entrant_forecast,
    field_forecast,
)
from players.selectors import Generation, club_generation, players_for_club
from tournaments.models import Tournament
from tournaments.selectors import tournament_entries
from tournaments.services.close.read import forecast_inputs

# Bumped when TournamentForecast's shape changes: an entry of an older shape is never read.
_CACHE_SHAPE = 1


@dataclass(frozen=True)
class Entrant:
    """A player of the forecast, as the pages name them."""

    player_id: int
    name: str
    title: str
    federation: str


@dataclass(frozen=True)
class TournamentForecast:
    tournament_id: int
    list_slug: str
    # The period the close would rate the games in (the tournament's end month).
    month: datetime.date
    rules: str
    # Best rating first (unrated last), each with their forecast.
    rows: tuple[tuple[Entrant, EntrantForecast], ...]

    @property
    def period(self) -> str:
        return f"{self.month:%Y-%m}"

    @property
    def most_games(self) -> int:
        return max((forecast.games for _, forecast in self.rows), default=0)


@dataclass(frozen=True)
class GameForecast:
    """A player's next game against one opponent: loss, draw and win."""

    list_slug: str
    month: datetime.date
    rules: str
    player: Entrant
    opponent: Entrant
    opponent_rating: int | None
    forecast: EntrantForecast


def too_many(count: int) -> ConflictError:
    message = (
        f"The entry list has {count} players; a forecast takes at most {MAX_ENTRANTS} "
        "(a round robin of each with everyone else)."
    )
    return ConflictError(message, fields={"entries": [message]})


def tournament_forecast(*, tournament: Tournament) -> TournamentForecast:
    """Each entrant's expected score against the field and change for every score, in a
    round robin of the entry list (at most ``MAX_ENTRANTS``: ConflictError beyond). From the
    cache when nothing changed since it was computed. The caller has checked that the user
    may see the tournament's club."""
    count = tournament_entries(tournament=tournament).count()
    if count > MAX_ENTRANTS:
        raise too_many(count)
    if settings.PUBLISHED_CACHE_SECONDS <= 0:
        return _computed(tournament)
    slug = tournament.club.slug
    generation = club_generation(slug, Generation.LIVE)
    key = f"forecast:{_CACHE_SHAPE}:{slug}:{tournament.pk}:{generation}"
    found = cache.get(key)
    if isinstance(found, TournamentForecast):
        return found
    # The generation was read before the entries: a change after it retires this entry.
    computed = _computed(tournament)
    cache.set(key, computed, settings.PUBLISHED_CACHE_SECONDS)
    return computed


def _entrants(player_ids: list[int]) -> dict[int, Entrant]:
    rows = Player.objects.filter(pk__in=player_ids).values_list("id", "name", "title", "federation")
    return {row[0]: Entrant(*row) for row in rows}


def _inputs(rating_list: RatingList, month: datetime.date, player_ids: list[int]) -> PeriodInputs:
    """The close's inputs, with a start for a player the list lacks (a list created before
    lists took in the club's players): the one ``players_enter_list`` gives them at the
    close, unrated."""
    inputs = forecast_inputs(rating_list=rating_list, month=month, player_ids=player_ids)
    missing = [pid for pid in player_ids if pid not in inputs.starts]
    if not missing:
        return inputs
    births = dict(Player.objects.filter(pk__in=missing).values_list("id", "birth_year"))
    start_rating = rating_list.rating_system.start_rating
    return replace(
        inputs,
        starts={
            **inputs.starts,
            **{pid: PlayerStart(None, 0, False, [], births.get(pid), None) for pid in missing},
        },
        start_ratings={**inputs.start_ratings, **dict.fromkeys(missing, start_rating)},
    )


def _computed(tournament: Tournament) -> TournamentForecast:
    rating_list = tournament.rating_list
    ids = sorted(tournament_entries(tournament=tournament).values_list("player_id", flat=True))
    month = month_start(tournament.end_date)
    inputs = _inputs(rating_list, month, ids)
    # The tournament is one of the month's (it ends in it), with its dates.
    inputs = replace(
        inputs,
        tournaments={
            **inputs.tournaments,
            tournament.pk: (tournament.start_date, tournament.end_date),
        },
    )
    field: FieldForecast = field_forecast(
        rating_list.rating_system, inputs, entrants=ids, tournament=tournament.pk
    )
    named = _entrants(ids)
    rows = sorted(
        ((named[f.player_id], f) for f in field.entrants),
        key=lambda row: (
            row[1].rating is None,
            -(row[1].rating or 0),
            row[0].name,
            row[0].player_id,
        ),
    )
    return TournamentForecast(
        tournament_id=tournament.pk,
        list_slug=rating_list.slug,
        month=month,
        rules=field.rules,
        rows=tuple(rows),
    )


def next_game_forecast(
    *,
    rating_list: RatingList,
    player: Player,
    opponent_id: int,
    day: datetime.date | None = None,
) -> GameForecast:
    """``player``'s next game against ``opponent_id`` (a player of the same club, not the
    player: else a 400 naming ``opponent``) on ``rating_list``, played on ``day`` (today)
    outside any tournament: the expected score and the change for a loss, a draw and a win,
    by the list's plan of that month."""
    if opponent_id == player.pk:
        raise invalid_field("opponent", "A player cannot play themselves.")
    opponent = players_for_club(club=rating_list.club).filter(pk=opponent_id).first()
    if opponent is None:
        raise invalid_field("opponent", f"No player {opponent_id} in this club.")
    month = month_start(day or timezone.localdate())
    ids = [player.pk, opponent.pk]
    inputs = _inputs(rating_list, month, ids)
    forecast = entrant_forecast(
        rating_list.rating_system, inputs, entrant=player.pk, opponents=[opponent.pk]
    )
    named = _entrants(ids)
    return GameForecast(
        list_slug=rating_list.slug,
        month=month,
        rules=rating_list.settings().for_month(month).rules_name(),
        player=named[player.pk],
        opponent=named[opponent.pk],
        opponent_rating=inputs.start_ratings.get(opponent.pk),
        forecast=forecast,
    )
