"""The close benchmark's data: a federation-sized club generated with COPY.

``generate`` makes a club whose standard list has the given numbers of players and games
in one month (October 2026), or in each of ``months`` months ending with it (the replay
benchmark's year), from one seeded random stream: the same seed gives the same rows.
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Iterator
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone
from tqdm import tqdm

from players import rating as engine
from players.models import Club, Player, PlayerRating, RatingList, RatingPeriod, add_months
from players.services import club_create, k_for
from tournaments.models import Game

MONTH = datetime.date(2026, 10, 1)
RESULTS = ["1-0"] * 36 + ["0-1"] * 30 + ["1/2-1/2"] * 32 + ["+-", "-+"]


def _copy(table: str, columns: tuple[str, ...], rows: Iterator[tuple[Any, ...]]) -> None:
    with (
        connection.wrap_database_errors,
        connection.cursor() as cursor,
        cursor.cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy,
    ):
        for row in rows:
            copy.write_row(row)


def _defaults(model: Any, columns: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    """The model's other columns and their defaults: COPY names every column it fills and
    gets NULL for the rest, so a field added later (a NOT NULL column with a default)
    would break the generator unless its default is written out."""
    given = set(columns)
    fields = [
        f
        for f in model._meta.concrete_fields
        if not (f.primary_key or f.null or f.attname in given) and f.get_default() is not None
    ]
    return tuple(f.column for f in fields), tuple(
        f.get_db_prep_save(f.get_default(), connection) for f in fields
    )


def _insert(model: Any, columns: tuple[str, ...], rows: Iterator[tuple[Any, ...]]) -> None:
    """COPY on PostgreSQL, bulk_create in batches elsewhere."""
    if connection.vendor == "postgresql":
        extra_columns, extra = _defaults(model, columns)
        _copy(model._meta.db_table, columns + extra_columns, (row + extra for row in rows))
        return
    batch: list[Any] = []
    for row in rows:
        batch.append(model(**dict(zip(columns, row, strict=True))))
        if len(batch) >= 5000:
            model.objects.bulk_create(batch)
            batch = []
    if batch:
        model.objects.bulk_create(batch)


def generate(
    *, players: int, games: int, seed: int, quiet: bool, months: int = 1
) -> tuple[RatingList, Any]:
    """A club with ``players`` players and ``games`` games in October 2026, or in each of
    the ``months`` months up to it, each in its own open period (fast: COPY)."""
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
    return rating_list, user


def _generate_players(
    *, club: Club, count: int, rng: random.Random, bar: Any, now: datetime.datetime
) -> list[tuple[int, int | None]]:
    """``count`` players of the club -> their (id, birth year) in id order."""

    def player_rows() -> Iterator[tuple[Any, ...]]:
        for i in range(count):
            bar.update()
            yield (club.pk, f"Player {i:06d}", rng.randint(1940, 2016), "", "", "", "", True, now)

    _insert(
        Player,
        (
            "club_id",
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
                "[]",
                rating,
                games_so_far,
                reached,
                "",
                now,
            )

    _insert(
        PlayerRating,
        (
            "player_id",
            "rating_list_id",
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

    _insert(
        Game,
        (
            "club_id",
            "rating_list_id",
            "period_id",
            "date",
            "white_id",
            "black_id",
            "result",
            "rated",
            "created",
        ),
        game_rows(),
    )
