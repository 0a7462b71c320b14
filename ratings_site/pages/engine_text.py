"""The rules engine's sentences in the page's language.

The engine (players/rating/) stays free of Django, so it writes its notes, summaries,
K reasons and rating-class descriptions in English, and the API returns them so. Pages
translate them here: a fixed sentence through the catalog as it is, a sentence with
figures through a pattern that picks the figures out and puts them, written the active
language's way, into the translated sentence. A sentence nothing here knows is shown as
the engine wrote it (tests/players/test_i18n.py checks every sentence the engine can
write is known).
"""

from __future__ import annotations

import re
from decimal import Decimal

from django.utils import numberformat
from django.utils.formats import get_format
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

# Sentences the engine writes as they are (players/rating/: K reasons, notes, rating-class
# descriptions). gettext_noop marks them for makemessages; gettext() looks them up.
FIXED = (
    gettext_noop("forfeit: not rated"),
    gettext_noop("opponent unrated: counts only toward the opponent's first rating"),
    gettext_noop("rapid/blitz: 600+ points apart with a player above 2600"),
    gettext_noop("opponent unrated: does not count"),
    gettext_noop("first event disregarded: zero points"),
    gettext_noop("10: published rating has reached 2400"),
    gettext_noop("40: junior rated under 2300, until the end of the year of the 18th birthday"),
    gettext_noop("40: fewer than 30 rated games"),
    gettext_noop("20: 30 or more rated games, never rated 2400"),
    gettext_noop("fixed by the rating list"),
    gettext_noop("set by a rating officer"),
    gettext_noop("Not an official title. About forty players in the world are here at any time."),
    gettext_noop("The GM rating requirement. Norms are needed as well as the number."),
    gettext_noop(
        "The IM rating requirement, and where the elite K-factor of 10 kicks in for good."
    ),
    gettext_noop("The FM rating requirement. No norms needed: the rating alone earns it."),
    gettext_noop('The usual threshold for the CM title, and where "master" starts being used.'),
    gettext_noop("Beats most club players consistently. Preparation begins to matter."),
    gettext_noop("Strong club player. Punishes an inaccuracy rather than waiting for a blunder."),
    gettext_noop("Plans rather than moves. Endgames start being won on technique."),
    gettext_noop("Opening principles are habit rather than rules being followed."),
    gettext_noop("Basic tactics (forks, pins, back-rank mates) are seen most of the time."),
    gettext_noop("Sees one-move threats reliably and has stopped losing pieces for nothing."),
    gettext_noop("Knows the moves. Games are decided by whoever hangs less material."),
    # The note players/services/players.py stores with a K entered with a new player.
    gettext_noop("entered when the player joined"),
    # The rating systems' period columns and state fields (players/rating/systems).
    gettext_noop("K"),
    gettext_noop("RD"),
    gettext_noop("volatility"),
)

_NUMBER = r"[\d,]+(?:\.\d+)?"

# Sentences with figures: the engine's pattern and the page's sentence. Every group is a
# figure (written again the active language's way) unless its name ends in "_text"
# (itself an engine sentence, translated in turn).
PATTERNS: tuple[tuple[re.Pattern[str], Promise], ...] = tuple(
    (re.compile(pattern), sentence)
    for pattern, sentence in (
        (
            rf"With a rating of (?P<rating>{_NUMBER}) and K = (?P<k>\d+), your rating changes"
            rf" by (?P<change>-?\d+) to (?P<new>{_NUMBER})\.",
            _(
                "With a rating of %(rating)s and K = %(k)s, your rating changes by"
                " %(change)s to %(new)s."
            ),
        ),
        (
            rf"With a rating of (?P<rating>{_NUMBER}) and K = (?P<k>\d+), your rating stays"
            rf" at (?P<same>{_NUMBER})\.",
            _("With a rating of %(rating)s and K = %(k)s, your rating stays at %(same)s."),
        ),
        (
            rf"With (?P<games>\d+) games against rated opponents, your first rating would be"
            rf" (?P<first>{_NUMBER})\.",
            _(
                "With %(games)s games against rated opponents, your first rating would be"
                " %(first)s."
            ),
        ),
        (r"No first rating yet: (?P<note_text>.+)", _("No first rating yet: %(note_text)s")),
        # Not the engine's: the FIDE list import's reason for a history's start (a month,
        # kept as written: an unknown "_text" comes back unchanged).
        (
            r"FIDE rating list of (?P<month_text>\d{4}-\d{2})",
            _("FIDE rating list of %(month_text)s"),
        ),
        (
            rf"Below (?P<floor>{_NUMBER}): FIDE lists no rating under (?P<again>{_NUMBER}), so"
            r" you would be shown as unrated on the next list\.",
            _(
                "Below %(floor)s: FIDE lists no rating under %(again)s, so you would be shown"
                " as unrated on the next list."
            ),
        ),
        (r"(?P<k>\d+): set by you", _("%(k)s: set by you")),
        (
            r"(?P<k>\d+): default \(no K or player details given\)",
            _("%(k)s: default (no K or player details given)"),
        ),
        (
            r"(?P<base>\d+) x (?P<games>\d+) games is over 700, so K = (?P<k>\d+)",
            _("%(base)s x %(games)s games is over 700, so K = %(k)s"),
        ),
        (
            r"400-point rule: (?P<opponent>\d+) counted as (?P<counted>\d+)",
            _("400-point rule: %(opponent)s counted as %(counted)s"),
        ),
        (
            r"(?P<games>\d+) games against rated opponents",
            _("%(games)s games against rated opponents"),
        ),
        (r"a first rating needs (?P<needed>\d+)", _("a first rating needs %(needed)s")),
        (
            rf"capped at (?P<cap>{_NUMBER}) \(computed (?P<computed>{_NUMBER})\)",
            _("capped at %(cap)s (computed %(computed)s)"),
        ),
        (
            rf"(?P<rating>{_NUMBER}) is below the minimum of (?P<minimum>{_NUMBER}): not"
            r" published",
            _("%(rating)s is below the minimum of %(minimum)s: not published"),
        ),
    )
)


def plain_number(value: Decimal, places: int) -> str:
    """``value`` with ``places`` decimals and the active language's decimal mark, never
    grouped, whatever USE_THOUSAND_SEPARATOR says: a rating is ``1848`` in every table,
    sentence and language (German ``1.848`` reads as a decimal to some)."""
    return numberformat.format(
        value, get_format("DECIMAL_SEPARATOR"), places, grouping=0, use_l10n=True
    )


def _figure(text: str) -> str:
    """``8.40`` -> ``8,40`` in German; never a thousands separator (``1512``, not
    ``1.512``): the figures in engine sentences are ratings and points, written like the
    lists write them."""
    plain = text.replace(",", "")
    places = len(plain.partition(".")[2])
    return plain_number(Decimal(plain), places)


def _one(part: str) -> str:
    if part in FIXED:
        return gettext(part)
    for pattern, sentence in PATTERNS:
        found = pattern.fullmatch(part)
        if found is None:
            continue
        values = {
            name: engine_text(value) if name.endswith("_text") else _figure(value)
            for name, value in found.groupdict().items()
        }
        return str(sentence) % values
    return part


def engine_text(text: str) -> str:
    """``text`` (an engine sentence, or several joined by "; ") in the active language."""
    if not text:
        return text
    return "; ".join(_one(part) for part in text.split("; "))
