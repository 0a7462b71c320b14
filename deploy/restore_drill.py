"""The restore drill's Python half (deploy/restore-drill.sh runs it with Django set up).

``clubs``: three small clubs whose months are closed the three ways clubs close them:
through the API and through the admin (jobs, so their runs name a job the archive does not
carry) and with ``close_period`` on the command line. ``answers SLUG``: the club's every
list, rating history, K history, tournament and game, by name rather than id, as JSON, to
compare a club with its restored copies. ``users``: the usernames, one a line."""

from __future__ import annotations

import datetime
import json
import os
import sys
from pathlib import Path
from typing import Any

import django

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratings_site.settings.development")
django.setup()

from django.conf import settings  # noqa: E402 - after django.setup()
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client, override_settings  # noqa: E402
from django.urls import reverse  # noqa: E402

from players import services as player_services  # noqa: E402
from players.models import (  # noqa: E402
    Club,
    KFactorChange,
    PlayerRating,
    RatingChange,
    RatingPeriod,
    RatingRun,
)
from tournaments import services  # noqa: E402
from tournaments.models import Game, Tournament  # noqa: E402

# Every lane of the queue, as the settings name them: a task of a lane the backend does not
# list is refused when its module is imported.
IMMEDIATE = {
    "default": {
        "BACKEND": "django_tasks.backends.immediate.ImmediateBackend",
        "QUEUES": list(settings.JOBS_LANES),
    }
}
JANUARY = datetime.date(2026, 1, 1)


def _club(slug: str) -> tuple[Club, Any]:
    owner = get_user_model().objects.create_user(username=f"{slug}-owner", is_staff=True)
    officer = get_user_model().objects.create_user(username=f"{slug}-officer")
    club = player_services.club_create(name=slug.title(), slug=slug, public=True, by=owner)
    player_services.membership_set(club=club, user=officer, role="officer", by=owner)
    players = [
        player_services.player_create(
            club=club,
            by=owner,
            name=f"{slug.title()} Player {i}",
            birth_year=1990,
            ratings=[{"list": "standard", "rating": 1500 + 100 * i, "rated_games": 40}],
        )
        for i in range(6)
    ]
    tournament = services.tournament_create(
        club=club,
        by=owner,
        name=f"{slug.title()} Open",
        rating_list="standard",
        start_date=JANUARY.replace(day=3),
        end_date=JANUARY.replace(day=4),
    )
    services.games_create_bulk(
        club=club,
        by=owner,
        games=[
            {
                "list": "standard",
                "date": JANUARY.replace(day=3 + (i % 2)),
                "white": players[i],
                "black": players[(i + 1) % 6],
                "result": ("1-0", "0-1", "1/2-1/2")[i % 3],
                "tournament": tournament.pk,
            }
            for i in range(6)
        ],
    )
    return club, owner


def clubs() -> None:
    with override_settings(TASKS=IMMEDIATE, ALLOWED_HOSTS=["*"]):
        club, owner = _club("by-api")
        client = Client()
        client.force_login(owner)
        answer = client.post(
            f"/api/v1/clubs/{club.slug}/lists/standard/periods/2026-01/close/?wait=30",
            "{}",
            content_type="application/json",
        )
        assert answer.status_code == 200, answer.content[:500]

        club, owner = _club("by-admin")
        client = Client()
        client.force_login(owner)
        period = RatingPeriod.objects.get(rating_list__club=club, month=JANUARY)
        answer = client.post(
            reverse("admin:players_ratingperiod_changelist"),
            {"action": "close_period", "_selected_action": [period.pk], "post": "yes"},
        )
        assert answer.status_code in (200, 302), answer.status_code

        club, owner = _club("by-command")
        call_command(
            "close_period", club=club.slug, period="2026-01", user=owner.username, stdout=sys.stderr
        )
    for slug, by_job in (("by-api", True), ("by-admin", True), ("by-command", False)):
        runs = RatingRun.objects.filter(rating_list__club__slug=slug)
        assert runs.exists(), f"{slug}: no close"
        assert runs.filter(job__isnull=False).exists() == by_job, f"{slug}: job {by_job}?"


def answers(slug: str) -> None:
    club = Club.objects.get(slug=slug)

    def rows(query: Any, *fields: str) -> list[list[Any]]:
        return [list(map(str, row)) for row in query.order_by(*fields).values_list(*fields)]

    out = {
        "lists": rows(club.rating_lists.all(), "slug", "kind", "system", "k_policy", "name"),
        "ratings": rows(
            PlayerRating.objects.filter(player__club=club),
            "rating_list__slug",
            "player__name",
            "rating",
            "rated_games",
            "k_factor",
            "state",
        ),
        "periods": rows(
            RatingPeriod.objects.filter(rating_list__club=club),
            "rating_list__slug",
            "month",
            "status",
            "closed_by__username",
        ),
        "history": rows(
            RatingChange.objects.filter(player__club=club),
            "period__month",
            "player__name",
            "rating_before",
            "rating_after",
            "change_unrounded",
            "k_factor",
            "expected",
            "current",
        ),
        "k_history": rows(
            KFactorChange.objects.filter(player__club=club),
            "player__name",
            "effective_month",
            "old_k",
            "new_k",
            "reason",
        ),
        "tournaments": rows(Tournament.objects.filter(club=club), "name", "start_date"),
        "games": rows(
            Game.objects.filter(club=club),
            "date",
            "white__name",
            "black__name",
            "result",
            "tournament__name",
        ),
        "runs": rows(
            RatingRun.objects.filter(rating_list__club=club), "started", "kind", "by__username"
        ),
    }
    json.dump(out, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "clubs":
        clubs()
    elif command == "answers":
        answers(sys.argv[2])
    elif command == "users":
        print("\n".join(get_user_model().objects.values_list("username", flat=True)))
