"""The doors a security review found open, each held by a test here.

- token throttle: X-Forwarded-For is not trusted by default; counts per address and per
  username in the shared (database) cache;
- lockout after ten wrong passwords: site login, admin login, token endpoint (django-axes);
- API tokens die with a password change (tests/accounts/test_accounts.py);
- deeply nested JSON is a 400, an API 500 is in the error shape;
- club slugs and names unique ignoring case, reserved names, who may create clubs and
  how many;
- production settings serve a page without collectstatic, with a CSP and no inline script.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from players.models import Club
from players.services import club_create
from ratings_site.env import CACHE_TABLE, env_cache

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-enough-password-42"
TOKEN_URL = "/api/v1/auth/token/"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _setup() -> None:
    cache.clear()


def make_user(username: str, **extra: Any) -> Any:
    return get_user_model().objects.create_user(username, password=PASSWORD, **extra)


def guess(username: str, password: str = "wrong", **headers: Any) -> Any:  # noqa: S107
    return APIClient().post(
        TOKEN_URL, {"username": username, "password": password}, format="json", **headers
    )


# -- the token endpoint's throttle -----------------------------------------------------------


def test_rotating_forwarded_for_does_not_reset_the_address_count(settings: Any) -> None:
    settings.AXES_ENABLED = False  # the throttle alone
    statuses = [
        guess(f"user{n}", HTTP_X_FORWARDED_FOR=f"10.0.{n // 250}.{n % 250}").status_code
        for n in range(32)
    ]
    assert statuses[:30] == [400] * 30
    assert statuses[30:] == [429, 429]


def test_guesses_at_one_username_from_many_addresses_are_counted(settings: Any) -> None:
    settings.AXES_ENABLED = False
    statuses = [guess("vera", REMOTE_ADDR=f"10.1.0.{n}").status_code for n in range(12)]
    assert statuses[:10] == [400] * 10
    assert statuses[10:] == [429, 429]


def test_trusted_proxy_count_reads_the_forwarded_address(settings: Any) -> None:
    settings.AXES_ENABLED = False
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    # Behind one proxy of ours, each client address has its own count.
    statuses = [
        guess(f"user{n}", HTTP_X_FORWARDED_FOR=f"10.2.0.{n}").status_code for n in range(35)
    ]
    assert set(statuses) == {400}


def test_throttle_counts_live_in_the_shared_database_cache(settings: Any) -> None:
    default = env_cache("CACHE_URL_NOT_SET")
    assert default["BACKEND"] == "django.core.cache.backends.db.DatabaseCache"
    settings.CACHES = {"default": default}  # what the settings give outside the suite
    # `migrate` made it outside the suite (players migration 0017); the suite's own
    # cache is in memory, so the table is made here.
    call_command("createcachetable")
    guess("vera")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT cache_key FROM {CACHE_TABLE}")  # noqa: S608
        keys = [row[0] for row in cursor.fetchall()]
    vera = hashlib.sha256(b"vera").hexdigest()
    assert any(f"throttle_auth_username_{vera}" in key for key in keys), keys
    assert any("throttle_auth_127.0.0.1" in key for key in keys), keys


# -- lockout ------------------------------------------------------------------------------------


def wrong_ten_times(post: Any) -> None:
    for _ in range(10):
        post("wrong-password")


def test_site_login_locks_out_after_ten_wrong_passwords() -> None:
    make_user("vera")
    client = Client()

    def post(password: str) -> Any:
        return client.post("/accounts/login/", {"username": "vera", "password": password})

    wrong_ten_times(post)
    locked = post(PASSWORD)
    assert locked.status_code == 429
    assert "Locked out" in locked.content.decode()
    assert "_auth_user_id" not in client.session


def test_nine_wrong_passwords_then_the_right_one_works() -> None:
    make_user("vera")
    client = Client()
    for _ in range(9):
        client.post("/accounts/login/", {"username": "vera", "password": "nope"})
    assert (
        client.post("/accounts/login/", {"username": "vera", "password": PASSWORD})["Location"]
        == "/accounts/"
    )


def test_admin_login_locks_out_too() -> None:
    make_user("root", is_staff=True, is_superuser=True)
    client = Client()

    def post(password: str) -> Any:
        return client.post("/admin/login/", {"username": "root", "password": password})

    wrong_ten_times(post)
    assert post(PASSWORD).status_code == 429
    assert "_auth_user_id" not in client.session


def test_token_endpoint_locks_out_too_in_the_error_shape(settings: Any) -> None:
    make_user("vera")
    # From many addresses: the username is locked whatever the address; the tenth wrong
    # password is already answered with the lockout.
    statuses = [guess("vera", REMOTE_ADDR=f"10.3.0.{n}").status_code for n in range(10)]
    assert statuses == [400] * 9 + [429]
    cache.clear()  # the throttle's counts go; the lockout (in the database) stays
    locked = guess("vera", PASSWORD, REMOTE_ADDR="10.3.1.1")
    assert locked.status_code == 429
    assert locked.json()["error"]["code"] == "locked_out"


# -- bad JSON and server errors -------------------------------------------------------------


def test_deeply_nested_json_is_a_400_in_the_error_shape() -> None:
    body = "[" * 50_000 + "]" * 50_000
    # Anonymous: the open endpoints parse the body; creating a club asks for a sign-in
    # first. Signed in, every one of them must parse it, and refuse it as a 400.
    anonymous = {"/api/v1/calculate/": 400, TOKEN_URL: 400, "/api/v1/clubs/": 401}
    signed_in = api_as(make_user("nesting"))
    for url, status in anonymous.items():
        for client, expected in ((APIClient(), status), (signed_in, 400)):
            response = client.post(url, body, content_type="application/json")
            assert response.status_code == expected, (url, response.status_code)
            code = "parse_error" if expected == 400 else "not_authenticated"
            assert response.json()["error"]["code"] == code, url


def test_an_api_500_is_in_the_error_shape_without_internals(monkeypatch: Any) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret internals")

    monkeypatch.setattr("players.api.clubs.ClubListView.get", broken)
    client = APIClient(raise_request_exception=False)
    response = client.get("/api/v1/clubs/")
    assert response.status_code == 500
    assert response.json()["error"]["code"] == "server_error"
    assert "secret internals" not in response.content.decode()


# -- club slugs and who creates clubs --------------------------------------------------------


def api_as(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_slugs_are_unique_ignoring_case_and_some_are_reserved() -> None:
    owner = make_user("olga")
    assert (
        api_as(owner).post("/api/v1/clubs/", {"name": "A", "slug": "riverside"}).status_code == 201
    )
    for slug in ("RiverSide", "RIVERSIDE", "admin", "API", "accounts", "static"):
        response = api_as(owner).post("/api/v1/clubs/", {"name": "B", "slug": slug})
        assert response.status_code == 400, slug
        assert "slug" in response.json()["error"]["fields"], slug
    assert Club.objects.count() == 1


def test_club_names_are_unique_ignoring_case() -> None:
    owner = make_user("olga")
    assert (
        api_as(owner).post("/api/v1/clubs/", {"name": "Riverside", "slug": "riverside"}).status_code
        == 201
    )
    for name in ("riverside", "RiverSide", " RIVERSIDE "):
        response = api_as(owner).post("/api/v1/clubs/", {"name": name, "slug": "riverside-2"})
        assert response.status_code == 400, name
        assert response.json()["error"]["fields"].keys() == {"name"}, name
    # Renamed: another club may not take the name; the club itself may change its case.
    other = api_as(owner).post("/api/v1/clubs/", {"name": "Northgate", "slug": "northgate"})
    assert other.status_code == 201
    taken = api_as(owner).patch("/api/v1/clubs/northgate/", {"name": "RIVERSIDE"})
    assert taken.status_code == 400
    assert taken.json()["error"]["fields"].keys() == {"name"}
    assert api_as(owner).patch("/api/v1/clubs/riverside/", {"name": "RiverSide"}).status_code == 200
    # The admin's form says it on the name field.
    admin = make_user("root", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(admin)
    page = client.post(
        "/admin/players/club/add/",
        {
            "name": "riverside",
            "slug": "riverside-3",
            "public": "",
            "memberships-TOTAL_FORMS": "0",
            "memberships-INITIAL_FORMS": "0",
        },
    )
    assert page.status_code == 200
    assert "name" in page.context["adminform"].form.errors
    assert list(Club.objects.order_by("slug").values_list("name", flat=True)) == [
        "Northgate",
        "RiverSide",
    ]


def test_the_database_refuses_a_second_slug_differing_in_case() -> None:
    from django.db import IntegrityError, transaction

    owner = make_user("olga")
    club_create(name="A", slug="riverside", by=owner)
    with pytest.raises(IntegrityError), transaction.atomic():
        Club.objects.create(name="B", slug="RiverSide")


def test_clubs_a_day_are_limited(settings: Any) -> None:
    settings.CLUBS_PER_DAY = 2
    owner = make_user("olga")
    codes = [
        api_as(owner).post("/api/v1/clubs/", {"name": f"C{n}", "slug": f"c{n}"}).status_code
        for n in range(3)
    ]
    assert codes == [201, 201, 429]


def test_club_creation_can_be_kept_to_staff(settings: Any) -> None:
    settings.CLUB_CREATORS = "staff"
    member, staff = make_user("mia"), make_user("sam", is_staff=True)
    assert api_as(member).post("/api/v1/clubs/", {"name": "M", "slug": "m"}).status_code == 403
    assert api_as(staff).post("/api/v1/clubs/", {"name": "S", "slug": "s"}).status_code == 201


# -- production serving and the CSP ------------------------------------------------------------

PRODUCTION_PAGE = """
import django
django.setup()
from django.test import Client
client = Client()
page = client.get("/calculator/", secure=True)
css = client.get("/static/css/site.css", secure=True)
js = client.get("/api/docs/", secure=True)
print(page.status_code, css.status_code, js.status_code)
print(page.headers.get("Content-Security-Policy", ""))
print("<script>" in page.content.decode())
"""


@pytest.mark.slow
def test_production_settings_serve_a_page_without_collectstatic(tmp_path: Path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "DJANGO_SETTINGS_MODULE": "ratings_site.settings.production",
        "SECRET_KEY": "k" * 20 + "abcdefghijklmnopqrstuvwxyz0123456789",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "ALLOWED_HOSTS": "testserver",
        "SITE_URL": "https://ratings.example.org",
    }
    assert not (ROOT / "staticfiles" / "staticfiles.json").exists() or os.environ.get("CI")
    result = subprocess.run(
        [sys.executable, "-c", PRODUCTION_PAGE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    statuses, csp, inline = result.stdout.strip().splitlines()
    assert statuses == "200 200 200"
    assert "script-src 'self'" in csp
    assert "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    assert inline == "False"
