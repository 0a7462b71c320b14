"""Where a webhook may point: http(s) URLs on an allowed port whose host resolves to
public addresses only.

Checked when the webhook is registered and again before every try (``addresses_checked``
gives the addresses the try then connects to, so a name that resolved to a public address
at registration and to 127.0.0.1 now, DNS rebinding, is refused at delivery).
``WEBHOOKS_ALLOW_PRIVATE`` lets loopback, private and link-local addresses through, and
``WEBHOOKS_ALLOWED_PORTS`` (80 and 443 unless the operator says more) names the ports: a
development receiver on the same machine, the tests' receiver.

An IPv6 address that carries an IPv4 one (IPv4-mapped and -compatible, 6to4, Teredo,
NAT64) is judged by the address it carries: ``[2002:7f00:1::]`` reaches 127.0.0.1 through
a 6to4 relay, ``[64:ff9b::a00:1]`` 10.0.0.1 through the network's NAT64. Python's
``is_global`` is not enough on its own (on 3.11 it calls 6to4, IPv4-compatible and
site-local addresses global), so IPv6 must also be global unicast (2000::/3), unless it is
a well-known NAT64 or mapped address whose IPv4 is public.
"""

from __future__ import annotations

import ipaddress
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as LookupTimeout
from urllib.parse import urlsplit

from django.conf import settings

from players.errors import ValidationFailed, invalid_field

MAX_URL_LENGTH = 500
#: Name lookups run here, so that a try waits for one only until its deadline: the
#: system's resolver gives up on a name server that never answers only after its own
#: timeouts and attempts (resolv.conf), which a club that runs its DNS could stretch.
#: A lookup still running after its deadline keeps its thread until the resolver gives
#: up; with all of them busy, further lookups wait in line and time out the same way.
_RESOLVERS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="webhook-dns")

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

_GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")
_IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")
_NAT64_WELL_KNOWN = ipaddress.IPv6Network("64:ff9b::/96")
#: RFC 8215's local-use NAT64 prefix: where the IPv4 address sits depends on the length
#: the network chose, so what it carries cannot be read; refused as a whole.
_NAT64_LOCAL = ipaddress.IPv6Network("64:ff9b:1::/48")
#: IPv4 ranges that are not global but that Python 3.11's ``is_global`` lets through
#: (IANA's special-purpose registry): IETF protocol assignments, the 6to4 relay anycast.
_IPV4_NOT_GLOBAL = (
    ipaddress.IPv4Network("192.0.0.0/24"),
    ipaddress.IPv4Network("192.88.99.0/24"),
)


def _carried(address: ipaddress.IPv6Address) -> tuple[str, ipaddress.IPv4Address] | None:
    """(the form's name, the IPv4 address) an IPv6 address carries, if it carries one."""
    if address.ipv4_mapped is not None:
        return "an IPv4-mapped address", address.ipv4_mapped
    if address.sixtofour is not None:
        return "a 6to4 address", address.sixtofour
    if address.teredo is not None:
        return "a Teredo address", address.teredo[1]
    if address in _NAT64_WELL_KNOWN:
        return "a NAT64 address", ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address in _IPV4_COMPATIBLE and int(address) > 1:
        return "an IPv4-compatible address", ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _refused_ipv4(address: ipaddress.IPv4Address) -> str:
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_private or address.is_reserved or address.is_unspecified:
        return "a private or reserved address"
    if address.is_multicast or not address.is_global:
        return "not a public address"
    if any(address in network for network in _IPV4_NOT_GLOBAL):
        return "not a public address"
    return ""


def refused(address: Address) -> str:
    """Why this address is no place for a webhook ("" if it is public)."""
    if isinstance(address, ipaddress.IPv4Address):
        return _refused_ipv4(address)
    carried = _carried(address)
    if carried is not None:
        form, inner = carried
        why = _refused_ipv4(inner)
        if why:
            return f"{form} that carries {inner}, {why}"
        if address.ipv4_mapped is not None or address in _NAT64_WELL_KNOWN:
            return ""  # the same public IPv4 host, reached another way
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_unspecified or address.is_multicast:
        return "not a public address"
    if address in _NAT64_LOCAL:
        return "a local-use NAT64 address"
    if address.is_private or address.is_site_local or address not in _GLOBAL_UNICAST:
        return "a private or reserved address"
    if not address.is_global:
        return "not a public address"
    return ""


def url_parts(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of a webhook URL, or ValidationFailed naming ``url``."""
    if not isinstance(url, str) or not url.strip():
        raise invalid_field("url", "Give the URL to send the events to.")
    if len(url) > MAX_URL_LENGTH:
        raise invalid_field("url", f"At most {MAX_URL_LENGTH} characters.")
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise invalid_field("url", "Not a URL.") from None
    if parts.scheme not in ("http", "https"):
        raise invalid_field("url", "Only http:// and https:// URLs.")
    if not parts.hostname:
        raise invalid_field("url", "The URL names no host.")
    if parts.username or parts.password:
        raise invalid_field(
            "url", "No user or password in the URL: the signature proves the sender."
        )
    port = port or (443 if parts.scheme == "https" else 80)
    allowed = settings.WEBHOOKS_ALLOWED_PORTS
    if allowed != "*" and port not in allowed:
        ports = " and ".join(str(p) for p in allowed)
        plural = "s" if len(allowed) > 1 else ""
        raise invalid_field(
            "url", f"Port {port} is not allowed: webhooks go to port{plural} {ports} only."
        )
    return parts.scheme, parts.hostname, port


def addresses_checked(url: str, *, deadline: float | None = None) -> list[str]:
    """The addresses ``url``'s host resolves to, all of them allowed; else
    ValidationFailed naming ``url`` (at registration, the API's 400). The lookup waits
    until ``deadline`` (time.monotonic), by default WEBHOOKS_TIMEOUT_SECONDS from now."""
    _, host, port = url_parts(url)
    if deadline is None:
        deadline = time.monotonic() + float(settings.WEBHOOKS_TIMEOUT_SECONDS)
    lookup = _RESOLVERS.submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
    try:
        infos = lookup.result(timeout=max(0.0, deadline - time.monotonic()))
    except LookupTimeout:
        lookup.cancel()
        raise invalid_field(
            "url", f"The host {host!r} did not resolve within the deadline."
        ) from None
    except (OSError, UnicodeError):
        raise invalid_field("url", f"The host {host!r} does not resolve.") from None
    addresses = sorted({str(info[4][0]) for info in infos})
    if not addresses:
        raise invalid_field("url", f"The host {host!r} does not resolve.")
    if not settings.WEBHOOKS_ALLOW_PRIVATE:
        for text in addresses:
            why = refused(ipaddress.ip_address(text.split("%", 1)[0]))
            if why:
                raise ValidationFailed(
                    f"url: {host} resolves to {text}, {why}; webhooks go to public hosts only.",
                    fields={"url": [f"Resolves to {why} ({text})."]},
                )
    return addresses
