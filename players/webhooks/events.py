"""What each webhook event says: its ``data`` (enough to act on without another call) and
its ``links`` (the API and pages for the rest), read in the fan-out task, never in the
transaction that caused the event."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from players.models import Club, PlayerRating, RatingList, RatingPeriod, RatingRun


@dataclass(frozen=True)
class EventContent:
    data: dict[str, Any]
    links: dict[str, str] = field(default_factory=dict)
    #: The body's top-level "period": the month the event is about, if one.
    period: str | None = None


def _list_links(club: Club, rating_list: RatingList) -> dict[str, str]:
    api = f"/api/v1/clubs/{club.slug}/lists/{rating_list.slug}/"
    return {
        "list": api,
        "ratings": api + "ratings/",
        "ratings_csv": api + "ratings.csv",
        "periods": api + "periods/",
        "page": f"/clubs/{club.slug}/lists/{rating_list.slug}/",
    }


def _period_links(club: Club, rating_list: RatingList, label: str) -> dict[str, str]:
    return {
        "period": f"/api/v1/clubs/{club.slug}/lists/{rating_list.slug}/periods/{label}/",
        "report": f"/clubs/{club.slug}/lists/{rating_list.slug}/periods/{label}/",
    }


def _run_data(run: RatingRun | None) -> dict[str, Any]:
    if run is None:
        return {}
    return {
        "run": run.pk,
        "by": run.by.get_username() if run.by is not None else None,
        "players_changed": run.players_changed,
    }


def event_content(
    event: str,
    *,
    club: Club,
    rating_list: RatingList | None,
    period: RatingPeriod | None,
    run: RatingRun | None,
    data: Mapping[str, Any],
) -> EventContent:
    """The data and links of ``event``; ``data`` is what the emitting service passed."""
    if event == "players.changed":
        return _players_changed(club, data)
    assert rating_list is not None, f"{event} names a list"
    about = _ListEvent(
        club,
        rating_list,
        run,
        {"list": rating_list.slug, "kind": rating_list.kind, **_run_data(run), **data},
        _list_links(club, rating_list),
    )
    if event == "period.closed" and period is not None:
        return _period_closed(about, period)
    if event == "period.reopened" and period is not None:
        return _period_reopened(about, period)
    periods = list(run.periods) if run is not None else []
    if event == "period.replayed":
        return _period_replayed(about, periods)
    # list.published: after a close or a replay; the list is dated after the last month.
    last = periods[-1] if periods else (period.label if period is not None else None)
    players = PlayerRating.objects.filter(rating_list=rating_list).count()
    return EventContent(
        {**about.common, "periods": periods, "through": last, "players": players},
        about.links,
        last,
    )


class _ListEvent(NamedTuple):
    """An event about a list: what every such event's data and links hold."""

    club: Club
    rating_list: RatingList
    run: RatingRun | None
    common: dict[str, Any]  # the list, its kind, the run's figures, the service's data
    links: dict[str, str]  # the list's API and page


def _players_changed(club: Club, data: Mapping[str, Any]) -> EventContent:
    ids = list(data.get("players", []))
    links = {"players": f"/api/v1/clubs/{club.slug}/players/"}
    if len(ids) == 1:
        links["player"] = f"/api/v1/clubs/{club.slug}/players/{ids[0]}/"
    return EventContent(dict(data), links)


def _period_closed(about: _ListEvent, period: RatingPeriod) -> EventContent:
    summary = about.run.summary if about.run is not None else {}
    return EventContent(
        {
            **about.common,
            "period": period.label,
            "closed_at": period.closed_at.isoformat() if period.closed_at else None,
            "games": summary.get("games"),
            "players": summary.get("players"),
        },
        {**about.links, **_period_links(about.club, about.rating_list, period.label)},
        period.label,
    )


def _period_reopened(about: _ListEvent, period: RatingPeriod) -> EventContent:
    periods = list(about.run.periods) if about.run is not None else [period.label]
    return EventContent(
        {**about.common, "period": period.label, "needs_replay": periods},
        {**about.links, **_period_links(about.club, about.rating_list, period.label)},
        period.label,
    )


def _period_replayed(about: _ListEvent, periods: list[str]) -> EventContent:
    summary = about.run.summary if about.run is not None else {}
    first = periods[0] if periods else None
    return EventContent(
        {**about.common, "periods": periods, "changed_per_period": summary.get("periods", {})},
        {**about.links, **(_period_links(about.club, about.rating_list, first) if first else {})},
        first,
    )
