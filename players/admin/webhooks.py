"""Webhooks in the admin: a club's owners (only) see, add, change and delete them, through
the same services as the API; each webhook's deliveries are listed read-only, with actions
to ping and to redeliver. The secret is shown once, in the message after adding."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from players.errors import DomainError
from players.http.admin import CLUB_FILTER, ClubScopedAdmin, ReadOnlyInline
from players.models import WEBHOOK_EVENTS, Role, Webhook, WebhookDelivery
from players.webhooks import services


class WebhookForm(forms.ModelForm):  # type: ignore[type-arg]
    events = forms.MultipleChoiceField(
        choices=[(e, e) for e in WEBHOOK_EVENTS], widget=forms.CheckboxSelectMultiple
    )
    url = forms.CharField(max_length=500, help_text="http(s), a public host.")

    class Meta:
        model = Webhook
        fields = ("club", "url", "events", "active")


class DeliveryInline(ReadOnlyInline):
    model = WebhookDelivery
    # Inlines are asked about the parent object (the webhook), whose club decides.
    view_role = Role.OWNER
    fields = ("created", "event", "status", "tries", "response_code", "duration_ms", "last_error")
    readonly_fields = fields
    ordering = ("-created",)
    max_num = 0


@admin.register(Webhook)
class WebhookAdmin(ClubScopedAdmin):
    form = WebhookForm
    list_display = ("url", "club", "active", "events", "failing_since", "created")
    list_filter = ("active", CLUB_FILTER)
    list_select_related = ("club",)
    view_role = Role.OWNER
    add_role = Role.OWNER
    change_role = Role.OWNER
    delete_role = Role.OWNER
    inlines = [DeliveryInline]
    actions = ["ping"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        done = ("created", "created_by", "failing_since", "disabled_reason", "legacy_signature")
        return ("club", *done) if obj is not None else ()

    def service_save(self, request: HttpRequest, obj: Webhook, form: Any, change: bool) -> Webhook:
        data = form.cleaned_data
        if change:
            changes = {f: data[f] for f in ("url", "events", "active") if f in form.changed_data}
            return services.webhook_update(webhook=obj, by=request.user, **changes)
        hook = services.webhook_create(
            club=data["club"],
            by=request.user,
            url=data["url"],
            events=data["events"],
            active=data["active"],
        )
        messages.success(request, f"The webhook's secret (shown only now): {hook.secret}")
        return hook

    def service_delete(self, request: HttpRequest, obj: Webhook) -> None:
        services.webhook_delete(webhook=obj, by=request.user)

    @admin.action(description="Send a ping to the selected webhooks")
    def ping(self, request: HttpRequest, queryset: QuerySet[Webhook]) -> None:
        for hook in queryset.select_related("club"):
            try:
                services.webhook_ping(webhook=hook, by=request.user)
            except DomainError as error:
                messages.error(request, f"{hook}: {error.message}")
            else:
                messages.success(request, f"{hook}: ping queued.")
