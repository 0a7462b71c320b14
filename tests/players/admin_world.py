"""Two clubs with staff of every role, built through the services, for the admin tests."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Model

from players.jobs import job_start
from players.models import Club, Player, RatingList, RatingPeriod, Role
from players.services import claim_create, club_create, invitation_create, membership_set
from players.webhooks import webhook_create
from tests.tournaments.helpers import close, make_player, period_of, play
from tournaments.models import Tournament
from tournaments.services import player_merge, tournament_create

PASSWORD = "correct horse battery staple"
JANUARY = datetime.date(2025, 1, 15)
FEBRUARY = datetime.date(2025, 2, 12)


@dataclass
class ClubSide:
    club: Club
    players: list[Player]
    tournament: Tournament
    closed: RatingPeriod  # 2025-01, closed
    open: RatingPeriod  # 2025-02, open with games
    users: dict[str, AbstractBaseUser] = field(default_factory=dict)


@dataclass
class World:
    superuser: AbstractBaseUser
    a: ClubSide
    b: ClubSide


def make_user(username: str, *, superuser: bool = False, staff: bool = True) -> AbstractBaseUser:
    manager: Any = get_user_model()._default_manager
    if superuser:
        user: AbstractBaseUser = manager.create_superuser(
            username, f"{username}@example.org", PASSWORD
        )
    else:
        user = manager.create_user(username, f"{username}@example.org", PASSWORD, is_staff=staff)
    return user


def _club(superuser: AbstractBaseUser, slug: str, names: list[str]) -> ClubSide:
    club = club_create(name=f"Club {slug.upper()}", slug=slug, public=False, by=superuser)
    players = [
        make_player(club, superuser, name, 1800 + 40 * index) for index, name in enumerate(names)
    ]
    tournament = tournament_create(
        club=club,
        by=superuser,
        name=f"{slug.upper()} January Open",
        rating_list="standard",
        start_date=datetime.date(2025, 1, 10),
        end_date=datetime.date(2025, 1, 20),
        rounds=2,
    )
    p = players
    play(
        club,
        superuser,
        [(p[0], p[1], "1-0"), (p[2], p[3], "1/2-1/2")],
        date=JANUARY,
        tournament=tournament,
    )
    close(club, superuser, "2025-01")
    play(club, superuser, [(p[1], p[2], "0-1"), (p[3], p[0], "1-0")], date=FEBRUARY)
    side = ClubSide(
        club=club,
        players=players,
        tournament=tournament,
        closed=period_of(club, "2025-01"),
        open=period_of(club, "2025-02"),
    )
    for role in Role:
        user = make_user(f"{role.value}_{slug}")
        membership_set(club=club, user=user, role=role, by=superuser)
        side.users[role.value] = user
    # A member's claim of a record, waiting, for the claims' admin (not staff: members
    # claim on the site; the club's officers decide in the admin).
    claimant = make_user(f"claimant_{slug}", staff=False)
    membership_set(club=club, user=claimant, role=Role.VIEWER, by=superuser)
    claim_create(club=club, player_id=players[3].pk, by=claimant)
    side.users["claimant"] = claimant
    invitation_create(
        club=club,
        by=superuser,
        role=Role.VIEWER,
        email=f"guest@{slug}.example",
        accept_url=lambda secret: f"/accounts/invitations/{secret}/",
    )
    # A job of the club, so that the jobs' admin has a row of each club to show.
    standard = RatingList.objects.get(club=club, kind="standard")
    job_start(kind="history_export", club=club, by=superuser, params={"list": standard.pk})
    # A webhook of the club, for the webhooks' admin; switched off, so nothing is sent.
    webhook_create(
        club=club,
        by=superuser,
        url=f"https://93.184.215.14/{slug}",
        events=["period.closed"],
        active=False,
    )
    # A merge of the club, for the player merges' admin: a second record of the first
    # player, without games, merged into them.
    first = players[0]
    twin = make_player(club, superuser, ", ".join(reversed(first.name.split(" ", 1))), None)
    player_merge(kept=first, duplicate=twin, by=superuser)
    return side


def build_world() -> World:
    superuser = make_user("root", superuser=True)
    a = _club(superuser, "a", ["Alice Archer", "Arthur Ames", "Anna Abbott", "Aaron Avery"])
    b = _club(superuser, "b", ["Bella Brown", "Boris Bell", "Bianca Bloom", "Bruno Baker"])
    return World(superuser=superuser, a=a, b=b)


def club_of(obj: Model) -> int | None:
    """The club id of any row the admin shows (the admin's own lookup)."""
    from players.http.admin import club_id_of, club_lookup_for

    lookup = club_lookup_for(type(obj))
    assert lookup is not None, type(obj)
    return club_id_of(obj, lookup)
