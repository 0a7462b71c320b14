"""A real HTTP server on 127.0.0.1 that receives webhook deliveries in tests.

It records every request (path, headers, body) and answers each with the next status of
``statuses`` (200 once they are used up), so a test can make it fail once and then
succeed. With ``trickle`` set it sends its answer one byte every ``trickle`` seconds (the
status line and headers too, or only the body: ``trickle_body``), as a slow or hostile
receiver does. Runs in a thread of the test process; worker processes reach it over TCP.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from standardwebhooks import Webhook, WebhookVerificationError


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    def signed_by(self, secret: str) -> bool:
        """The Standard Webhooks check (its own package), the timestamp's 5 minutes too."""
        try:
            Webhook(secret).verify(self.body, self.headers)
        except WebhookVerificationError:
            return False
        return True

    def legacy_signed_by(self, key: bytes) -> bool:
        """The old X-Ratings-Signature-256 check, as receivers wrote it with the old secret
        (whose bytes were the key)."""
        expected = "sha256=" + hmac.new(key, self.body, hashlib.sha256).hexdigest()
        return hmac.compare_digest(expected, self.headers.get("X-Ratings-Signature-256", ""))


@dataclass
class Receiver:
    url: str
    statuses: list[int] = field(default_factory=list)
    requests: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: Where a 3xx answer points (to check that no redirect is followed).
    location: str = ""
    #: Seconds between the bytes of a trickled answer (None: the answer at once).
    trickle: float | None = None
    #: Trickle only the body (the status line and headers go at once).
    trickle_body: bool = False

    def of_event(self, event: str) -> list[Received]:
        with self.lock:
            return [r for r in self.requests if r.headers.get("X-Ratings-Event") == event]


def self_signed(folder: Path) -> Path:
    """A certificate and key for 127.0.0.1 in one PEM file (openssl, one day): trust it
    with ``SSL_CERT_FILE``, which ssl.create_default_context reads on each call."""
    pem = folder / "receiver.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(pem),
            "-out",
            str(folder / "cert.pem"),
        ],
        check=True,
        capture_output=True,
    )
    pem.write_text(pem.read_text() + (folder / "cert.pem").read_text())
    return pem


@contextmanager
def receiver(path: str = "/hook", *, tls: Path | None = None) -> Iterator[Receiver]:
    """The receiver; https with ``tls``, a PEM file of key and certificate (self_signed)."""
    state = Receiver(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            with state.lock:
                state.requests.append(Received(self.path, dict(self.headers.items()), body))
                status = state.statuses.pop(0) if state.statuses else 200
            if state.trickle is not None:
                self._trickled(status, state.trickle)
                return
            self.send_response(status)
            if 300 <= status < 400 and state.location:
                self.send_header("Location", state.location)
            answer = b"ok" if status < 300 else b"x" * 5000
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def _trickled(self, status: int, seconds: float) -> None:
            body = b"ok, eventually" * 4
            head = (
                f"HTTP/1.1 {status} OK\r\nContent-Type: text/plain\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            ).encode()
            if state.trickle_body:
                self.wfile.write(head)
                self.wfile.flush()
                head = b""
            try:
                for index in range(len(head + body)):
                    self.wfile.write((head + body)[index : index + 1])
                    self.wfile.flush()
                    time.sleep(seconds)
            except OSError:
                pass  # the sender hung up: its deadline passed
            self.close_connection = True

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if tls is not None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(tls)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    scheme = "https" if tls is not None else "http"
    state.url = f"{scheme}://127.0.0.1:{server.server_address[1]}{path}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
