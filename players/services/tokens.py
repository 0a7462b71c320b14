"""API tokens: created with a name, stamped when used, revoked one by one or all at once
(when the password changes)."""

from __future__ import annotations

import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from players.errors import NotFoundError, invalid_field
from players.models import ApiToken

# A token's "last used" is written at most once a minute: one write per API call would make
# every read a write.
LAST_USED_RESOLUTION = datetime.timedelta(minutes=1)
TOKEN_TTL = datetime.timedelta(days=30)


def api_token_create(
    *, user: AbstractBaseUser, name: str, expiry: datetime.timedelta | None = TOKEN_TTL
) -> tuple[ApiToken, str]:
    """A new token for ``user``, valid for ``expiry`` (None: no end); returns the row and
    the token itself, which is shown once (only its hash is stored)."""
    name = name.strip()
    if not name:
        raise invalid_field("name", "Give the token a name, e.g. the script that uses it.")
    if len(name) > 100:
        raise invalid_field("name", "At most 100 characters.")
    with transaction.atomic(durable=True):
        # The user's expired tokens go now (the token check no longer looks for them).
        ApiToken.objects.filter(user_id=user.pk, expiry__lt=timezone.now()).delete()
        token, raw = ApiToken.objects.create(user=user, expiry=expiry, name=name)
    return token, raw


def api_token_revoke(*, user: AbstractBaseUser, digest: str) -> None:
    """Delete one of ``user``'s tokens; someone else's token is as good as none (404)."""
    with transaction.atomic(durable=True):
        deleted, _ = ApiToken.objects.filter(user_id=user.pk, digest=digest).delete()
    if not deleted:
        raise NotFoundError("No such token.")


def api_tokens_revoke_all(*, user: AbstractBaseUser) -> int:
    with transaction.atomic():
        deleted: int = ApiToken.objects.filter(user_id=user.pk).delete()[0]
    return deleted


def api_token_touch(*, token: ApiToken) -> None:
    """Record that ``token`` was used now, unless it was within the last minute
    (compare-and-set: concurrent requests write once)."""
    now = timezone.now()
    if token.last_used is not None and now - token.last_used < LAST_USED_RESOLUTION:
        return
    ApiToken.objects.filter(pk=token.pk, last_used=token.last_used).update(last_used=now)
    token.last_used = now


class RevokeTokensOnPasswordChange:
    """Listed in ``AUTH_PASSWORD_VALIDATORS`` for its ``password_changed`` hook, which Django
    calls after every saved password change: the password change and reset pages, the
    admin's form, ``manage.py changepassword``. A stolen token must not outlive the
    password that the owner changed because of the theft. It validates nothing."""

    def validate(self, password: str, user: Any = None) -> None:
        return None

    def password_changed(self, password: str, user: Any = None) -> None:
        if user is not None and user.pk is not None:
            api_tokens_revoke_all(user=user)

    def get_help_text(self) -> str:
        return ""
