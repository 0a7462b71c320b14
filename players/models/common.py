"""Bounds, database checks and choices shared by the players app's models."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

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


class ListKind(models.TextChoices):
    # Same values as players.rating.ListKind; the engine stays free of Django.
    STANDARD = "standard", _("Standard")
    RAPID = "rapid", _("Rapid")
    BLITZ = "blitz", _("Blitz")


class ExpectedMethod(models.TextChoices):
    FIDE_TABLE = "fide_table", _("FIDE table (8.1.2)")
    FORMULA = "formula", _("Elo formula")


class KPolicy(models.TextChoices):
    FIDE = "fide", _("FIDE rules (8.3.3)")
    FIXED = "fixed", _("Fixed K")


class FirstRatingPolicy(models.TextChoices):
    FIDE = "fide", _("FIDE 8.2 (5 games against rated opponents)")
    FIXED = "fixed", _("Fixed starting rating")


class KReason(models.TextChoices):
    # Same values as players.rating.KReason.
    REACHED_2400 = "reached_2400", _("10: published rating reached 2400")
    JUNIOR = "junior", _("40: junior under 2300")
    NEW_PLAYER = "new_player", _("40: fewer than 30 rated games")
    STANDARD = "standard", _("20: standard")
    FIXED = "fixed", _("Fixed by the list")
    MANUAL = "manual", _("Set by the rating officer")


class KChangeReason(models.TextChoices):
    # Same values as players.rating.KChangeReason.
    NEW_PLAYER = "new_player", _("New player")
    JUNIOR = "junior", _("Junior")
    TURNED_19 = "turned_19", _("Turned 19")
    JUNIOR_2300 = "junior_2300", _("Junior reached 2300")
    REACHED_2400 = "reached_2400", _("Reached 2400")
    GAMES_30 = "games_30", _("Completed 30 rated games")
    MANUAL = "manual", _("Manual override")
    FIXED = "fixed", _("Fixed by the list")
    RULES = "rules", _("Rules")


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
