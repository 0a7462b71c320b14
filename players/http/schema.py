"""OpenAPI documentation shared by every club-scoped endpoint.

The error responses and the role each method needs are added by ``ClubAutoSchema`` from
the same view attributes that enforce them (``roles``, ``error_statuses``), so the schema
cannot drift from what the views do and a new view is documented without extra work.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.contrib.knox_auth_token import KnoxTokenScheme
from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers

from players.models import Role
from players.selectors.records import MONTH_PATTERN
from players.services.lists import SLUG as LIST_SLUG


class ErrorDetailSerializer(serializers.Serializer):  # type: ignore[type-arg]
    # Built in get_fields: a declared attribute named ``fields`` would hide Serializer.fields.
    def get_fields(self) -> dict[str, serializers.Field]:  # type: ignore[type-arg]
        return {
            "code": serializers.CharField(
                help_text="Machine-readable: invalid, not_found, permission_denied, "
                "not_authenticated, authentication_failed, conflict, method_not_allowed, "
                "throttled, parse_error, ..."
            ),
            "message": serializers.CharField(help_text="One sentence for a human."),
            "fields": serializers.DictField(
                child=serializers.ListField(child=serializers.CharField()),
                help_text='Per-field messages, e.g. {"[2].white": ["..."]}; empty when no '
                "field is to blame.",
            ),
        }


class ErrorSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """The one shape of every 4xx answer."""

    error = ErrorDetailSerializer()


ERROR_DESCRIPTIONS: dict[int, str] = {
    400: "Invalid input (the fields say which), or a write naming an object of another club.",
    401: "No valid credentials where they are needed, or a bad/expired token.",
    403: "Your role in this club does not allow the operation.",
    404: "No such object, or it belongs to a private club you are not a member of.",
    405: "Method not allowed.",
    409: "The object's state forbids the operation (e.g. the period is already closed).",
    415: "The request body is not JSON (send Content-Type: application/json).",
    429: "Too many requests; try again later.",
    501: "The format asked for is not offered (oEmbed: json only).",
}

# Every club-scoped operation can answer these: a bad token (401), a role too low (403), an
# unknown or invisible club (404).
DEFAULT_ERRORS: tuple[int, ...] = (400, 401, 403, 404)


def role_sentence(role: Role | None) -> str:
    if role is None:
        return (
            "Role: anyone who may see the club (anonymous users too for a public club; "
            "members of a private one)."
        )
    higher = [r.label.lower() for r in Role.at_least(role)]
    return f"Role: {', '.join(higher)} of the club."


class ClubAutoSchema(AutoSchema):
    """Adds the documented error responses and the required role to every operation."""

    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        operation: dict[str, Any] | None = super().get_operation(*args, **kwargs)
        roles: dict[str, Role | None] | None = getattr(self.view, "roles", None)
        if operation is None or roles is None:
            return operation
        # Added last, so descriptions given with extend_schema get it too.
        sentence = role_sentence(roles.get(self.method))
        text = operation.get("description", "")
        operation["description"] = f"{text}\n\n{sentence}" if text else sentence
        return operation

    def _answers_a_page(self) -> bool:
        """A GET whose answer is a page of its own shape (``paged_get``: a history with its
        entry, the live list with its header): drf-spectacular declares the page and filter
        parameters only for answers it sees as lists."""
        return self.method == "GET" and bool(getattr(self.view, "paged_get", False))

    def get_filter_backends(self) -> list[Any]:
        if not self._answers_a_page():
            return super().get_filter_backends()
        # A view that applies its filter set itself names the backend that documents it.
        backends = getattr(self.view, "schema_filter_backends", None)
        view: Any = self.view
        return list(backends if backends is not None else view.filter_backends)

    def _get_pagination_parameters(self) -> list[dict[str, Any]]:
        paginator = getattr(self.view, "paginator", None)
        if not self._answers_a_page() or paginator is None:
            return super()._get_pagination_parameters()  # type: ignore[no-untyped-call,no-any-return]
        return paginator.get_schema_operation_parameters(self.view)  # type: ignore[no-any-return]

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        statuses: tuple[int, ...] = getattr(self.view, "error_statuses", DEFAULT_ERRORS)
        extra: tuple[int, ...] = getattr(self.view, "extra_error_statuses", {}).get(self.method, ())
        body_errors = (415,) if self.method in {"POST", "PUT", "PATCH"} else ()
        for status in sorted({*statuses, *extra, *body_errors}):
            if str(status) in responses:
                continue
            response = self._get_response_for_code(ErrorSerializer, str(status))  # type: ignore[no-untyped-call]
            response["description"] = ERROR_DESCRIPTIONS[status]
            responses[str(status)] = response
        return responses


# Operations whose views are not ClubAutoSchema views (the calculator belongs to another
# part of the project) but answer these errors too.
OPERATION_ERRORS: dict[str, tuple[int, ...]] = {
    "calculate": (400, 429),
    "calculate_glicko2": (400, 429),
}


def document_other_errors(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: document the error responses of
    ``OPERATION_ERRORS`` with the one error shape."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    if "Error" not in schemas:
        return result
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            for status in OPERATION_ERRORS.get(operation.get("operationId", ""), ()):
                operation["responses"].setdefault(
                    str(status),
                    {
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}
                        },
                        "description": ERROR_DESCRIPTIONS[status],
                    },
                )
    return result


class TokenScheme(KnoxTokenScheme):  # type: ignore[no-untyped-call]
    """Our token check is knox's with a "last used" stamp: the same scheme."""

    target_class = "players.http.authentication.TokenAuthentication"


