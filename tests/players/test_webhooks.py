"""Webhooks: registration's checks, the events a close and player changes send, the
signature, retries with backoff, giving up, switching off, and the address checks at
delivery time. The Standard Webhooks headers, the old header's transition and each try's
deadline: tests/players/test_webhook_signing.py. The receiver is a real HTTP server on 127.0.0.1 (tests/receiver.py); the
jobs run in this process (the immediate backend, or the database queue where the test
asks for it). Real worker processes: tests/tournaments/test_webhook_workers.py."""

from __future__ import annotations

import base64
import datetime
import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from players.errors import PermissionDeniedError, ValidationFailed
from players.models import Role, Webhook, WebhookDelivery
from players.services import membership_set, player_create
from players.webhooks import delivery_redeliver, webhook_create, webhook_ping
from players.webhooks.delivery import delivery_try
from players.webhooks.send import secret_new
from tests.receiver import Receiver, receiver
from tests.tournaments.helpers import make_club, make_owner, make_player, period_of, play
from tournaments.services import list_replay, period_close, period_reopen

pytestmark = pytest.mark.django_db
EVENTS = [
    "period.closed",
    "period.reopened",
    "period.replayed",
    "list.published",
    "players.changed",
]


@pytest.fixture
def local(settings: Any) -> None:
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    settings.WEBHOOKS_ALLOWED_PORTS = "*"  # the receiver's port is the system's choice
    settings.SITE_URL = "https://ratings.example"


@pytest.fixture
def hook_receiver(local: None) -> Iterator[Receiver]:
    with receiver() as state:
        yield state


def club_with_games(slug: str = "club") -> tuple[Any, Any, list[Any]]:
    owner = make_owner(f"{slug}-owner")
    owner.email = f"{slug}-owner@example.org"
    owner.save()
    club = make_club(owner, slug=slug)
    players = [make_player(club, owner, f"{slug} {i}", 1500 + 100 * i) for i in range(4)]
    play(
        club,
        owner,
        [(players[0], players[1], "1-0"), (players[2], players[3], "1/2-1/2")],
        date=datetime.date(2026, 10, 5),
    )
    return club, owner, players


# -- registration --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ftp://example.org/hook", "Only http"),
        ("https:///nohost", "names no host"),
        ("https://user:pw@93.184.215.14/hook", "No user or password"),
        ("http://127.0.0.1/hook", "loopback"),
        ("http://127.0.0.1:8000/hook", "Port 8000"),
        ("http://localhost/hook", "loopback"),
        ("http://[::1]/hook", "loopback"),
        ("http://10.1.2.3/hook", "private"),
        ("http://192.168.0.10/hook", "private"),
        ("http://169.254.169.254/latest/meta-data", "link-local"),
        ("http://[::ffff:127.0.0.1]/hook", "loopback"),
        ("http://0.0.0.0/hook", "private"),
        ("http://100.64.0.1/hook", "not a public address"),
        ("http://[2002:7f00:1::]/hook", "6to4 address that carries 127.0.0.1, a loopback"),
        ("http://[2002:a00:1::]/hook", "6to4 address that carries 10.0.0.1, a private"),
        ("http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook", "Teredo address that carries"),
        ("http://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/hook", "private or reserved"),
        ("http://[::127.0.0.1]/hook", "IPv4-compatible address that carries 127.0.0.1"),
        ("http://[::ffff:a9fe:a9fe]/hook", "IPv4-mapped address that carries 169.254"),
        ("http://[64:ff9b::a00:1]/hook", "NAT64 address that carries 10.0.0.1"),
        ("http://[64:ff9b::7f00:1]/hook", "NAT64 address that carries 127.0.0.1, a loopback"),
        ("http://[64:ff9b:1::808:808]/hook", "local-use NAT64"),
        ("http://[fec0::1]/hook", "private or reserved"),
        ("http://[ff02::1]/hook", "not a public address"),
        ("http://8.8.8.8:22/hook", "Port 22 is not allowed"),
        ("https://93.184.215.14:8443/hook", "ports 80 and 443 only"),
        ("not a url", "Only http"),
        ("", "Give the URL"),
    ],
)
def test_registration_refuses_urls_that_are_not_public_http(url: str, why: str) -> None:
    owner = make_owner()
    club = make_club(owner)
    with pytest.raises(ValidationFailed) as refused:
        webhook_create(club=club, by=owner, url=url, events=["period.closed"])
    assert set(refused.value.fields) == {"url"}
    assert why in refused.value.message + " ".join(refused.value.fields["url"])
    assert not Webhook.objects.exists()


