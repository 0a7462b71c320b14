"""One column's values as a restore takes them: the type the field stores, one of its
choices (a list's kind and rating system are their registries' names), within its length;
anything else is refused by the caller with the table, the line and the field."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import connection, models


class Refused(Exception):
    """A value the column does not take; the caller names where it was."""


def shown(value: Any) -> str:
    """A value in a message: its repr (lone surrogates escaped), cut short."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def old_id(value: Any) -> int:
    """An id as the archive writes them: a whole number (JSON's, so exactly an int: not a
    bool; the exact type test is a third of the two ``isinstance``, called per reference)."""
    if type(value) is not int:
        raise Refused(f"{shown(value)} is not an id")
    return value


# The forms the archive writes (ISO 8601, plain decimals, UUIDs), for a column whose text
# the database parses itself: PostgreSQL also reads 'infinity', 'today', 'epoch', years
# past 9999 and dates before Christ, which a stored row could not be read back as.
_DIGITS = r"-?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?"
_TIME = r"\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?"
_DATE = r"\d{4}-\d{2}-\d{2}"
_FORMS: list[tuple[type[models.Field[Any, Any]], re.Pattern[str]]] = [
    (models.DateTimeField, re.compile(rf"{_DATE}[T ]{_TIME}(?:Z|[+-]\d{{2}}(?::?\d{{2}})?)?")),
    (models.DateField, re.compile(_DATE)),
    (models.TimeField, re.compile(_TIME)),
    (models.DecimalField, re.compile(_DIGITS)),
    (models.UUIDField, re.compile(r"[0-9a-fA-F]{8}-?(?:[0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}")),
]


def _as_text(f: models.Field[Any, Any]) -> Callable[[Any], Any]:
    """A value left for the database to parse: checked for its form only."""
    form = next(pattern for kind, pattern in _FORMS if isinstance(f, kind)).fullmatch
    number = isinstance(f, models.DecimalField)
    what = f.get_internal_type()

    def text(value: Any) -> Any:
        if type(value) is str and value.isascii() and form(value):
            return value
        if number and (type(value) is int or (type(value) is float and math.isfinite(value))):
            return value
        raise Refused(f"{shown(value)} is not a {what} value")

    return text


def _typed(f: models.Field[Any, Any], parse: bool = True) -> Callable[[Any], Any]:
    if isinstance(f, models.BooleanField):
        return _of(bool, "true or false")
    if isinstance(f, models.IntegerField | models.AutoField):
        low, high = connection.ops.integer_field_range(f.get_internal_type())
        whole = _of(int, "a whole number", exclude_bool=True)

        def ranged(value: Any) -> Any:
            whole(value)
            if (low is not None and value < low) or (high is not None and value > high):
                raise Refused(f"{shown(value)} is out of the column's range")
            return value

        return ranged
    if isinstance(f, models.FloatField):
        return _of((int, float), "a number", exclude_bool=True)
    if isinstance(f, models.DateField | models.TimeField | models.DecimalField | models.UUIDField):
        if not parse:
            return _as_text(f)
        to_python = f.to_python

        def converted(value: Any) -> Any:
            if not isinstance(value, str | int | float) or isinstance(value, bool):
                raise Refused(f"{shown(value)} is not a {f.get_internal_type()} value")
            try:
                return to_python(value)
            except (ValidationError, TypeError, ValueError):
                # TypeError: a number where a date's text belongs (fromisoformat of 0).
                raise Refused(f"{shown(value)} is not a {f.get_internal_type()} value") from None

        return converted
    if isinstance(f, models.CharField | models.TextField):
        limit = f.max_length if isinstance(f, models.CharField) else None

        def text(value: Any) -> Any:
            if not isinstance(value, str):
                raise Refused(f"{shown(value)} is not text")
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate, which no database stores
                raise Refused(f"{shown(value)} is not valid text") from None
            if limit is not None and len(value) > limit:
                raise Refused(f"longer than {limit} characters")
            return value

        return text
    return lambda value: value  # JSON and whatever else the database checks itself


def _of(kinds: Any, what: str, *, exclude_bool: bool = False) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if not isinstance(value, kinds) or (exclude_bool and isinstance(value, bool)):
            raise Refused(f"{shown(value)} is not {what}")
        return value

    return check


