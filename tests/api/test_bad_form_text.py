"""Invalid UTF-8 in every form of every page, admin included, signed in (the owner of
``north``, with staff access to the admin) and anonymous: never a server error.

The pages come from the URL configuration (every pattern, walked; its parameters filled
with north's objects), the forms from the pages themselves: each page is fetched, each
``<form method="post">`` on it is posted back with every field (hidden ones, selects,
check boxes) holding the bad bytes, percent-encoded as a browser sends them and raw, and
each file input a file whose name holds them; a page without a form still gets a POST of
bad fields. When a form fails, each field is posted alone to name the culprit. Bytes:
``ff fe``, an encoded surrogate ``ed a0 80``, the overlong ``c0 af`` (a lone surrogate
cannot travel in a form: only JSON can spell one, tests/api/test_bad_text.py).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import quote_from_bytes, urljoin, urlsplit

import pytest
from django.apps import apps
from django.contrib.auth.tokens import default_token_generator
from django.core.cache import cache
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from players.emails.services import unsubscribe_token
from players.http.admin import club_lookup_for
from players.services import invitation_create
from players.services.tokens import api_token_create
from tests.api.conftest import World

pytestmark = pytest.mark.django_db

BAD_UTF8 = {"ff-fe": b"\xff\xfe", "encoded-surrogate": b"\xed\xa0\x80", "overlong": b"\xc0\xaf"}
PARAMETER = re.compile(r"<(?:(?P<converter>\w+):)?(?P<name>\w+)>|\(\?P<(?P<group>\w+)>[^)]*\)")
ADMIN_OBJECT = re.compile(
    r"^admin/(?P<app>\w+)/(?P<model>\w+)/(?:<path:object_id>|\^\(\[\^/\]\+\))/"
)
# The API has its own sweep; the rest are files or answers without a form.
LEFT_OUT = ("api/", "healthz", "favicon.ico")


def routes() -> list[str]:
    def walk(patterns: list[Any], prefix: str) -> Iterator[str]:
        for entry in patterns:
            if isinstance(entry, URLResolver):
                yield from walk(entry.url_patterns, prefix + str(entry.pattern))
            elif isinstance(entry, URLPattern):
                yield prefix + str(entry.pattern)

    return [r for r in walk(get_resolver().url_patterns, "") if not r.startswith(LEFT_OUT)]


@dataclass
class Form:
    action: str
    multipart: bool
    fields: list[tuple[str, str]] = field(default_factory=list)  # name, value
    files: list[str] = field(default_factory=list)


class Forms(HTMLParser):
    """The page's POST forms with their fields' names and first values."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.page = page
        self.forms: list[Form] = []
        self.current: Form | None = None

    def handle_starttag(self, tag: str, attributes: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attributes}
        if tag == "form":
            post = a.get("method", "get").lower() == "post"
            multipart = a.get("enctype", "") == "multipart/form-data"
            action = urljoin(self.page, a.get("action") or self.page)
            self.current = Form(action, multipart) if post else None
            if self.current is not None:
                self.forms.append(self.current)
        elif self.current is not None and tag in {"input", "select", "textarea", "button"}:
            name = a.get("name")
            if not name:
                return
            if a.get("type") == "file":
                self.current.files.append(name)
            else:
                self.current.fields.append((name, a.get("value", "")))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.current = None


def admin_object(route: str, world: World) -> dict[str, str]:
    """For an admin page of one object: north's first such row, and its history's."""
    match = ADMIN_OBJECT.match(route)
    if match is None:
        return {}
    model = apps.get_model(match["app"], match["model"])
    rows = model._default_manager.order_by("pk")
    lookup = club_lookup_for(model)
    if lookup is not None:
        rows = rows.filter(**{lookup: world.north.club.pk})
    row = rows.first()
    if row is None:
        return {"object_id": "1"}
    values = {"object_id": str(row.pk)}
    history = getattr(model, "history", None)
    if history is not None:
        entry = history.filter(pk=row.pk).order_by("history_id").first()
        values["history_id"] = str(entry.history_id if entry else 1)
    return values


