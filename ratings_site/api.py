"""The API's exception handler: every error answer in the one error shape.

Every error answer (4xx, and 500 without internals) has the shape ``{"error": {"code", "message", "fields"}}`` so that API
consumers write one error path.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import (
    PermissionDenied,
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.http import Http404
from django.utils.translation import gettext_noop
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from players.errors import DomainError
from players.http.api import error_body

logger = logging.getLogger("ratings_site.api")
# Marked for the site's error page, which shows it translated; the API answers in English.
SERVER_ERROR = gettext_noop("Something went wrong on our side; it has been logged.")

# Django raises these (as SuspiciousOperation, which it answers with handler400) when a
# body passes DATA_UPLOAD_MAX_MEMORY_SIZE, DATA_UPLOAD_MAX_NUMBER_FIELDS or
# DATA_UPLOAD_MAX_NUMBER_FILES: too large, not malformed.
TOO_LARGE = (RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent)


def too_large_message(exception: Exception) -> str:
    if isinstance(exception, TooManyFieldsSent):
        return f"The form has more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} fields."
    if isinstance(exception, TooManyFilesSent):
        return f"The form has more than {settings.DATA_UPLOAD_MAX_NUMBER_FILES} files."
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return f"The body (besides uploaded files) is over {limit} bytes."


def _flatten(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """Turn DRF's nested error details into ``{"field.sub[0]": [messages]}``."""
    out: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            # A nested serializer's own errors belong to the field that holds it.
            if key == "non_field_errors" and prefix:
                name = prefix
            elif isinstance(key, int):  # list items: DRF keys them by index
                name = f"{prefix}[{key}]"
            else:
                name = f"{prefix}.{key}" if prefix else str(key)
            out.update(_flatten(value, name))
    elif isinstance(detail, list):
        if all(not isinstance(item, dict | list) for item in detail):
            out[prefix or "non_field_errors"] = [str(item) for item in detail]
        else:
            for index, item in enumerate(detail):
                if item:
                    out.update(_flatten(item, f"{prefix}[{index}]"))
    else:
        out[prefix or "non_field_errors"] = [str(detail)]
    return out


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, RecursionError):
        # JSON nested deeper than the parser can follow ("[" x 50,000): bad input.
        exc = exceptions.ParseError("The JSON body is nested too deeply.")
    if isinstance(exc, DomainError):
        return Response(error_body(exc.code, exc.message, exc.fields), status=exc.status)
    if isinstance(exc, TOO_LARGE):
        return Response(error_body("too_large", too_large_message(exc)), status=413)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        if response is None:
            # A bug: logged with its traceback, answered in the error shape without
            # internals (Django's own 500 page would be HTML with none of our shape).
            logger.error("API error", exc_info=exc)
            return Response(error_body("server_error", SERVER_ERROR), status=500)
        return response
    if isinstance(exc, exceptions.ValidationError):
        fields = _flatten(exc.detail)
        first = next(iter(fields.items()), ("", ["Invalid input."]))
        message = (
            f"{first[0]}: {first[1][0]}"
            if first[0] and first[0] != "non_field_errors"
            else first[1][0]
        )
        response.data = error_body("invalid", message, fields)
    else:
        detail = exc.detail
        message = str(detail) if not isinstance(detail, dict | list) else "Request failed."
        response.data = error_body(str(getattr(detail, "code", exc.default_code)), message)
    return response
