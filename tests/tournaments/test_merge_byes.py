"""The merge and tournament byes: the duplicate's byes move to the kept player, and two
entries of one round are refused (not one person)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from players.errors import ConflictError
from players.services import player_create
from tests.tournaments.import_world import build_import_world
from tournaments.exports import tournament_trf
from tournaments.interchange import parse_trf
from tournaments.models import Tournament, TournamentBye
from tournaments.services import (
    player_merge,
)
from tournaments.services.imports import import_trf

pytestmark = pytest.mark.django_db


def _four_player_trf() -> bytes:
    """Round 1: 1-2, 3-4; round 2: 1-3, 2 has a half-point bye, 4 is absent (Z)."""

    def player(no: int, name: str, rounds: str, points: str) -> str:
        return f"001 {no:>4} m    {name:<33} 2000 NOR             {'1990/00/00':<10} {points:>4} {no:>4}  {rounds}"

    lines = [
        "012 Bye Cup",
        "042 2026/10/03",
        "052 2026/10/04",
        f"{'132':<91}26/10/03  26/10/04",
        player(1, "Aronsen, Viktor", "   2 w 1     3 w 1", "2.0"),
        player(2, "Berg, Ola", "   1 b 0  0000 - H", "0.5"),
        player(3, "Dahl, Per", "   4 b 1     1 b 0", "1.0"),
        player(4, "Moe, Kari", "   3 w 0  0000 - Z", "0.0"),
    ]
    return ("\r\n".join(lines) + "\r\n").encode()


def test_merge_moves_byes_and_refuses_two_entries_of_one_round() -> None:
    world = build_import_world("byes")
    report = import_trf(
        club=world.club, rating_list="standard", data=_four_player_trf(), by=world.arbiter
    )
    assert report.errors == []
    ola = TournamentBye.objects.get(kind="H").player
    kari = TournamentBye.objects.get(kind="Z").player
    owner = world.users["owner"]
    # Ola and Kari never met, but both have rounds 1 and 2 of the Bye Cup: not one person.
    with pytest.raises(ConflictError, match="both played round"):
        player_merge(kept=ola, duplicate=kari, by=owner)
    newcomer = player_create(club=world.club, by=owner, name="Ola Berg")

    merged = player_merge(kept=newcomer, duplicate=ola, by=owner)

    assert (merged.byes_moved, merged.games_moved) == (1, 1)
    assert TournamentBye.objects.get(kind="H").player_id == newcomer.pk
    exported = parse_trf(
        tournament_trf(tournament=Tournament.objects.get(club=world.club)).encode()
    )
    assert {(p.name, p.points) for p in exported.players} >= {("Berg, Ola", Decimal("0.5"))}
