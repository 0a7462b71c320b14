"""What an insert of some of a model's fields writes: the fields named, how their values
are adapted for the driver, and what every field left out gets (its default, or the
current time for ``auto_now``/``auto_now_add`` fields)."""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

from django.db import connection, models
from django.utils import timezone


class Columns(NamedTuple):
    """What an insert of ``fields`` into a model's table writes, beside the caller's values."""

    named: list[models.Field[Any, Any]]  # the fields of the caller's values, in order
    # The fields the caller leaves out, with the value each row gets (prepared for the
    # database).
    constants: list[tuple[models.Field[Any, Any], Any]]
    # The positions of the caller's values the driver cannot take as they are.
    adapters: list[tuple[int, Callable[[Any], Any]]]
    now: datetime.datetime  # what auto_now/auto_now_add fields get

    @property
    def columns(self) -> list[str]:
        return [f.column for f in self.named] + [f.column for f, _ in self.constants]


def columns_of(model: type[models.Model], fields: Sequence[str]) -> Columns:
    """The named fields, their adapters, and the constant of every field not named."""
    concrete = [f for f in model._meta.concrete_fields if not f.primary_key]
    named = _named(model, concrete, fields)
    now = timezone.now()
    adapters = [
        (index, adapt)
        for index, adapt in enumerate(adapter(field) for field in named)
        if adapt is not None
    ]
    constants = [
        (field, field.get_db_prep_save(_left_out(model, field, now), connection))
        for field in concrete
        if field.name not in fields
    ]
    return Columns(named=named, constants=constants, adapters=adapters, now=now)


def _named(
    model: type[models.Model], concrete: list[models.Field[Any, Any]], fields: Sequence[str]
) -> list[models.Field[Any, Any]]:
    """The fields of ``fields``, in order; refused if the model has no such field."""
    by_name = {f.name: f for f in concrete}
    pk = model._meta.pk
    if pk is not None and pk.name in fields:
        # Ids the caller took from the table's sequence (insert_rows_returning_ids).
        by_name[pk.name] = pk
    unknown = [name for name in fields if name not in by_name]
    if unknown:
        raise ValueError(f"{model.__name__} has no field {unknown[0]!r}")
    return [by_name[name] for name in fields]


def _left_out(model: type[models.Model], field: models.Field[Any, Any], now: Any) -> Any:
    """What every row gets in a field the caller leaves out."""
    if is_auto_now(field):
        return now
    # A text field without a default gets "" (Django's own rule); anything else without a
    # default and not nullable must be named.
    value = field.get_default()
    if value is None and not field.null:
        raise ValueError(f"{model.__name__}.{field.name} has no default: name it")
    return value


def is_auto_now(field: models.Field[Any, Any]) -> bool:
    return bool(getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False))


def adapter(field: models.Field[Any, Any]) -> Callable[[Any], Any] | None:
    """How to turn a Python value into what the database driver takes, when it differs."""
    ops = connection.ops
    if isinstance(field, models.DateTimeField):
        return ops.adapt_datetimefield_value
    if isinstance(field, models.DateField):
        return ops.adapt_datefield_value
    if isinstance(field, models.JSONField | models.DecimalField):
        return lambda value: field.get_db_prep_save(value, connection)
    return None


def json_text(value: Any, field: models.Field[Any, Any]) -> str | None:
    return None if value is None and field.null else json.dumps(value)


def copy_constants(cols: Columns) -> Iterator[tuple[models.Field[Any, Any], Any]]:
    """The value COPY writes for each field the caller leaves out (``copy_rows``'s
    rules: a JSON default as its text, auto_now fields the current time)."""
    for field, _ in cols.constants:
        if isinstance(field, models.JSONField):
            yield field, json_text(field.get_default(), field)
        elif is_auto_now(field):
            yield field, cols.now
        else:
            yield field, field.get_default()