def value_check(f: models.Field[Any, Any], *, parse: bool = True) -> Callable[[Any], Any]:
    """A function that returns the value the column stores, or raises Refused. With
    ``parse`` false, a date, time, Decimal or UUID is returned as the archive's text, its
    form checked, for a database that parses it itself (``fast.server_parses``)."""
    typed = _typed(f, parse)
    allowed = {str(key) for key, _ in f.flatchoices} if f.choices else None
    null = f.null
    blank = f.blank

    def check(value: Any) -> Any:
        if value is None:
            if not null:
                raise Refused("must not be empty")
            return None
        value = typed(value)
        if allowed is not None and str(value) not in allowed and not (blank and value == ""):
            choices = ", ".join(sorted(allowed)[:12])
            raise Refused(f"{shown(value)} is not one of this instance's choices ({choices})")
        return value

    return check


class Unsure(Exception):
    """A chunk's column that the check of the whole column does not vouch for: its rows
    are then taken one at a time (``value_check``), which names the line and the field."""


NONE = type(None)
# Every digit made a 0: where only the places of digits matter (a date's form, a long number).
DIGITS_AS_ZEROS = bytes.maketrans(b"123456789", b"000000000")


def column_check(f: models.Field[Any, Any], *, parse: bool = True) -> Callable[[list[Any]], Any]:
    """``value_check`` of a whole column of a chunk at once: the column's values as the
    column stores them (the same list where nothing changes), or ``Unsure``. Each test is
    one call over the column (the set of its types, the text joined once), not one per
    value: 24 million checks a value at a time were the restore's largest cost. It
    refuses nothing itself: whatever it is unsure of, ``value_check`` decides."""
    one = value_check(f, parse=parse)
    kinds = _kinds(f, parse)
    allowed = {str(key) for key, _ in f.flatchoices} if f.choices else None
    if allowed is not None and f.blank:
        allowed.add("")
    if kinds is None:  # a JSON value, a date to parse: one value at a time
        return lambda values: each_or_unsure(one, values)
    if f.null:
        kinds = kinds | {NONE}
    test = _column_test(f, parse)

    def check(values: list[Any]) -> Any:
        if not kinds.issuperset(map(type, values)):
            raise Unsure
        present = [v for v in values if v is not None] if f.null else values
        if present and not test(present):
            raise Unsure
        if allowed is not None and not allowed.issuperset(map(str, set(present))):
            raise Unsure
        return values

    return check


def each_or_unsure(one: Callable[[Any], Any], values: list[Any]) -> list[Any]:
    """``one`` of each value; Unsure where it refuses one (or meets a value it cannot
    take: an id not mapped, a list where a number belongs), for the row at a time to name."""
    try:
        return [one(v) for v in values]
    except (Refused, KeyError, TypeError):
        raise Unsure from None


def _kinds(f: models.Field[Any, Any], parse: bool) -> frozenset[type] | None:
    """The types a column's values may have for the check of the whole column (exact
    types: a bool is not a whole number); None where each value is taken alone."""
    if isinstance(f, models.BooleanField):
        return frozenset({bool})
    if isinstance(f, models.IntegerField | models.AutoField):
        return frozenset({int})
    if isinstance(f, models.FloatField):
        return frozenset({int, float})
    if isinstance(f, models.DateField | models.TimeField | models.UUIDField | models.DecimalField):
        # Text the server parses; a Decimal given as a JSON number is checked one at a time.
        return None if parse else frozenset({str})
    if isinstance(f, models.CharField | models.TextField):
        return frozenset({str})
    return None


def _column_test(f: models.Field[Any, Any], parse: bool) -> Callable[[list[Any]], bool]:
    """The test of a column's values that are not empty, already of the right types."""
    if isinstance(f, models.IntegerField | models.AutoField):
        low, high = connection.ops.integer_field_range(f.get_internal_type())
        return lambda values: (
            (low is None or min(values) >= low) and (high is None or max(values) <= high)
        )
    if isinstance(f, models.DateField | models.TimeField | models.DecimalField | models.UUIDField):
        form = next(pattern for kind, pattern in _FORMS if isinstance(f, kind)).pattern
        # The forms tell digits from other characters only, never one digit from another:
        # with every digit made a 0, a column of dates has a few distinct shapes, each
        # matched once (matching every value was a tenth of a restore).
        shape = re.compile(form.encode("ascii")).fullmatch

        def forms(values: list[str]) -> bool:
            joined = "\n".join(values)
            if not joined.isascii():
                return False
            shapes = joined.encode("ascii").translate(DIGITS_AS_ZEROS).split(b"\n")
            # As many lines as values: no value holds a line break of its own.
            return len(shapes) == len(values) and all(map(shape, set(shapes)))

        return forms
    if isinstance(f, models.CharField | models.TextField):
        limit = f.max_length if isinstance(f, models.CharField) else None

        def texts(values: list[str]) -> bool:
            try:
                "".join(values).encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate, which no database stores
                return False
            return limit is None or max(map(len, values)) <= limit

        return texts
    return lambda values: True
