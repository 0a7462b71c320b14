"""What each webhook event says: its ``data`` (enough to act on without another call) and
its ``links`` (the API and pages for the rest), read in the fan-out task, never in the
transaction that caused the event."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

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
        ids = list(data.get("players", []))
        links = {"players": f"/api/v1/clubs/{club.slug}/players/"}
        if len(ids) == 1:
            links["player"] = f"/api/v1/clubs/{club.slug}/players/{ids[0]}/"
        return EventContent(dict(data), links)
    assert rating_list is not None, f"{event} names a list"
    common = {"list": rating_list.slug, "kind": rating_list.kind, **_run_data(run), **data}
    links = _list_links(club, rating_list)
    summary = run.summary if run is not None else {}
    if event == "period.closed" and period is not None:
        return EventContent(
            {
                **common,
                "period": period.label,
                "closed_at": period.closed_at.isoformat() if period.closed_at else None,
                "games": summary.get("games"),
                "players": summary.get("players"),
            },
            {**links, **_period_links(club, rating_list, period.label)},
            period.label,
        )
    if event == "period.reopened" and period is not None:
        periods = list(run.periods) if run is not None else [period.label]
        return EventContent(
            {**common, "period": period.label, "needs_replay": periods},
            {**links, **_period_links(club, rating_list, period.label)},
            period.label,
        )
    periods = list(run.periods) if run is not None else []
    first = periods[0] if periods else None
    if event == "period.replayed":
        return EventContent(
            {**common, "periods": periods, "changed_per_period": summary.get("periods", {})},
            {**links, **(_period_links(club, rating_list, first) if first else {})},
            first,
        )
    # list.published: after a close or a replay; the list is dated after the last month.
    last = periods[-1] if periods else (period.label if period is not None else None)
    players = PlayerRating.objects.filter(rating_list=rating_list).count()
    return EventContent(
        {**common, "periods": periods, "through": last, "players": players}, links, last
    )
