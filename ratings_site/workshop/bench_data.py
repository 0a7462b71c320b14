"""The close benchmark's data: a federation-sized club written through the bulk path
(``players.bulk.insert_rows``: COPY on PostgreSQL).

``generate`` makes a club whose standard list has the given numbers of players and games
in one month (October 2026), or in each of ``months`` months ending with it (the replay
benchmark's year), from one seeded random stream: the same seed gives the same rows.
With ``audit=True`` the players and games also get the audit rows an import writes for
them (the club archive's benchmark: a club's audit trail is half its rows).
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Iterator
from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone
from tqdm import tqdm

from players import rating as engine
from players.bulk import history_rows_copy, insert_rows
from players.models import Club, Player, PlayerRating, RatingList, RatingPeriod, add_months
from players.models.audit import Via
from players.services import club_create, k_for
from tournaments.models import Game

MONTH = datetime.date(2026, 10, 1)
RESULTS = ["1-0"] * 36 + ["0-1"] * 30 + ["1/2-1/2"] * 32 + ["+-", "-+"]


def generate(
    *, players: int, games: int, seed: int, quiet: bool, months: int = 1, audit: bool = False
) -> tuple[RatingList, Any]:
    """A club with ``players`` players and ``games`` games in October 2026, or in each of
    the ``months`` months up to it, each in its own open period."""
    rng = random.Random(seed)
    users = get_user_model().objects
    user = users.filter(username="bench").first() or users.create_superuser("bench")
    slug = f"bench-{timezone.now():%Y%m%d%H%M%S%f}"
    club = club_create(name=f"Benchmark federation {slug}", slug=slug, public=False, by=user)
    rating_list = RatingList.objects.get(club=club, kind="standard")
    now = timezone.now()
    bar = tqdm(
        total=players * 2 + games * months, unit="row", disable=quiet or None, desc="generate"
    )
    # One random stream, drawn in this order: players, then ratings, then games.
    ids = _generate_players(club=club, count=players, rng=rng, bar=bar, now=now)
    ratings = _generate_ratings(rating_list=rating_list, ids=ids, rng=rng, bar=bar, now=now)
    for back in range(months - 1, -1, -1):
        month = add_months(MONTH, -back)
        _generate_games(
            rating_list=rating_list,
            ids=ids,
            ratings=ratings,
            count=games,
            rng=rng,
            bar=bar,
            now=now,
            month=month,
        )
    bar.close()
    if audit:
        history_rows_copy(Player.objects.filter(club=club), via=Via.IMPORT, user_id=user.pk)
        history_rows_copy(Game.objects.filter(club=club), via=Via.IMPORT, user_id=user.pk)
    return rating_list, user


def _generate_players(
    *, club: Club, count: int, rng: random.Random, bar: Any, now: datetime.datetime
) -> list[tuple[int, int | None]]:
    """``count`` players of the club -> their (id, birth year) in id order."""

    def player_rows() -> Iterator[tuple[Any, ...]]:
        for i in range(count):
            bar.update()
            yield (club.pk, f"Player {i:06d}", rng.randint(1940, 2016), "", "", "", "", True, now)

    insert_rows(
        Player,
        (
            "club",
            "name",
            "birth_year",
            "sex",
            "federation",
            "title",
            "women_title",
            "active",
            "created",
        ),
        player_rows(),
    )
    return list(Player.objects.filter(club=club).order_by("pk").values_list("pk", "birth_year"))


def _generate_ratings(
    *,
    rating_list: RatingList,
    ids: list[tuple[int, int | None]],
    rng: random.Random,
    bar: Any,
    now: datetime.datetime,
) -> list[int | None]:
    """Each player's state on the list (3% unrated) -> their ratings, in the order of ``ids``."""
    ratings: list[int | None] = []

    def rating_rows() -> Iterator[tuple[Any, ...]]:
        for player_id, birth_year in ids:
            bar.update()
            rating = (
                None if rng.random() < 0.03 else max(1000, min(2800, int(rng.gauss(1750, 250))))
            )
            ratings.append(rating)
            games_so_far = 0 if rating is None else rng.randint(0, 400)
            reached = rating is not None and rating >= 2400
            state = engine.PlayerState(rating, games_so_far, birth_year, reached)
            k = k_for(rating_list=rating_list, state=state, k_override=None, period_year=MONTH.year)
            yield (
                player_id,
                rating_list.pk,
                rating,
                games_so_far,
                reached,
                k.value,
                k.reason.value,
                "",
                [],
                rating,
                games_so_far,
                reached,
                "",
                now,
            )

    insert_rows(
        PlayerRating,
        (
            "player",
            "rating_list",
            "rating",
            "rated_games",
            "reached_2400",
            "k_factor",
            "k_reason",
            "k_override_note",
            "pool",
            "entry_rating",
            "entry_rated_games",
            "entry_reached_2400",
            "entry_note",
            "updated",
        ),
        rating_rows(),
    )
    return ratings


def _generate_games(
    *,
    rating_list: RatingList,
    ids: list[tuple[int, int | None]],
    ratings: list[int | None],
    count: int,
    rng: random.Random,
    bar: Any,
    now: datetime.datetime,
    month: datetime.date = MONTH,
) -> None:
    """``count`` games of ``month`` in the list's open period of that month."""
    period = RatingPeriod.objects.create(rating_list=rating_list, month=month)
    # Opponents of similar strength, as pairings make them: pair near neighbours by rating.
    order = sorted(range(len(ids)), key=lambda i: ratings[i] or 0)
    club_id = rating_list.club_id

    def game_rows() -> Iterator[tuple[Any, ...]]:
        n = len(order)
        for _ in range(count):
            bar.update()
            position = rng.randrange(n)
            other = min(n - 1, max(0, position + rng.randint(-300, 300)))
            if other == position:
                other = (position + 1) % n
            white, black = ids[order[position]][0], ids[order[other]][0]
            day = month.replace(day=rng.randint(1, 28))
            yield (
                club_id,
                rating_list.pk,
                period.pk,
                day,
                white,
                black,
                rng.choice(RESULTS),
                True,
                now,
            )

    insert_rows(
        Game,
        (
            "club",
            "rating_list",
            "period",
            "date",
            "white",
            "black",
            "result",
            "rated",
            "created",
        ),
        game_rows(),
    )
