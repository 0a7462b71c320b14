"""The sign-in lockout (ratings_site/lockout.py) through each door that takes a password:
the site's sign-in, the admin's and the API's token endpoint.

- the walk-around: a success from an address clears only that username's failures from
  it, so an attacker's sign-ins to their own account do not reset their guesses at
  another's;
- the denial: ten guesses from anywhere lock a username, but not for its owner at an
  address they signed in from before, nor after a password reset by email; and the lock
  ends an hour after it was set, whatever is tried meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-enough-password-42"
OK, WRONG, LOCKED = "ok", "wrong", "locked"


class Clock:
    """The time as axes and the database fields read it, moved forward by the test."""

    def __init__(self) -> None:
        self.offset = timedelta()
        self._real = timezone.now

    def now(self) -> datetime:
        return self._real() + self.offset


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr("django.utils.timezone.now", c.now)
    monkeypatch.setattr("axes.handlers.proxy.now", c.now)
    return c


def site(username: str, password: str, address: str) -> str:
    response = Client(REMOTE_ADDR=address).post(
        "/accounts/login/", {"username": username, "password": password}
    )
    return {302: OK, 200: WRONG, 429: LOCKED}[response.status_code]


def admin(username: str, password: str, address: str) -> str:
    response = Client(REMOTE_ADDR=address).post(
        "/admin/login/", {"username": username, "password": password}
    )
    return {302: OK, 200: WRONG, 429: LOCKED}[response.status_code]


def token(username: str, password: str, address: str) -> str:
    # The endpoint's throttle is another door (tests/accounts/test_doors.py): the lockout
    # alone here.
    cache.clear()
    response = APIClient(REMOTE_ADDR=address).post(
        "/api/v1/auth/token/", {"username": username, "password": password}, format="json"
    )
    return {200: OK, 400: WRONG, 429: LOCKED}[response.status_code]


DOORS = pytest.mark.parametrize("door", [site, admin, token], ids=["site", "admin", "token"])
Door = Callable[[str, str, str], str]


def make_user(username: str) -> Any:
    # Staff, so that the admin's door lets them in too.
    return get_user_model().objects.create_user(username, password=PASSWORD, is_staff=True)


@DOORS
def test_signing_in_to_ones_own_account_does_not_reset_guesses_at_another(door: Door) -> None:
    make_user("vera")
    make_user("mallory")
    attacker, home = "10.6.0.1", "10.6.0.2"
    assert door("vera", PASSWORD, home) == OK
    answers = []
    for _ in range(5):
        answers += [door("vera", f"guess-{n}", attacker) for n in range(9)]
        assert door("mallory", PASSWORD, attacker) == OK
    # Nine wrong answers, and the tenth guess from that address locks it: the other 35
    # guesses are refused unchecked.
    assert answers == [WRONG] * 9 + [LOCKED] * 36
    assert door("vera", PASSWORD, attacker) == LOCKED
    # Vera herself, at home, is not held by the guesses at her name.
    assert door("vera", PASSWORD, home) == OK


@DOORS
def test_the_owner_signs_in_at_home_while_guesses_from_elsewhere_lock_the_name(
    door: Door, clock: Clock
) -> None:
    make_user("vera")
    home, elsewhere = "10.7.0.1", "10.7.9.9"
    assert door("vera", PASSWORD, home) == OK
    answers = [door("vera", "wrong", f"10.8.0.{n}") for n in range(10)]
    assert answers == [WRONG] * 9 + [LOCKED]
    assert door("vera", PASSWORD, elsewhere) == LOCKED
    assert door("vera", PASSWORD, home) == OK
    # Guesses from her home address still count there.
    assert [door("vera", "wrong", home) for _ in range(10)] == [WRONG] * 9 + [LOCKED]
    assert door("vera", PASSWORD, home) == LOCKED


@DOORS
def test_tries_while_locked_do_not_extend_the_lock(door: Door, clock: Clock) -> None:
    make_user("vera")
    assert [door("vera", "wrong", f"10.9.0.{n}") for n in range(10)] == [WRONG] * 9 + [LOCKED]
    # For 59 minutes someone keeps trying, right password or wrong, from old and new
    # addresses: each is refused, none is recorded.
    for minute in range(0, 60, 7):
        clock.offset = timedelta(minutes=minute)
        assert door("vera", "wrong", f"10.9.1.{minute}") == LOCKED
        assert door("vera", PASSWORD, "10.9.0.1") == LOCKED
    assert sum(AccessAttempt.objects.values_list("failures_since_start", flat=True)) == 10
    # An hour after the lock was set, it is gone.
    clock.offset = timedelta(minutes=61)
    assert door("vera", PASSWORD, "10.9.2.1") == OK


def test_a_password_reset_by_email_lifts_the_lock() -> None:
    user = make_user("vera")
    assert [site("vera", "wrong", f"10.10.0.{n}") for n in range(10)] == [WRONG] * 9 + [LOCKED]
    client = Client(REMOTE_ADDR="10.10.1.1")
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    link = client.get(f"/accounts/password/reset/{uid}/{default_token_generator.make_token(user)}/")
    new = "another-long-password-77"
    done = client.post(link["Location"], {"new_password1": new, "new_password2": new})
    assert done.status_code == 302, done.content.decode()[:500]
    assert site("vera", new, "10.10.2.1") == OK
    # The addresses that guessed are not cleared for other usernames: only vera's rows go.
    assert site("vera", new, "10.10.0.3") == OK


@pytest.mark.parametrize("door", [site, admin], ids=["site", "admin"])
def test_an_over_long_username_is_counted_without_a_server_error(door: Door) -> None:
    assert door("v" * 256, "wrong", "10.11.0.1") == WRONG
    assert door("v" * 256 + "\0", "wrong", "10.11.0.1") == WRONG
    assert {len(name) for name in AccessAttempt.objects.values_list("username", flat=True)} == {255}


def test_a_full_width_username_counts_against_the_plain_one() -> None:
    # The site's form normalises usernames itself; the token endpoint takes them as sent.
    make_user("vera")
    full_width = "\uff56\uff45\uff52\uff41"
    answers = [token(full_width if n % 2 else "vera", "wrong", f"10.12.0.{n}") for n in range(10)]
    assert answers == [WRONG] * 9 + [LOCKED]
