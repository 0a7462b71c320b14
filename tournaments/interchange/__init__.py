"""Tournament-file interchange: strict parsers and writers with no database.

Module map:

* :mod:`.records`: the frozen dataclasses every format produces, and the errors.
* :mod:`.trf`: FIDE TRF16 / TRF-2026 reader (:func:`parse_trf`) and TRF16 writer
  (:func:`write_trf`).
* :mod:`.pgn`: PGN headers via python-chess (:func:`parse_pgn`); :mod:`.pgn_writer`
  writes a tournament's games back as PGN headers (:func:`write_pgn`).
* :mod:`.games_csv`: a CSV of games (:func:`parse_games_csv`).
* :mod:`.exports`: rating list CSV/TXT and a player's history CSV.
* :mod:`.source`: decoding, error collection and the progress hook shared by the parsers.

The import services build on these: they match players, write rows and report.
"""

from __future__ import annotations

from tournaments.interchange.exports import (
    HistoryRow,
    ListRow,
    StateValue,
    write_history_csv,
    write_list_csv,
    write_list_history_csv,
    write_list_txt,
)
from tournaments.interchange.games_csv import parse_games_csv
from tournaments.interchange.pgn import parse_pgn
from tournaments.interchange.pgn_writer import write_pgn
from tournaments.interchange.records import (
    FORFEIT_RESULTS,
    ByeKind,
    GameResult,
    InterchangeError,
    ParsedBye,
    ParsedGame,
    ParsedGames,
    ParsedPlayer,
    ParsedTournament,
    ParseError,
    ParseWarning,
    PlayerRef,
    ProgressCallback,
)
from tournaments.interchange.source import Source, count_lines
from tournaments.interchange.trf import parse_trf, write_trf

__all__ = [
    "FORFEIT_RESULTS",
    "ByeKind",
    "GameResult",
    "HistoryRow",
    "InterchangeError",
    "ListRow",
    "ParseError",
    "ParseWarning",
    "ParsedBye",
    "ParsedGame",
    "ParsedGames",
    "ParsedPlayer",
    "ParsedTournament",
    "PlayerRef",
    "ProgressCallback",
    "Source",
    "StateValue",
    "count_lines",
    "parse_games_csv",
    "parse_pgn",
    "parse_trf",
    "write_history_csv",
    "write_list_csv",
    "write_list_history_csv",
    "write_list_txt",
    "write_pgn",
    "write_trf",
]
