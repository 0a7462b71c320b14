"""Bounds, database checks and choices shared by the players app's models."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

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

    VIEWER = "viewer", "Viewer"
    ARBITER = "arbiter", "Arbiter"
    OFFICER = "officer", "Rating officer"
    OWNER = "owner", "Owner"

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


class ListKind(models.TextChoices):
    # Same values as players.rating.ListKind; the engine stays free of Django.
    STANDARD = "standard", "Standard"
    RAPID = "rapid", "Rapid"
    BLITZ = "blitz", "Blitz"


class ExpectedMethod(models.TextChoices):
    FIDE_TABLE = "fide_table", "FIDE table (8.1.2)"
    FORMULA = "formula", "Elo formula"


class KPolicy(models.TextChoices):
    FIDE = "fide", "FIDE rules (8.3.3)"
    FIXED = "fixed", "Fixed K"


class FirstRatingPolicy(models.TextChoices):
    FIDE = "fide", "FIDE 8.2 (5 games against rated opponents)"
    FIXED = "fixed", "Fixed starting rating"


class KReason(models.TextChoices):
    # Same values as players.rating.KReason.
    REACHED_2400 = "reached_2400", "10: published rating reached 2400"
    JUNIOR = "junior", "40: junior under 2300"
    NEW_PLAYER = "new_player", "40: fewer than 30 rated games"
    STANDARD = "standard", "20: standard"
    FIXED = "fixed", "Fixed by the list"
    MANUAL = "manual", "Set by the rating officer"


class KChangeReason(models.TextChoices):
    # Same values as players.rating.KChangeReason.
    NEW_PLAYER = "new_player", "New player"
    JUNIOR = "junior", "Junior"
    TURNED_19 = "turned_19", "Turned 19"
    JUNIOR_2300 = "junior_2300", "Junior reached 2300"
    REACHED_2400 = "reached_2400", "Reached 2400"
    GAMES_30 = "games_30", "Completed 30 rated games"
    MANUAL = "manual", "Manual override"
    FIXED = "fixed", "Fixed by the list"
    RULES = "rules", "Rules"


class Sex(models.TextChoices):
    MALE = "M", "Male"
    FEMALE = "F", "Female"


class Title(models.TextChoices):
    GM = "GM", "Grandmaster"
    IM = "IM", "International Master"
    FM = "FM", "FIDE Master"
    CM = "CM", "Candidate Master"
    WGM = "WGM", "Woman Grandmaster"
    WIM = "WIM", "Woman International Master"
    WFM = "WFM", "Woman FIDE Master"
    WCM = "WCM", "Woman Candidate Master"
