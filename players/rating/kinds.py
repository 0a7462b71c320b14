"""The kinds of rating list (standard, rapid, blitz): one row each, and the registry every
other floor reads them from.

A kind says what the rules engine and the site need to know about a list of that kind:
its label, whether FIDE's Rapid and Blitz Rating Regulations apply to it (``fast``),
whether a player unrated on it counts with their standard rating, and the FIDE preset a
club's list of that kind starts from. Nothing above this module names a kind to decide
a rule: it asks the kind. Adding a kind is a row here, the migration of the database's
check constraint (``ratinglist_kind_valid``) and its German label
(docs/developers/howto-list-kind.md). A registry rather than an enum, so that a test can add a kind
for its own run (``register_list_kind`` / ``unregister_list_kind``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from players.rating.i18n import gettext_noop


# eq=False: a kind is one object in the registry; it equals (and hashes as) the value the
# database stores, as the enum it replaces did, so ``rating_list.kind == ListKind.RAPID``
# and a dict keyed by values keep working.
@dataclass(frozen=True, slots=True, eq=False)
class ListKind:
    """One kind of rating list."""

    # What the database stores (RatingList.kind) and the API and URLs name.
    value: str
    # English; the site shows it translated (its msgid in the German catalog).
    label: str
    # FIDE's Rapid and Blitz Rating Regulations rather than the standard ones: the 400-point
    # cap for everyone (no 2650 exception) in every game (never once per event), the
    # 600/2600 rule (from December 2024) and one K of 20 before October 2022 (fide_rules).
    fast: bool
    # A player unrated on this list who holds a standard rating in force counts as rated
    # with it, for K and for the games that count (FIDE Rapid and Blitz Rating Regulations),
    # and FIDE's one-off of 1 October 2022 raised ratings here to the standard rating - 100.
    counts_standard: bool
    # The preset a club's list of this kind starts from under FIDE's rules (its name).
    fide_preset: str

    STANDARD: ClassVar[ListKind]
    RAPID: ClassVar[ListKind]
    BLITZ: ClassVar[ListKind]

    def __str__(self) -> str:
        return self.value

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ListKind):
            return self is other
        if isinstance(other, str):
            return self.value == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.value)

    # One object per kind, as an enum member is: a copy is the kind itself, and a pickle
    # (a job's arguments, a process pool's) names it and finds it in the registry again.
    def __copy__(self) -> ListKind:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> ListKind:
        return self

    def __reduce__(self) -> tuple[Callable[[str], ListKind], tuple[str]]:
        return list_kind, (self.value,)


_KINDS: dict[str, ListKind] = {}


def register_list_kind(kind: ListKind) -> ListKind:
    """Add ``kind`` to the registry (its value must be new); the kind, for assignment."""
    if kind.value in _KINDS:
        raise ValueError(f"list kind {kind.value!r} is registered already")
    _KINDS[kind.value] = kind
    return kind


def unregister_list_kind(kind: ListKind) -> None:
    """Remove ``kind`` (a test's own kind, once the test is over)."""
    if _KINDS.get(kind.value) is not kind:
        raise ValueError(f"list kind {kind.value!r} is not registered")
    del _KINDS[kind.value]


def list_kinds() -> tuple[ListKind, ...]:
    """Every registered kind, in the order the site lists them (standard first)."""
    return tuple(_KINDS.values())


def list_kind(value: str) -> ListKind:
    """The kind stored as ``value``; ValueError for a value no kind has."""
    try:
        return _KINDS[value]
    except KeyError:
        raise ValueError(f"unknown list kind {value!r}") from None


# The kinds. The FIDE Handbook's three lists: B.02 (standard) and the Rapid and Blitz
# Rating Regulations.
ListKind.STANDARD = register_list_kind(
    ListKind(
        "standard",
        gettext_noop("Standard"),
        fast=False,
        counts_standard=False,
        fide_preset="FIDE standard",
    )
)
ListKind.RAPID = register_list_kind(
    ListKind(
        "rapid", gettext_noop("Rapid"), fast=True, counts_standard=True, fide_preset="FIDE rapid"
    )
)
ListKind.BLITZ = register_list_kind(
    ListKind(
        "blitz", gettext_noop("Blitz"), fast=True, counts_standard=True, fide_preset="FIDE blitz"
    )
)
