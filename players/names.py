"""Players' names without the database: the matching key, surname and given names, display.

Pure Python, no Django (like the rules engine, but not a rating rule, so it lives beside
it rather than in it). The imports, the duplicates finder, the FIDE list import and the
exports all use these functions, so "the same name" means one thing everywhere.

A file may write one person as ``Aronsen, Viktor`` (FIDE's form, TRF), ``Viktor Aronsen``
(a club's own lists), ``ARONSEN Viktor`` (some pairing programs) or ``Arönsen, Viktor``
(another encoding of the accent). :func:`name_key` gives all four the same key:

1. Unicode compatibility decomposition, then the combining marks (accents) dropped, and
   the letters that carry no separable accent (``ø``, ``ł``, ``đ``, ``æ``, ...) spelled in
   plain Latin, so ``Arönsen`` and ``Aronsen`` agree whatever the source's encoding;
2. case folded (``ß`` -> ``ss``);
3. punctuation (commas, dots, hyphens, apostrophes) read as a space between name parts;
4. the parts sorted, so the order of surname and given names does not matter.

Sorting the parts means ``Viktor Aronsen`` and ``Aronsen Viktor`` are one key, which is
the point; it also means two people whose surname and given name are swapped (``Paul
Simon`` / ``Simon Paul``) share a key. Matching therefore never rests on the key alone
when the club has birth data or a FIDE ID to tell them apart (see the import's matching).
"""

from __future__ import annotations

import difflib
import functools
import itertools
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from enum import StrEnum

__all__ = [
    "LikelyDuplicate",
    "NameOrder",
    "PersonKey",
    "display_name",
    "given_first",
    "likely_duplicates",
    "name_key",
    "name_similarity",
    "split_name",
    "surname_first",
]

# Letters that NFKD does not split into a base letter and a mark.
_PLAIN_LATIN = str.maketrans(
    {
        "ø": "o",
        "Ø": "O",
        "ł": "l",
        "Ł": "L",
        "đ": "d",
        "Đ": "D",
        "ð": "d",
        "Ð": "D",
        "þ": "th",
        "Þ": "Th",
        "æ": "ae",
        "Æ": "Ae",
        "œ": "oe",
        "Œ": "Oe",
        "\u0131": "i",  # dotless i
        "ħ": "h",
        "Ħ": "H",
    }
)

# Lower-case words that begin a surname ("Jan van der Berg": surname "van der Berg").
_PARTICLES = frozenset(
    {"van", "von", "der", "den", "de", "del", "della", "di", "da", "dos", "du", "la", "le"}
    | {"ter", "ten", "zu", "af", "al", "el", "bin", "ibn", "st"}
)


class NameOrder(StrEnum):
    """How a list shows its players' names (a rating list's setting)."""

    #: ``Aronsen, Viktor``: FIDE's lists and TRF files.
    SURNAME_FIRST = "surname_given"
    #: ``Viktor Aronsen``.
    GIVEN_FIRST = "given_surname"


