"""A club's webhooks and their deliveries (owners only; docs/reference/webhooks.md).

/api/v1/clubs/{club}/webhooks/                          GET, POST (201, with the secret)
/api/v1/clubs/{club}/webhooks/{id}/                     GET, PATCH, DELETE (204)
/api/v1/clubs/{club}/webhooks/{id}/ping/                POST (202: the ping's delivery)
/api/v1/clubs/{club}/webhooks/{id}/deliveries/          GET (newest first)
/api/v1/clubs/{club}/webhooks/{webhook}/deliveries/{id}/            GET
/api/v1/clubs/{club}/webhooks/{webhook}/deliveries/{id}/redeliver/  POST (202)
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from players.api.clubs import CLUB_PARAM
from players.errors import NotFoundError
from players.http.api import ClubScopedView
from players.models import WEBHOOK_EVENTS, Role, Webhook, WebhookDelivery
from players.webhooks import club_webhooks, delivery_get, services, webhook_deliveries, webhook_get

ID_PARAM = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The webhook's id.")
WEBHOOK_PARAM = OpenApiParameter(
    "webhook", int, OpenApiParameter.PATH, description="The webhook's id."
)
DELIVERY_PARAM = OpenApiParameter(
    "id",
    OpenApiTypes.UUID,
    OpenApiParameter.PATH,
    description="The delivery's id (X-Ratings-Delivery).",
)


class EventsField(serializers.ListField):
    """A list of event names; an unknown one is refused under ``events`` itself (not
    ``events[0]``): the field a client sent."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            child=serializers.ChoiceField(choices=WEBHOOK_EVENTS), allow_empty=False, **kwargs
        )

    def to_internal_value(self, data: Any) -> Any:
        try:
            return super().to_internal_value(data)
        except serializers.ValidationError as error:
            if isinstance(error.detail, dict):
                problems = [
                    f"[{index}] {detail[0] if isinstance(detail, list) else detail}"
                    for index, detail in error.detail.items()
                ]
                raise serializers.ValidationError(problems) from None
            raise


class WebhookOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.IntegerField()
    url = serializers.CharField()
    events = serializers.ListField(child=serializers.ChoiceField(choices=WEBHOOK_EVENTS))
    active = serializers.BooleanField()
    created = serializers.DateTimeField()
    created_by = serializers.CharField(source="created_by.username", default="")
    failing_since = serializers.DateTimeField(
        allow_null=True, help_text="Since when every try failed; null after a success."
    )
    disabled_reason = serializers.CharField(help_text="Why it was switched off, if it was.")
    legacy_signature = serializers.BooleanField(
        help_text="Whether deliveries also carry the old X-Ratings-Signature-256 header "
        "(webhooks registered before the Standard Webhooks headers; PATCH false to stop)."
    )


class WebhookCreatedSerializer(WebhookOutSerializer):
    secret = serializers.CharField(
        help_text="Signs every delivery (the webhook-signature header, Standard Webhooks' "
        "whsec_ form); shown only in this answer."
    )


class WebhookInSerializer(serializers.Serializer):  # type: ignore[type-arg]
    url = serializers.CharField(max_length=500, help_text="http(s), a public host.")
    events = EventsField()
    active = serializers.BooleanField(default=True)


class WebhookPatchSerializer(serializers.Serializer):  # type: ignore[type-arg]
    url = serializers.CharField(max_length=500, required=False)
    events = EventsField(required=False)
    active = serializers.BooleanField(required=False)
    legacy_signature = serializers.BooleanField(
        required=False, help_text="false: stop sending the old X-Ratings-Signature-256 header."
    )


class DeliveryOutSerializer(serializers.Serializer):  # type: ignore[type-arg]
    id = serializers.UUIDField(help_text="The X-Ratings-Delivery header: the same on every try.")
    webhook = serializers.IntegerField(source="webhook_id")
    event = serializers.CharField()
    event_id = serializers.UUIDField(help_text="The body's id; kept by a redelivery.")
    status = serializers.ChoiceField(choices=WebhookDelivery.Status.choices)
    tries = serializers.IntegerField()
    response_code = serializers.IntegerField(allow_null=True)
    duration_ms = serializers.IntegerField(allow_null=True)
    last_error = serializers.CharField()
    response_body = serializers.CharField(help_text="The last answer's first 1 KB.")
    created = serializers.DateTimeField()
    last_try = serializers.DateTimeField(allow_null=True)
    next_try = serializers.DateTimeField(allow_null=True)
    redelivery_of = serializers.UUIDField(source="redelivery_of_id", allow_null=True)


class WebhookScopedView(ClubScopedView):
    roles = {"GET": Role.OWNER, "POST": Role.OWNER, "PATCH": Role.OWNER, "DELETE": Role.OWNER}

    def webhook(self, id: int) -> Webhook:
        hook = webhook_get(club=self.club, webhook_id=id)
        if hook is None:
            raise NotFoundError(f"No webhook {id} in {self.club.name}.")
        return hook

    def delivery(self, webhook: int, id: Any) -> WebhookDelivery:
        found = delivery_get(webhook=self.webhook(webhook), delivery_id=id)
        if found is None:
            raise NotFoundError(f"No delivery {id} of webhook {webhook}.")
        return found


