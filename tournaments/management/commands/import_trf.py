"""`manage.py import_trf FILE --club SLUG [--list standard] [--dry-run] [--user NAME]`."""

from __future__ import annotations

from tournaments.management.commands._importing import ImportCommand


class Command(ImportCommand):
    help = "Import a TRF file into a club's list (see docs/reference/file-formats.md)."
    format = "trf"
