"""Throttles for the token endpoint: per address and per username, counted in the shared
cache (every worker process sees the same counts).

The address is the connecting peer's unless ``NUM_PROXIES`` says how many proxies of ours
stand in front (then that many entries of X-Forwarded-For are ours): a client-chosen
X-Forwarded-For must not give every guess a fresh counter. Axes (the lockout) reads the
address through :func:`client_ip` too, so both agree."""

from __future__ import annotations

import hashlib
from typing import Any

from django.http import HttpRequest
from rest_framework.throttling import BaseThrottle, ScopedRateThrottle, SimpleRateThrottle


def client_ip(request: HttpRequest) -> str:
    """DRF's reading of the client address (REMOTE_ADDR, or X-Forwarded-For only as far as
    ``REST_FRAMEWORK["NUM_PROXIES"]`` trusts it)."""
    # DRF reads only request.META here, which a plain HttpRequest has.
    ident: str = BaseThrottle().get_ident(request)  # type: ignore[arg-type]
    return ident


class AddressRateThrottle(ScopedRateThrottle):
    """The view's ``throttle_scope`` rate, per client address."""


class UsernameRateThrottle(SimpleRateThrottle):
    """The ``auth_username`` rate, per username tried (whatever the address): guesses at
    one account spread over many addresses are counted together."""

    scope = "auth_username"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        data = request.data if isinstance(request.data, dict) else {}
        username = data.get("username")
        if not isinstance(username, str) or not username:
            return None
        # Hashed: a username may hold spaces or control characters, which no cache key may.
        # "surrogatepass": a lone surrogate (JSON can spell one) is bytes like any other
        # here, counted against what was tried rather than failing the request.
        tried = username.strip().lower().encode("utf-8", "surrogatepass")
        ident = hashlib.sha256(tried).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": ident}
