"""Shared by the tracker's management commands: finding the objects, the acting user."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

from players.errors import DomainError
from players.models import Club, RatingList


def acting_user(username: str | None) -> Any:
    """``--user``, else the first superuser: commands are run by whoever runs the server."""
    users = get_user_model().objects
    if username:
        user = users.filter(username=username).first()
        if user is None:
            raise CommandError(f"No user {username!r}.")
        return user
    user = users.filter(is_superuser=True).order_by("pk").first()
    if user is None:
        raise CommandError("No superuser to act as: pass --user USERNAME.")
    return user


def rating_list_for(club_slug: str, kind: str) -> RatingList:
    club = Club.objects.filter(slug=club_slug).first()
    if club is None:
        raise CommandError(f"No club with slug {club_slug!r}.")
    rating_list = RatingList.objects.filter(club=club, slug=kind).select_related("club").first()
    if rating_list is None:
        raise CommandError(f"Club {club_slug!r} has no {kind!r} list.")
    return rating_list


def domain_error(exc: DomainError) -> CommandError:
    return CommandError(exc.message)