def test_private_addresses_and_other_ports_only_where_the_environment_allows(
    settings: Any,
) -> None:
    owner = make_owner()
    club = make_club(owner)
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    with pytest.raises(ValidationFailed, match="Port 9 is not allowed"):
        webhook_create(club=club, by=owner, url="http://127.0.0.1:9/h", events=EVENTS)
    settings.WEBHOOKS_ALLOWED_PORTS = [80, 443, 9]
    hook = webhook_create(club=club, by=owner, url="http://127.0.0.1:9/h", events=EVENTS)
    assert hook.secret.startswith("whsec_")
    assert len(base64.b64decode(hook.secret.removeprefix("whsec_"), validate=True)) == 32
    assert hook.events == EVENTS
    assert not hook.legacy_signature


@pytest.mark.parametrize(
    "url",
    [
        "https://93.184.215.14/hook",
        "http://93.184.215.14:80/hook",
        "https://93.184.215.14:443/hook",
        # Forms that carry a public IPv4 address are that address.
        "http://[2002:5db8:d70e::]/hook",
        "http://[64:ff9b::5db8:d70e]/hook",
        "http://[::ffff:93.184.215.14]/hook",
        "http://[2606:4700:4700::1111]/hook",
    ],
)
def test_a_public_address_is_accepted(url: str) -> None:
    owner = make_owner()
    club = make_club(owner)
    hook = webhook_create(club=club, by=owner, url=url, events=["period.closed"])
    assert hook.active


def test_a_port_the_operator_allows_is_accepted(settings: Any) -> None:
    owner = make_owner()
    club = make_club(owner)
    settings.WEBHOOKS_ALLOWED_PORTS = [443, 8443]
    hook = webhook_create(club=club, by=owner, url="https://93.184.215.14:8443/h", events=EVENTS)
    assert hook.url.endswith(":8443/h")
    with pytest.raises(ValidationFailed, match="ports 443 and 8443 only"):
        webhook_create(club=club, by=owner, url="http://93.184.215.14/h", events=EVENTS)


@pytest.mark.parametrize(
    "events", [[], ["period.closed", "period.exploded"], "period.closed", None]
)
def test_registration_refuses_unknown_or_missing_events(events: Any) -> None:
    owner = make_owner()
    club = make_club(owner)
    with pytest.raises(ValidationFailed) as refused:
        webhook_create(club=club, by=owner, url="https://93.184.215.14/h", events=events)
    assert set(refused.value.fields) == {"events"}


def test_only_owners_register() -> None:
    owner = make_owner()
    club = make_club(owner)
    officer = make_owner("officer")
    membership_set(club=club, user=officer, role=Role.OFFICER, by=owner)
    with pytest.raises(PermissionDeniedError):
        webhook_create(club=club, by=officer, url="https://93.184.215.14/h", events=EVENTS)


# -- what a close sends ---------------------------------------------------------------------


