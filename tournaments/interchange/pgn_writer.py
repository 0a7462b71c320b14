"""A tournament's games as PGN headers (no moves: the tracker stores results, not moves).

The seven-tag roster plus the players' ratings and FIDE IDs, so ``parse_pgn`` reads the
file back as the same games, rated flags included. PGN has no result code for a forfeit
or an unrated game, so the standard ``Termination`` tag (which other readers keep) and a
comment say it:

* a forfeit: its winner's result (``*`` for a double forfeit, which has none),
  ``[Termination "forfeit"]`` and ``{ forfeit: not played }``;
* a game that ended before a move, recorded with its result but not rated (TRF ``W``/``D``/
  ``L``; the tracker's unrated games): ``[Termination "rules infraction"]`` and
  ``{ not rated: the game ended before a move }``. (A draw before a move breaks the Laws'
  competition rule 9.1.1, so "rules infraction" fits it too.)
"""

from __future__ import annotations

from collections.abc import Iterable

from tournaments.interchange.records import (
    FORFEIT_RESULTS,
    GameResult,
    ParsedGame,
    ParsedTournament,
)
from tournaments.interchange.text import one_line

__all__ = ["TERMINATION_BEFORE_A_MOVE", "TERMINATION_FORFEIT", "write_pgn"]

#: ``Termination`` values (PGN standard 9.8.1 lists "rules infraction"; "forfeit" is the
#: word arbiters' programs write) that ``parse_pgn`` reads back, compared case-blind.
TERMINATION_FORFEIT = "forfeit"
TERMINATION_BEFORE_A_MOVE = "rules infraction"

_RESULT_TAGS = {
    GameResult.WHITE_WINS: "1-0",
    GameResult.BLACK_WINS: "0-1",
    GameResult.DRAW: "1/2-1/2",
    GameResult.WHITE_WINS_FORFEIT: "1-0",
    GameResult.BLACK_WINS_FORFEIT: "0-1",
    GameResult.DOUBLE_FORFEIT: "*",
}


def _tag(name: str, value: object) -> str:
    # A tag is one line (a line break in a name started a tag or movetext of its own):
    # control characters go as in every export (one_line). PGN standard 8.1.1: a
    # backslash and a quote inside a tag value are escaped.
    text = one_line(str(value)).replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{text}"]'


def _game(tournament: ParsedTournament, game: ParsedGame) -> str:
    result = _RESULT_TAGS[game.result]
    tags = [
        ("Event", tournament.name),
        ("Site", tournament.city or "?"),
        ("Date", game.date.strftime("%Y.%m.%d") if game.date else "????.??.??"),
        ("Round", game.round if game.round is not None else "?"),
        ("White", game.white.name),
        ("Black", game.black.name),
        ("Result", result),
    ]
    for side, ref in (("White", game.white), ("Black", game.black)):
        if ref.rating is not None:
            tags.append((f"{side}Elo", ref.rating))
        if ref.fide_id is not None:
            tags.append((f"{side}FideId", ref.fide_id))
    if tournament.start_date is not None:
        tags.append(("EventDate", tournament.start_date.strftime("%Y.%m.%d")))
    movetext = result
    if game.result in FORFEIT_RESULTS:
        tags.append(("Termination", TERMINATION_FORFEIT))
        movetext = f"{{ forfeit: not played }} {result}"
    elif not game.rated:
        tags.append(("Termination", TERMINATION_BEFORE_A_MOVE))
        movetext = f"{{ not rated: the game ended before a move }} {result}"
    return "\n".join(_tag(name, value) for name, value in tags) + f"\n\n{movetext}\n"


def write_pgn(tournament: ParsedTournament, games: Iterable[ParsedGame] | None = None) -> str:
    """Every game of ``tournament`` (or ``games``), one header block each, in file order."""
    chosen = tournament.games if games is None else games
    return "\n".join(_game(tournament, game) for game in chosen)
