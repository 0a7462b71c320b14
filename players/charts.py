"""The charts as server-side SVG geometry: no JavaScript, no chart library.

The templates draw what ``history_chart`` (one list: the public player page, with the
player's peak and the list's median beside the rating), ``lines_chart`` (a line per list
on shared axes: the admin's player page) and ``bars_chart`` (bars from zero, one or more
series side by side: the statistics page's distribution and activity) compute: polylines,
points, bars, axis ticks. Each page puts a table of the same figures beside a chart (the
data alternative for screen readers), and the SVG's title and desc say what it shows.

Hand-drawn rather than pygal's (docs/developers/architecture.md, "Charts"): the boxes
below are drawn at the column's own size, so labels stay near 12 px on a 390 px phone
and on a desktop; pygal scales one drawing and loads its tooltips' script from its site,
which the Content-Security-Policy (script-src 'self') refuses.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ChartSize:
    """A chart's drawing box in SVG units. Labels are drawn at 12 units: the page scales
    the SVG to its column, so a box about as wide as the column keeps them readable."""

    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    #: At most this many month labels along the x axis (first and last always).
    x_labels: int


#: A desktop column (about 48rem): labels stay near 12 px.
WIDE = ChartSize(width=720, height=260, left=52, right=36, top=16, bottom=36, x_labels=8)
#: A 390 px phone's column (about 366 px): drawn at its own size, labels stay near 12 px
#: where the wide box scaled down would draw them at 6.
PHONE = ChartSize(width=360, height=190, left=44, right=28, top=14, bottom=32, x_labels=4)


@dataclass(frozen=True)
class ChartPoint:
    x: float
    y: float
    label: str
    rating: int


@dataclass(frozen=True)
class Tick:
    position: float
    label: str


@dataclass(frozen=True)
class Line:
    """One series of the chart: its name (a list's) and its points, oldest first."""

    label: str
    points: list[ChartPoint]

    @property
    def polyline(self) -> str:
        return " ".join(f"{p.x:.1f},{p.y:.1f}" for p in self.points)


class _PlotEdges:
    """Where a chart's plot ends and its axis labels stand, from its box and margins (the
    line chart's and the bar chart's alike)."""

    width: int
    height: int
    left: int
    right: int
    bottom: int

    @property
    def plot_right(self) -> int:
        return self.width - self.right

    @property
    def y_label_x(self) -> int:
        return self.left - 6

    @property
    def x_label_y(self) -> int:
        return self.height - self.bottom + 20


@dataclass(frozen=True)
class Chart(_PlotEdges):
    width: int
    height: int
    lines: list[Line]
    #: The periods along the x axis, oldest first (every line's, once).
    labels: list[str]
    y_ticks: list[Tick]
    x_ticks: list[Tick]
    left: int
    right: int
    top: int
    bottom: int
    #: Glicko-2: the polygon of rating ± two RDs (SVG points), else "".
    band: str = ""
    #: A line drawn for comparison, not one of ``lines`` (the list's median by period).
    reference: Line | None = None

    @property
    def peak(self) -> ChartPoint | None:
        """The first line's highest point, the first period it was held."""
        points = self.lines[0].points if self.lines else []
        return max(points, key=lambda p: p.rating) if points else None

    @property
    def points(self) -> list[ChartPoint]:
        return [point for line in self.lines for point in line.points]

    @property
    def first_label(self) -> str:
        return self.labels[0]

    @property
    def last_label(self) -> str:
        return self.labels[-1]

    @property
    def lowest(self) -> int:
        return min(p.rating for p in self.points)

    @property
    def highest(self) -> int:
        return max(p.rating for p in self.points)


def _step(span: int) -> int:
    # A round tick step giving about four to six lines.
    for step in (10, 20, 25, 50, 100, 200, 250, 500):
        if span / step <= 6:
            return step
    return 1000


def history_chart(
    series: Sequence[tuple[str, int]],
    *,
    spread: Mapping[str, float] | None = None,
    size: ChartSize = WIDE,
    median: Mapping[str, int] | None = None,
) -> Chart | None:
    """Geometry for ratings over periods, ``series`` oldest first as (``YYYY-MM``, rating);
    ``spread``: a Glicko-2 list's band half-width by period (two RDs), drawn around the line;
    ``median``: the list's median rating by period, the ``reference`` line on the same
    axes (at the series' periods only)."""
    median = median or {}
    compared = [(label, median[label]) for label, _ in series if label in median]
    chart = lines_chart({"": series, "median": compared}, spread=spread, size=size)
    if chart is None or not compared:
        return chart
    return dataclasses.replace(chart, lines=chart.lines[:1], reference=chart.lines[1])


def lines_chart(
    series: Mapping[str, Sequence[tuple[str, int]]],
    *,
    spread: Mapping[str, float] | None = None,
    size: ChartSize = WIDE,
) -> Chart | None:
    """Geometry for several lines on shared axes: ``series`` maps a line's label to its
    (``YYYY-MM``, rating) points. A period missing from a line is a gap in its x positions,
    not a point; None when no line has a point."""
    labels = sorted({label for values in series.values() for label, _ in values})
    if not labels:
        return None
    spread = spread or {}
    low, high = _span(series, spread)
    step = _step(max(high - low, 40))
    bottom_value = math.floor((low - step / 4) / step) * step
    top_value = math.ceil((high + step / 4) / step) * step
    plot_h = size.height - size.top - size.bottom

    def y_of(rating: float) -> float:
        return size.top + plot_h * (top_value - rating) / (top_value - bottom_value)

    x_of = _x_positions(labels, size)
    lines = [
        Line(
            name, [ChartPoint(x_of[label], y_of(rating), label, rating) for label, rating in values]
        )
        for name, values in series.items()
        if values
    ]
    y_ticks = [Tick(y_of(value), str(value)) for value in range(bottom_value, top_value + 1, step)]
    x_ticks = _x_ticks(labels, x_of, size)
    band = _band(series, spread, x_of, y_of) if spread else ""
    return Chart(
        size.width,
        size.height,
        lines,
        labels,
        y_ticks,
        x_ticks,
        size.left,
        size.right,
        size.top,
        size.bottom,
        band,
    )


def _span(
    series: Mapping[str, Sequence[tuple[str, int]]], spread: Mapping[str, float]
) -> tuple[int, int]:
    """The lowest and highest value the chart shows: every rating, and the band around
    it where there is one, to whole points."""
    ratings = [rating for values in series.values() for _, rating in values]
    low = min(r - spread.get(label, 0) for values in series.values() for label, r in values)
    high = max(r + spread.get(label, 0) for values in series.values() for label, r in values)
    return math.floor(min(low, *ratings)), math.ceil(max(high, *ratings))


def _x_positions(labels: Sequence[str], size: ChartSize) -> dict[str, float]:
    """Each period's x, evenly across the plot; a single period in its middle."""
    plot_w = size.width - size.left - size.right
    count = len(labels)
    return {
        label: size.left + plot_w / 2 if count == 1 else size.left + plot_w * index / (count - 1)
        for index, label in enumerate(labels)
    }


def _band(
    series: Mapping[str, Sequence[tuple[str, int]]],
    spread: Mapping[str, float],
    x_of: Mapping[str, float],
    y_of: Callable[[float], float],
) -> str:
    """The band's polygon (SVG points): along the ratings plus their spread, back along
    them minus it."""
    around = [
        (label, r, spread[label]) for v in series.values() for label, r in v if label in spread
    ]
    upper = [f"{x_of[label]:.1f},{y_of(r + s):.1f}" for label, r, s in around]
    lower = [f"{x_of[label]:.1f},{y_of(r - s):.1f}" for label, r, s in reversed(around)]
    return " ".join(upper + lower)


def _x_ticks(labels: Sequence[str], x_of: Mapping[str, float], size: ChartSize) -> list[Tick]:
    """At most about size.x_labels month labels, always the first and the last."""
    plot_w = size.width - size.left - size.right
    count = len(labels)
    every = max(1, math.ceil(count / size.x_labels))
    x_ticks = [
        Tick(x_of[label], label)
        for i, label in enumerate(labels)
        if i % every == 0 or i == count - 1
    ]
    # A "YYYY-MM" label at 12 units is about 46 wide: two closer than that would overlap.
    if len(x_ticks) > 1 and x_ticks[-1].position - x_ticks[-2].position < max(plot_w / 10, 56):
        x_ticks.pop(-2)
    return x_ticks


# -- bars --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    label: str
    value: int
    #: The series' index (its colour) and name.
    series: int
    name: str


@dataclass(frozen=True)
class BarChart(_PlotEdges):
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    bars: list[Bar]
    y_ticks: list[Tick]
    x_ticks: list[Tick]
    #: The series' names, in their order (a legend when there are two or more).
    names: list[str]

    @property
    def base_y(self) -> int:
        return self.height - self.bottom


def _count_step(highest: int) -> int:
    """A round step (1, 2, 5 times a power of ten) giving at most five grid lines."""
    step = 1
    while highest / step > 5:
        for factor in (2, 5 / 2, 2):
            step = round(step * factor)
            if highest / step <= 5:
                break
    return step


def bars_chart(
    labels: Sequence[str],
    series: Mapping[str, Sequence[int]],
    *,
    size: ChartSize = WIDE,
    label_chars: int = 7,
) -> BarChart | None:
    """Geometry for counts by category: ``labels`` along the x axis, ``series`` maps a
    name to one count per label; the series' bars stand side by side in each slot, from
    zero. The x labels of every n-th slot from the first, as many as fit labels of
    ``label_chars`` characters at 12 units. None when there is nothing to draw."""
    if not labels or not series:
        return None
    highest = max((value for values in series.values() for value in values), default=0)
    step = _count_step(max(highest, 1))
    top_value = max(step, math.ceil(highest / step) * step)
    plot_w = size.width - size.left - size.right
    plot_h = size.height - size.top - size.bottom
    slot = plot_w / len(labels)
    bar_w = slot * 0.8 / len(series)
    bars = [
        Bar(
            x=size.left + slot * index + slot * 0.1 + bar_w * number,
            y=size.top + plot_h * (top_value - value) / top_value,
            width=bar_w,
            height=plot_h * value / top_value,
            label=label,
            value=value,
            series=number,
            name=name,
        )
        for number, (name, values) in enumerate(series.items())
        for index, (label, value) in enumerate(zip(labels, values, strict=True))
    ]
    y_ticks = [
        Tick(size.top + plot_h * (top_value - value) / top_value, str(value))
        for value in range(0, top_value + 1, step)
    ]
    centres = {label: size.left + slot * (index + 0.5) for index, label in enumerate(labels)}
    every = max(1, math.ceil(len(labels) * (label_chars * 7 + 10) / plot_w))
    x_ticks = [
        Tick(centres[label], label) for index, label in enumerate(labels) if index % every == 0
    ]
    return BarChart(
        size.width,
        size.height,
        size.left,
        size.right,
        size.top,
        size.bottom,
        bars,
        y_ticks,
        x_ticks,
        list(series),
    )
