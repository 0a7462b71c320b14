"""Server time of the widgets and the oEmbed answer (issue 37, item 4) with the pages
benchmark's 5,000-player club and its year of closed periods (``build`` of
test_pages_bench.py; ``BENCH_SCALE=small``: 500 players).

Run with ``make bench PYTEST_ARGS="-k embed"``. One JSON line per figure, as the pages
benchmark prints them: ``seconds`` the median of several requests through the Django test
client, ``min_seconds`` the fastest, ``baseline_seconds`` the median of as many GETs of an
unknown path (a 404) in the same process, ``ratio`` against it, ``peak_mb`` one more
request's Python allocations.

- ``widget_list_<n>_first``: the list widget of ``n`` rows on the first visit after a close
  (the whole cache emptied before each request, untimed); ``_cached``: a warm hit
  (``ratio_vs_render`` against the first visit);
- ``widget_live_first`` / ``_cached``: the live list's widget after a round of every
  player in the open month (the live figures computed afresh on the first visit);
- ``widget_player_first`` / ``_cached``: a player's card;
- ``oembed``: the oEmbed answer of the list page (never cached: two small queries).
No timing assertions: the figures are for reading (docs/developers/benchmarks.md).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from django.core.cache import cache
from django.test import Client

from tests.benchmarks.report import ratio
from tests.benchmarks.test_pages_bench import (
    PLAYERS,
    against_a_404,
    built_and_frozen,
    measure,
    open_month_with_member,
)

pytestmark = [pytest.mark.benchmark, pytest.mark.django_db(transaction=True)]


def test_widget_server_times(settings: Any, request: pytest.FixtureRequest) -> None:
    club, player = built_and_frozen(request)
    client = Client()
    report = against_a_404(client, PLAYERS)

    settings.PUBLISHED_CACHE_SECONDS = 600
    widgets = f"/embed/clubs/{club.slug}"
    published = (
        ("widget_list_10", f"{widgets}/lists/standard/?n=10"),
        ("widget_list_50", f"{widgets}/lists/standard/?n=50"),
        ("widget_player", f"{widgets}/players/{player.pk}/"),
    )
    for name, url in published:
        first = measure(client, url, before=cache.clear)
        report(f"{name}_first", first)
        cached = measure(client, url)
        report(f"{name}_cached", cached, ratio_vs_render=ratio(cached[0], first[0]))
    # A round of every player in the month after the closed ones: the live figures.
    open_month_with_member(club, player)
    for name, url in (("widget_live", f"{widgets}/lists/standard/live/?n=10"),):
        first = measure(client, url, before=cache.clear)
        report(f"{name}_first", first)
        cached = measure(client, url)
        report(f"{name}_cached", cached, ratio_vs_render=ratio(cached[0], first[0]))
    page = quote(f"http://testserver/clubs/{club.slug}/lists/standard/", safe="")
    report("oembed", measure(client, f"/api/v1/oembed/?url={page}"))
