"""What a peer tool reads from our TRF export equals what we hold.

FIDE's own TRF reader (gacrux: trf2json, the reader behind its pairing and tie-break
checkers) and the ``trf`` package read the export of an imported Swiss with byes of every
kind (H, F, U, Z), forfeits (+, -, --), unrated games (W, D, L), a withdrawal and the
headers 032, 092, 102, 122 (142 is written from the rounds). They must agree with the
database on the headers, the number of rounds, every round's pairings with colours and
results, each player's points and rating; gacrux's points and its Buchholz and
Sonneborn-Berger (C.07) must equal our standings'.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
import trf
from gacrux.tiebreak import tiebreak
from gacrux.trf2json import trf2json

from players.models import Player
from players.names import name_key
from players.services import player_update
from ratings_site.pages.tournaments import tournament_view
from tests.tournaments.import_world import build_import_world, read
from tournaments.exports import tournament_trf
from tournaments.models import Game, Tournament, TournamentBye
from tournaments.services.imports import import_trf

pytestmark = pytest.mark.django_db

FILE = "swiss_9_rounds.trf"

# gacrux's codes for one side of a round: W, D, L played; an unplayed round is W (forfeit
# win, full-point bye), D (half-point bye), Z (forfeit loss, zero-point bye, absent) or P
# (pairing-allocated bye, which gacrux files as played and unrated).
GAME_CODES: dict[str, tuple[str, str, bool]] = {
    "1-0": ("W", "L", True),
    "0-1": ("L", "W", True),
    "1/2-1/2": ("D", "D", True),
    "+-": ("W", "Z", False),
    "-+": ("Z", "W", False),
    "--": ("Z", "Z", False),
}
BYE_CODES: dict[str, tuple[str, bool]] = {"F": ("W", False), "H": ("D", False), "U": ("P", True)}
ABSENT = ("Z", False)  # a Z bye, or a round with nothing: the export writes 0000 - Z

Key = Hashable


def key_of(fide_id: int | None, name: str) -> Key:
    return fide_id or name_key(name)


@dataclass
class Imported:
    tournament: Tournament
    export: str


def import_and_export(slug: str) -> Imported:
    world = build_import_world(slug)
    report = import_trf(club=world.club, rating_list="standard", data=read(FILE), by=world.arbiter)
    assert report.errors == []
    tournament = Tournament.objects.get(club=world.club)
    return Imported(tournament, tournament_trf(tournament=tournament))


@pytest.fixture
def imported() -> Imported:
    return import_and_export("oracle")


@dataclass
class GacruxRead:
    event: dict[str, Any]
    tournament: dict[str, Any]
    keys: dict[int, Key]  # gacrux's cid -> our key

    def profile(self, profile_id: int) -> dict[str, Any]:
        return next(p for p in self.event["profiles"] if p["id"] == profile_id)


def gacrux_read(text: str) -> GacruxRead:
    reader = trf2json()
    reader.parse_file(text, 0)
    status = reader.chessjson["status"]
    assert status["code"] == 0, status
    event = reader.chessjson["event"]
    tournament = reader.get_tournament(1)
    read = GacruxRead(event, tournament, {})
    for competitor in tournament["competitors"]:
        profile = read.profile(competitor["profileId"])
        read.keys[competitor["cid"]] = key_of(profile.get("fideId"), profile["fideName"])
    return read


def gacrux_tiebreaks(read: GacruxRead, names: list[str]) -> dict[Key, dict[str, Decimal]]:
    """gacrux's tie-break computation (its tiebreakchecker's, for an individual Swiss)."""
    params = {
        "tiebreak": names,
        "current_round": -1,
        "pre_determined": False,
        "swiss": True,
        "unrated": None,
        "check": 0,
        "rank": False,
        "game_score": None,
        "match_score": None,
        "experimental": [],
        "verbose": 0,
        "is_rr": None,
        "number_of_rounds": 0,
    }
    result = tiebreak(read.tournament, -1, params).compute_tiebreaks(read.tournament, params)
    return {
        read.keys[c["cid"]]: {
            name: Decimal(str(value)) for name, value in zip(names, c["tiebreakScore"], strict=True)
        }
        for c in result["competitors"]
    }


def held_rounds(tournament: Tournament) -> tuple[set[tuple[Any, ...]], dict[Key, Player]]:
    """What the database holds, in gacrux's terms: (round, white, black, white's code,
    black's code, played, rated) per game, (round, player, None, code, played) per bye or
    absent round."""
    players: dict[Key, Player] = {}
    rounds = tournament.rounds or 0
    seen: dict[Key, set[int]] = defaultdict(set)
    held: set[tuple[Any, ...]] = set()
    for game in Game.objects.filter(tournament=tournament).select_related("white", "black"):
        white, black = (key_of(p.fide_id, p.name) for p in (game.white, game.black))
        players[white], players[black] = game.white, game.black
        assert game.round is not None
        white_code, black_code, played = GAME_CODES[game.result]
        held.add((game.round, white, black, white_code, black_code, played, game.rated and played))
        seen[white].add(game.round)
        seen[black].add(game.round)
    for bye in TournamentBye.objects.filter(tournament=tournament).select_related("player"):
        player = key_of(bye.player.fide_id, bye.player.name)
        players[player] = bye.player
        held.add((bye.round, player, None, *BYE_CODES.get(bye.kind, ABSENT)))
        seen[player].add(bye.round)
    for player in players:
        held |= {(n, player, None, *ABSENT) for n in range(1, rounds + 1) if n not in seen[player]}
    return held, players


def gacrux_rounds(read: GacruxRead) -> set[tuple[Any, ...]]:
    found: set[tuple[Any, ...]] = set()
    for game in read.tournament["gameList"]:
        white = read.keys[game["white"]["cid"]]
        if game.get("black") is None:
            found.add((game["round"], white, None, game["white"]["result"], game["played"]))
            continue
        black = read.keys[game["black"]["cid"]]
        found.add(
            (
                game["round"],
                white,
                black,
                game["white"]["result"],
                game["black"]["result"],
                game["played"],
                game["rated"],
            )
        )
    return found


def our_standings(tournament: Tournament) -> dict[Key, Any]:
    view = tournament_view(tournament=tournament)
    return {key_of(row.player.fide_id, row.player.name): row for row in view.rows}


def test_gacrux_reads_the_headers_we_hold(imported: Imported) -> None:
    read = gacrux_read(imported.export)
    held = imported.tournament
    info = read.tournament["tournamentInfo"]
    assert (info["fullName"], info["site"], info["federation"]) == (
        held.name,
        held.city,
        held.federation,
    )
    assert (info["startDate"], info["endDate"]) == (
        held.start_date.isoformat(),
        held.end_date.isoformat(),
    )
    assert read.tournament["tournamentType"] == held.tournament_type  # 092
    assert read.tournament["timeControl"]["description"] == held.time_control  # 122
    chief = read.profile(read.event["eventInfo"]["arbiters"]["chiefArbiter"])  # 102
    assert f"{chief['fideOTitle']} {chief['firstName']} {chief['lastName']}" == held.arbiter
    assert read.tournament["numRounds"] == held.rounds == 9  # 142
    # Each round's date (132) is its earliest game's.
    first_day: dict[int, datetime.date] = {}
    for game in Game.objects.filter(tournament=held):
        assert game.round is not None
        first_day[game.round] = min(first_day.get(game.round, game.date), game.date)
    assert {r["roundNo"]: r["startTime"] for r in read.tournament["rounds"]} == {
        number: day.isoformat() for number, day in first_day.items()
    }


def test_gacrux_reads_every_round_as_we_hold_it(imported: Imported) -> None:
    held, players = held_rounds(imported.tournament)
    read = gacrux_read(imported.export)
    assert set(read.keys.values()) == set(players)
    assert gacrux_rounds(read) == held


def test_gacrux_points_and_ratings_equal_our_standings(imported: Imported) -> None:
    read = gacrux_read(imported.export)
    ours = our_standings(imported.tournament)
    theirs = gacrux_tiebreaks(read, ["PTS"])  # computed from the rounds, not the column
    written = {
        read.keys[c["cid"]]: Decimal(c["gamePoints"]) for c in read.tournament["competitors"]
    }
    assert set(theirs) == set(ours) == set(written)
    for player, row in ours.items():
        score = as_decimal(row.standing.tiebreaks.score)
        assert theirs[player]["PTS"] == written[player] == score, player
    ratings = {
        read.keys[c["cid"]]: (c.get("rating") or {}).get("rating") or None
        for c in read.tournament["competitors"]
    }
    assert ratings == {player: row.rating for player, row in ours.items()}


# Buchholz and Sonneborn-Berger against gacrux's (C.07, the rules chosen by the start
# date): a round robin without unplayed rounds, and the Swiss with every kind of them.
TIEBREAK_FILES = ["round_robin_trf26.trf", "swiss_9_rounds.trf"]


@pytest.mark.parametrize("name", TIEBREAK_FILES)
def test_gacrux_tiebreaks_equal_ours(name: str) -> None:
    world = build_import_world("tiebreaks")
    import_trf(club=world.club, rating_list="standard", data=read(name), by=world.arbiter)
    tournament = Tournament.objects.get(club=world.club)
    ours = our_standings(tournament)
    theirs = gacrux_tiebreaks(gacrux_read(tournament_trf(tournament=tournament)), ["BH", "SB"])
    assert set(theirs) == set(ours)
    for player, row in ours.items():
        figures = row.standing.tiebreaks
        assert theirs[player]["BH"] == as_decimal(figures.buchholz), player
        assert theirs[player]["SB"] == as_decimal(figures.sonneborn_berger), player


def as_decimal(value: Fraction) -> Decimal:
    return Decimal(value.numerator) / Decimal(value.denominator)


def test_the_trf_package_reads_what_we_hold() -> None:
    imported = import_and_export("trfpkg")
    # trf 1.1.1 reads a title of two letters only (its player pattern puts a space after
    # the sex, where TRF16 has the title in columns 11-13): a WGM's line is refused, the
    # original file's too. Its check runs on the same tournament with those titles cleared.
    owner = imported.tournament.club.memberships.get(role="owner").user
    for player in Player.objects.filter(club=imported.tournament.club, title__regex=r"^...$"):
        player_update(player=player, by=owner, title="")
    text = tournament_trf(tournament=imported.tournament)
    parsed = trf.loads(text)
    held = imported.tournament
    assert (parsed.name, parsed.city, parsed.federation, parsed.type) == (
        held.name,
        held.city,
        held.federation,
        held.tournament_type,
    )
    assert (parsed.chiefarbiter, parsed.rateofplay) == (held.arbiter, held.time_control)
    assert (parsed.startdate, parsed.enddate) == (
        held.start_date.strftime("%Y/%m/%d"),
        held.end_date.strftime("%Y/%m/%d"),
    )
    assert max(len(p.games) for p in parsed.players) == held.rounds
    ours = our_standings(held)
    by_start = {p.startrank: key_of(p.id, p.name) for p in parsed.players}
    assert set(by_start.values()) == set(ours)
    for player in parsed.players:
        row = ours[key_of(player.id, player.name)]
        assert Decimal(str(player.points)) == as_decimal(row.standing.tiebreaks.score)
        assert (player.rating or None) == row.rating
    # Pairings and colours: each game seen from white's side; trf keeps the codes as written.
    held_games, _ = held_rounds(held)
    games = {
        (game.round, by_start[player.startrank], by_start[game.startrank])
        for player in parsed.players
        for game in player.games
        if game.startrank and game.color == "w"
    }
    assert games == {(r[0], r[1], r[2]) for r in held_games if r[2] is not None}
