"""The engine's words for the site's translation catalog.

The engine writes English and cannot import Django. ``gettext_noop`` returns its text
unchanged: it is there so that ``makemessages`` (which passes ``--keyword=gettext_noop`` to
xgettext) collects the labels where they are declared; the site translates them when it
shows them (``gettext_lazy(member.label)``, players.models.common).
"""

from __future__ import annotations


def gettext_noop(message: str) -> str:
    """``message`` as it is: a marker for makemessages, nothing more."""
    return message
