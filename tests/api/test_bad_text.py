"""Text that is not valid Unicode, in every field of every API body and in every query
parameter, signed in (the owner of ``north``) and anonymous: never a server error, and
every refusal in the error shape.

The operations, their body fields (nested ones included) and their query parameters come
from the generated OpenAPI schema, not from a hand-kept list; a body's other fields keep
the good values of the authorization matrix's rules, so a bad field meets the code behind
the serializer too. Payloads: lone surrogates (JSON ``"\\ud800"``, ``"\\udfff"``, a
string ending in a high surrogate), which JSON can spell but UTF-8 cannot encode, and
invalid UTF-8 (``ff fe``, an encoded surrogate ``ed a0 80``, the overlong ``c0 af``) as
raw bytes in a JSON string, a form field, a file's name or a query string.

Path segments: tests/api/test_bad_paths.py; HTML forms: tests/api/test_bad_form_text.py.
"""

from __future__ import annotations

import copy
import itertools
import json
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote_from_bytes

import pytest
from django.core.cache import cache
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from players.models import ApiToken as AuthToken
from tests.api.conftest import World, assert_error_shape
from tests.api.test_authorization_matrix import RULES
from tests.api.test_bad_input import Bad, build_url

pytestmark = pytest.mark.django_db

SURROGATES = {"high": "\ud800", "low": "\udfff", "ends-high": "Anna\udbff"}
BAD_UTF8 = {"ff-fe": b"\xff\xfe", "encoded-surrogate": b"\xed\xa0\x80", "overlong": b"\xc0\xaf"}
# Parameters no operation declares: DRF reads ``format`` on every request.
UNKNOWN_PARAMETERS = ("format", "q", "search", "next", "callback")
MARK = "@@BAD@@"

SCHEMA = SchemaGenerator().get_schema(request=None, public=True)
COMPONENTS: dict[str, Any] = SCHEMA["components"]["schemas"]
OPERATIONS: dict[tuple[str, str], dict[str, Any]] = {
    (method.upper(), path): operation
    for path, operations in SCHEMA["paths"].items()
    for method, operation in operations.items()
    if method in {"get", "post", "put", "patch", "delete"}
}
Path = tuple[str | int, ...]


def resolve(node: dict[str, Any]) -> dict[str, Any]:
    """A schema node with ``$ref``, a lone ``allOf`` and ``oneOf`` (the first object
    choice: a game is posted alone or in a list) followed."""
    while True:
        if "$ref" in node:
            node = COMPONENTS[node["$ref"].rsplit("/", 1)[-1]]
        elif "allOf" in node and len(node["allOf"]) == 1:
            node = {**node["allOf"][0], **{k: v for k, v in node.items() if k != "allOf"}}
        elif "oneOf" in node:
            choices = [resolve(choice) for choice in node["oneOf"]]
            node = next((c for c in choices if "properties" in c), choices[0])
        else:
            return node


def field_paths(node: dict[str, Any], prefix: Path = ()) -> Iterator[Path]:
    """Every field of a body: each property, each nested object's properties, each
    list's first item."""
    node = resolve(node)
    for name, prop in node.get("properties", {}).items():
        here = (*prefix, name)
        yield here
        prop = resolve(prop)
        if "properties" in prop:
            yield from field_paths(prop, here)
        elif prop.get("type") == "array":
            item = resolve(prop.get("items", {}))
            yield (*here, 0)
            if "properties" in item:
                yield from field_paths(item, (*here, 0))


def put(body: Any, path: Path, value: Any) -> Any:
    """A copy of ``body`` with ``value`` at ``path`` (missing containers made)."""
    body = copy.deepcopy(body) if isinstance(body, dict) else {}
    node: Any = body
    for step, following in itertools.pairwise(path):
        empty: Any = [{}] if isinstance(following, int) else {}
        if isinstance(step, int):
            if not node or not isinstance(node[0], dict | list):
                node[:] = [empty]
            node = node[0]
        else:
            if not isinstance(node.get(step), dict | list):
                node[step] = empty
            node = node[step]
    last = path[-1]
    if isinstance(last, int):
        node[:] = [value]
    else:
        node[last] = value
    return body


def label(path: Path) -> str:
    return "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path)[1:]


def baseline(key: tuple[str, str], world: World) -> Any:
    rule = RULES.get(key)
    return rule.body(world.north, world.south) if rule and rule.body else {}


def json_schema(operation: dict[str, Any]) -> dict[str, Any] | None:
    content = operation.get("requestBody", {}).get("content", {})
    return content["application/json"]["schema"] if "application/json" in content else None


def multipart_schema(operation: dict[str, Any]) -> dict[str, Any] | None:
    content = operation.get("requestBody", {}).get("content", {})
    schema = content.get("multipart/form-data", {}).get("schema")
    return resolve(schema) if schema else None


