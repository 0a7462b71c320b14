"""The sign-in lockout (django-axes, configured in settings): how failures are counted, who
a lock stops, and what a locked-out sign-in gets.

The policy (docs/reference/security.md):

- failures are counted per username (from every address) and per address (for every
  username), separately; ``AXES_FAILURE_LIMIT`` of either locks;
- a successful sign-in clears only that username's failures from that address: signing in
  to one's own account does not wipe the guesses one made at another's (axes' own reset on
  success deletes every row of the username *and* every row of the address);
- a username locked by guesses from elsewhere still signs in from an address it signed in
  from before (``LOCKOUT_KNOWN_ADDRESS_DAYS``); there only that username's failures from
  that address count. A password reset by email clears the username's failures;
- a lock lasts ``AXES_COOLOFF_TIME`` from the failure that set it: tries while locked are
  refused without being recorded (``AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT =
  False``), so nobody can keep a username locked except by ten fresh tries an hour.
"""

from __future__ import annotations

import unicodedata
from datetime import timedelta
from typing import Any

from axes.attempts import get_cool_off_threshold
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt, AccessLog
from django.conf import settings
from django.db.models import Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from players.http.api import error_body

# English for the API; the page shows it translated (gettext at the answer).
MESSAGE = gettext_noop(
    "Too many wrong passwords: this account (or address) is locked out for an hour. "
    "Reset the password by email, or ask the site's staff."
)

# axes' username column (AccessAttempt, AccessLog) holds 255 characters.
USERNAME_COLUMN = 255


def locked_out(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    if request.path_info.startswith("/api/"):
        return JsonResponse(error_body("locked_out", MESSAGE), status=429)
    return render(
        request,
        "error.html",
        {"title": gettext("Locked out"), "message": gettext(MESSAGE)},
        status=429,
    )


def lockout_username(request: HttpRequest, credentials: dict[str, Any] | None = None) -> str | None:
    """The username as the lockout records it (AXES_USERNAME_CALLABLE): NFKC-normalised as
    Django stores usernames (a full-width "vera" counts against the plain one), without NUL
    (which PostgreSQL's text refuses) and cut to the column's 255 characters (a longer
    one was a server error; no account has such a name, Django's hold 150)."""
    if credentials:
        raw = credentials.get("username")
    else:
        data = getattr(request, "data", None)
        raw = (data if isinstance(data, dict) else request.POST).get("username")
    if not isinstance(raw, str):
        return None
    return unicodedata.normalize("NFKC", raw).replace("\0", "")[:USERNAME_COLUMN]


def known_address(*, username: str, ip_address: str) -> bool:
    """Whether ``username`` signed in from ``ip_address`` within the last
    ``LOCKOUT_KNOWN_ADDRESS_DAYS`` (axes' access log records each sign-in)."""
    since = timezone.now() - timedelta(days=settings.LOCKOUT_KNOWN_ADDRESS_DAYS)
    known: bool = AccessLog.objects.filter(
        username=username, ip_address=ip_address, attempt_time__gte=since
    ).exists()
    return known


class LockoutHandler(AxesDatabaseHandler):  # type: ignore[misc]
    """axes' database handler with the counting and the reset of the module's policy."""

    def get_failures(self, request: Any, credentials: dict[str, Any] | None = None) -> int:
        username = get_client_username(request, credentials)
        ip_address = request.axes_ip_address
        recent = AccessAttempt.objects.all()
        if settings.AXES_COOLOFF_TIME is not None:
            recent = recent.filter(attempt_time__gte=get_cool_off_threshold(request))

        def failures(**where: Any) -> int:
            total: int | None = recent.filter(**where).aggregate(n=Sum("failures_since_start"))["n"]
            return total or 0

        if username and ip_address and known_address(username=username, ip_address=ip_address):
            # A lock set from elsewhere does not stop the owner at home; guesses from the
            # owner's own address are still counted and still lock it there.
            return failures(username=username, ip_address=ip_address)
        counts = [failures(username=username)] if username else []
        if ip_address:
            counts.append(failures(ip_address=ip_address))
        return max(counts, default=0)

    def reset_user_attempts(self, request: Any, credentials: dict[str, Any] | None = None) -> int:
        """On success: that username's failures from that address only (whatever the user
        agent, which the client chooses)."""
        username = get_client_username(request, credentials)
        count: int
        count, _ = AccessAttempt.objects.filter(
            username=username, ip_address=request.axes_ip_address
        ).delete()
        return count


def lockout_clear_username(*, username: str) -> None:
    """After a password reset by email: the guesses at the old password no longer matter,
    and the owner has proved it is theirs, so the username is no longer locked. (The
    guessing addresses lose those counts with them: only the mailbox's owner can do this,
    and each address still meets its limit with fresh guesses.)"""
    AccessAttempt.objects.filter(username=username).delete()
