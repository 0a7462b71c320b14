"""Plain records shared by every tournament-file format (TRF, PGN, CSV).

The parsers turn a file into these frozen dataclasses and nothing else: no database, no
Django models. The import services (a later layer) match the players, create the rows and
decide what to store. Every record keeps the 1-based line of the file it came from, so a
report can always point the user at the line to fix.

Results are always written from White's side in the tracker's own codes
(:class:`GameResult`); whether a game counts for rating is a separate flag (``rated``),
because an unplayed or less-than-one-move game keeps its result but is never rated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from enum import StrEnum
from typing import Any

#: Called with the number of lines processed so far (cumulative), so a management command can
#: drive a progress bar. Parsers call it every few thousand lines and once at the end.
ProgressCallback = Callable[[int], None]


class GameResult(StrEnum):
    """A game's result from White's side, in the tracker's codes."""

    WHITE_WINS = "1-0"
    BLACK_WINS = "0-1"
    DRAW = "1/2-1/2"
    #: White won by forfeit (Black did not play): recorded, never rated.
    WHITE_WINS_FORFEIT = "+-"
    #: Black won by forfeit.
    BLACK_WINS_FORFEIT = "-+"
    #: Neither player appeared.
    DOUBLE_FORFEIT = "--"


#: The results that mean the game was not played; such a game is never rated.
FORFEIT_RESULTS = frozenset(
    {GameResult.WHITE_WINS_FORFEIT, GameResult.BLACK_WINS_FORFEIT, GameResult.DOUBLE_FORFEIT}
)


class ByeKind(StrEnum):
    """Why a player had no game in a round (TRF result codes H, F, U, Z; blank means Z)."""

    HALF_POINT = "H"
    FULL_POINT = "F"
    #: Pairing-allocated bye: the odd player left over by the pairing program.
    PAIRING_ALLOCATED = "U"
    #: Zero-point bye: a known absence, also every round after a withdrawal.
    ZERO_POINT = "Z"


@dataclass(frozen=True, slots=True)
class PlayerRef:
    """Who sat at one side of a game, as far as the file tells.

    TRF games carry the start number (the key into :attr:`ParsedTournament.players`) and the
    player's name, FIDE ID and rating copied from the player line; PGN and CSV games carry
    whatever their headers or columns give. The import service matches by FIDE ID first,
    then by name.
    """

    name: str
    start_no: int | None = None
    fide_id: int | None = None
    rating: int | None = None


@dataclass(frozen=True, slots=True)
class ParsedPlayer:
    """One TRF ``001`` player line (start number, identity, rating, standing)."""

    start_no: int | None
    name: str
    fide_id: int | None
    birth_date: date | None
    #: Set whenever the birth date or at least its year is known ("1990/00/00" gives only it).
    birth_year: int | None
    #: "m", "w" or "" (unknown); TRF's "f" is read as "w".
    sex: str
    #: "GM", "IM", ..., or "" (untitled).
    title: str
    #: Three-letter FIDE federation code or "".
    federation: str
    #: The rating printed in the file; None when blank or 0 (unrated).
    rating: int | None
    line: int
    #: The points the file states (its own scoring system); None when blank.
    points: Decimal | None = None
    #: The final rank the file states; None when blank.
    rank: int | None = None

    def ref(self) -> PlayerRef:
        """The reference games use to point at this player."""
        return PlayerRef(
            name=self.name, start_no=self.start_no, fide_id=self.fide_id, rating=self.rating
        )


@dataclass(frozen=True, slots=True)
class ParsedGame:
    """One game: in a TRF both players' lines describe it, but it is emitted once."""

    round: int | None
    date: date | None
    white: PlayerRef
    black: PlayerRef
    result: GameResult
    #: False for forfeits, double forfeits and games that lasted less than one move.
    rated: bool
    #: Why a recorded game is not rated ("forfeit", "less than one move", ...), else "".
    note: str
    #: The line the game was read from (the lower start number's line in a TRF).
    line: int
    #: Event or tournament name the file gives for this game ("" when none).
    tournament: str = ""
    #: Time control as written in the file ("" when none).
    time_control: str = ""
    #: The other line that describes the same game (TRF only: the opponent's line).
    other_line: int | None = None
    #: Where it was played as the file gives it (PGN's Site; "" when none).
    site: str = ""

    def fields_but_line(self) -> tuple[Any, ...]:
        """Every field but ``line``, in declaration order: a row of
        ``RecordTable.extend_fields`` (the readers hand games to the table in batches)."""
        return (
            self.round,
            self.date,
            self.white,
            self.black,
            self.result,
            self.rated,
            self.note,
            self.tournament,
            self.time_control,
            self.other_line,
            self.site,
        )


@dataclass(frozen=True, slots=True)
class ParsedBye:
    """A round in which a player had no game. Recorded, never rated."""

    round: int
    player: PlayerRef
    kind: ByeKind
    #: The round's date when the file gives one.
    date: date | None
    line: int


@dataclass(frozen=True, slots=True)
class ParseError:
    """One problem that makes the file unusable, at a 1-based line (0 = the file as a whole)."""

    line: int
    message: str
    #: A second line involved (TRF: the opponent's line that the first one contradicts).
    other_line: int | None = None

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


@dataclass(frozen=True, slots=True)
class ParseWarning:
    """Something worth telling the user that does not stop the import."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


class InterchangeError(ValueError):
    """A file could not be read; ``errors`` lists every problem found, in line order."""

    def __init__(self, errors: list[ParseError]) -> None:
        self.errors = sorted(errors, key=lambda error: error.line)
        shown = "; ".join(str(error) for error in self.errors[:5])
        more = f" (and {len(self.errors) - 5} more)" if len(self.errors) > 5 else ""
        super().__init__(f"{len(self.errors)} error(s): {shown}{more}")


@dataclass(frozen=True, slots=True)
class ParsedTournament:
    """A whole TRF: header, players, games (each once), byes and warnings."""

    name: str
    city: str
    federation: str
    start_date: date | None
    end_date: date | None
    rounds: int
    #: One entry per round, None where the file gives no date.
    round_dates: tuple[date | None, ...]
    players: tuple[ParsedPlayer, ...]
    #: Each game once, kept column by column (a RecordTable) as a PGN's or CSV's are.
    games: Sequence[ParsedGame]
    byes: tuple[ParsedBye, ...]
    warnings: tuple[ParseWarning, ...]
    #: Header 092 (free text, e.g. "Swiss Dutch").
    tournament_type: str = ""
    #: Header 122 (free text, e.g. "90 min/40 moves + 30 min + 30 s").
    time_control: str = ""
    #: Every other header or extension line kept as text, by code ("102", "142", "XXR", ...).
    extra_headers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: The line of the 132 record (round dates); 0 when the file has none.
    round_dates_line: int = 0
    #: The lines of the 042 and 052 records (start and end dates); 0 when absent.
    start_date_line: int = 0
    end_date_line: int = 0


@dataclass(frozen=True, slots=True)
class ParsedGames:
    """The games of a PGN or CSV file (they may belong to several events)."""

    #: In the file's order; the parsers keep them column by column (a RecordTable).
    games: Sequence[ParsedGame]
    warnings: tuple[ParseWarning, ...]
    #: Games left out on purpose (e.g. unfinished "*"), each also named in ``warnings``.
    skipped: int = 0
