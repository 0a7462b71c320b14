"""The chart geometry of players/charts.py, worked out by hand from its constants.

The plot area is 720 x 260 less the margins (left 52, right 36, top 16, bottom 36):
632 wide from x = 52, 208 high from y = 16.
"""

from __future__ import annotations

import pytest

from players.charts import PHONE, bars_chart, history_chart, lines_chart


def test_lines_share_the_axes_and_a_missing_period_is_a_gap() -> None:
    chart = lines_chart(
        {
            "Standard": [("2025-01", 1800), ("2025-03", 1850)],
            "Rapid": [("2025-02", 1700)],
            "Blitz": [],
        }
    )
    assert chart is not None
    # Three periods in all: at the left edge, the middle and the right edge.
    assert chart.labels == ["2025-01", "2025-02", "2025-03"]
    assert [line.label for line in chart.lines] == ["Standard", "Rapid"]
    standard, rapid = chart.lines
    # Ratings 1700-1850: a span of 150 gives the step 25 (150 / 25 = 6 lines), the axis runs
    # from 1675 to 1875 (a quarter step beyond each end, rounded out), 208 px for 200 points.
    assert [t.label for t in chart.y_ticks] == [str(v) for v in range(1675, 1876, 25)]
    assert [(p.x, p.y) for p in standard.points] == [(52, 16 + 208 * 75 / 200), (684, 42)]
    assert [(p.x, p.y) for p in rapid.points] == [(52 + 316, 16 + 208 * 175 / 200)]
    assert standard.polyline == "52.0,94.0 684.0,42.0"
    assert (chart.lowest, chart.highest) == (1700, 1850)
    assert (chart.first_label, chart.last_label) == ("2025-01", "2025-03")


def test_one_period_sits_in_the_middle() -> None:
    chart = history_chart([("2025-05", 2000)])
    assert chart is not None
    (point,) = chart.points
    assert point.x == pytest.approx(52 + 632 / 2)
    # A flat line: the span counts as 40 (step 10), so 2000 sits between 1990 and 2010.
    assert [t.label for t in chart.y_ticks] == ["1990", "2000", "2010"]
    assert point.y == pytest.approx(16 + 208 / 2)


def test_no_points_no_chart() -> None:
    assert history_chart([]) is None
    assert lines_chart({"Standard": [], "Rapid": []}) is None


def test_a_glicko2_band_surrounds_the_line_and_fits_the_axes() -> None:
    from players.charts import history_chart

    chart = history_chart(
        [("2026-09", 1500), ("2026-10", 1464)], spread={"2026-09": 400.0, "2026-10": 303.0}
    )
    assert chart is not None
    corners = [tuple(float(v) for v in point.split(",")) for point in chart.band.split()]
    # Upper edge left to right, then the lower edge back: four corners for two periods.
    assert len(corners) == 4
    ys = [y for _, y in corners]
    line_ys = [p.y for p in chart.points]
    assert corners[0][1] < line_ys[0] < corners[3][1]
    assert corners[1][1] < line_ys[1] < corners[2][1]
    # The axes reach the band: 1500 + 400 and 1464 - 303 lie inside the ticks.
    values = [int(t.label) for t in chart.y_ticks]
    assert min(values) <= 1161
    assert max(values) >= 1900
    assert all(chart.top <= y <= chart.height - chart.bottom for y in ys)
    assert history_chart([("2026-10", 1464)]).band == ""  # type: ignore[union-attr]


def test_the_median_is_a_reference_line_on_the_same_axes_and_the_peak_the_first_highest() -> None:
    chart = history_chart(
        [("2025-01", 1800), ("2025-02", 1850), ("2025-03", 1850)],
        median={"2025-01": 1600, "2025-03": 1650, "2025-09": 1000},
    )
    assert chart is not None
    assert [line.label for line in chart.lines] == [""]
    assert chart.reference is not None
    # Only the player's periods: the median of a period the player was not in is left out.
    assert [(p.label, p.rating) for p in chart.reference.points] == [
        ("2025-01", 1600),
        ("2025-03", 1650),
    ]
    # The y axis holds both lines: 1600-1850 (span 250, step 50), 1550 to 1900.
    assert chart.y_ticks[0].label == "1550"
    assert chart.y_ticks[-1].label == "1900"
    assert chart.peak is not None
    assert (chart.peak.label, chart.peak.rating) == ("2025-02", 1850)
    assert chart.lowest == 1800  # the player's figures, not the median's


def test_bars_stand_from_zero_side_by_side() -> None:
    chart = bars_chart(["2025-01", "2025-02"], {"Games": [12, 0], "Players": [7, 3]})
    assert chart is not None
    # Highest 12: the step 5 (12 / 5 <= 5), the axis 0 to 15; 208 px high for 15.
    assert [t.label for t in chart.y_ticks] == ["0", "5", "10", "15"]
    # Two slots of 316 px; in each, 10% margin and two bars of 0.8 * 316 / 2 = 126.4 px.
    games, empty, players, few = chart.bars
    assert (games.x, games.width) == pytest.approx((52 + 31.6, 126.4))
    assert (players.x, players.series) == (pytest.approx(52 + 31.6 + 126.4), 1)
    assert games.height == pytest.approx(208 * 12 / 15)
    assert games.y + games.height == pytest.approx(16 + 208)
    assert (empty.height, empty.value, few.value) == (0, 0, 3)
    assert chart.names == ["Games", "Players"]
    assert bars_chart([], {"Games": []}) is None


def test_bar_labels_thin_out_to_fit() -> None:
    labels = [str(1000 + 100 * i) for i in range(16)]
    wide = bars_chart(labels, {"n": [1] * 16}, label_chars=4)
    phone = bars_chart(labels, {"n": [1] * 16}, size=PHONE, label_chars=4)
    assert wide is not None
    assert phone is not None
    # 38 units a label: 632 wide fits 16 (one each), 288 wide every third.
    assert len(wide.x_ticks) == 16
    assert [t.label for t in phone.x_ticks] == labels[::3]