def _plain(text: str) -> str:
    """Accents removed, letters without a separable accent spelled in plain Latin."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_PLAIN_LATIN))
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def _parts(text: str) -> list[str]:
    """The name's words, punctuation read as a space (``O'Neil`` -> ``O``, ``Neil``)."""
    spaced = "".join(char if char.isalnum() else " " for char in text)
    return spaced.split()


@functools.lru_cache(maxsize=131072)
def name_key(name: str) -> str:
    """The matching key: accents, case, punctuation and the order of the parts ignored.

    >>> name_key("Arönsen, Viktor") == name_key("ARONSEN Viktor") == name_key("Viktor Aronsen")
    True
    """
    return " ".join(sorted(_parts(_plain(name).casefold())))


def split_name(name: str) -> tuple[str, str]:
    """(surname, given names) of a name in any of the usual forms.

    ``Surname, Given`` splits at the first comma; ``SURNAME Given`` (the leading words in
    capitals, the rest not) splits after the capitals; otherwise the last word is the
    surname with any lower-case particles before it (``Jan van der Berg``). A single word
    is a surname without given names.
    """
    text = " ".join(name.split())
    if "," in text:
        surname, _, given = text.partition(",")
        return surname.strip(), " ".join(given.replace(",", " ").split())
    words = text.split(" ")
    if len(words) < 2:
        return text, ""
    capitals = 0
    while capitals < len(words) and _all_capitals(words[capitals]):
        capitals += 1
    if 0 < capitals < len(words):
        return _title_case(" ".join(words[:capitals])), " ".join(words[capitals:])
    start = len(words) - 1
    while start > 1 and words[start - 1] in _PARTICLES:
        start -= 1
    return " ".join(words[start:]), " ".join(words[:start])


def _all_capitals(word: str) -> bool:
    # Most words are answered by their first two characters ("Anna"): a letter there
    # that is not a capital. The CSV and the lists split thousands of names at a time.
    for char in word[:2]:
        if char.isalpha() and not char.isupper():
            return False
    letters = [char for char in word if char.isalpha()]
    return len(letters) > 1 and all(char.isupper() for char in letters)


def _title_case(text: str) -> str:
    """``ARONSEN`` -> ``Aronsen``, ``VAN-DER BERG`` -> ``Van-Der Berg`` (a best guess)."""
    return "".join(
        char.upper() if index == 0 or not text[index - 1].isalpha() else char.lower()
        for index, char in enumerate(text)
    )


def surname_first(name: str) -> str:
    """``Surname, Given`` (FIDE's form, which TRF files carry)."""
    surname, given = split_name(name)
    return f"{surname}, {given}" if given else surname


def given_first(name: str) -> str:
    """``Given Surname``."""
    text = " ".join(name.split())
    if "," not in text and not _all_capitals(text.partition(" ")[0]):
        # Already in this order (most names): split_name would cut it into the given names
        # and the surname, and they would be joined again as they were.
        return text
    surname, given = split_name(name)
    return f"{given} {surname}" if given else surname


def display_name(name: str, order: str) -> str:
    """The name in a list's chosen order (:class:`NameOrder`)."""
    return surname_first(name) if order == NameOrder.SURNAME_FIRST else given_first(name)


def name_similarity(key_a: str, key_b: str) -> float:
    """How alike two name keys are, 0 to 1 (difflib's ratio over the keys' letters):
    one typo in a ten-letter name scores about 0.9."""
    return difflib.SequenceMatcher(None, key_a, key_b, autojunk=False).ratio()


# -- likely duplicates -------------------------------------------------------------------------

#: Two different keys this alike (and the same birth year) make a likely pair.
SIMILAR_NAMES = 0.85
#: A (birth year, name part) block larger than this is not compared pair by pair (a very
#: common given name in one year); its members still pair by their exact keys.
MAX_BLOCK = 300


@dataclass(frozen=True, slots=True)
class PersonKey:
    """What the duplicates finder compares of one player record."""

    id: int
    key: str
    birth_date: date | None = None
    birth_year: int | None = None
    fide_id: int | None = None


@dataclass(frozen=True, slots=True)
class LikelyDuplicate:
    """Two records that may be one person: the reasons, and a score out of 100."""

    first: int
    second: int
    reasons: tuple[str, ...]
    score: int


def _conflict(a: PersonKey, b: PersonKey) -> bool:
    """Data that says two people: other FIDE IDs, other birth dates or years."""
    if a.fide_id is not None and b.fide_id is not None and a.fide_id != b.fide_id:
        return True
    if a.birth_date is not None and b.birth_date is not None and a.birth_date != b.birth_date:
        return True
    return a.birth_year is not None and b.birth_year is not None and a.birth_year != b.birth_year


def _pair(a: PersonKey, b: PersonKey, similarity: float) -> LikelyDuplicate | None:
    """The pair's reasons and score, or None when the data says two people."""
    if a.fide_id is not None and a.fide_id == b.fide_id:
        return LikelyDuplicate(a.id, b.id, ("same FIDE ID",), 100)
    if _conflict(a, b):
        return None
    same_date = a.birth_date is not None and a.birth_date == b.birth_date
    same_year = a.birth_year is not None and a.birth_year == b.birth_year
    birth = (
        "same birth date"
        if same_date
        else "same birth year"
        if same_year
        else "no birth data on one side"
    )
    if a.key == b.key:
        score = 100 if same_date else 90 if same_year else 70
        return LikelyDuplicate(a.id, b.id, ("same name key", birth), score)
    if not same_year:
        return None
    # 50 at the threshold, 80 for letters all alike in another order; a date adds 10.
    score = 50 + round(30 * (similarity - SIMILAR_NAMES) / (1 - SIMILAR_NAMES))
    reason = f"similar names ({similarity:.2f})"
    return LikelyDuplicate(a.id, b.id, (reason, birth), min(score + 10 * same_date, 95))


def likely_duplicates(people: Iterable[PersonKey]) -> list[LikelyDuplicate]:
    """Pairs of records that may be one person, best first: the same FIDE ID; the same
    name key with agreeing (or missing) birth data; or names at least
    :data:`SIMILAR_NAMES` alike (:func:`name_similarity`) with the same birth year.
    Records whose FIDE IDs, birth dates or years differ are never paired.

    Blocked, not all pairs: by key, by FIDE ID, and for similar names by (birth year,
    name part), so a federation's 200,000 records compare in seconds.
    """
    found: dict[tuple[int, int], LikelyDuplicate] = {}

    def consider(a: PersonKey, b: PersonKey, similarity: float) -> None:
        first, second = (a, b) if a.id < b.id else (b, a)
        if (first.id, second.id) in found:
            return
        pair = _pair(first, second, similarity)
        if pair is not None:
            found[(first.id, second.id)] = pair

    by_key: dict[str, list[PersonKey]] = defaultdict(list)
    by_fide: dict[int, list[PersonKey]] = defaultdict(list)
    blocks: dict[tuple[int, str], list[PersonKey]] = defaultdict(list)
    for person in people:
        by_key[person.key].append(person)
        if person.fide_id is not None:
            by_fide[person.fide_id].append(person)
        if person.birth_year is not None:
            for part in set(person.key.split()):
                blocks[(person.birth_year, part)].append(person)
    for group in itertools.chain(by_fide.values(), by_key.values()):
        for a, b in itertools.combinations(group, 2):
            consider(a, b, 1.0)
    for block in blocks.values():
        if len(block) > MAX_BLOCK:
            continue
        for a, b in itertools.combinations(block, 2):
            if a.key == b.key or (min(a.id, b.id), max(a.id, b.id)) in found:
                continue
            matcher = difflib.SequenceMatcher(None, a.key, b.key, autojunk=False)
            # The cheap upper bounds first: most pairs in a block are nothing alike.
            if matcher.real_quick_ratio() < SIMILAR_NAMES or matcher.quick_ratio() < SIMILAR_NAMES:
                continue
            similarity = matcher.ratio()
            if similarity >= SIMILAR_NAMES:
                consider(a, b, similarity)
    return sorted(found.values(), key=lambda pair: (-pair.score, pair.first, pair.second))
