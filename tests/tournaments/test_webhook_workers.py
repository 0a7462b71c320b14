"""Webhooks and rating emails with real worker processes (``manage.py worker``) on
PostgreSQL: an officer closes a period through the API; a worker fans the close's events
out after the commit, POSTs them signed to a real receiver on 127.0.0.1 (which fails the
first try), tries again after the backoff through the queue (run_after), and mails the
linked member through the file backend, with the one-click unsubscribe link.

Started as in tests/tournaments/test_workers.py; outcomes, not timings, are asserted, and
each wait has a deadline far above what the work takes.
"""

from __future__ import annotations

import email
import email.policy
from pathlib import Path
from typing import Any

import pytest

from players.models import Role, WebhookDelivery
from players.services import membership_set, player_update
from tests.receiver import receiver
from tests.tournaments.helpers import make_owner
from tests.tournaments.test_workers import (  # noqa: F401 - the fixtures, by name
    Start,
    client_for,
    close_url,
    club_with_games,
    on_postgres,
    start_worker,
    wait_for,
)

pytestmark = [pytest.mark.slow, pytest.mark.postgres, pytest.mark.usefixtures("queued_jobs")]


@pytest.fixture
def worker_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, settings: Any) -> Path:
    """What the worker processes read: private receivers on any port allowed (the receiver
    is on 127.0.0.1, on a port the system chose), a one-second backoff, mail into files, https links."""
    mails = tmp_path / "mails"
    mails.mkdir()
    monkeypatch.setenv("WEBHOOKS_ALLOW_PRIVATE", "1")
    monkeypatch.setenv("WEBHOOKS_ALLOWED_PORTS", "*")
    monkeypatch.setenv("WEBHOOKS_RETRY_SECONDS", "1,1,1,1,1")
    monkeypatch.setenv("EMAIL_BACKEND", "django.core.mail.backends.filebased.EmailBackend")
    monkeypatch.setenv("EMAIL_FILE_PATH", str(mails))
    monkeypatch.setenv("SITE_URL", "https://ratings.example")
    monkeypatch.delenv("EMAIL_URL", raising=False)
    settings.WEBHOOKS_ALLOW_PRIVATE = True  # this process registers the webhook
    settings.WEBHOOKS_ALLOWED_PORTS = "*"
    return mails


def test_a_close_is_delivered_signed_retried_and_mailed_by_workers(
    start_worker: Start,  # noqa: F811 - the fixture imported above
    worker_environment: Path,
) -> None:
    club, officer, _ = club_with_games("hooked")
    owner = club.memberships.get(role=Role.OWNER).user
    member = make_owner("hooked-member")
    member.email = "member@example.org"
    member.save()
    membership_set(club=club, user=member, role=Role.VIEWER, by=owner)
    player = club.players.order_by("id").first()
    player_update(player=player, by=owner, user=member.username)
    with receiver() as hooks:
        created = client_for(owner).post(
            f"/api/v1/clubs/{club.slug}/webhooks/",
            {"url": hooks.url, "events": ["period.closed", "list.published"]},
            format="json",
        )
        assert created.status_code == 201, created.content
        secret = created.json()["secret"]
        hooks.statuses = [500]  # the first try fails
        start_worker("hooks-1")
        answer = client_for(officer).post(close_url(club) + "?wait=30&early=true")
        assert answer.status_code == 200, answer.content

        closed = wait_for(
            "two tries of period.closed", lambda: len(hooks.of_event("period.closed")) >= 2
        )
        first, second = hooks.of_event("period.closed")[:2]
        assert first.headers["X-Ratings-Delivery"] == second.headers["X-Ratings-Delivery"]
        assert first.body == second.body
        assert first.headers["webhook-id"] == second.headers["webhook-id"]
        assert second.signed_by(secret)
        assert closed
        body = second.json
        assert (body["event"], body["club"], body["period"]) == (
            "period.closed",
            club.slug,
            "2026-10",
        )
        assert body["data"]["games"] == 6
        assert body["links"]["report"].startswith("https://ratings.example/clubs/hooked/")
        wait_for("list.published", lambda: hooks.of_event("list.published"))

        hook_id = created.json()["id"]
        log_url = f"/api/v1/clubs/{club.slug}/webhooks/{hook_id}/deliveries/?event=period.closed"

        def succeeded() -> Any:
            rows = client_for(owner).get(log_url).json()["results"]
            return rows if rows and rows[0]["status"] == "succeeded" else None

        (row,) = wait_for("the delivery log says succeeded", succeeded)
        assert row["id"] == first.headers["X-Ratings-Delivery"]
        assert (row["tries"], row["response_code"]) == (2, 200)
        assert row["last_error"] == ""  # the success cleared the first try's 500
        assert row["duration_ms"] >= 0
        assert WebhookDelivery.objects.filter(webhook_id=hook_id).count() == 2

    files = wait_for("the member's email", lambda: list(worker_environment.glob("*.log")))
    messages = [
        email.message_from_string(part, policy=email.policy.default)
        for path in files
        for part in path.read_text().split("-" * 79 + "\n")
        if part.strip()
    ]
    assert [m["To"] for m in messages] == ["member@example.org"]
    mail = messages[0]
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    link = mail["List-Unsubscribe"].strip().strip("<>")
    assert link.startswith("https://ratings.example/accounts/unsubscribe/")
    assert link in mail.get_content()
    assert "2026-10" in mail.get_content()
