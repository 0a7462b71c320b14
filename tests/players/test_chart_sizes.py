"""The chart drawn at a phone's size: its own box (so 12-unit labels stay about 12 px at
390 px), at most about four month labels, never two that overlap."""

from __future__ import annotations

from itertools import pairwise

from players.charts import PHONE, WIDE, history_chart

YEAR = [(f"2026-{month:02d}", 2000 + 7 * month) for month in range(1, 13)]


def test_phone_chart_has_its_own_box_and_fewer_month_labels() -> None:
    wide = history_chart(YEAR)
    phone = history_chart(YEAR, size=PHONE)
    assert wide is not None
    assert phone is not None
    assert (wide.width, wide.height) == (WIDE.width, WIDE.height)
    assert (phone.width, phone.height) == (PHONE.width, PHONE.height)
    assert len(phone.x_ticks) < len(wide.x_ticks)
    assert len(phone.x_ticks) <= PHONE.x_labels + 1
    # The first and the last month are always labelled; neighbours are at least a
    # label's width (about 46 units at 12) apart.
    assert phone.x_ticks[0].label == "2026-01"
    assert phone.x_ticks[-1].label == "2026-12"
    gaps = [b.position - a.position for a, b in pairwise(phone.x_ticks)]
    assert min(gaps) >= 56
    # Every point is inside the phone's plot.
    assert all(PHONE.left <= p.x <= PHONE.width - PHONE.right for p in phone.points)
    assert all(PHONE.top <= p.y <= PHONE.height - PHONE.bottom for p in phone.points)


def test_two_close_last_labels_keep_the_last() -> None:
    thirteen = [*YEAR, ("2027-01", 2100)]
    phone = history_chart(thirteen, size=PHONE)
    assert phone is not None
    assert phone.x_ticks[-1].label == "2027-01"
    gaps = [b.position - a.position for a, b in pairwise(phone.x_ticks)]
    assert min(gaps) >= 56
