"""Django admin for tournaments, games, rating periods and the published results.

Scoping and roles as described in players/admin/ (membership roles alone decide). Every
write calls a service (tournaments/services/); period actions (preview, close, reopen,
replay) need the rating officer role. RatingChange and RatingRun are read-only.

Modules: :mod:`.games` (tournaments with their games inline, games), :mod:`.periods` (periods
and their actions: preview, close with its confirmation, reopen, replay), :mod:`.results`
(published rating changes and runs), :mod:`.imports` (the tournament-file upload page),
:mod:`.merge` (the duplicate players page, and the merges done, read-only).
"""

from __future__ import annotations

# Importing the modules registers their ModelAdmins (Django's autodiscover imports this one).
from tournaments.admin import games, merge, periods, results

__all__ = ["games", "merge", "periods", "results"]
