"""The API's token check: knox's, plus the token's "last used" stamp.

Apart from the views (players/api/auth.py) because DRF imports authentication classes
while its own views module is still loading."""

from __future__ import annotations

from typing import Any

from knox.auth import TokenAuthentication as KnoxTokenAuthentication

from players.models import ApiToken
from players.services.tokens import api_token_touch


class TokenAuthentication(KnoxTokenAuthentication):  # type: ignore[misc]
    """Knox's token check, and the token's "last used" stamp for the member's home."""

    def validate_user(self, auth_token: ApiToken) -> tuple[Any, ApiToken]:
        result: tuple[Any, ApiToken] = super().validate_user(auth_token)
        api_token_touch(token=auth_token)
        return result
