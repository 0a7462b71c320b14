"""The API's token check: knox's, plus the token's "last used" stamp.

Apart from the views (players/api/auth.py) because DRF imports authentication classes
while its own views module is still loading."""

from __future__ import annotations

from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _
from knox.auth import TokenAuthentication as KnoxTokenAuthentication
from knox.signals import token_expired
from rest_framework import exceptions

from players.models import ApiToken
from players.services.tokens import api_token_touch


class TokenAuthentication(KnoxTokenAuthentication):  # type: ignore[misc]
    """Knox's token check, and the token's "last used" stamp for the member's home."""

    def authenticate_credentials(self, token: bytes) -> tuple[Any, ApiToken]:
        # A token is printable ASCII (knox's hex). Other bytes match no token and must
        # not reach knox's decoder (bytes that are not UTF-8 were a server error) or the
        # database (PostgreSQL refuses a NUL in a query's text).
        if not token.isascii() or not token.decode().isprintable():
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        result: tuple[Any, ApiToken] = super().authenticate_credentials(token)
        return result

    def _cleanup_token(self, auth_token: ApiToken) -> bool:
        # Knox also reads all the user's other tokens on every request, to delete the
        # expired ones: a query per API call for rows nobody can use. They are deleted
        # when the user makes a new token instead (api_token_create), and the member's
        # home lists only live ones. An expired token itself is refused and deleted.
        if auth_token.expiry is not None and auth_token.expiry < timezone.now():
            username = auth_token.user.get_username()
            auth_token.delete()
            # As knox does: its signal's listeners (none here yet) hear of it.
            token_expired.send(sender=self.__class__, username=username, source="auth_token")
            return True
        return False

    def validate_user(self, auth_token: ApiToken) -> tuple[Any, ApiToken]:
        result: tuple[Any, ApiToken] = super().validate_user(auth_token)
        api_token_touch(token=auth_token)
        return result
