"""The report's bar charts, written as SVG by the project: geometry that follows the data,
one error-bar path per interval, the legend outside the axes, names as escaped text, and the
same bytes for the same input."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

from tambench.grading.batch.svgbars import (
    CHAR_WIDTH,
    TICK_FONT,
    Bar,
    BarChart,
    ErrorBar,
    nice_ticks,
)

NS = "{http://www.w3.org/2000/svg}"


def _chart(**kw: object) -> BarChart:
    chart = BarChart("Title <&>", ["a", "b", "c"], ylabel="rank %", ymax=100.0, **kw)  # type: ignore[arg-type]
    chart.bars = [Bar(float(i), v, "#4c78a8", f"bar-rank-{i}") for i, v in enumerate([10, 50, 100])]
    return chart


def _rects(root: ET.Element) -> dict[str, dict[str, float]]:
    return {r.get("id", ""): {k: float(r.get(k, "0")) for k in ("x", "y", "width", "height")}
            for r in root.iter(f"{NS}rect") if r.get("id", "").startswith("bar-")}


def test_bar_heights_follow_the_values_on_a_fixed_axis() -> None:
    root = ET.fromstring(_chart().svg())
    bars = _rects(root)
    h = [bars[f"bar-rank-{i}"]["height"] for i in range(3)]
    assert math.isclose(h[1] / h[0], 5.0, rel_tol=0.01)
    assert math.isclose(h[2] / h[0], 10.0, rel_tol=0.01)
    # bars share one baseline and do not overlap
    bottoms = {round(b["y"] + b["height"], 1) for b in bars.values()}
    assert len(bottoms) == 1
    xs = sorted((b["x"], b["x"] + b["width"]) for b in bars.values())
    assert all(a[1] <= b[0] for a, b in zip(xs, xs[1:], strict=False))


def test_stacked_bars_start_where_the_one_below_ends() -> None:
    chart = BarChart("t", ["a"], ymax=100.0)
    chart.bars = [Bar(0.0, 20.0, "#d4af37", "bar-gold-0"),
                  Bar(0.0, 30.0, "#a8a9ad", "bar-silver-0", bottom=20.0)]
    bars = _rects(ET.fromstring(chart.svg()))
    gold, silver = bars["bar-gold-0"], bars["bar-silver-0"]
    assert math.isclose(silver["y"] + silver["height"], gold["y"], abs_tol=0.02)
    assert math.isclose(silver["height"] / gold["height"], 1.5, rel_tol=0.01)


def test_one_error_bar_path_per_interval_spanning_it() -> None:
    chart = _chart()
    chart.errors = [ErrorBar(0.0, 5.0, 15.0), ErrorBar(2.0, 90.0, 100.0)]
    root = ET.fromstring(chart.svg())
    group = next(g for g in root.iter(f"{NS}g") if g.get("id") == "errorbar")
    paths = list(group.iter(f"{NS}path"))
    assert len(paths) == 2
    bars = _rects(root)
    px_per_unit = bars["bar-rank-0"]["height"] / 10.0
    spans = []
    for p in paths:
        m = re.match(r"M(\S+) (\S+)V(\S+)M", p.get("d", ""))
        assert m is not None
        spans.append(float(m.group(2)) - float(m.group(3)))  # low minus high, in px (y down)
    assert math.isclose(spans[0], 10.0 * px_per_unit, rel_tol=0.02)
    assert math.isclose(spans[1], 10.0 * px_per_unit, rel_tol=0.02)


def test_the_legend_is_right_of_every_bar() -> None:
    chart = _chart()
    chart.legend = [("gold", "#d4af37"), ("a-very-long-agent-name-for-the-legend", "#123456")]
    root = ET.fromstring(chart.svg())
    legend = next(g for g in root.iter(f"{NS}g") if g.get("id") == "legend")
    left_of_legend = min(float(r.get("x", "0")) for r in legend.iter(f"{NS}rect"))
    bars = _rects(root)
    assert left_of_legend > max(b["x"] + b["width"] for b in bars.values())
    width = float(root.get("width", "0"))
    longest = max(len(t.text or "") for t in legend.iter(f"{NS}text"))
    assert left_of_legend + 16 + longest * TICK_FONT * CHAR_WIDTH <= width + 0.5


def test_rotated_labels_stay_inside_the_figure() -> None:
    long = "carelessly-named-agent-with-a-long-name"
    chart = BarChart("t", [long, "b"], ymax=100.0)
    chart.bars = [Bar(0.0, 10.0, "#000", "bar-x-0"), Bar(1.0, 20.0, "#000", "bar-x-1")]
    root = ET.fromstring(chart.svg())
    label = next(t for t in root.iter(f"{NS}text") if t.text == long)
    x, y, angle = (float(v) for v in re.match(  # type: ignore[union-attr]
        r"translate\((\S+) (\S+)\) rotate\(-(\S+)\)", label.get("transform", "")).groups())
    reach_left = len(long) * TICK_FONT * CHAR_WIDTH * math.cos(math.radians(angle))
    reach_down = len(long) * TICK_FONT * CHAR_WIDTH * math.sin(math.radians(angle))
    assert x - reach_left >= 0
    assert y + reach_down <= float(root.get("height", "0"))


def test_names_are_escaped_text_never_markup() -> None:
    name = '<script>alert(1)</script> & $\\frac{a}{b}$ "q"'
    chart = BarChart(name, [name], ymax=100.0, legend=[(name, "#000")])
    chart.bars = [Bar(0.0, 1.0, "#000", "bar-x-0")]
    svg = chart.svg()
    root = ET.fromstring(svg)  # valid XML
    assert "<script>" not in svg and not list(root.iter(f"{NS}script"))
    assert [t.text for t in root.iter(f"{NS}text")].count(name) == 3  # title, label, legend
    assert chart.svg() == svg  # the same bytes again


def test_ticks_are_round_and_cover_the_data() -> None:
    assert nice_ticks(100) == [0, 20, 40, 60, 80, 100]
    assert nice_ticks(87.3)[-1] >= 87.3
    assert nice_ticks(0.0)[-1] == 1.0  # an empty chart still has an axis
    chart = BarChart("t", ["a"])  # no ymax: the axis covers the error bar above the bar
    chart.bars = [Bar(0.0, 40.0, "#000", "bar-x-0")]
    chart.errors = [ErrorBar(0.0, 30.0, 73.0)]
    root = ET.fromstring(chart.svg())
    ticks = [float(t.text or "nan") for g in root.iter(f"{NS}g") if g.get("id") == "yaxis"
             for t in g.iter(f"{NS}text") if t.get("transform") is None]
    assert ticks[0] == 0 and ticks[-1] >= 73.0
