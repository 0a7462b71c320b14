"""A club with one user per role, and the hand-written files, for the import tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model

from players.models import Club, KFactorChange, Player, PlayerRating, RatingPeriod, Role
from players.services import club_create, membership_set
from tournaments.models import Game, Tournament

FILES = Path(__file__).parent / "files"
ROLES = ("owner", "officer", "arbiter", "viewer")


def read(name: str) -> bytes:
    return (FILES / name).read_bytes()


@dataclass
class ImportWorld:
    club: Club
    users: dict[str, Any]
    outsider: Any

    @property
    def arbiter(self) -> Any:
        return self.users["arbiter"]


def build_import_world(slug: str = "riverton", *, public: bool = False) -> ImportWorld:
    users_model = get_user_model()
    users = {
        # No passwords: hashing them would dominate the tests' time; clients log in with
        # force_login / force_authenticate.
        role: users_model.objects.create_user(f"{slug}-{role}")
        for role in ROLES
    }
    club = club_create(name=slug.title(), slug=slug, public=public, by=users["owner"])
    for role in ("officer", "arbiter", "viewer"):
        membership_set(club=club, user=users[role], role=Role(role), by=users["owner"])
    outsider = users_model.objects.create_user(f"{slug}-outsider")
    return ImportWorld(club=club, users=users, outsider=outsider)


def counts() -> dict[str, int]:
    """Rows an import may write; equal before and after a refused import."""
    return {
        "players": Player.objects.count(),
        "ratings": PlayerRating.objects.count(),
        "k_changes": KFactorChange.objects.count(),
        "tournaments": Tournament.objects.count(),
        "games": Game.objects.count(),
        "periods": RatingPeriod.objects.count(),
    }


def without_ids(report: dict[str, Any]) -> dict[str, Any]:
    """A report's dict without what only a real run can know (row ids) or says differently."""
    data = {key: value for key, value in report.items() if key not in ("dry_run", "stored")}
    for key in ("players_created",):
        data[key] = [{**entry, "player_id": None} for entry in data[key]]
    data["tournaments"] = [{**entry, "id": None} for entry in data["tournaments"]]
    if data["tournament"] is not None:
        data["tournament"] = {**data["tournament"], "id": None}
    return data
