"""A real HTTP server on 127.0.0.1 that receives webhook deliveries in tests.

It records every request (path, headers, body) and answers each with the next status of
``statuses`` (200 once they are used up), so a test can make it fail once and then
succeed. Runs in a thread of the test process; worker processes reach it over TCP.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    def signed_by(self, secret: str) -> bool:
        """The check the docs show a receiver (docs/webhooks.md)."""
        expected = "sha256=" + hmac.new(secret.encode(), self.body, hashlib.sha256).hexdigest()
        return hmac.compare_digest(expected, self.headers.get("X-Ratings-Signature-256", ""))


@dataclass
class Receiver:
    url: str
    statuses: list[int] = field(default_factory=list)
    requests: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: Where a 3xx answer points (to check that no redirect is followed).
    location: str = ""

    def of_event(self, event: str) -> list[Received]:
        with self.lock:
            return [r for r in self.requests if r.headers.get("X-Ratings-Event") == event]


@contextmanager
def receiver(path: str = "/hook") -> Iterator[Receiver]:
    state = Receiver(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            with state.lock:
                state.requests.append(Received(self.path, dict(self.headers.items()), body))
                status = state.statuses.pop(0) if state.statuses else 200
            self.send_response(status)
            if 300 <= status < 400 and state.location:
                self.send_header("Location", state.location)
            answer = b"ok" if status < 300 else b"x" * 5000
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}{path}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
