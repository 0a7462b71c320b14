"""Django admin for club staff: clubs, members, players, lists, ratings and K history.

Modules: :mod:`.clubs` (clubs and members), :mod:`.claims`
(members' claims of player records: officers approve or decline),
:mod:`.players` (players with their ratings, history inlines and chart), :mod:`.lists`
(rating lists, current ratings with the K override action, K history), :mod:`.jobs`
(jobs: the list, and each job's page, which refreshes itself until the job is done),
:mod:`.webhooks` (a club's webhooks and their deliveries: owners only). The base every
admin of both apps builds on (scoping by membership role, ClubScopedAdmin, the
service-backed saves) is ``players.http.admin``.

Access
    The admin only lets in users with ``is_staff`` (Django's rule). A superuser sees and
    changes everything. Any other staff user sees only the rows of clubs where they hold a
    Membership, and may do there what their role allows:

    - viewer: view everything of the club;
    - arbiter: also add and change players, tournaments and games (of open periods);
    - officer: also preview, close, reopen and replay periods, and set K overrides;
    - owner: also the club itself, its memberships and its rating lists.

    Membership roles alone decide. Django's per-user model permissions are not consulted:
    every ``has_*_permission`` method of these admins is overridden, so giving a club's
    staff access needs nothing more than ``is_staff`` and a Membership, and a permission
    ticked by mistake in the user admin cannot widen a role. The auth admin (users,
    groups) keeps Django's permissions and therefore stays superuser-only in practice.

    A row of a club the user cannot see answers 404 (not a redirect), so a private club's
    rows do not reveal that they exist.

Writes
    The admin never computes or stores a rating or a rule. Every save that changes state
    calls a service (players/services/, tournaments/services/), which validates (closed
    periods, players of another club) and raises ``DomainError``; the admin shows that as a
    form error or an admin message, never a 500. The computed and audit rows
    (RatingChange, KFactorChange, RatingRun, PlayerRating) are read-only here.
"""

from __future__ import annotations

from django.contrib import admin

# Importing the modules registers their ModelAdmins (Django's autodiscover imports this one).
from players.admin import claims, clubs, jobs, lists, players, webhooks

__all__ = ["claims", "clubs", "jobs", "lists", "players", "webhooks"]

admin.site.site_header = "Club ratings administration"
admin.site.site_title = "Club ratings admin"
admin.site.index_title = "Clubs, players, games and rating periods"