def test_a_close_sends_its_events_signed_after_the_commit(
    hook_receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    club, owner, _ = club_with_games()
    hook = webhook_create(club=club, by=owner, url=hook_receiver.url, events=EVENTS)
    with django_capture_on_commit_callbacks(execute=False) as queued:
        run = period_close(period=period_of(club, "2026-10"), by=owner)
    # Inside the close, nothing was sent: callbacks wait for the commit (the cache's
    # and ONE for the events).
    assert hook_receiver.requests == []
    assert not WebhookDelivery.objects.exists()
    assert len([c for c in queued if "events_emit" in c.__qualname__]) == 1
    with django_capture_on_commit_callbacks(execute=True):
        for callback in queued:
            callback()
    closed = hook_receiver.of_event("period.closed")
    published = hook_receiver.of_event("list.published")
    assert len(closed) == 1
    assert len(published) == 1
    request = closed[0]
    assert request.signed_by(hook.secret)
    assert not request.signed_by(secret_new())
    assert "X-Ratings-Signature-256" not in request.headers  # a new webhook: no old header
    assert request.headers["Content-Type"] == "application/json"
    body = request.json
    assert body["event"] == "period.closed"
    assert body["club"] == club.slug
    assert body["list"] == "standard"
    assert body["period"] == "2026-10"
    assert body["data"]["games"] == 2
    assert body["data"]["players"] == 4
    assert body["data"]["run"] == run.pk
    assert body["links"]["period"] == (
        f"https://ratings.example/api/v1/clubs/{club.slug}/lists/standard/periods/2026-10/"
    )
    delivery = WebhookDelivery.objects.get(pk=request.headers["X-Ratings-Delivery"])
    assert delivery.event == "period.closed"
    assert str(delivery.event_id) == body["id"] == request.headers["webhook-id"]
    assert delivery.status == WebhookDelivery.Status.SUCCEEDED
    assert (delivery.tries, delivery.response_code, delivery.response_body) == (1, 200, "ok")
    assert delivery.duration_ms is not None
    assert published[0].json["data"]["through"] == "2026-10"


def test_a_webhook_gets_only_its_own_clubs_events_and_those_it_chose(
    hook_receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    club, owner, _ = club_with_games("north")
    other, other_owner, _ = club_with_games("south")
    webhook_create(club=other, by=other_owner, url=hook_receiver.url, events=EVENTS)
    webhook_create(club=club, by=owner, url=hook_receiver.url, events=["period.reopened"])
    with django_capture_on_commit_callbacks(execute=True):
        period_close(period=period_of(club, "2026-10"), by=owner)
    assert hook_receiver.requests == []
    with django_capture_on_commit_callbacks(execute=True):
        period_reopen(period=period_of(club, "2026-10"), by=owner)
    assert [r.json["event"] for r in hook_receiver.requests] == ["period.reopened"]
    assert hook_receiver.requests[0].json["club"] == "north"
    assert hook_receiver.requests[0].json["data"]["needs_replay"] == ["2026-10"]


def test_a_replay_and_player_changes_send_their_events(
    hook_receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    club, owner, _ = club_with_games()
    webhook_create(
        club=club, by=owner, url=hook_receiver.url, events=["period.replayed", "players.changed"]
    )
    with django_capture_on_commit_callbacks(execute=True):
        period_close(period=period_of(club, "2026-10"), by=owner)
        period_reopen(period=period_of(club, "2026-10"), by=owner)
        list_replay(rating_list=period_of(club, "2026-10").rating_list, by=owner, dry_run=True)
    assert hook_receiver.requests == []  # a dry run rolls back: no event
    with django_capture_on_commit_callbacks(execute=True):
        list_replay(rating_list=period_of(club, "2026-10").rating_list, by=owner)
        new = player_create(club=club, by=owner, name="Newcomer")
    replayed = hook_receiver.of_event("period.replayed")
    assert len(replayed) == 1
    assert replayed[0].json["data"]["periods"] == ["2026-10"]
    changed = hook_receiver.of_event("players.changed")
    assert len(changed) == 1
    assert changed[0].json["data"] == {
        "action": "created",
        "players": [new.pk],
        "count": 1,
        "truncated": False,
    }


# -- failures, retries, giving up ------------------------------------------------------------


def pinged(hook: Webhook, owner: Any, capture: Any) -> WebhookDelivery:
    with capture(execute=True):
        delivery = webhook_ping(webhook=hook, by=owner)
    delivery.refresh_from_db()
    return delivery


def test_a_failed_try_is_tried_again_with_the_same_delivery_id(
    hook_receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    owner = make_owner()
    club = make_club(owner)
    hook = webhook_create(club=club, by=owner, url=hook_receiver.url, events=EVENTS)
    hook_receiver.statuses = [503]
    delivery = pinged(hook, owner, django_capture_on_commit_callbacks)
    assert delivery.status == WebhookDelivery.Status.PENDING
    assert (delivery.tries, delivery.response_code) == (1, 503)
    assert delivery.last_error == "The receiver answered 503."
    assert len(delivery.response_body) == 1024  # of the 5,000 bytes answered
    assert delivery.next_try is not None
    assert timezone.now() < delivery.next_try <= timezone.now() + datetime.timedelta(seconds=30)
    hook.refresh_from_db()
    assert hook.failing_since is not None
    delivery_try(delivery_id=str(delivery.pk))
    delivery.refresh_from_db()
    assert delivery.status == WebhookDelivery.Status.SUCCEEDED
    assert delivery.tries == 2
    assert delivery.last_error == ""  # the success cleared the first try's error
    assert (delivery.response_code, delivery.response_body) == (200, "ok")
    first, second = hook_receiver.requests
    assert first.headers["X-Ratings-Delivery"] == second.headers["X-Ratings-Delivery"]
    assert first.headers["webhook-id"] == second.headers["webhook-id"] == str(delivery.event_id)
    assert first.body == second.body
    assert first.signed_by(hook.secret)
    assert second.signed_by(hook.secret)
    hook.refresh_from_db()
    assert hook.failing_since is None


def test_the_retry_is_queued_for_later_not_slept_on(
    hook_receiver: Receiver, queued_jobs: None
) -> None:
    owner = make_owner()
    club = make_club(owner)
    hook = webhook_create(club=club, by=owner, url=hook_receiver.url, events=EVENTS)
    delivery = WebhookDelivery.objects.create(
        webhook=hook, event="ping", event_id="6c1f4a57-9f3c-4d7e-9a51-0d5f4e1b2c3d", body="{}"
    )
    hook_receiver.statuses = [500]
    before = timezone.now()
    delivery_try(delivery_id=str(delivery.pk))
    task = DBTaskResult.objects.get(task_path__endswith="webhook_deliver")
    assert task.args_kwargs["args"] == [str(delivery.pk)]
    assert before + datetime.timedelta(seconds=5) < task.run_after
    assert task.run_after <= before + datetime.timedelta(seconds=31)


def test_the_delivery_fails_after_its_last_try(
    hook_receiver: Receiver, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.WEBHOOKS_RETRY_SECONDS = [1.0, 2.0, 4.0, 8.0]
    owner = make_owner()
    club = make_club(owner)
    hook = webhook_create(club=club, by=owner, url=hook_receiver.url, events=EVENTS)
    hook_receiver.statuses = [500] * 10
    delivery = pinged(hook, owner, django_capture_on_commit_callbacks)
    for _ in range(6):
        delivery_try(delivery_id=str(delivery.pk))
    delivery.refresh_from_db()
    assert delivery.status == WebhookDelivery.Status.FAILED
    assert delivery.tries == 5
    assert delivery.next_try is None
    assert len(hook_receiver.requests) == 5


def test_a_webhook_failing_for_three_days_is_switched_off_and_its_owners_told(
    hook_receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    owner = make_owner()
    owner.email = "owner@example.org"
    owner.save()
    club = make_club(owner)
    hook = webhook_create(club=club, by=owner, url=hook_receiver.url, events=EVENTS)
    Webhook.objects.filter(pk=hook.pk).update(
        failing_since=timezone.now() - datetime.timedelta(days=2, hours=23)
    )
    hook_receiver.statuses = [500, 500]
    pinged(hook, owner, django_capture_on_commit_callbacks)
    hook.refresh_from_db()
    assert hook.active
    assert mail.outbox == []
    Webhook.objects.filter(pk=hook.pk).update(
        failing_since=timezone.now() - datetime.timedelta(days=3, minutes=1)
    )
    delivery = pinged(hook, owner, django_capture_on_commit_callbacks)
    hook.refresh_from_db()
    assert not hook.active
    assert "3 days" in hook.disabled_reason
    assert [m.to for m in mail.outbox] == [["owner@example.org"]]
    assert hook_receiver.url in mail.outbox[0].body
    # Its pending retry gives up without sending.
    delivery_try(delivery_id=str(delivery.pk))
    delivery.refresh_from_db()
    assert delivery.status == WebhookDelivery.Status.FAILED
    assert len(hook_receiver.requests) == 2


def test_no_redirect_is_followed(
    hook_receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    owner = make_owner()
    club = make_club(owner)
    hook = webhook_create(club=club, by=owner, url=hook_receiver.url, events=EVENTS)
    hook_receiver.statuses = [302]
    hook_receiver.location = hook_receiver.url + "/elsewhere"
    delivery = pinged(hook, owner, django_capture_on_commit_callbacks)
    assert delivery.response_code == 302
    assert delivery.status == WebhookDelivery.Status.PENDING
    assert [r.path for r in hook_receiver.requests] == ["/hook"]


def test_addresses_are_checked_again_at_delivery(
    hook_receiver: Receiver, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """A name that resolved to a public address at registration and to a private one
    now (DNS rebinding) is refused when sending: here the environment's permission goes."""
    owner = make_owner()
    club = make_club(owner)
    hook = webhook_create(club=club, by=owner, url=hook_receiver.url, events=EVENTS)
    settings.WEBHOOKS_ALLOW_PRIVATE = False
    delivery = pinged(hook, owner, django_capture_on_commit_callbacks)
    assert delivery.status == WebhookDelivery.Status.PENDING
    assert delivery.response_code is None
    assert "loopback" in delivery.last_error
    assert hook_receiver.requests == []


def test_the_port_is_checked_again_at_delivery(
    hook_receiver: Receiver, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """A port allowed when the webhook was registered and not allowed now is refused."""
    owner = make_owner()
    club = make_club(owner)
    hook = webhook_create(club=club, by=owner, url=hook_receiver.url, events=EVENTS)
    settings.WEBHOOKS_ALLOWED_PORTS = [80, 443]
    delivery = pinged(hook, owner, django_capture_on_commit_callbacks)
    assert delivery.status == WebhookDelivery.Status.PENDING
    assert "is not allowed: webhooks go to ports 80 and 443 only" in delivery.last_error
    assert hook_receiver.requests == []


def test_an_unreachable_receiver_is_an_error_not_a_crash(
    local: None, django_capture_on_commit_callbacks: Any
) -> None:
    owner = make_owner()
    club = make_club(owner)
    with receiver() as gone:
        url = gone.url
    hook = webhook_create(club=club, by=owner, url=url, events=EVENTS)
    delivery = pinged(hook, owner, django_capture_on_commit_callbacks)
    assert delivery.status == WebhookDelivery.Status.PENDING
    assert "ConnectionRefused" in delivery.last_error


def test_a_redelivery_sends_the_same_body_under_a_new_delivery_id(
    hook_receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    owner = make_owner()
    club = make_club(owner)
    hook = webhook_create(club=club, by=owner, url=hook_receiver.url, events=EVENTS)
    first = pinged(hook, owner, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        again = delivery_redeliver(delivery=first, by=owner)
    again.refresh_from_db()
    assert again.status == WebhookDelivery.Status.SUCCEEDED
    assert again.redelivery_of == first
    one, two = hook_receiver.requests
    assert one.body == two.body
    assert json.loads(two.body)["id"] == str(first.event_id)
    # The message id stays the event's (a receiver that handled it sees a repeat); the
    # log's delivery id is new.
    assert one.headers["webhook-id"] == two.headers["webhook-id"] == str(first.event_id)
    assert one.headers["X-Ratings-Delivery"] != two.headers["X-Ratings-Delivery"]
    assert two.signed_by(hook.secret)
