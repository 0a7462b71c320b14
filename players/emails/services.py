"""Members' rating emails: after a close, and after a replay that changed their rating.

A member linked to a player (``Player.user``) on the list gets one email per close or
replay, sent by the fan-out task (never inside the close), all through one connection of
Django's mail backend. What they get is their choice (``NotificationPreference``: every
close by default, only when their rating changed, never). Every email carries a signed
one-click unsubscribe link (RFC 8058): no sign-in, GET shows a confirm page, POST
unsubscribes.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.mail import EmailMessage, get_connection
from django.db import transaction
from django.db.models import Q, QuerySet
from django.urls import reverse
from django.utils.translation import ngettext

from players.errors import NotFoundError, invalid_field
from players.models import (
    NotificationPreference,
    PlayerRating,
    RatingChange,
    RatingEmails,
    RatingRun,
)
from players.names import display_name
from players.selectors import User, current_rows

logger = logging.getLogger(__name__)

#: The events whose run may send rating emails.
EMAILED_EVENTS = frozenset({"period.closed", "period.replayed"})
_SALT = "players.notifications.unsubscribe"


def unsubscribe_token(user_id: int) -> str:
    return signing.dumps({"u": user_id}, salt=_SALT, compress=True)


def unsubscribe_url(user_id: int) -> str:
    return settings.SITE_URL + reverse("unsubscribe", args=[unsubscribe_token(user_id)])


def unsubscribe_user(token: str) -> User:
    """The user a token names (NotFoundError for a forged or broken one)."""
    try:
        user_id = signing.loads(token, salt=_SALT)["u"]
    except (signing.BadSignature, KeyError, TypeError):
        raise NotFoundError("This unsubscribe link is not valid.") from None
    user = get_user_model()._default_manager.filter(pk=user_id).first()
    if user is None:
        raise NotFoundError("This unsubscribe link is not valid.")
    return user


def rating_emails_of(user: User) -> str:
    pref = NotificationPreference.objects.filter(user_id=int(user.pk or 0)).first()
    return pref.rating_emails if pref is not None else RatingEmails.EVERY_CLOSE


def rating_emails_set(*, user: User, choice: str) -> NotificationPreference:
    """The member's own choice (every / changed / never); a user sets only their own."""
    if choice not in RatingEmails.values:
        raise invalid_field("rating_emails", f"Use one of {', '.join(RatingEmails.values)}.")
    with transaction.atomic(durable=True):
        pref, _ = NotificationPreference.objects.update_or_create(
            user_id=user.pk, defaults={"rating_emails": choice}
        )
    return pref


def unsubscribe(*, token: str) -> User:
    """The one-click unsubscribe: no more rating emails for the token's user."""
    user = unsubscribe_user(token)
    rating_emails_set(user=user, choice=RatingEmails.NEVER)
    return user


@dataclass(frozen=True)
class _Line:
    period: str
    before: int | None
    after: int | None
    games: int

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def text(self) -> str:
        def shown(value: int | None) -> str:
            return "unrated" if value is None else str(value)

        diff = ""
        if self.before is not None and self.after is not None:
            diff = f" ({self.after - self.before:+d})"
        return f"{self.period}: {shown(self.before)} -> {shown(self.after)}{diff}, " + ngettext(
            "%(count)d rated game", "%(count)d rated games", self.games
        ) % {"count": self.games}


def _linked(list_id: int) -> dict[int, tuple[int, str, str]]:
    """Player id -> (user id, email, player name) of the list's members with an address."""
    rows = _linked_rows(list_id).values_list(
        "player_id", "player__user_id", "player__user__email", "player__name"
    )
    return {player: (user, email, name) for player, user, email, name in rows}


def _linked_rows(list_id: int) -> QuerySet[PlayerRating]:
    return PlayerRating.objects.filter(rating_list_id=list_id, player__user__isnull=False).exclude(
        Q(player__user__email="") | Q(player__user__is_active=False)
    )


def _close_lines(run: RatingRun, players: list[int]) -> dict[int, list[_Line]]:
    rows = current_rows(run=run, player_id__in=players).values_list(
        "player_id", "period__month", "rating_before", "rating_after", "games"
    )
    lines: dict[int, list[_Line]] = {}
    for player, month, before, after, games in rows:
        lines.setdefault(player, []).append(_Line(f"{month:%Y-%m}", before, after, games))
    return lines