# Request arrays whose length the server checks (DRF's ListField keeps min_length and
# max_length out of its validators, where drf-spectacular looks): component, field, bounds.
ARRAY_BOUNDS: dict[tuple[str, str], dict[str, int]] = {
    ("CalculateInRequest", "games"): {"minItems": 1, "maxItems": 100},
    ("Glicko2InRequest", "games"): {"maxItems": 100},
}
ID_FILTERS = ("player", "object")
# Path slugs: a club's (a SlugField of 50), a list's (players.services.lists.SLUG).
PATH_PATTERNS = {
    "club": r"^[-a-zA-Z0-9_]{1,50}$",
    "list": f"^{LIST_SLUG.pattern}$",
}


def declare_bounds(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the limits the server enforces on parameters
    every view shares: ids are from 1 (a path's integer), a period is ``YYYY-MM``."""
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                _parameter_bounded(parameter)
    _components_bounded(result.get("components", {}).get("schemas", {}))
    return result


def _parameter_bounded(parameter: dict[str, Any]) -> None:
    """One parameter's schema with the server's limits: a path's integer id from 1, a
    path's slug and a period by their patterns, an id filter an integer from 1, and
    choices typed as the strings the server takes."""
    schema = parameter.get("schema", {})
    if parameter["in"] == "path" and schema.get("type") == "integer":
        schema.setdefault("minimum", 1)
    if parameter["in"] == "path" and parameter["name"] in PATH_PATTERNS:
        schema["pattern"] = PATH_PATTERNS[parameter["name"]]
    if parameter["name"] == "period" and schema.get("type") == "string":
        schema["pattern"] = MONTH_PATTERN
    # A filter naming a row by id (?player=, ?object=).
    if parameter["name"] in ID_FILTERS and parameter["in"] == "query":
        schema.update(type="integer", minimum=1)
    # django-filter's choices of "true"/"false" come out as a boolean whose enum holds
    # strings: the server takes the strings.
    if schema.get("type") == "boolean" and "enum" in schema:
        schema["type"] = "string"
    if "enum" in schema and "type" not in schema:
        schema["type"] = "string"


def _components_bounded(schemas: dict[str, Any]) -> None:
    """The request bodies' limits drf-spectacular does not see: a webhook's events, a new
    list's slug, the arrays of ``ARRAY_BOUNDS``."""
    webhook = schemas.get("WebhookInRequest", {}).get("properties", {})
    if webhook:
        webhook["events"]["minItems"] = 1
    if "RatingListCreateRequest" in schemas:
        schemas["RatingListCreateRequest"]["properties"]["slug"]["pattern"] = PATH_PATTERNS["list"]
    for (component, field), bounds in ARRAY_BOUNDS.items():
        if component in schemas:
            schemas[component]["properties"][field].update(bounds)
