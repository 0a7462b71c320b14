"""Importing tournament files (FIDE TRF, PGN headers, a CSV of games) into a club's list.

One service per format (:func:`import_trf`, :func:`import_pgn`, :func:`import_csv`), all
built the same way:

1. the arbiter role is checked through the selectors (404 for a private club's outsider);
2. the pure parser reads the file (``tournaments.interchange``); its errors, with line
   numbers, end the import with nothing stored;
3. in one durable transaction: "already imported?" (the file's SHA-256 on
   ``Tournament.import_digest``, and the same games already stored), closed periods,
   player matching (one query for the FIDE IDs, one for the names), then the players,
   tournaments and games through the tracker's bulk services, which validate every game
   and lock its period as a hand-entered game's would;
4. a dry run does all of that and rolls the transaction back, so its report is exactly
   what a real run would say.

Players are matched by FIDE ID, else by the name key (players.names: case, accents,
punctuation and the order of the parts ignored) and birth date (or year); the same key
with birth data missing on one side is a possible match, listed in the report and taken
or not as the caller's ``match`` says ("possible" or "new"); else created. A created player gets the rating the file
gives as their entered rating on the import's list (0 rated games: the file does not say).
Byes are not games: they are listed in the report and kept with the tournament (TournamentBye).

Modules: :mod:`.service` (the services), :mod:`.formats` and :mod:`.game_files` (the
front ends of a TRF, and of PGN and CSV games: a parsed file -> a plan, :mod:`.plan`),
:mod:`.matching` (the file's players and games
against the club's), :mod:`.store` (the transaction that writes), :mod:`.report` (what
the import did). Callers import from here.
"""

from __future__ import annotations

from tournaments.services.imports.matching import MATCH_CHOICES
from tournaments.services.imports.report import (
    ByeEntry,
    ImportReport,
    LineMessage,
    NotRatedEntry,
    PlayerEntry,
    PossibleMatch,
    TournamentEntry,
    report_summary,
)
from tournaments.services.imports.service import (
    FORMATS,
    IMPORTERS,
    import_csv,
    import_file,
    import_pgn,
    import_trf,
    upload_too_large,
)

__all__ = [
    "FORMATS",
    "IMPORTERS",
    "MATCH_CHOICES",
    "ByeEntry",
    "ImportReport",
    "LineMessage",
    "NotRatedEntry",
    "PlayerEntry",
    "PossibleMatch",
    "TournamentEntry",
    "import_csv",
    "import_file",
    "import_pgn",
    "import_trf",
    "report_summary",
    "upload_too_large",
]
