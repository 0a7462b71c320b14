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
from django.core.exceptions import ValidationError

from players.errors import invalid_field

__all__ = [
    "username_look_alike_of",
    "username_not_look_alike",
    "username_refuse_look_alike",
    "username_skeleton",
]

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


def username_look_alike_of(username: str) -> str:
    """An existing username, other than ``username`` itself, that looks like it ("" when
    none does). Reads every username once: accounts are made rarely."""
    skeleton = username_skeleton(username)
    names = get_user_model()._default_manager.values_list("username", flat=True)
    for name in names.iterator():
        if name != username and username_skeleton(name) == skeleton:
            return str(name)
    return ""


_TOO_LIKE = "This username is too like an existing one; choose another."


def username_refuse_look_alike(username: str) -> None:
    """Refuse (400 on ``username``) a new username that looks like an existing one."""
    if username_look_alike_of(username):
        raise invalid_field("username", _TOO_LIKE)


def username_not_look_alike(username: str) -> None:
    """The user model's username validator (players/apps.py adds it): every form that
    validates the model (the admin's user add and change forms, ``createsuperuser``, the
    invitation's sign-up form) refuses a look-alike of another account's name. The name
    itself is not "another": a form that keeps a user's name passes."""
    if username_look_alike_of(username):
        raise ValidationError(_TOO_LIKE, code="look_alike")
