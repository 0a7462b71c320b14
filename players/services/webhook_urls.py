"""Where a webhook may point: http(s) URLs whose host resolves to public addresses only.

Checked when the webhook is registered and again before every try (``addresses_checked``
gives the addresses the try then connects to, so a name that resolved to a public address
at registration and to 127.0.0.1 now, DNS rebinding, is refused at delivery).
``WEBHOOKS_ALLOW_PRIVATE`` lets loopback, private and link-local addresses through: a
development receiver on the same machine, the tests' receiver.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings

from players.errors import ValidationFailed, invalid_field

MAX_URL_LENGTH = 500


def _refused(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    """Why this address is no place for a webhook ("" if it is public)."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return _refused(address.ipv4_mapped)
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_private or address.is_reserved or address.is_unspecified:
        return "a private or reserved address"
    if address.is_multicast or not address.is_global:
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
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


def addresses_checked(url: str) -> list[str]:
    """The addresses ``url``'s host resolves to, all of them allowed; else
    ValidationFailed naming ``url`` (at registration, the API's 400)."""
    _, host, port = url_parts(url)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise invalid_field("url", f"The host {host!r} does not resolve.") from None
    addresses = sorted({str(info[4][0]) for info in infos})
    if not addresses:
        raise invalid_field("url", f"The host {host!r} does not resolve.")
    if not settings.WEBHOOKS_ALLOW_PRIVATE:
        for text in addresses:
            why = _refused(ipaddress.ip_address(text.split("%", 1)[0]))
            if why:
                raise ValidationFailed(
                    f"url: {host} resolves to {text}, {why}; webhooks go to public hosts only.",
                    fields={"url": [f"Resolves to {why} ({text})."]},
                )
    return addresses
