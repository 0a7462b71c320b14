"""The webhooks API: the secret shown once, bad input refused naming the field with
nothing stored, updates, deletes, pings and the deliveries log. Roles and other clubs'
objects: tests/api/test_authorization_matrix.py."""

from __future__ import annotations

from typing import Any

import pytest

from players.models import Webhook, WebhookDelivery
from tests.api.conftest import World, assert_error_shape, client_for, db_snapshot

pytestmark = pytest.mark.django_db
URL = "https://93.184.215.14/receiver"


def hooks_url(world: World) -> str:
    return f"/api/v1/clubs/{world.north.slug}/webhooks/"


def test_create_shows_the_secret_once(world: World) -> None:
    owner = client_for(world.north.users["owner"])
    created = owner.post(
        hooks_url(world), {"url": URL, "events": ["period.closed", "players.changed"]}
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["secret"].startswith("whsec_")
    assert body["events"] == ["period.closed", "players.changed"]
    assert body["active"] is True
    assert body["legacy_signature"] is False
    assert Webhook.objects.get(pk=body["id"]).secret == body["secret"]
    read = owner.get(f"{hooks_url(world)}{body['id']}/").json()
    assert "secret" not in read
    listed = owner.get(hooks_url(world)).json()["results"]
    assert all("secret" not in row for row in listed)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"events": ["period.closed"]}, "url"),
        ({"url": "ftp://example.org/", "events": ["period.closed"]}, "url"),
        ({"url": "http://127.0.0.1/hook", "events": ["period.closed"]}, "url"),
        ({"url": "http://169.254.169.254/", "events": ["period.closed"]}, "url"),
        ({"url": "http://[2002:7f00:1::]/", "events": ["period.closed"]}, "url"),
        ({"url": "http://8.8.8.8:22/", "events": ["period.closed"]}, "url"),
        ({"url": "https://" + "a" * 600 + ".example/", "events": ["period.closed"]}, "url"),
        ({"url": URL}, "events"),
        ({"url": URL, "events": []}, "events"),
        ({"url": URL, "events": ["period.exploded"]}, "events"),
        ({"url": URL, "events": "period.closed"}, "events"),
        ({"url": URL, "events": ["period.closed"], "active": "perhaps"}, "active"),
    ],
)
def test_bad_input_is_400_naming_the_field_and_stores_nothing(
    world: World, body: dict[str, Any], field: str
) -> None:
    before = db_snapshot()
    answer = client_for(world.north.users["owner"]).post(hooks_url(world), body)
    assert answer.status_code == 400, answer.content
    assert_error_shape(answer.json())
    assert field in answer.json()["error"]["fields"], answer.json()
    assert "[" not in "".join(answer.json()["error"]["fields"]), "the field as sent"
    assert db_snapshot() == before


def test_update_and_delete(world: World) -> None:
    owner = client_for(world.north.users["owner"])
    hook = world.north.extra["webhook"]
    url = f"{hooks_url(world)}{hook.pk}/"
    bad = owner.patch(url, {"url": "http://10.0.0.1/"})
    assert bad.status_code == 400
    assert "url" in bad.json()["error"]["fields"]
    changed = owner.patch(url, {"events": ["list.published"], "active": False})
    assert changed.status_code == 200
    assert changed.json()["events"] == ["list.published"]
    assert changed.json()["active"] is False
    assert owner.delete(url).status_code == 204
    assert not Webhook.objects.filter(pk=hook.pk).exists()
    assert not WebhookDelivery.objects.filter(webhook_id=hook.pk).exists()
    assert owner.get(url).status_code == 404


def test_the_old_signature_header_can_be_switched_off_not_on(world: World) -> None:
    owner = client_for(world.north.users["owner"])
    hook = world.north.extra["webhook"]
    url = f"{hooks_url(world)}{hook.pk}/"
    refused = owner.patch(url, {"legacy_signature": True}, format="json")
    assert refused.status_code == 400
    assert_error_shape(refused.json())
    assert list(refused.json()["error"]["fields"]) == ["legacy_signature"]
    Webhook.objects.filter(pk=hook.pk).update(legacy_signature=True)  # as migrated
    assert owner.get(url).json()["legacy_signature"] is True
    off = owner.patch(url, {"legacy_signature": False}, format="json")
    assert off.status_code == 200, off.content
    assert off.json()["legacy_signature"] is False
    assert owner.patch(url, {"legacy_signature": True}, format="json").status_code == 400
    hook.refresh_from_db()
    assert not hook.legacy_signature


def test_ping_and_the_deliveries_log(world: World, django_capture_on_commit_callbacks: Any) -> None:
    owner = client_for(world.north.users["owner"])
    hook = world.north.extra["webhook"]
    with django_capture_on_commit_callbacks(execute=False) as queued:
        ping = owner.post(f"{hooks_url(world)}{hook.pk}/ping/")
    assert ping.status_code == 202
    assert ping.json()["event"] == "ping"
    assert ping.json()["status"] == "pending"
    assert len(queued) == 1  # the try waits for the commit: no request inside this one
    log = owner.get(f"{hooks_url(world)}{hook.pk}/deliveries/").json()["results"]
    assert [row["event"] for row in log] == ["ping", "period.closed"]
    assert set(log[1]) >= {"status", "tries", "response_code", "duration_ms", "last_error"}
    done = owner.get(f"{hooks_url(world)}{hook.pk}/deliveries/?status=succeeded").json()
    assert [row["id"] for row in done["results"]] == [str(world.north.extra["delivery"].pk)]


def test_redeliver_needs_a_finished_delivery(world: World) -> None:
    owner = client_for(world.north.users["owner"])
    hook = world.north.extra["webhook"]
    ping = owner.post(f"{hooks_url(world)}{hook.pk}/ping/").json()
    pending = owner.post(f"{hooks_url(world)}{hook.pk}/deliveries/{ping['id']}/redeliver/")
    assert pending.status_code == 409
    finished = world.north.extra["delivery"]
    again = owner.post(f"{hooks_url(world)}{hook.pk}/deliveries/{finished.pk}/redeliver/")
    assert again.status_code == 202
    assert again.json()["redelivery_of"] == str(finished.pk)
    assert again.json()["event_id"] == str(finished.event_id)
    assert again.json()["id"] != str(finished.pk)


def test_a_delivery_of_another_webhook_is_404(world: World) -> None:
    owner = client_for(world.north.users["owner"])
    hook = world.north.extra["webhook"]
    other = owner.post(hooks_url(world), {"url": URL, "events": ["period.closed"]}).json()
    finished = world.north.extra["delivery"]
    answer = owner.get(f"{hooks_url(world)}{other['id']}/deliveries/{finished.pk}/")
    assert answer.status_code == 404
    assert owner.get(f"{hooks_url(world)}{hook.pk}/deliveries/{finished.pk}/").status_code == 200
