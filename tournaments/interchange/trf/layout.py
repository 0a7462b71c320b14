"""The layout of a FIDE Tournament Report File (TRF16 and TRF-2026): columns and codes.

The reader (:mod:`.reader`, one line at a time in :mod:`.lines`) and the writer
(:mod:`.writer`) both follow it.

Source of the layout: FIDE Handbook C.04 Annex 2, "Format of TRF (Tournament Report File)",
TRF16 (C. Krause, Torino 2006; updated Tromso 13/08/2014; approved Elista 10/08/2015), and
its successor TRF26 (Handbook C.02.03 Annexure A, approved 12/05/2025), which keeps the
``001`` record and the ``012``-``132`` headers unchanged and adds records such as ``142``
(number of rounds), ``162``, ``192``, ``202``/``212``, ``222``, ``240``, ``250``, ``260``
and ``###`` comment lines. Columns are 1-based and inclusive, as in the FIDE documents.

Header records: columns 1-3 the code, free text from column 5.

====  ================================================================================
012   tournament name                    022  city
032   federation                         042  start date (TRF26: YYYY/MM/DD)
052   end date                           062  number of players (checked, warning)
072   number of rated players            092  type of tournament
122   allotted time per moves/game       132  round dates, YY/MM/DD, round r at
                                              columns 92+10(r-1) to 99+10(r-1)
====  ================================================================================

Player record ``001``:

=========  ======================================================================
1-3        ``001``
5-8        starting rank (start number), 1-9999
10         sex: ``m`` / ``w`` (``f`` read as ``w``)
11-13      title: GM, IM, WGM, FM, WIM, CM, WFM, WCM
15-47      name, "Lastname, Firstname"
49-52      FIDE rating (blank or 0: unrated)
54-56      FIDE federation
58-68      FIDE ID (11 columns, three of them reserve)
70-79      birth date YYYY/MM/DD (``YYYY`` or ``YYYY/00/00`` give the year only)
81-84      points, e.g. ``11.5``
86-89      rank
92-95      round 1: opponent's start number; ``0000`` or blank: no opponent
97         round 1: colour ``w`` / ``b``; ``-`` or blank: none
99         round 1: result code (below)
102-109    round 2 likewise (every round 10 columns further on), and so on
=========  ======================================================================

Result codes (letters case-insensitive): ``1`` ``=`` ``0`` played and rated; ``+`` ``-``
forfeit win / loss (recorded, not rated; ``-`` against ``-`` is a double forfeit);
``W`` ``D`` ``L`` the game lasted less than one move (recorded with its result, not rated);
``H`` ``F`` ``U`` ``Z`` half-point, full-point, pairing-allocated and zero-point byes;
blank means ``Z``. Byes are recorded as :class:`ParsedBye`, not games.

Strictness: the separating columns (4, 9, 14, 48, 53, 57, 69, 80, 85, 90-91 and the blanks
inside and between round blocks) must be blank, so a field shifted by one column is an
error, not a silently wrong number. Every game is described by both players' lines; the two
must name each other, have opposite colours and complementary results, or both lines are
reported. Unknown record codes of three digits or of the ``XX?``/``BB?`` extension form are
kept in :attr:`ParsedTournament.extra_headers`; anything else is an error.
"""

from __future__ import annotations

from tournaments.interchange.records import GameResult

__all__ = [
    "BYE_CODES",
    "FIRST_ROUND_COLUMN",
    "GAME_CODES",
    "HEADER_CODES",
    "NO_ROUND",
    "PLAYER_SEPARATORS",
    "ROUND_WIDTH",
    "TITLES",
    "WHITE_CODE_RESULT",
    "RoundEntry",
]

TITLES = frozenset({"GM", "IM", "WGM", "FM", "WIM", "CM", "WFM", "WCM"})

FIRST_ROUND_COLUMN = 92  # 1-based column of round 1's opponent number
ROUND_WIDTH = 10

# 0-based indexes of the columns that separate the fixed fields of a 001 line.
PLAYER_SEPARATORS = (3, 8, 13, 47, 52, 56, 68, 79, 84, 89, 90)

BYE_CODES = frozenset("HFUZ")
GAME_CODES = frozenset("10=+-WDL")
# A line's own code seen from White's side: the result, whether rated, and the note.
WHITE_CODE_RESULT: dict[tuple[str, str], tuple[GameResult, bool, str]] = {
    ("1", "0"): (GameResult.WHITE_WINS, True, ""),
    ("0", "1"): (GameResult.BLACK_WINS, True, ""),
    ("=", "="): (GameResult.DRAW, True, ""),
    ("+", "-"): (GameResult.WHITE_WINS_FORFEIT, False, "forfeit"),
    ("-", "+"): (GameResult.BLACK_WINS_FORFEIT, False, "forfeit"),
    ("-", "-"): (GameResult.DOUBLE_FORFEIT, False, "double forfeit"),
    ("W", "L"): (GameResult.WHITE_WINS, False, "less than one move"),
    ("L", "W"): (GameResult.BLACK_WINS, False, "less than one move"),
    ("D", "D"): (GameResult.DRAW, False, "less than one move"),
}

# A round with neither a game nor a bye: as a blank result code (Z).
NO_ROUND = (0, "", "Z")

# (opponent start number or 0, colour "w"/"b"/"", result code upper-case; blank -> "Z")
RoundEntry = tuple[int, str, str]

HEADER_CODES = frozenset({"012", "022", "032", "042", "052", "062", "072", "092", "122", "132"})
