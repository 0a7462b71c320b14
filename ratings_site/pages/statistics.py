"""The statistics page's charts: the geometry of each figure of a list's statistics
(tournaments/statistics.py) at desktop and phone size (players/charts.py); the page
draws both and CSS shows the one that fits, as the player page does."""

from __future__ import annotations

from django.utils.translation import gettext

from players.charts import PHONE, WIDE, BarChart, bars_chart
from tournaments.statistics import ListStatistics


def statistics_charts(stats: ListStatistics) -> dict[str, BarChart | None]:
    """``distribution`` and ``activity``, each with its ``_phone`` drawing (None: nothing
    to draw)."""
    buckets = [str(bucket.lowest) for bucket in stats.buckets]
    players = {gettext("Players"): [bucket.players for bucket in stats.buckets]}
    months = [month.label for month in stats.activity]
    activity = {
        gettext("Games"): [month.games for month in stats.activity],
        gettext("Players"): [month.players for month in stats.activity],
    }
    return {
        "distribution": bars_chart(buckets, players, size=WIDE, label_chars=4),
        "distribution_phone": bars_chart(buckets, players, size=PHONE, label_chars=4),
        "activity": bars_chart(months, activity, size=WIDE),
        "activity_phone": bars_chart(months, activity, size=PHONE),
    }
