"""Members' rating emails: who gets one after a close or a replay, their choice on the
member's home, and the one-click unsubscribe link (RFC 8058) every email carries."""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from django_tasks_db.models import DBTaskResult

from players.emails import rating_emails_set
from players.emails.services import unsubscribe_token
from players.models import NotificationPreference, RatingEmails, Role
from players.services import membership_set, player_update
from tests.tournaments.helpers import make_club, make_owner, make_player, period_of, play
from tournaments.services import game_create, list_replay, period_close, period_reopen

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _site(settings: Any) -> None:
    settings.SITE_URL = "https://ratings.example"


def member(club: Any, owner: Any, name: str) -> Any:
    user = make_owner(name)
    user.email = f"{name}@example.org"
    user.save()
    membership_set(club=club, user=user, role=Role.VIEWER, by=owner)
    return user


def world() -> dict[str, Any]:
    owner = make_owner("owner")
    club = make_club(owner)
    players = [make_player(club, owner, f"P{i}", 1500 + 100 * i) for i in range(4)]
    alice, bob, carol = (
        member(club, owner, "alice"),
        member(club, owner, "bob"),
        member(club, owner, "carol"),
    )
    for player, user in zip(players, (alice, bob, carol), strict=False):
        player_update(player=player, by=owner, user=user.username)
    # P0 beats P1; P2 and P3 do not play (P2 is carol: her rating stays).
    play(club, owner, [(players[0], players[1], "1-0")], date=datetime.date(2026, 10, 5))
    return {"owner": owner, "club": club, "players": players, "users": (alice, bob, carol)}


def close(w: dict[str, Any], capture: Any) -> None:
    with capture(execute=True):
        period_close(period=period_of(w["club"], "2026-10"), by=w["owner"])


def test_each_linked_member_gets_one_email_with_an_unsubscribe_link(
    django_capture_on_commit_callbacks: Any,
) -> None:
    w = world()
    close(w, django_capture_on_commit_callbacks)
    by_address = {m.to[0]: m for m in mail.outbox}
    assert sorted(by_address) == ["alice@example.org", "bob@example.org", "carol@example.org"]
    alice = by_address["alice@example.org"]
    assert "2026-10: 1500 -> " in alice.body
    assert ", 1 rated game\n" in alice.body
    assert "game(s)" not in alice.body
    assert "https://ratings.example/clubs/club/lists/standard/periods/2026-10/" in alice.body
    assert alice.subject == "Club club: Standard rating for 2026-10"
    link = re.fullmatch(
        r"<(https://ratings\.example/accounts/unsubscribe/[^>]+/)>",
        alice.extra_headers["List-Unsubscribe"],
    )
    assert link is not None
    assert link.group(1) in alice.body
    assert alice.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    # The message as sent carries both headers.
    assert "List-Unsubscribe-Post: List-Unsubscribe=One-Click" in alice.message().as_string()


def test_the_members_choice_decides(django_capture_on_commit_callbacks: Any) -> None:
    w = world()
    alice, bob, carol = w["users"]
    rating_emails_set(user=alice, choice=RatingEmails.NEVER)
    rating_emails_set(user=carol, choice=RatingEmails.CHANGED)  # her rating stays
    rating_emails_set(user=bob, choice=RatingEmails.CHANGED)  # his changes
    close(w, django_capture_on_commit_callbacks)
    assert [m.to for m in mail.outbox] == [["bob@example.org"]]


def test_a_replay_emails_only_those_whose_published_rating_changed(
    django_capture_on_commit_callbacks: Any,
) -> None:
    w = world()
    close(w, django_capture_on_commit_callbacks)
    mail.outbox.clear()
    owner, players = w["owner"], w["players"]
    with django_capture_on_commit_callbacks(execute=True):
        period_reopen(period=period_of(w["club"], "2026-10"), by=owner)
    game_create(
        club=w["club"],
        by=owner,
        list="standard",
        date=datetime.date(2026, 10, 9),
        white=players[1].pk,
        black=players[3].pk,
        result="1-0",
    )
    with django_capture_on_commit_callbacks(execute=True):
        list_replay(rating_list=period_of(w["club"], "2026-10").rating_list, by=owner)
    # Bob (P1) played again: his rating changed; alice's (P0) did not; carol's (P2) neither.
    assert [m.to for m in mail.outbox] == [["bob@example.org"]]
    assert "was corrected" in mail.outbox[0].subject