def fill(route: str, world: World) -> str:
    north = world.north
    owner = north.users["owner"]
    _, secret = invitation_create(
        club=north.club, by=owner, role="viewer", email="bad.text@example.org", accept_url=str
    )
    token, _ = api_token_create(user=owner, name="bad text")
    values = {
        "club": north.slug,
        "list": "standard",
        "kind": "standard",
        "period": "2026-01",
        "month": "2026-01",
        "player_id": str(north.players[0].pk),
        "opponent_id": str(north.players[1].pk),
        "tournament_id": str(north.tournament.pk),
        "id": str(north.tournament.pk if "tournaments/" in route else north.players[0].pk),
        "invitation_id": str(north.extra["invitation"].pk),
        "claim_id": str(north.extra["claim"].pk),
        "secret": secret,
        "digest": token.digest,
        "token": unsubscribe_token(owner.pk)
        if "unsubscribe" in route
        else default_token_generator.make_token(owner),
        "uidb64": urlsafe_base64_encode(force_bytes(owner.pk)),
        "content_type_id": "1",
        "model": "ratingperiod",
        "rest": "1/change/",
        "url": "players/club/",
        "app_label": "players",
        "object_id": "1",
        **admin_object(route, world),
    }
    path = PARAMETER.sub(lambda m: values[m["name"] or m["group"]], route)
    # simple_history's page of one past version: ^([^/]+)/history/([^/]+)/$
    path = path.replace(
        "^([^/]+)/history/([^/]+)/$",
        f"{values.get('object_id')}/history/{values.get('history_id')}/",
    )
    return "/" + path.replace("^", "").replace("$", "")


def urlencoded(fields: list[tuple[str, bytes]], *, raw: bool) -> bytes:
    def encode(value: bytes) -> bytes:
        return value if raw else quote_from_bytes(value).encode()

    return b"&".join(encode(name.encode()) + b"=" + encode(value) for name, value in fields)


def multipart(fields: list[tuple[str, bytes]], files: list[tuple[str, bytes]]) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex.encode()
    parts = [
        b'--%b\r\nContent-Disposition: form-data; name="%b"\r\n\r\n%b\r\n'
        % (boundary, n.encode(), v)
        for n, v in fields
    ] + [
        b'--%b\r\nContent-Disposition: form-data; name="%b"; filename="%b.pgn"\r\n'
        b"Content-Type: application/octet-stream\r\n\r\n%b\r\n" % (boundary, n.encode(), v, v)
        for n, v in files
    ]
    return b"".join(
        parts
    ) + b"--%b--\r\n" % boundary, f"multipart/form-data; boundary={boundary.decode()}"


def post(client: Client, form: Form, bad: set[str], raw_bytes: bytes, *, raw: bool) -> Any:
    """The form with the fields in ``bad`` holding ``raw_bytes``, the others their own."""
    fields = [(n, raw_bytes if n in bad else v.encode()) for n, v in form.fields]
    path = urlsplit(form.action)
    url, query = path.path, path.query
    cache.clear()  # no throttle or lockout count may hide what a request would do
    if form.multipart:
        files = [(n, raw_bytes if n in bad else b"good") for n in form.files]
        body, content_type = multipart(fields, files)
    else:
        body, content_type = urlencoded(fields, raw=raw), "application/x-www-form-urlencoded"
    return client.generic("POST", url, body, content_type, QUERY_STRING=query)


def check_form(client: Client, form: Form) -> list[str]:
    failures = []
    names = {n for n, _ in form.fields} | set(form.files)
    for kind, raw_bytes in BAD_UTF8.items():
        for raw in (False, True) if kind == "ff-fe" else (False,):
            response = post(client, form, names, raw_bytes, raw=raw)
            if response.status_code < 500:
                continue
            culprits = [
                name
                for name in sorted(names)
                if post(client, form, {name}, raw_bytes, raw=raw).status_code >= 500
            ]
            how = "raw" if raw else "percent-encoded"
            failures.append(
                f"POST {form.action} every field={kind} ({how}): {response.status_code}; "
                f"alone: {culprits or 'none fails alone'}"
            )
    return failures


def page_forms(client: Client, url: str) -> list[Form]:
    response = client.get(url)
    if response.status_code != 200 or "text/html" not in response.get("Content-Type", ""):
        return []
    parser = Forms("http://testserver" + url)
    parser.feed(response.content.decode())
    return parser.forms


@pytest.fixture
def clients(world: World) -> dict[str, Client]:
    owner = world.north.users["owner"]
    owner.is_staff = True
    owner.save(update_fields=["is_staff"])
    signed_in = Client(raise_request_exception=False)
    signed_in.force_login(owner)
    return {"owner": signed_in, "anonymous": Client(raise_request_exception=False)}


@pytest.mark.parametrize("user", ["owner", "anonymous"])
@pytest.mark.parametrize("route", routes())
def test_invalid_utf8_in_any_form_is_never_a_server_error(
    world: World, clients: dict[str, Client], route: str, user: str
) -> None:
    client = clients[user]
    url = fill(route, world)
    bare = Form("http://testserver" + url, multipart=False, fields=[("name", ""), ("q", "")])
    failures = check_form(client, bare)
    for form in page_forms(client, url):
        failures += check_form(client, form)
    assert not failures, "\n".join(failures)
