"""Bounds, database checks and choices shared by the players app's models."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import models
from django.db.models import Q
from django.utils.functional import Promise as StrPromise
from django.utils.translation import gettext_lazy as _

from players.rating import ExpectedMethod as ExpectedMethod
from players.rating import KChangeReason as KChangeReason
from players.rating import KReason as KReason
from players.rating import list_kinds
from players.rating.period import GameResult
from players.rating.types import Labelled

# The engine's vocabularies are the models' (re-exported as they are): their values are
# stored, their labels shown through translated_choices.

RATING_MIN = 0
RATING_MAX = 4000
K_MIN = 1
K_MAX = 100


def rating_range_check(field: str, name: str) -> models.CheckConstraint:
    return models.CheckConstraint(
        condition=Q(**{f"{field}__isnull": True})
        | Q(**{f"{field}__gte": RATING_MIN, f"{field}__lte": RATING_MAX}),
        name=name,
    )


def k_range_check(field: str, name: str) -> models.CheckConstraint:
    return models.CheckConstraint(
        condition=Q(**{f"{field}__isnull": True})
        | Q(**{f"{field}__gte": K_MIN, f"{field}__lte": K_MAX}),
        name=name,
    )


class Role(models.TextChoices):
    """A member's role in one club. Each role includes the rights of the ones below it."""

    VIEWER = "viewer", _("Viewer")
    ARBITER = "arbiter", _("Arbiter")
    OFFICER = "officer", _("Rating officer")
    OWNER = "owner", _("Owner")

    @classmethod
    def rank(cls, role: str) -> int:
        return _ROLE_ORDER.index(cls(role))

    @classmethod
    def at_least(cls, role: str) -> list[Role]:
        """Roles that include ``role``'s rights, e.g. for ``role__in=Role.at_least(...)``."""
        return list(_ROLE_ORDER[cls.rank(role) :])

    @classmethod
    def includes(cls, held: str, required: str) -> bool:
        return cls.rank(held) >= cls.rank(required)


_ROLE_ORDER: tuple[Role, ...] = (Role.VIEWER, Role.ARBITER, Role.OFFICER, Role.OWNER)


class KPolicy(models.TextChoices):
    FIDE = "fide", _("FIDE rules (8.3.3)")
    FIXED = "fixed", _("Fixed K")


class FirstRatingPolicy(models.TextChoices):
    FIDE = "fide", _("FIDE 8.2 (5 games against rated opponents)")
    FIXED = "fixed", _("Fixed starting rating")


def translated_choices(vocabulary: Iterable[Labelled]) -> list[tuple[str, StrPromise]]:
    """A field's choices from the engine's enum (one declaration per vocabulary, in
    players/rating), each label translated when it is shown (the engine marks them with
    its ``gettext_noop`` for makemessages)."""
    return [(member.value, _(member.label)) for member in vocabulary]


def translated_label(member: Labelled) -> StrPromise:
    """One value's label in the active language (the engine's ``label`` is English)."""
    return _(member.label)


def list_kind_choices() -> list[tuple[str, StrPromise]]:
    """The registered list kinds as a field's choices: a callable (RatingList.kind), so a
    kind registered after import (a test's) is a choice as well."""
    return [(kind.value, _(kind.label)) for kind in list_kinds()]


def list_kind_values() -> list[str]:
    """The registered list kinds' values, in the site's order (standard first)."""
    return [kind.value for kind in list_kinds()]


class Sex(models.TextChoices):
    MALE = "M", _("Male")
    FEMALE = "F", _("Female")


class Title(models.TextChoices):
    GM = "GM", _("Grandmaster")
    IM = "IM", _("International Master")
    FM = "FM", _("FIDE Master")
    CM = "CM", _("Candidate Master")
    WGM = "WGM", _("Woman Grandmaster")
    WIM = "WIM", _("Woman International Master")
    WFM = "WFM", _("Woman FIDE Master")
    WCM = "WCM", _("Woman Candidate Master")


def game_result_choices() -> list[tuple[str, StrPromise]]:
    """A game's result as the API offers it (the schema's ``ResultEnum``)."""
    return translated_choices(GameResult)
