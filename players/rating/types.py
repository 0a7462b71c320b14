"""Value types of the rules engine: enums, rules, inputs and results (all frozen)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import NamedTuple, Self, TypeAlias

from players.rating.i18n import gettext_noop
from players.rating.kinds import ListKind

# Table arithmetic is exact (Fractions of hundredths); formula arithmetic is float.
Number: TypeAlias = Fraction | float


class Labelled(StrEnum):
    """A value with the words that explain it, declared together: ``NAME = "value", "label"``.

    The one declaration of a vocabulary: the models' choices are built from it
    (players.models.common.translated_choices). Labels are English, marked with
    ``gettext_noop`` for the site's catalog, which translates them where it shows them.
    """

    label: str

    # ``label``'s default is for typing only: a lookup by value (``KReason("junior")``)
    # goes through Enum's own lookup, never here.
    def __new__(cls, value: str, label: str = "") -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        member.label = label
        return member


class ExpectedMethod(Labelled):
    """Where the expected score comes from: FIDE table 8.1.2 or the Elo formula."""

    FIDE_TABLE = "fide_table", gettext_noop("FIDE table (8.1.2)")
    FORMULA = "formula", gettext_noop("Elo formula")


class KReason(Labelled):
    """Why a player has the K they have (FIDE 8.3.3, plus list-fixed and officer-set K).

    ``label`` is the short name lists and the admin show; ``sentence`` the whole reason,
    as the calculator explains a K.
    """

    sentence: str

    def __new__(cls, value: str, label: str = "", sentence: str = "") -> Self:
        # Enum swaps Labelled.__new__ for its lookup by value: a member is built here.
        member = str.__new__(cls, value)
        member._value_ = value
        member.label = label
        member.sentence = sentence
        return member

    REACHED_2400 = (
        "reached_2400",
        gettext_noop("10: published rating reached 2400"),
        gettext_noop("10: published rating has reached 2400"),
    )
    JUNIOR = (
        "junior",
        gettext_noop("40: junior under 2300"),
        gettext_noop("40: junior rated under 2300, until the end of the year of the 18th birthday"),
    )
    NEW_PLAYER = (
        "new_player",
        gettext_noop("40: fewer than 30 rated games"),
        gettext_noop("40: fewer than 30 rated games"),
    )
    STANDARD = (
        "standard",
        gettext_noop("20: standard"),
        gettext_noop("20: 30 or more rated games, never rated 2400"),
    )
    FIXED = "fixed", gettext_noop("Fixed by the list"), gettext_noop("fixed by the rating list")
    MANUAL = (
        "manual",
        gettext_noop("Set by the rating officer"),
        gettext_noop("set by a rating officer"),
    )


class KChangeReason(Labelled):
    """Why a player's K changed from one period to the next."""

    NEW_PLAYER = "new_player", gettext_noop("New player")
    JUNIOR = "junior", gettext_noop("Junior")
    TURNED_19 = "turned_19", gettext_noop("Turned 19")
    JUNIOR_2300 = "junior_2300", gettext_noop("Junior reached 2300")
    REACHED_2400 = "reached_2400", gettext_noop("Reached 2400")
    GAMES_30 = "games_30", gettext_noop("Completed 30 rated games")
    MANUAL = "manual", gettext_noop("Manual override")
    FIXED = "fixed", gettext_noop("Fixed by the list")
    RULES = "rules", gettext_noop("Rules")


@dataclass(frozen=True, slots=True)
class RatingRules:
    """How a list rates games: which list, which expected-score method, 400-point rule on/off."""

    # The list's kind: what decides a rule is its row (``list_kind.fast``), never its name.
    list_kind: ListKind = ListKind.STANDARD
    method: ExpectedMethod = ExpectedMethod.FIDE_TABLE
    apply_400_rule: bool = True
    # FIDE's rules by date (players.rating.fide_rules): the 2650 exception to the
    # 400-point cap (from October 2025), the rapid/blitz 600/2600 rule (from December
    # 2024) and the 700 rule (from July 2017). Today's rules by default.
    exception_2650: bool = True
    fast_gap: bool = True
    cap_700: bool = True
    # Standard, 2022-01 to 2024-02: a player benefits from the 400-point cap in one game
    # per event only (elo_games.sort_games decides which).
    cap_once_per_event: bool = False


@dataclass(frozen=True, slots=True)
class CountedDifference:
    """A rating difference before (raw) and after (counted) the 400-point rule."""

    raw: int
    counted: int
    capped: bool


@dataclass(frozen=True, slots=True)
class GameInput:
    """One game from the player's side; opponent None = unrated, played False = never rated."""

    opponent_rating: int | None
    score: Fraction
    played: bool = True


@dataclass(frozen=True, slots=True)
class GameLine:
    """One game as rated (or not rated, with the reason in `note`)."""

    opponent_rating: int | None
    score: Fraction
    rating_difference: int | None
    counted_difference: int | None
    capped: bool
    expected: Number | None
    change: Number | None
    rated: bool
    note: str


class PeriodSums(NamedTuple):
    """What a player's rated games of a period add up to, in the FIDE table's integers
    (``bulk.table_period_sums``; ``period_change(start=...)``)."""

    games: int
    score_halves: int
    expected_hundredths: int


@dataclass(frozen=True, slots=True)
class PeriodChange:
    """A player's rating change for one period (FIDE 8.3.2 and 8.3.4)."""

    rating: int
    k_base: int
    k: int
    lines: tuple[GameLine, ...]
    games_count: int
    score: Fraction
    expected: Number
    change_unrounded: Number
    change: int
    new_rating: int


@dataclass(frozen=True, slots=True)
class PlayerState:
    """What K selection needs to know about a player at the start of a period."""

    rating: int | None
    rated_games: int
    birth_year: int | None
    reached_2400: bool


@dataclass(frozen=True, slots=True)
class KFactor:
    """A K value with the reason it applies."""

    value: int
    reason: KReason


@dataclass(frozen=True, slots=True)
class FirstRating:
    """An unrated player's first rating (FIDE 8.2); rating None when none can be published.

    `average` and `percentage` include the two hypothetical 1800 draws; `percentage` is the
    exact p (the dp lookup uses p rounded to whole percent). `games_counted` and `score` are
    the real games only.
    """

    rating: int | None
    games_counted: int
    score: Fraction
    average: Fraction
    percentage: Fraction
    dp: int
    note: str
