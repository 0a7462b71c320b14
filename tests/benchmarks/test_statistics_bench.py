"""Server time of a list's statistics page and its API answer (issue 37, item 3) with the
pages benchmark's 5,000-player club and its year of closed periods (``build`` of
test_pages_bench.py; ``BENCH_SCALE=small``: 500 players).

Run with ``make bench`` or ``pytest tests/benchmarks/test_statistics_bench.py -m benchmark
-s``. One JSON line per figure, as the pages benchmark prints them: ``seconds`` the median of
several requests through the Django test client, ``min_seconds`` the fastest,
``baseline_seconds`` the median of as many GETs of an unknown path (a 404) in the same
process, ``ratio`` against it, ``peak_mb`` one more request's Python allocations.

- ``page_statistics_first``: the first visit after a close: the whole cache emptied before
  each request (untimed), so the page, the list's rating histogram and everything else
  are read again;
- ``page_statistics_cached``: a warm hit of the cache of public views (``ratio_vs_render``
  against the first visit);
- ``api_statistics_first`` / ``api_statistics_cached``: the same for the API's answer;
- ``page_player_first``: the player page (its chart now with the list's median of each of
  the year's periods), first visit.
No timing assertions: the figures are for reading (docs/developers/benchmarks.md).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from tests.benchmarks.report import ratio
from tests.benchmarks.test_pages_bench import PLAYERS, against_a_404, built_and_frozen, measure

pytestmark = [pytest.mark.benchmark, pytest.mark.django_db(transaction=True)]


def test_statistics_server_times(settings: Any, request: pytest.FixtureRequest) -> None:
    club, player = built_and_frozen(request)
    client = Client()
    report = against_a_404(client, PLAYERS)
    page = f"/clubs/{club.slug}/lists/standard/statistics/"
    api = f"/api/v1/clubs/{club.slug}/lists/standard/statistics/"

    settings.PUBLISHED_CACHE_SECONDS = 600
    for name, url in (("page_statistics", page), ("api_statistics", api)):
        first = measure(client, url, before=cache.clear)
        report(f"{name}_first", first)
        cached = measure(client, url)
        report(f"{name}_cached", cached, ratio_vs_render=ratio(cached[0], first[0]))
    report(
        "page_player_first",
        measure(client, f"/clubs/{club.slug}/players/{player.pk}/", before=cache.clear),
    )
