"""Absolute links (rating e-mails, webhook bodies) are built on SITE_URL, which ``make run``
sets from its HOST for the server and its worker, and production requires: a site served on
another port than 8000 links to itself, not to http://localhost:8000."""

from __future__ import annotations

import datetime
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core import mail

from players.models import Role
from players.services import membership_set, player_update
from players.webhooks.delivery import event_body
from tests.tournaments.helpers import make_club, make_owner, make_player, period_of, play
from tournaments.services import period_close

ROOT = Path(__file__).resolve().parents[1]
SITE = "http://127.0.0.1:52177"


def _make_run_env(host: str) -> str:
    """The environment assignments ``make run HOST=host`` starts the site (and so its
    worker, a child process) with, as make prints them."""
    printed = subprocess.run(
        ["make", "-n", "run", f"HOST={host}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    line = next(line for line in printed.splitlines() if " manage.py runsite " in line)
    words = line.split()
    return " ".join(words[: next(i for i, word in enumerate(words) if "=" not in word)])


@pytest.mark.slow
def test_make_run_gives_the_site_and_its_worker_the_address_it_serves() -> None:
    assignments = _make_run_env("127.0.0.1:52177")
    code = (
        "import django; django.setup(); from django.conf import settings; print(settings.SITE_URL)"
    )
    env = {k: v for k, v in os.environ.items() if k != "SITE_URL"}
    env["DJANGO_SETTINGS_MODULE"] = "ratings_site.settings.development"

    def site_url_seen(env: dict[str, str]) -> str:
        return subprocess.run(
            ["sh", "-c", f'{assignments} "{sys.executable}" -c "{code}"'],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()

    assert site_url_seen(env) == SITE
    # An address the operator set wins over the HOST's.
    assert site_url_seen({**env, "SITE_URL": "https://ratings.example.org"}) == (
        "https://ratings.example.org"
    )


@pytest.mark.django_db
def test_emails_and_webhook_bodies_link_to_the_site_on_its_own_port(
    settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.SITE_URL = SITE
    owner = make_owner()
    club = make_club(owner)
    member = make_owner("alice")
    member.email = "alice@example.org"
    member.save()
    membership_set(club=club, user=member, role=Role.VIEWER, by=owner)
    alice = make_player(club, owner, "Alice", 1500)
    bob = make_player(club, owner, "Bob", 1600)
    player_update(player=alice, by=owner, user=member.username)
    play(club, owner, [(alice, bob, "1-0")], date=datetime.date(2026, 10, 5))
    with django_capture_on_commit_callbacks(execute=True):
        period_close(period=period_of(club, "2026-10"), by=owner)
    (message,) = mail.outbox
    links = re.findall(
        r"https?://[^\s>]+", message.body + message.extra_headers["List-Unsubscribe"]
    )
    assert len(links) >= 3
    assert all(link.startswith(SITE + "/") for link in links), links
    body = event_body(
        event="period.closed",
        club=club,
        rating_list="standard",
        period="2026-10",
        data={},
        links={"period": "/api/v1/clubs/club/lists/standard/periods/2026-10/"},
    )
    assert body["links"]["period"] == SITE + "/api/v1/clubs/club/lists/standard/periods/2026-10/"
