"""One try of a webhook delivery over HTTP: the signed headers, the connection to the
address just checked, and the try's wall-clock deadline.

Signing follows Standard Webhooks (https://www.standardwebhooks.com/, through its own
``standardwebhooks`` package): ``webhook-id`` is the event's id (the same on every try and
redelivery: receivers deduplicate by it), ``webhook-timestamp`` the try's own time, and
``webhook-signature`` ``v1,`` and the base64 HMAC-SHA256 of ``id.timestamp.body`` under the
key the ``whsec_`` secret encodes. The signed timestamp is what lets a receiver refuse a
captured delivery replayed later (the libraries allow 5 minutes). Webhooks registered
before these headers (``legacy_signature``) also get the old ``X-Ratings-Signature-256``
(the body's HMAC under the same key bytes) until their owner switches it off.

``WEBHOOKS_TIMEOUT_SECONDS`` bounds looking the name up, connecting, TLS, sending and
reading the whole answer together: a socket's own timeout is per call, and a receiver
sending one byte every 5 s never trips a 10 s one. Each blocking call is given only what
is left of the deadline.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.client
import io
import secrets
import socket
import ssl
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.utils import timezone
from standardwebhooks import Webhook as StandardWebhook

from players.errors import DomainError
from players.models import Webhook, WebhookDelivery
from players.webhooks.addresses import addresses_checked

USER_AGENT = "ClubRatings-Webhooks/1.0"
#: How much of an answer's body is kept (and read): the start, for the delivery log.
RESPONSE_KEPT_BYTES = 1024
#: Standard Webhooks' prefix of a secret; base64 of the key follows.
SECRET_PREFIX = "whsec_"  # noqa: S105 - a prefix, not a secret
#: Bytes of a new webhook's key (the specification asks for 24 to 64).
SECRET_BYTES = 32


def secret_new() -> str:
    """A new webhook's secret: ``whsec_`` and the base64 of a random key."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def secret_key(secret: str) -> bytes:
    """The key bytes a ``whsec_`` secret encodes (what signs, in both headers)."""
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX))


def legacy_signature(secret: str, body: bytes) -> str:
    """The old X-Ratings-Signature-256 header's value: ``sha256=`` and the hex HMAC of the
    body alone (no timestamp: a captured delivery verifies forever, hence its retirement).
    The key is the secret's bytes, which for a migrated webhook are the old secret's."""
    return "sha256=" + hmac.new(secret_key(secret), body, hashlib.sha256).hexdigest()


def signed_headers(hook: Webhook, delivery: WebhookDelivery, body: bytes) -> dict[str, str]:
    """The headers of one try, signed now (each try has its own timestamp)."""
    message_id = str(delivery.event_id)
    now = timezone.now()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "webhook-id": message_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": StandardWebhook(hook.secret).sign(message_id, now, body),
        "X-Ratings-Event": delivery.event,
        "X-Ratings-Delivery": str(delivery.pk),
    }
    if hook.legacy_signature:
        headers["X-Ratings-Signature-256"] = legacy_signature(hook.secret, body)
    return headers


@dataclass(frozen=True)
class Outcome:
    """How one try went: the answer's status (None if there was none), the time it took,
    what went wrong ("" if nothing) and the answer's first 1 KB."""

    code: int | None
    ms: int | None
    error: str = ""
    answer: str = ""

    @property
    def ok(self) -> bool:
        return not self.error and self.code is not None and 200 <= self.code < 300


class DeadlinePassed(TimeoutError):
    """The try's wall-clock deadline passed before its exchange was done."""


class _DeadlineSocket:
    """The connection's socket, each blocking call given only what is left of the try's
    deadline (http.client reads a trickled header in as many calls as bytes arrive)."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self._sock = sock
        self._deadline = deadline
        self._files = 0
        self._closed = False

    def _left(self) -> None:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise DeadlinePassed
        self._sock.settimeout(left)

    def sendall(self, data: bytes) -> None:
        # A loop of sends, not the socket's sendall: an SSL socket's sendall gives each
        # of its sends the whole timeout again.
        with memoryview(data) as view:
            sent = 0
            while sent < len(view):
                self._left()
                sent += self._sock.send(view[sent:])

    def recv_into(self, buffer: Any, *args: Any) -> int:
        self._left()
        return self._sock.recv_into(buffer, *args)

    def makefile(self, mode: str = "rb", *args: Any, **kwargs: Any) -> io.BufferedReader:
        self._files += 1
        return io.BufferedReader(socket.SocketIO(self, "rb"))  # type: ignore[arg-type]

    # As a socket does, the socket closes once its last file is closed too: http.client
    # closes the connection while the answer is still being read from it.
    def _decref_socketios(self) -> None:
        self._files -= 1
        if self._closed and not self._files:
            self._sock.close()

    def close(self) -> None:
        self._closed = True
        if not self._files:
            self._sock.close()


def post_once(hook: Webhook, delivery: WebhookDelivery) -> Outcome:
    """POST the delivery's body once to the address its URL resolves to now, within the
    deadline; never raises for what the receiver or the network does."""
    body = delivery.body.encode()
    started = time.perf_counter()
    seconds = float(settings.WEBHOOKS_TIMEOUT_SECONDS)
    deadline = time.monotonic() + seconds
    try:
        addresses = addresses_checked(hook.url, deadline=deadline)
    except DomainError as refused:
        return Outcome(None, int((time.perf_counter() - started) * 1000), refused.message)
    parts = urlsplit(hook.url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    connection = _connection(parts.scheme, parts.hostname or "", parts.port, addresses[0], deadline)
    code: int | None = None
    response: http.client.HTTPResponse | None = None
    try:
        connection.connect()
        connection.sock = _DeadlineSocket(connection.sock, deadline)
        connection.request("POST", path, body=body, headers=signed_headers(hook, delivery, body))
        response = connection.getresponse()
        code = response.status
        answer = response.read(RESPONSE_KEPT_BYTES).decode("utf-8", "replace")
    except (OSError, http.client.HTTPException) as failure:
        ms = int((time.perf_counter() - started) * 1000)
        if isinstance(failure, TimeoutError):
            # Every timeout this try sets is what is left of its deadline.
            error = (
                f"The try's deadline of {seconds:g} s (WEBHOOKS_TIMEOUT_SECONDS) passed before "
                "the receiver's whole answer arrived; the try was cut off."
            )
        else:
            error = f"{type(failure).__name__}: {failure}"
        return Outcome(code, ms, error[:500])
    finally:
        if response is not None:
            response.close()
        connection.close()
    return Outcome(code, int((time.perf_counter() - started) * 1000), "", answer)


def _connection(
    scheme: str, host: str, port: int | None, address: str, deadline: float
) -> http.client.HTTPConnection:
    """A connection to ``host`` that connects to ``address``, the one just checked (not
    to whatever the name resolves to a moment later); TLS still checks ``host``'s
    certificate. http.client follows no redirect: a 3xx is an answer like any non-2xx."""
    connection: http.client.HTTPConnection
    if scheme == "https":
        connection = http.client.HTTPSConnection(host, port, context=ssl.create_default_context())
    else:
        connection = http.client.HTTPConnection(host, port)

    def pinned(target: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        left = deadline - time.monotonic()
        if left <= 0:
            raise DeadlinePassed
        sock = socket.create_connection((address, target[1]), timeout=left)
        # What is left bounds the TLS handshake that follows (one deadline for all of it).
        left = deadline - time.monotonic()
        if left <= 0:
            sock.close()
            raise DeadlinePassed
        sock.settimeout(left)
        return sock

    connection._create_connection = pinned  # type: ignore[attr-defined]
    return connection
