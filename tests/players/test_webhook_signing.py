"""Webhooks as careful receivers expect: Standard Webhooks headers verified by the docs'
own example (a real delivery accepted, a replayed old one refused), the old header that
only switches off (its transition: tests/players/test_migration_webhook_secrets.py), and
each try's wall-clock deadline against a real receiver on 127.0.0.1 that trickles its answer."""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
import re
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone
from standardwebhooks import Webhook as StandardWebhook

from players.errors import ValidationFailed
from players.models import Webhook, WebhookDelivery
from players.webhooks import send as webhook_send
from players.webhooks import webhook_create, webhook_ping, webhook_update
from players.webhooks.send import secret_new
from tests.receiver import Receiver, receiver, self_signed
from tests.tournaments.helpers import make_club, make_owner

pytestmark = pytest.mark.django_db
DOCS = Path(__file__).resolve().parents[2] / "docs" / "reference" / "webhooks.md"


@pytest.fixture
def hook_receiver(settings: Any) -> Iterator[Receiver]:
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    settings.WEBHOOKS_ALLOWED_PORTS = "*"
    with receiver() as state:
        yield state


@pytest.fixture
def docs_verified() -> Callable[[str, bytes, dict[str, str]], Any]:
    """The ``verified`` function docs/reference/webhooks.md gives receivers, run as written."""
    (snippet,) = re.findall(r"```python\n(.*?)```", DOCS.read_text(), re.DOTALL)
    namespace: dict[str, Any] = {}
    exec(snippet, namespace)  # noqa: S102 - the docs' own example
    verified: Callable[[str, bytes, dict[str, str]], Any] = namespace["verified"]
    return verified


def pinged(hook: Webhook, capture: Any) -> WebhookDelivery:
    with capture(execute=True):
        delivery = webhook_ping(webhook=hook, by=hook.created_by)
    delivery.refresh_from_db()
    return delivery