def _replay_lines(run: RatingRun, players: list[int]) -> dict[int, list[_Line]]:
    """Only the periods whose published rating the replay changed: the row it wrote
    against the row it replaced (the latest earlier row of the same player and period)."""
    new = current_rows(run=run, player_id__in=players)
    old: dict[tuple[int, int], int | None] = {}
    for player, period, after in (
        RatingChange.objects.filter(
            rating_list_id=run.rating_list_id, current=False, player_id__in=players
        )
        .order_by("id")
        .values_list("player_id", "period_id", "rating_after")
    ):
        old[(player, period)] = after  # the last one wins: the row just replaced
    lines: dict[int, list[_Line]] = {}
    for change in new.order_by("period__month").select_related("period"):
        before = old.get((change.player_id, change.period_id), change.rating_before)
        line = _Line(change.period.label, before, change.rating_after, change.games)
        if line.changed:
            lines.setdefault(change.player_id, []).append(line)
    return lines


def rating_emails_due(*, run_id: int | None, events: Iterable[str]) -> bool:
    """Whether ``events`` of a run (a close's, a replay's) may send rating emails."""
    return run_id is not None and not EMAILED_EVENTS.isdisjoint(events)


def rating_emails_wanted(*, list_id: int) -> bool:
    """Whether the list has a linked member with an address, whom a close or a replay may
    email (``rating_emails_send`` reads their choices): one small indexed read."""
    return _linked_rows(list_id).exists()


def rating_emails_send(*, run_id: int, list_id: int) -> int:
    """Email every linked member of the run's list (``list_id``) who wants it; how many
    were sent. A list with no linked member costs one query."""
    linked = _linked(list_id)
    if not linked:
        return 0
    run = RatingRun.objects.select_related("rating_list__club").get(pk=run_id)
    if run.kind not in (RatingRun.Kind.CLOSE, RatingRun.Kind.REPLAY):
        return 0
    replay = run.kind == RatingRun.Kind.REPLAY
    ids = sorted(linked)
    lines = _replay_lines(run, ids) if replay else _close_lines(run, ids)
    choices = dict(
        NotificationPreference.objects.filter(
            user_id__in=[user for user, _, _ in linked.values()]
        ).values_list("user_id", "rating_emails")
    )
    messages = []
    for player, (user, email, name) in linked.items():
        mine = lines.get(player)
        choice = choices.get(user, RatingEmails.EVERY_CLOSE)
        if not mine or choice == RatingEmails.NEVER:
            continue
        if choice == RatingEmails.CHANGED and not any(line.changed for line in mine):
            continue
        messages.append(_message(run, name, email, user, mine))
    if not messages:
        return 0
    with get_connection() as connection:
        sent = connection.send_messages(messages) or 0
    logger.info("Run %s: %s rating email(s) sent", run.pk, sent)
    return sent


def _message(run: RatingRun, name: str, email: str, user: int, lines: list[_Line]) -> EmailMessage:
    """One member's email: their lines, the period's link, the unsubscribe link (in the
    body and in the headers mail clients show as a button)."""
    club_name, slug = run.rating_list.club.name, run.rating_list.club.slug
    list_slug, list_label = run.rating_list.slug, run.rating_list.label
    replay = run.kind == RatingRun.Kind.REPLAY
    first = lines[0].period
    period_url = f"{settings.SITE_URL}/clubs/{slug}/lists/{list_slug}/periods/{first}/"
    unsubscribe = unsubscribe_url(user)
    what = "was corrected (replayed)" if replay else "is closed"
    body = "\n".join(
        [
            f"Hello {display_name(name, run.rating_list.name_order)},",
            "",
            f"The {list_label} list of {club_name} {what}. Your published rating:",
            "",
            *(f"  {line.text()}" for line in lines),
            "",
            f"The period: {period_url}",
            "",
            "You get this email as the player linked to your account. Choose which emails",
            f"you get on your account page: {settings.SITE_URL}{reverse('account-home')}",
            f"Unsubscribe in one click: {unsubscribe}",
        ]
    )
    subject = (
        f"{club_name}: your {list_label} rating was corrected"
        if replay
        else f"{club_name}: {list_label} rating for {first}"
    )
    return EmailMessage(
        subject=subject,
        body=body,
        to=[email],
        headers={
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
