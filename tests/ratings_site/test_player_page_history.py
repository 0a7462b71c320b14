"""The player page's history figures: peak and best rank with their months, the FIDE
profile link, the chart's points and the history download."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from players.models import RatingChange
from tests.pages_data import ClubData, build_club

pytestmark = pytest.mark.django_db


@pytest.fixture
def data() -> ClubData:
    return build_club()


def text(response: Any) -> str:
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", response.content.decode(), flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_peak_and_best_rank_with_their_months(client: Client, data: ClubData) -> None:
    omar = data.players["omar"]
    page = text(client.get(f"/clubs/riverside/players/{omar.pk}/"))
    changes = list(
        RatingChange.objects.filter(player=omar, current=True, rating_after__isnull=False)
        .select_related("period")
        .order_by("period__month")
    )
    peak = max(changes, key=lambda c: (c.rating_after, -c.period.month.toordinal()))
    assert f"Peak {peak.rating_after} ({peak.period.month:%B %Y})" in page
    # Best rank: counted here from the published rows, one period at a time.
    ranks = []
    for change in changes:
        higher = RatingChange.objects.filter(
            period=change.period, current=True, rating_after__gt=change.rating_after
        ).count()
        ranks.append((higher + 1, change.period.month))
    best = min(ranks, key=lambda r: (r[0], r[1]))
    assert f"Best rank {best[0]} ({best[1]:%B %Y})" in page


def test_fide_profile_link_chart_points_and_history_download(
    client: Client, data: ClubData
) -> None:
    magnus = data.players["magnus"]
    magnus.fide_id = 1503014
    magnus.save(update_fields=["fide_id"])
    html = client.get(f"/clubs/riverside/players/{magnus.pk}/").content.decode()
    assert 'href="https://ratings.fide.com/profile/1503014"' in html
    # Each chart point is focusable and names its month and rating.
    assert re.search(r'<g class="pt" tabindex="0" role="img" aria-label="2026-01: \d+">', html)
    assert f'href="/clubs/riverside/players/{magnus.pk}/history.csv"' in html