def query_names(operation: dict[str, Any]) -> list[str]:
    return [p["name"] for p in operation.get("parameters", []) if p["in"] == "query"]


def json_bodies(key: tuple[str, str], world: World) -> Iterator[tuple[str, bytes]]:
    """(what, raw body): a lone surrogate in each field; every field's string holding
    invalid UTF-8 (the whole body fails to decode, so one request per payload says it
    all); a surrogate as a key and as the whole body."""
    schema = json_schema(OPERATIONS[key])
    if schema is None:
        return
    good = baseline(key, world)
    paths = list(field_paths(schema))
    for path in paths:
        for kind, text in SURROGATES.items():
            yield f"{label(path)}={kind}", json.dumps(put(good, path, text)).encode()
    everywhere = good
    for path in paths:
        everywhere = put(everywhere, path, MARK)
    for kind, raw in BAD_UTF8.items():
        yield f"every field={kind}", json.dumps(everywhere).encode().replace(MARK.encode(), raw)
    for kind, text in SURROGATES.items():
        yield f"key={kind}", json.dumps({**(good or {}), text: "x"}).encode()
        yield f"body={kind}", json.dumps(text).encode()


def multipart(parts: list[tuple[bytes, bytes, bytes | None]]) -> tuple[bytes, str]:
    """A multipart body from (name, value, file name or None), written by hand: the test
    client's encoder would make every name valid UTF-8."""
    boundary = uuid.uuid4().hex
    chunks = []
    for name, value, filename in parts:
        disposition = b'form-data; name="' + name + b'"'
        if filename is not None:
            disposition += b'; filename="' + filename + b'"'
        chunks.append(
            b"--" + boundary.encode() + b"\r\nContent-Disposition: " + disposition + b"\r\n"
            b"Content-Type: application/octet-stream\r\n\r\n" + value + b"\r\n"
        )
    body = b"".join(chunks) + b"--" + boundary.encode() + b"--\r\n"
    return body, f"multipart/form-data; boundary={boundary}"


def multipart_bodies(key: tuple[str, str]) -> Iterator[tuple[str, bytes, str]]:
    """Invalid UTF-8 in each field's value and in the file's name (plain and RFC 2231),
    the other fields good enough to reach the upload's handling."""
    schema = multipart_schema(OPERATIONS[key])
    if schema is None:
        return
    props = schema["properties"]
    files = [name for name, p in props.items() if resolve(p).get("format") == "binary"]
    good = {"format": b"csv", "list": b"standard", "dry_run": b"true"}
    for kind, raw in BAD_UTF8.items():
        for bad in props:
            parts: list[tuple[bytes, bytes, bytes | None]] = []
            for name in props:
                value = raw if name == bad else good.get(name, b"")
                if name in files:
                    parts.append((name.encode(), b"white,black,result\n", b"games.csv"))
                    if name == bad:
                        parts[-1] = (name.encode(), b"x", raw + b".csv")
                elif name in good or name == bad:
                    parts.append((name.encode(), value, None))
            yield (f"{bad}={kind}", *multipart(parts))
        for name in files:
            star = b"; filename*=utf-8''" + quote_from_bytes(raw).encode()
            body, content_type = multipart([(name.encode(), b"x", b"games.csv")])
            yield (
                f"{name} filename*={kind}",
                body.replace(b'"games.csv"', b'"g.csv"' + star),
                content_type,
            )


def query_strings(key: tuple[str, str]) -> Iterator[tuple[str, str]]:
    """(what, QUERY_STRING as WSGI gives it: bytes read as Latin-1): each declared
    parameter percent-encoded and raw; the unknown ones together; a bad name."""
    names = query_names(OPERATIONS[key])
    for kind, raw in BAD_UTF8.items():
        encoded = quote_from_bytes(raw)
        for name in names:
            yield f"?{name}={kind}", f"{name}={encoded}"
            yield f"?{name}=raw {kind}", f"{name}=" + raw.decode("latin-1")
        unknown = "&".join(f"{name}={encoded}" for name in UNKNOWN_PARAMETERS)
        yield f"?unknown={kind}", unknown
        yield f"?{kind}=1", f"{encoded}=1"


def url_for(path: str, world: World) -> str:
    """The path with north's objects: the operation's own where the id is not a player's
    (the defaults: tests/api/test_bad_input.py)."""
    extra = world.north.extra
    values: dict[str, Any] = {"webhook": extra["webhook"].pk}
    if "/deliveries/{id}" in path:
        values["id"] = extra["delivery"].pk
    elif "/webhooks/{id}" in path:
        values["id"] = extra["webhook"].pk
    elif "/invitations/{id}" in path:
        values["id"] = extra["invitation"].pk
    elif "/claims/{id}" in path:
        values["id"] = extra["claim"].pk
    return build_url(Bad("GET", path, 0, values=lambda w: values), world)


def client(world: World, user: str) -> APIClient:
    api = APIClient(raise_request_exception=False)
    if user == "owner":
        _, token = AuthToken.objects.create(world.north.users["owner"])
        api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return api


