"""FIDE Tournament Report File (TRF16 and TRF-2026): a strict reader and a TRF16 writer.

:mod:`.layout` describes the format (columns, record and result codes, with FIDE's
sources); :mod:`.reader` reads a file (its lines one by one in :mod:`.lines`, the two
sides of its games paired up in :mod:`.pairing`) and :mod:`.writer` writes one.
"""

from __future__ import annotations

from tournaments.interchange.trf.layout import TITLES
from tournaments.interchange.trf.reader import parse_trf
from tournaments.interchange.trf.writer import write_trf

__all__ = ["TITLES", "parse_trf", "write_trf"]
