"""What a club archive holds: the tables found from the club's foreign keys, the format's
constants and its error (the package's docstring tells the whole story)."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import models

from players.errors import ValidationFailed
from players.models import ApiToken, Club, Job, Webhook, WebhookDelivery

FORMAT = "ratings-club-archive"
# 2: references to what the archive leaves out (a run's job) are written empty, and a
# reader may rely on every reference naming a row of the archive or a user by name
# (docs/reference/backup.md, "What a version promises").
FORMAT_VERSION = 2
# Version 1 wrote a run's job id: read the same way, the restore drops it.
READABLE_VERSIONS = (1, 2)
MANIFEST = "manifest.json"
# Rows read and written per chunk: ids reserved, users looked up, rows inserted at once.
CHUNK = 5000
# A manifest is a few kilobytes; more is not one of ours.
MANIFEST_MAX_BYTES = 10 * 1024 * 1024
# The reader's bounds (docs/reference/backup.md): what it holds at once stays far below 300 MB
# whatever the file says. The longest row we write is a run's summary, a few kilobytes.
MAX_LINE_BYTES = 1024 * 1024
# A chunk's lines together (a chunk is CHUNK rows or this much, whichever comes first).
MAX_CHUNK_BYTES = 16 * 1024 * 1024
# One member, uncompressed (a 20,000-player club's largest table is a few hundred MB).
MAX_MEMBER_BYTES = 8 * 1024 * 1024 * 1024
# Rows of one table: the id maps of a restore hold about 100 bytes per row.
MAX_TABLE_ROWS = 2_000_000

# Models that belong to a club but are not its history. Webhooks neither: their secrets
# stay on this instance, and a restored copy must not send events to the original's
# receivers (its owners register their own).
_EXCLUDED: tuple[type[models.Model], ...] = (Job, Webhook, WebhookDelivery)
# What a row may name that the archive leaves out on purpose: written and restored empty.
LEFT_OUT: tuple[type[models.Model], ...] = (*_EXCLUDED, ApiToken)
# Rows whose point is the user: without the user there is nothing to restore.
_ROWS_OF_A_USER = ("players.membership", "players.invitation")
# References held as plain numbers rather than foreign keys: (model, field) -> model.
_PLAIN_REFERENCES: dict[tuple[str, str], str] = {
    ("players.playermerge", "duplicate_id"): "players.player",
}
# Ids inside JSON values: (model, field) -> {key: model}.
_JSON_REFERENCES: dict[tuple[str, str], dict[str, str]] = {
    ("players.playermerge", "summary"): {"kept": "players.player", "duplicate": "players.player"},
    ("players.ratingrun", "summary"): {"merge": "players.player"},
}
# Unique across the instance, and a secret: a copy beside its original gets a new one
# (the copy's open invitation links then do not work; the original's still do).
_RESECRETED = {("players.invitation", "digest")}


class ArchiveError(ValidationFailed):
    """A file that is not a club archive this instance can restore (400 naming ``file``)."""

    def __init__(self, message: str) -> None:
        super().__init__(f"file: {message}", fields={"file": [message]})


@dataclass(frozen=True)
class Table:
    """One model of a club's history: which rows are the club's, which columns."""

    model: type[models.Model]
    club_path: str
    #: The model whose ids this one's ``id`` column names (a historical table's object).
    tracked: type[models.Model] | None

    @property
    def label(self) -> str:
        return self.model._meta.label_lower

    @property
    def file(self) -> str:
        return f"tables/{self.label}.jsonl"

    @property
    def fields(self) -> list[models.Field[Any, Any]]:
        return list(self.model._meta.concrete_fields)


def _user_model() -> Any:
    return get_user_model()


def _related(f: Any) -> type[models.Model] | None:
    """The model a foreign key names (None for any other field)."""
    target = f.related_model if f.is_relation else None
    return target if isinstance(target, type) else None


def is_auto(f: Any) -> bool:
    """Whether the field's values come from the table's sequence."""
    return isinstance(f, models.AutoField | models.BigAutoField | models.SmallAutoField)


def _club_path(model: type[models.Model]) -> str | None:
    """The lookup from ``model`` to its club's id (shortest chain of foreign keys), or None
    for a model that is not a club's."""
    if model is Club:
        return "pk"
    if getattr(model, "instance_type", None) is Club:
        return "id"  # the club's own audit rows
    user = _user_model()
    queue: deque[tuple[type[models.Model], str, int]] = deque([(model, "", 0)])
    seen = {model}
    while queue:
        current, prefix, depth = queue.popleft()
        for f in current._meta.concrete_fields:
            target = _related(f)
            if target is None or target is user:
                continue
            if target is Club:
                return prefix + f.name
            if target not in seen and depth < 3:
                seen.add(target)
                queue.append((target, f"{prefix}{f.name}__", depth + 1))
    return None


def club_tables() -> list[Table]:
    """Every table of a club's history, each after the tables its foreign keys name."""
    found = _club_models()
    depends: dict[type[models.Model], set[type[models.Model]]] = {
        model: {
            target
            for target in map(_related, model._meta.concrete_fields)
            if target is not None and target in found and target is not model
        }
        for model in found
    }
    ordered: list[Table] = []
    done: set[type[models.Model]] = set()
    pending = sorted(found, key=lambda m: m._meta.label_lower)
    while pending:
        ready = [m for m in pending if depends[m] <= done]
        if not ready:
            names = ", ".join(m._meta.label for m in pending)
            raise RuntimeError(f"Foreign keys in a circle among {names}: cannot order them.")
        for model in ready:
            ordered.append(found[model])
            done.add(model)
        pending = [m for m in pending if m not in done]
    return ordered


def _club_models() -> dict[type[models.Model], Table]:
    """The models whose rows are a club's (a chain of foreign keys leads to the club),
    each an archive's table, but those excluded and the audit rows of those excluded."""
    found: dict[type[models.Model], Table] = {}
    for model in apps.get_models():
        meta = model._meta
        if meta.proxy or not meta.managed or issubclass(model, _EXCLUDED):
            continue
        tracked = getattr(model, "instance_type", None)
        if isinstance(tracked, type) and issubclass(tracked, _EXCLUDED):
            continue
        path = _club_path(model)
        if path is not None:
            found[model] = Table(
                model=model, club_path=path, tracked=tracked if isinstance(tracked, type) else None
            )
    return found
