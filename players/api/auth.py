"""Token sign-in and sign-out for scripts, on django-rest-knox.

Knox stores only a hash of each token, with an expiry (``REST_KNOX["TOKEN_TTL"]``), and
deletes the row on logout. Its views take credentials from an authentication class and
answer in their own shapes; these subclasses take ``{"username", "password"}`` as JSON and
answer in the documented shapes (errors in the API's one error shape).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from drf_spectacular.utils import extend_schema
from knox.views import LoginView, LogoutView
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from players.errors import ValidationFailed
from players.http.authentication import TokenAuthentication
from players.http.parsers import JSONParser
from players.http.renderers import JSONRenderer
from players.http.schema import ClubAutoSchema
from players.http.throttles import AddressRateThrottle, UsernameRateThrottle
from players.models import ApiToken
from players.services import api_token_create


class TokenInSerializer(serializers.Serializer):  # type: ignore[type-arg]
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False)


class TokenOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`.")
    expiry = serializers.DateTimeField(allow_null=True, help_text="When the token stops working.")


class TokenView(LoginView):  # type: ignore[misc]
    """Exchange a username and password for an expiring API token."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes = [AddressRateThrottle, UsernameRateThrottle]
    throttle_scope = "auth"
    parser_classes = [JSONParser]
    renderer_classes = [JSONRenderer]
    schema = ClubAutoSchema()
    error_statuses = (400, 429)

    def create_token(self) -> tuple[ApiToken, str]:
        # Knox's post() calls this; the row is written by the token service, as every
        # other token is.
        return api_token_create(
            user=self.request.user, name="Signed in through the API", expiry=self.get_token_ttl()
        )

    @extend_schema(
        operation_id="auth_token",
        tags=["auth"],
        auth=[],
        description="Role: none (anyone with a username and password).",
        request=TokenInSerializer,
        responses={200: TokenOutSerializer},
    )
    def post(self, request: Request, format: str | None = None) -> Response:
        data = TokenInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(
            request._request,
            username=data.validated_data["username"],
            password=data.validated_data["password"],
        )
        if user is None or not user.is_active:
            raise ValidationFailed(
                "Wrong username or password.",
                fields={"non_field_errors": ["Wrong username or password."]},
            )
        request.user = user
        # Knox creates the token (hashed, expiring) and signals the login.
        response: Response = super().post(request, format=format)
        return response


class LogoutOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    pass


class TokenLogoutView(LogoutView):  # type: ignore[misc]
    """Revoke the token this request is sent with."""

    authentication_classes = [TokenAuthentication]
    permission_classes = [IsAuthenticated]
    parser_classes = [JSONParser]
    renderer_classes = [JSONRenderer]
    schema = ClubAutoSchema()
    error_statuses = (401,)

    @extend_schema(
        operation_id="auth_logout",
        tags=["auth"],
        description="Role: any signed-in user (token authentication).",
        request=None,
        responses={204: None},
    )
    def post(self, request: Request, format: str | None = None) -> Response:
        response: Response = super().post(request, format=format)
        return response
