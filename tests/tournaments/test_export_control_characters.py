"""No control character from a name reaches an export: every format's free text goes
through one function (tournaments/interchange/text.py ``one_line``), PGN's tags included
(a line break in a tournament's name used to start a tag of its own)."""

from __future__ import annotations

import datetime
import re

import pytest

from tests.tournaments.helpers import make_club, make_owner, make_player
from tournaments.exports import tournament_pgn, tournament_trf
from tournaments.interchange import parse_pgn
from tournaments.services import games_create_bulk, tournament_create

pytestmark = pytest.mark.django_db

DAY = datetime.date(2026, 9, 5)
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def test_no_control_character_reaches_a_pgn_or_a_trf() -> None:
    owner = make_owner()
    club = make_club(owner, "controls")
    white = make_player(club, owner, "Viktor\r\nAronsen", 1800)
    black = make_player(club, owner, "Ola\x1fBerg", 1700)
    tournament = tournament_create(
        club=club,
        by=owner,
        name='Autumn\r\nOpen\n[Event "forged"]\x0b\u2028',
        rating_list="standard",
        start_date=DAY,
        end_date=DAY,
        rounds=1,
        city="Oslo\x1bN",
    )
    games_create_bulk(
        club=club,
        by=owner,
        games=[
            {
                "date": DAY,
                "white": white,
                "black": black,
                "result": "1-0",
                "tournament": tournament,
                "round": 1,
            }
        ],
    )

    pgn = tournament_pgn(tournament=tournament)
    # One tag a line, each a whole tag: no line of the file starts inside a name.
    tags = [line for line in pgn.split("\n") if line.startswith("[")]
    assert all(re.fullmatch(r'\[\w+ "(?:[^"\\]|\\.)*"\]', tag) for tag in tags), tags
    assert not CONTROL.search(pgn)
    assert [tag for tag in tags if tag.startswith("[Event ")] == [
        '[Event "Autumn Open [Event \\"forged\\"]"]'
    ]
    (game,) = parse_pgn(pgn.encode()).games
    # Surname first or not is the list's choice (tests/tournaments/test_exports.py).
    words = [sorted(re.findall(r"\w+", name)) for name in (game.white.name, game.black.name)]
    assert words == [["Aronsen", "Viktor"], ["Berg", "Ola"]]
    assert not CONTROL.search(tournament_trf(tournament=tournament).replace("\r\n", "\n"))
