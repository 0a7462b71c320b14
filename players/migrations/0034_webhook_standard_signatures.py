"""Standard Webhooks signatures: every webhook's secret in the ``whsec_`` + base64 form.

A webhook registered before had ``whsec_`` + 43 url-safe characters, and signed with the
bytes of that whole string as its HMAC key. Its secret becomes ``whsec_`` + the base64 of
those same bytes: the key does not change, so its old X-Ratings-Signature-256 header
(kept for it: ``legacy_signature``) verifies as before with the secret its receiver holds,
and the receiver can compute the new form itself (docs/reference/webhooks.md). 49 characters
become 74, within the column's 80.
"""

from __future__ import annotations

import base64
from typing import Any

from django.db import migrations, models

PREFIX = "whsec_"


def _standard_form(apps: Any, schema_editor: Any) -> None:
    Webhook = apps.get_model("players", "Webhook")
    for hook in Webhook.objects.all().only("pk", "secret"):
        secret = PREFIX + base64.b64encode(hook.secret.encode()).decode()
        if len(secret) > 80:
            raise ValueError(f"Webhook {hook.pk}: its secret is too long to re-present.")
        Webhook.objects.filter(pk=hook.pk).update(secret=secret, legacy_signature=True)


def _old_form(apps: Any, schema_editor: Any) -> None:
    Webhook = apps.get_model("players", "Webhook")
    for hook in Webhook.objects.filter(legacy_signature=True).only("pk", "secret"):
        old = base64.b64decode(hook.secret.removeprefix(PREFIX)).decode()
        Webhook.objects.filter(pk=hook.pk).update(secret=old)


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0033_rating_references_checked_per_statement"),
    ]

    operations = [
        migrations.AddField(
            model_name="webhook",
            name="legacy_signature",
            field=models.BooleanField(default=False, verbose_name="old signature header too"),
        ),
        migrations.RunPython(_standard_form, _old_form),
    ]