def test_the_rating_email_is_not_sent_inside_the_close(
    django_capture_on_commit_callbacks: Any,
) -> None:
    w = world()
    with django_capture_on_commit_callbacks(execute=False):
        period_close(period=period_of(w["club"], "2026-10"), by=w["owner"])
    assert mail.outbox == []


def test_one_click_unsubscribe(client: Client) -> None:
    user = make_owner("dora")
    url = f"/accounts/unsubscribe/{unsubscribe_token(user.pk)}/"
    page = client.get(url)
    assert page.status_code == 200
    assert b"unsubscribe-form" in page.content
    assert not NotificationPreference.objects.exists()  # a GET changes nothing
    # RFC 8058: the mail provider POSTs the form body, no session, no CSRF token.
    strict = Client(enforce_csrf_checks=True)
    done = strict.post(
        url, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )
    assert done.status_code == 200
    assert NotificationPreference.objects.get(user=user).rating_emails == RatingEmails.NEVER


@pytest.mark.parametrize("token", ["nonsense", "eyJ1IjoxfQ:1abc:forged"])
def test_a_forged_unsubscribe_link_is_404_and_changes_nothing(client: Client, token: str) -> None:
    assert client.post(f"/accounts/unsubscribe/{token}/").status_code == 404
    assert client.get(f"/accounts/unsubscribe/{token}/").status_code == 404
    assert not NotificationPreference.objects.exists()


def test_the_member_chooses_on_their_home(client: Client) -> None:
    user = make_owner("erin")
    client.force_login(user)
    home = client.get("/accounts/")
    assert b'id="rating-emails-form"' in home.content
    assert b'value="every" id="id_rating_emails_0" required checked' in home.content
    answer = client.post("/accounts/emails/", {"rating_emails": "changed"})
    assert answer.status_code == 302
    assert NotificationPreference.objects.get(user=user).rating_emails == "changed"
    assert client.post("/accounts/emails/", {"rating_emails": "sometimes"}).status_code == 302
    assert NotificationPreference.objects.get(user=user).rating_emails == "changed"
    assert (
        b'value="changed" id="id_rating_emails_1" required checked'
        in client.get("/accounts/").content
    )


def test_choosing_needs_a_signed_in_member(client: Client) -> None:
    answer = client.post("/accounts/emails/", {"rating_emails": "never"})
    assert answer.status_code == 302
    assert "/login/" in answer["Location"]
    assert not NotificationPreference.objects.exists()


def _fan_outs_after_the_close(club: Any, owner: Any, capture: Any) -> int:
    """The events tasks the close queued (the database queue: none runs here)."""
    with capture(execute=True):
        period_close(period=period_of(club, "2026-10"), by=owner)
    return DBTaskResult.objects.filter(task_path__endswith="events_fan_out").count()


@pytest.mark.usefixtures("queued_jobs")
def test_a_close_with_no_one_to_email_or_notify_queues_no_task(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """The first of the month: a thousand clubs with neither a linked member nor a
    webhook close, and each would have queued a task for the deliveries lane that finds
    nothing to do."""
    owner = make_owner("owner")
    club = make_club(owner)
    a, b = (make_player(club, owner, name, 1500) for name in "AB")
    play(club, owner, [(a, b, "1-0")], date=datetime.date(2026, 10, 5))
    # A member linked without an address, or switched off, is no one to email.
    nobody = member(club, owner, "nobody")
    nobody.email = ""
    nobody.save()
    player_update(player=a, by=owner, user=nobody.username)
    gone = member(club, owner, "gone")
    gone.is_active = False
    gone.save()
    player_update(player=b, by=owner, user=gone.username)
    assert _fan_outs_after_the_close(club, owner, django_capture_on_commit_callbacks) == 0


@pytest.mark.usefixtures("queued_jobs")
def test_a_close_with_a_member_to_email_queues_the_task(
    django_capture_on_commit_callbacks: Any,
) -> None:
    w = world()
    assert _fan_outs_after_the_close(w["club"], w["owner"], django_capture_on_commit_callbacks) == 1