def requests(key: tuple[str, str], world: World) -> Iterator[tuple[str, dict[str, Any]]]:
    method, _ = key
    good = json.dumps(baseline(key, world)).encode()
    for what, body in json_bodies(key, world):
        yield what, {"data": body, "content_type": "application/json"}
    for what, body, content_type in multipart_bodies(key):
        yield what, {"data": body, "content_type": content_type}
    for what, query in query_strings(key):
        extra: dict[str, Any] = {"QUERY_STRING": query}
        if method != "GET":
            extra |= {"data": good, "content_type": "application/json"}
        yield what, extra


def problems(response: Any) -> str | None:
    if response.status_code >= 500:
        return f"{response.status_code} {response.content[:200]!r}"
    if response.status_code >= 400:
        if response.get("Content-Type") != "application/json":
            return f"{response.status_code} not in the error shape: {response.content[:200]!r}"
        try:
            assert_error_shape(response.json())
        except AssertionError as error:
            return f"{response.status_code} not in the error shape: {error}"
    return None


@pytest.mark.parametrize("user", ["owner", "anonymous"])
@pytest.mark.parametrize("key", sorted(OPERATIONS), ids=" ".join)
def test_text_that_is_not_unicode_is_never_a_server_error(
    world: World, key: tuple[str, str], user: str
) -> None:
    method, path = key
    url = url_for(path, world)
    api = client(world, user)
    failures = []
    for what, kwargs in requests(key, world):
        cache.clear()  # no throttle may hide what a request would do
        response = api.generic(method, url, **kwargs)
        if (problem := problems(response)) is not None:
            failures.append(f"{method} {path} {what}: {problem}")
    assert not failures, "\n".join(failures)


def test_the_sweep_reaches_every_kind_of_input(world: World) -> None:
    """The schema gives the sweep nested fields, files and query parameters to try."""
    create_player = ("POST", "/api/v1/clubs/{club}/players/")
    paths = {label(p) for p in field_paths(json_schema(OPERATIONS[create_player]) or {})}
    assert {"name", "sex", "title", "ratings[0].list"} <= paths
    imports = ("POST", "/api/v1/clubs/{club}/imports/")
    assert any("file filename*" in what for what, _, _ in multipart_bodies(imports))
    assert "page" in query_names(OPERATIONS[("GET", "/api/v1/clubs/")])


# WSGI gives a header as its bytes read as Latin-1: "\xff\xfe" is the bytes ff fe.
BAD_HEADERS = [
    ("HTTP_AUTHORIZATION", "Token \xff\xfe"),
    ("HTTP_AUTHORIZATION", "Token a\x00b"),  # a NUL, which PostgreSQL refuses in a query
    ("HTTP_ACCEPT_LANGUAGE", "\xed\xa0\x80"),
    ("HTTP_COOKIE", "sessionid=\xff\xfe; csrftoken=\xc0\xaf"),
    ("HTTP_ACCEPT", "application/json; q=\xff"),
    ("HTTP_IF_NONE_MATCH", '"\xff\xfe"'),
    ("HTTP_X_FORWARDED_FOR", "\xed\xa0\x80"),
    ("HTTP_REFERER", "http://\xff\xfe/"),
    ("HTTP_HOST", "\xff\xfe"),
    ("CONTENT_TYPE", "application/json; charset=\xff\xfe"),
]


@pytest.mark.parametrize("user", ["owner", "anonymous"])
def test_headers_that_are_not_utf8_are_never_a_server_error(world: World, user: str) -> None:
    """Each header alone, on an API read, write and download, a page, the admin and the
    sign-in form."""
    south = world.south.slug
    targets = [
        ("GET", f"/api/v1/clubs/{south}/players/", b""),
        ("POST", f"/api/v1/clubs/{world.north.slug}/players/", b'{"name": "Header Test"}'),
        ("GET", f"/api/v1/clubs/{south}/lists/standard/ratings.csv", b""),
        ("GET", f"/clubs/{south}/", b""),
        ("GET", "/admin/", b""),
        ("POST", "/accounts/login/", b"username=x&password=y"),
    ]
    api = client(world, user)
    failures = []
    for method, url, body in targets:
        for header, value in BAD_HEADERS:
            cache.clear()
            kwargs: dict[str, Any] = {header: value}
            if header != "CONTENT_TYPE":
                form = url.startswith("/accounts/")
                kwargs["content_type"] = (
                    "application/x-www-form-urlencoded" if form else "application/json"
                )
            response = api.generic(method, url, body, **kwargs)
            if response.status_code >= 500:
                failures.append(f"{method} {url} {header}: {response.status_code}")
            elif url.startswith("/api/") and (problem := problems(response)) is not None:
                failures.append(f"{method} {url} {header}: {problem}")
    assert not failures, "\n".join(failures)
