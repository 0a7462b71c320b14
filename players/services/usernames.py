# ruff: noqa: RUF001, RUF002 - look-alike letters are this module's subject
"""Usernames that look alike: ``username_skeleton`` is a small form of Unicode TR39's
confusable skeleton for the scripts our members write in (Latin, Cyrillic, Greek, and
digits that pass for letters), so that "аdmin" with a Cyrillic "а" is refused beside
"admin". Django already stores usernames NFKC-normalised (full-width letters become
plain ones); this catches what NFKC leaves apart.
"""

from __future__ import annotations

import unicodedata

from django.contrib.auth import get_user_model

from players.errors import invalid_field

__all__ = ["username_refuse_look_alike", "username_skeleton"]

# TR39's confusables (confusablesSummary.txt) for the letters that matter here, each to
# the Latin letter it passes for; after casefolding, so lower case only.
_CONFUSABLES = str.maketrans(
    {
        # Cyrillic
        "а": "a",
        "в": "b",
        "с": "c",
        "ԁ": "d",
        "е": "e",
        "һ": "h",
        "і": "i",
        "ӏ": "l",
        "ј": "j",
        "к": "k",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "ԛ": "q",
        "ѕ": "s",
        "т": "t",
        "у": "y",
        "х": "x",
        "ԝ": "w",
        "ү": "y",
        # Greek
        "α": "a",
        "β": "b",
        "ε": "e",
        "η": "n",
        "ι": "i",
        "κ": "k",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "ω": "w",
        # Latin and digits that pass for other letters
        "1": "l",
        "|": "l",
        "0": "o",
        "ı": "i",
    }
)


def username_skeleton(username: str) -> str:
    """What ``username`` looks like: NFKC, case folded, marks dropped, look-alike letters
    mapped to one Latin letter, "rn" read as "m" (TR39 maps both to one skeleton)."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", username).casefold())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return text.translate(_CONFUSABLES).replace("rn", "m")


def username_refuse_look_alike(username: str) -> None:
    """Refuse (400 on ``username``) a new username that looks like an existing one. Reads
    every username once: accounts are made rarely, and only by invitation."""
    skeleton = username_skeleton(username)
    names = get_user_model()._default_manager.values_list("username", flat=True)
    if any(username_skeleton(name) == skeleton for name in names.iterator()):
        raise invalid_field(
            "username", "This username is too like an existing one; choose another."
        )
