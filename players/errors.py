"""Domain errors raised by services; the API's exception handler turns them into 4xx JSON.

Services never import DRF: they raise these, and each interface (API, admin, commands)
decides how to show them.
"""

from __future__ import annotations

from collections.abc import Mapping


class DomainError(Exception):
    """A request the rules refuse. ``status`` is the HTTP status the API answers with."""

    status = 400
    code = "invalid"

    def __init__(self, message: str, *, fields: Mapping[str, list[str]] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.fields: dict[str, list[str]] = dict(fields or {})


class ValidationFailed(DomainError):
    status = 400
    code = "invalid"


def invalid_field(field: str, message: str) -> ValidationFailed:
    """A refusal of one input field: ``message`` under ``field``, and both in the text."""
    return ValidationFailed(f"{field}: {message}", fields={field: [message]})


class PermissionDeniedError(DomainError):
    status = 403
    code = "permission_denied"


class NotFoundError(DomainError):
    status = 404
    code = "not_found"


class ConflictError(DomainError):
    """The object's state forbids the operation (closing a closed period, editing a
    game of a closed period, a concurrent close)."""

    status = 409
    code = "conflict"


class MonthNotOverError(ConflictError):
    """A close of a month that has not ended (its last day is today or later), without
    the caller saying it means an early close."""

    code = "month_not_over"


def month_not_over(*, label: str, last_day: str) -> MonthNotOverError:
    return MonthNotOverError(
        f"{label} is not over: its last day is {last_day}. Close it after that day, "
        "or say it is an early close.",
        fields={"early": [f"{label} ends on {last_day}; true closes it early."]},
    )


class ThrottledError(DomainError):
    """Too many of something in a while (clubs created in a day)."""

    status = 429
    code = "throttled"