@extend_schema(tags=["webhooks"], parameters=[CLUB_PARAM])
class WebhookListView(WebhookScopedView):
    serializer_class = WebhookOutSerializer

    def get_queryset(self) -> QuerySet[Webhook]:
        if self.is_schema_view:
            return Webhook.objects.none()
        return club_webhooks(club=self.club).select_related("created_by").order_by("id")

    @extend_schema(operation_id="webhooks_list", responses=WebhookOutSerializer(many=True))
    def get(self, request: Request, club: str) -> Response:
        return self.paginated(WebhookOutSerializer)

    @extend_schema(
        operation_id="webhooks_create",
        description="Register a URL for the club's events. The answer's `secret` signs "
        "every delivery and is shown only here. The URL must be http(s), on port 80 or 443 "
        "(unless the operator allows more), and resolve to public addresses.",
        request=WebhookInSerializer,
        responses={201: WebhookCreatedSerializer},
    )
    def post(self, request: Request, club: str) -> Response:
        data = WebhookInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        hook = services.webhook_create(club=self.club, by=request.user, **data.validated_data)
        body = dict(WebhookOutSerializer(hook).data)
        body["secret"] = hook.secret
        return Response(body, status=201)


@extend_schema(tags=["webhooks"], parameters=[CLUB_PARAM, ID_PARAM])
class WebhookDetailView(WebhookScopedView):
    @extend_schema(operation_id="webhooks_read", responses=WebhookOutSerializer)
    def get(self, request: Request, club: str, id: int) -> Response:
        return Response(WebhookOutSerializer(self.webhook(id)).data)

    @extend_schema(
        operation_id="webhooks_update",
        description="Change `url`, `events` or `active`, or switch `legacy_signature` off. "
        "Switching a webhook on again forgets its failures.",
        request=WebhookPatchSerializer,
        responses=WebhookOutSerializer,
    )
    def patch(self, request: Request, club: str, id: int) -> Response:
        hook = self.webhook(id)
        data = WebhookPatchSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        hook = services.webhook_update(webhook=hook, by=request.user, **data.validated_data)
        return Response(WebhookOutSerializer(hook).data)

    @extend_schema(operation_id="webhooks_delete", responses={204: None})
    def delete(self, request: Request, club: str, id: int) -> Response:
        services.webhook_delete(webhook=self.webhook(id), by=request.user)
        return Response(status=204)


@extend_schema(tags=["webhooks"], parameters=[CLUB_PARAM, ID_PARAM])
class WebhookPingView(WebhookScopedView):
    @extend_schema(
        operation_id="webhooks_ping",
        description="Send the `ping` event now (a background job); the answer is its "
        "delivery, to follow in the deliveries log.",
        request=None,
        responses={202: DeliveryOutSerializer},
    )
    def post(self, request: Request, club: str, id: int) -> Response:
        delivery = services.webhook_ping(webhook=self.webhook(id), by=request.user)
        return Response(DeliveryOutSerializer(delivery).data, status=202)


@extend_schema(tags=["webhooks"], parameters=[CLUB_PARAM, ID_PARAM])
class DeliveryListView(WebhookScopedView):
    serializer_class = DeliveryOutSerializer
    filterset_fields = ["status", "event"]

    def get_queryset(self) -> QuerySet[WebhookDelivery]:
        if self.is_schema_view:
            return WebhookDelivery.objects.none()
        hook = self.webhook(self.kwargs["id"])
        return webhook_deliveries(webhook=hook).order_by("-created", "-id")

    @extend_schema(
        operation_id="webhook_deliveries_list", responses=DeliveryOutSerializer(many=True)
    )
    def get(self, request: Request, club: str, id: int) -> Response:
        return self.paginated(DeliveryOutSerializer)


@extend_schema(tags=["webhooks"], parameters=[CLUB_PARAM, WEBHOOK_PARAM, DELIVERY_PARAM])
class DeliveryDetailView(WebhookScopedView):
    @extend_schema(operation_id="webhook_deliveries_read", responses=DeliveryOutSerializer)
    def get(self, request: Request, club: str, webhook: int, id: Any) -> Response:
        return Response(DeliveryOutSerializer(self.delivery(webhook, id)).data)


@extend_schema(tags=["webhooks"], parameters=[CLUB_PARAM, WEBHOOK_PARAM, DELIVERY_PARAM])
class DeliveryRedeliverView(WebhookScopedView):
    extra_error_statuses = {"POST": (409,)}

    @extend_schema(
        operation_id="webhook_deliveries_redeliver",
        description="Send a finished delivery's event again: a new delivery (new id) with "
        "the same body. A delivery still being tried: 409.",
        request=None,
        responses={202: DeliveryOutSerializer},
    )
    def post(self, request: Request, club: str, webhook: int, id: Any) -> Response:
        again = services.delivery_redeliver(delivery=self.delivery(webhook, id), by=request.user)
        return Response(DeliveryOutSerializer(again).data, status=202)