def test_the_docs_example_accepts_a_real_delivery_and_refuses_a_replayed_old_one(
    hook_receiver: Receiver,
    docs_verified: Callable[[str, bytes, dict[str, str]], Any],
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner = make_owner()
    hook = webhook_create(
        club=make_club(owner), by=owner, url=hook_receiver.url, events=["period.closed"]
    )
    pinged(hook, django_capture_on_commit_callbacks)
    (fresh,) = hook_receiver.requests
    event = docs_verified(hook.secret, fresh.body, fresh.headers)
    assert event == fresh.json
    assert event["event"] == "ping"
    assert fresh.headers["webhook-id"] == event["id"]
    assert docs_verified(hook.secret, fresh.body.replace(b"ping", b"pong"), fresh.headers) is None
    assert docs_verified(secret_new(), fresh.body, fresh.headers) is None
    restamped = {**fresh.headers, "webhook-timestamp": str(int(timezone.now().timestamp()) + 1)}
    assert docs_verified(hook.secret, fresh.body, restamped) is None

    # A delivery captured six minutes ago and sent again now: its signature is right, its
    # timestamp is past the 5 minutes.
    then = timezone.now() - datetime.timedelta(minutes=6)
    monkeypatch.setattr(webhook_send.timezone, "now", lambda: then)
    pinged(hook, django_capture_on_commit_callbacks)
    old = hook_receiver.requests[1]
    assert old.headers["webhook-timestamp"] == str(int(then.timestamp()))
    assert (
        StandardWebhook(hook.secret).sign(old.headers["webhook-id"], then, old.body)
        == old.headers["webhook-signature"]
    )
    assert docs_verified(hook.secret, old.body, old.headers) is None


def test_the_signature_is_the_specifications_hmac(
    hook_receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    """Written out by hand from the specification, not through its package: what a
    receiver in a language without a library computes."""
    owner = make_owner()
    hook = webhook_create(
        club=make_club(owner), by=owner, url=hook_receiver.url, events=["period.closed"]
    )
    pinged(hook, django_capture_on_commit_callbacks)
    (request,) = hook_receiver.requests
    key = base64.b64decode(hook.secret.removeprefix("whsec_"))
    signed = f"{request.headers['webhook-id']}.{request.headers['webhook-timestamp']}.".encode()
    digest = hmac.new(key, signed + request.body, hashlib.sha256).digest()
    assert request.headers["webhook-signature"] == "v1," + base64.b64encode(digest).decode()


def test_the_old_header_cannot_be_switched_on(hook_receiver: Receiver) -> None:
    owner = make_owner()
    hook = webhook_create(
        club=make_club(owner), by=owner, url=hook_receiver.url, events=["period.closed"]
    )
    with pytest.raises(ValidationFailed) as refused:
        webhook_update(webhook=hook, by=owner, legacy_signature=True)
    assert set(refused.value.fields) == {"legacy_signature"}
    hook.refresh_from_db()
    assert not hook.legacy_signature


# -- the deadline of a try -------------------------------------------------------------------


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return self_signed(tmp_path_factory.mktemp("tls"))


@pytest.fixture(params=["http", "https"])
def any_receiver(
    request: pytest.FixtureRequest, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Receiver]:
    """The receiver over http, and over https with a certificate the try trusts."""
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    settings.WEBHOOKS_ALLOWED_PORTS = "*"
    tls = None
    if request.param == "https":
        tls = request.getfixturevalue("certificate")
        monkeypatch.setenv("SSL_CERT_FILE", str(tls))
    with receiver(tls=tls) as state:
        yield state


@pytest.mark.parametrize("trickle_body", [False, True], ids=["status line", "body"])
def test_a_trickling_receiver_is_cut_off_at_the_deadline_and_the_try_fails(
    any_receiver: Receiver,
    settings: Any,
    django_capture_on_commit_callbacks: Any,
    trickle_body: bool,
) -> None:
    """One byte every 0.2 s: each read is quick, so a per-read timeout never trips (the
    old code waited for the whole answer, 13 s here, and recorded a success). The try's
    deadline (0.6 s here, 10 s by default) cuts it off, and the try is a failure, even
    when a 200 status line had come in."""
    settings.WEBHOOKS_TIMEOUT_SECONDS = 0.6
    settings.WEBHOOKS_RETRY_SECONDS = []  # the first try is the last
    owner = make_owner()
    hook = webhook_create(
        club=make_club(owner), by=owner, url=any_receiver.url, events=["period.closed"]
    )
    any_receiver.trickle = 0.2
    any_receiver.trickle_body = trickle_body
    delivery = pinged(hook, django_capture_on_commit_callbacks)
    assert len(any_receiver.requests) == 1
    assert delivery.status == WebhookDelivery.Status.FAILED
    assert delivery.last_error.startswith("The try's deadline of 0.6 s")
    assert "WEBHOOKS_TIMEOUT_SECONDS" in delivery.last_error
    assert delivery.response_code == (200 if trickle_body else None)
    hook.refresh_from_db()
    assert hook.failing_since is not None


def test_an_answer_within_the_deadline_succeeds(
    any_receiver: Receiver, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.WEBHOOKS_TIMEOUT_SECONDS = 30
    owner = make_owner()
    hook = webhook_create(
        club=make_club(owner), by=owner, url=any_receiver.url, events=["period.closed"]
    )
    any_receiver.trickle = 0.001
    delivery = pinged(hook, django_capture_on_commit_callbacks)
    assert any_receiver.requests[0].signed_by(hook.secret)
    assert delivery.status == WebhookDelivery.Status.SUCCEEDED
    assert (delivery.response_code, delivery.response_body, delivery.last_error) == (
        200,
        "ok, eventually" * 4,
        "",
    )


def test_a_receiver_silent_in_the_tls_handshake_is_cut_off_at_the_deadline(
    settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """An https receiver that accepts the connection and never answers the handshake."""
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    settings.WEBHOOKS_ALLOWED_PORTS = "*"
    settings.WEBHOOKS_TIMEOUT_SECONDS = 0.5
    settings.WEBHOOKS_RETRY_SECONDS = []
    with socket.create_server(("127.0.0.1", 0)) as listener:
        owner = make_owner()
        hook = webhook_create(
            club=make_club(owner),
            by=owner,
            url=f"https://127.0.0.1:{listener.getsockname()[1]}/hook",
            events=["period.closed"],
        )
        delivery = pinged(hook, django_capture_on_commit_callbacks)
    assert delivery.status == WebhookDelivery.Status.FAILED
    assert delivery.last_error.startswith("The try's deadline of 0.5 s")


def test_a_name_that_resolves_slowly_is_cut_off_at_the_deadline(
    hook_receiver: Receiver,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """A club that runs its own name server can make it answer slowly: the lookup counts
    against the try's deadline too."""
    owner = make_owner()
    hook = webhook_create(
        club=make_club(owner), by=owner, url=hook_receiver.url, events=["period.closed"]
    )
    settings.WEBHOOKS_TIMEOUT_SECONDS = 0.3
    settings.WEBHOOKS_RETRY_SECONDS = []
    lookup = socket.getaddrinfo

    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(2)
        return lookup(*args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", slow)
    delivery = pinged(hook, django_capture_on_commit_callbacks)
    assert delivery.status == WebhookDelivery.Status.FAILED
    assert "did not resolve within the deadline" in delivery.last_error
    assert hook_receiver.requests == []
