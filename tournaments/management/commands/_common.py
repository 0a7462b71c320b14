"""Shared by the tracker's management commands: finding the objects, the acting user."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from players.errors import DomainError
from players.jobs import job_start
from players.models import Club, Job, RatingList
from players.selectors import club_by_slug, club_lists, first_superuser, user_by_username


def acting_user(username: str | None) -> Any:
    """``--user``, else the first superuser: commands are run by whoever runs the server."""
    if username:
        user = user_by_username(username=username)
        if user is None:
            raise CommandError(f"No user {username!r}.")
        return user
    user = first_superuser()
    if user is None:
        raise CommandError("No superuser to act as: pass --user USERNAME.")
    return user


def rating_list_for(club_slug: str, kind: str) -> RatingList:
    club = club_by_slug(slug=club_slug)
    if club is None:
        raise CommandError(f"No club with slug {club_slug!r}.")
    rating_list = club_lists(club=club).filter(slug=kind).select_related("club").first()
    if rating_list is None:
        raise CommandError(f"Club {club_slug!r} has no {kind!r} list.")
    return rating_list


def domain_error(exc: DomainError) -> CommandError:
    return CommandError(exc.message)


def add_queue_argument(parser: CommandParser) -> None:
    parser.add_argument(
        "--queue",
        action="store_true",
        help="put the work on the job queue (a worker runs it) and print the job; default: "
        "run it here, with a progress bar",
    )


def start_job(command: BaseCommand, *, kind: str, club: Club, by: Any, **job: Any) -> Job:
    """``--queue``: start the job and say where to follow it."""
    try:
        started = job_start(kind=kind, club=club, by=by, **job)
    except DomainError as exc:
        raise domain_error(exc) from exc
    command.stdout.write(
        f"Queued job {started.pk} ({kind}). Follow it at /api/v1/jobs/{started.pk}/ or under "
        "Players > Jobs in the admin; `manage.py worker` runs it."
    )
    return started
