"""Text written into files: one line per field, and no formula a spreadsheet would run.

Every writer (TRF, PGN's tags, the TXT list, every CSV, the API's CSV) puts its free text through
:func:`one_line`; CSV cells also through :func:`csv_cell`. A line break in a tournament's
name used to reach a TRF as a record of its own.
"""

from __future__ import annotations

import re

__all__ = ["csv_cell", "one_line"]

# A cell starting with one of these is run as a formula by spreadsheets (OWASP's CSV
# injection advice); a leading apostrophe makes it text.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


# C0 and C1 control characters (CR, LF, tab, NUL, ...), NEL, and Unicode's line and
# paragraph separators: anything a reader may take as the end of a line or record.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def one_line(text: str) -> str:
    """``text`` without control characters (line breaks, carriage returns, tabs, NUL,
    Unicode line and paragraph separators): each run of them becomes one space, and the
    ends are trimmed where one stood."""
    if text.isprintable():
        return text
    return _CONTROLS.sub(" ", text).strip()


def csv_cell(text: str) -> str:
    """A text cell for CSV: on one line, and a leading apostrophe before a formula."""
    text = one_line(text)
    return "'" + text if text.startswith(_FORMULA_STARTS) else text
