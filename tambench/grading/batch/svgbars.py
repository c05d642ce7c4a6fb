"""Bar charts as SVG text, written directly: the report's four figures need bars (plain,
stacked or grouped), error bars, a y axis with ticks, rotated category labels and a legend
beside the axes, and nothing else.

Text is only ever element content, escaped for XML, so a name is never markup or TeX. The
output depends on its inputs alone (no dates, no random ids), so a report is reproducible byte
for byte. Sizes are in pixels; text widths are estimated from the character count (the reader's
font draws the text), with room to spare.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from html import escape

#: Font sizes (px) and the width of one character, as a share of its font size.
TICK_FONT = 12.0
TITLE_FONT = 14.0
CHAR_WIDTH = 0.62
_FONT = "DejaVu Sans, Bitstream Vera Sans, Arial, Helvetica, sans-serif"


@dataclass(frozen=True)
class Bar:
    """One bar: its centre and width in category units (category i is centred on i), its
    bottom and height in data units, its fill colour, and its element id."""

    x: float
    height: float
    colour: str
    gid: str
    width: float = 0.8
    bottom: float = 0.0


@dataclass(frozen=True)
class ErrorBar:
    """A vertical interval at ``x`` (category units) from ``low`` to ``high`` (data units)."""

    x: float
    low: float
    high: float


@dataclass
class BarChart:
    """The content of one chart; :meth:`svg` lays it out and writes it."""

    title: str
    categories: list[str]
    ylabel: str = ""
    ymax: float | None = None
    """The top of the y axis; None: a round number above the highest bar or error bar."""
    width_px: float = 480.0
    """The whole figure's width before the labels and the legend widen it."""
    height_px: float = 326.0
    bars: list[Bar] = field(default_factory=list)
    errors: list[ErrorBar] = field(default_factory=list)
    legend: list[tuple[str, str]] = field(default_factory=list)
    """(label, colour) pairs, drawn beside the axes, never over them."""

    def svg(self) -> str:
        return _render(self)


def text_width(text: str, size: float = TICK_FONT) -> float:
    return len(text) * size * CHAR_WIDTH


def nice_ticks(top: float, most: int = 6) -> list[float]:
    """Ticks from 0 to at least ``top`` in steps of 1, 2 or 5 times a power of ten.

    >>> nice_ticks(100)
    [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
    >>> nice_ticks(0.37)
    [0.0, 0.1, 0.2, 0.3, 0.4]
    """
    top = top if top > 0 and math.isfinite(top) else 1.0
    raw = top / (most - 1)
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1.0, 2.0, 5.0, 10.0) if m * power >= raw - 1e-12)
    n = math.ceil(top / step - 1e-9)
    return [round(i * step, 12) for i in range(n + 1)]


def _tick_text(value: float, step: float) -> str:
    decimals = max(0, -math.floor(math.log10(step) + 1e-9)) if step < 1 else 0
    return f"{value:.{decimals}f}"


def _num(v: float) -> str:
    """A coordinate, short and stable."""
    text = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


@dataclass(frozen=True)
class _Layout:
    """Where everything goes, in px: the plot area, the y scale and the label angle."""

    left: float
    top: float
    plot_w: float
    plot_h: float
    unit: float
    ytop: float
    ticks: list[float]
    tick_texts: list[str]
    angle: float
    width: float
    height: float

    def px(self, x: float) -> float:
        return self.left + (x + 0.5) * self.unit

    def py(self, y: float) -> float:
        return self.top + self.plot_h * (1 - min(max(y, 0.0), self.ytop) / self.ytop)


def _layout(c: BarChart) -> _Layout:
    n = max(1, len(c.categories))
    highest = max([b.bottom + b.height for b in c.bars] + [e.high for e in c.errors] + [0.0])
    ticks = nice_ticks(c.ymax if c.ymax is not None else highest * 1.05)
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 1.0
    tick_texts = [_tick_text(t, step) for t in ticks]
    angle = 20.0 if n <= 12 else 60.0
    rad = math.radians(angle)
    label_w = [text_width(s) for s in c.categories]
    below = max([w * math.sin(rad) + TICK_FONT * math.cos(rad) for w in label_w] + [0.0]) + 10
    top = TITLE_FONT + 14
    left = 8 + (TICK_FONT + 6 if c.ylabel else 0) + max(text_width(t) for t in tick_texts) + 8
    legend_w = (max(text_width(s) for s, _ in c.legend) + 28) if c.legend else 0.0
    plot_w = max(120.0, c.width_px - left - 12)
    plot_h = max(80.0, c.height_px - top - 30)
    unit = plot_w / n  # one category, in px
    # rotated labels end at their category; the first ones may reach past the y axis
    reach = max([w * math.cos(rad) + 2 - (left + (i + 0.5) * unit - 4)
                 for i, w in enumerate(label_w)] + [0.0])
    left += max(0.0, reach)
    # the title is centred over the whole figure, which is at least as wide as the title
    width = max(left + plot_w + 12 + (legend_w if c.legend else 0.0),
                text_width(c.title, TITLE_FONT) + 16)
    height = max(top + plot_h + below, top + 8 + len(c.legend) * (TICK_FONT + 6))
    return _Layout(left, top, plot_w, plot_h, unit, ticks[-1], ticks, tick_texts, angle,
                   width, height)


def _yaxis(c: BarChart, lay: _Layout) -> list[str]:
    out = ['<g id="yaxis" fill="#222">']
    right = lay.left + lay.plot_w
    for t, label in zip(lay.ticks, lay.tick_texts, strict=True):
        y = lay.py(t)
        out.append(f'<path d="M{_num(lay.left)} {_num(y)}H{_num(right)}" stroke="#e4e4e4"/>'
                   f'<path d="M{_num(lay.left - 4)} {_num(y)}H{_num(lay.left)}" stroke="#222"/>'
                   f'<text x="{_num(lay.left - 6)}" y="{_num(y + TICK_FONT * 0.35)}" '
                   f'text-anchor="end">{escape(label)}</text>')
    if c.ylabel:
        cy = lay.top + lay.plot_h / 2
        out.append(f'<text transform="translate({_num(8 + TICK_FONT)} {_num(cy)}) rotate(-90)" '
                   f'text-anchor="middle">{escape(c.ylabel)}</text>')
    out.append("</g>")
    return out


def _marks(c: BarChart, lay: _Layout) -> list[str]:
    """The bars, then the error bars: one path each, its caps included."""
    out = []
    for b in c.bars:
        x0, x1 = lay.px(b.x - b.width / 2), lay.px(b.x + b.width / 2)
        y0, y1 = lay.py(b.bottom + b.height), lay.py(b.bottom)
        out.append(f'<rect id="{escape(b.gid)}" x="{_num(x0)}" y="{_num(y0)}" '
                   f'width="{_num(x1 - x0)}" height="{_num(max(0.0, y1 - y0))}" '
                   f'fill="{escape(b.colour)}"/>')
    if c.errors:
        out.append('<g id="errorbar" stroke="#333" fill="none">')
        for e in c.errors:
            x, lo, hi = lay.px(e.x), lay.py(e.low), lay.py(e.high)
            out.append(f'<path d="M{_num(x)} {_num(lo)}V{_num(hi)}M{_num(x - 3)} {_num(lo)}'
                       f'H{_num(x + 3)}M{_num(x - 3)} {_num(hi)}H{_num(x + 3)}"/>')
        out.append("</g>")
    return out


def _xaxis(c: BarChart, lay: _Layout) -> list[str]:
    base = lay.top + lay.plot_h
    out = [f'<path d="M{_num(lay.left)} {_num(lay.top)}V{_num(base)}H'
           f'{_num(lay.left + lay.plot_w)}" stroke="#222" fill="none"/>',
           '<g id="xaxis" fill="#222">']
    y = base + 6 + TICK_FONT * math.cos(math.radians(lay.angle)) * 0.7
    for i, label in enumerate(c.categories):
        out.append(f'<text transform="translate({_num(lay.px(i))} {_num(y)}) '
                   f'rotate(-{_num(lay.angle)})" text-anchor="end">{escape(label)}</text>')
    out.append("</g>")
    return out


def _legend(c: BarChart, lay: _Layout) -> list[str]:
    """The legend, right of the axes."""
    if not c.legend:
        return []
    lx = lay.left + lay.plot_w + 12
    out = ['<g id="legend">']
    for k, (label, colour) in enumerate(c.legend):
        y = lay.top + 4 + k * (TICK_FONT + 6)
        out.append(f'<rect x="{_num(lx)}" y="{_num(y)}" width="12" height="{_num(TICK_FONT)}" '
                   f'fill="{escape(colour)}"/><text x="{_num(lx + 16)}" '
                   f'y="{_num(y + TICK_FONT * 0.85)}">{escape(label)}</text>')
    out.append("</g>")
    return out


def _render(c: BarChart) -> str:
    lay = _layout(c)
    w, h = _num(lay.width), _num(lay.height)
    head = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
            f'viewBox="0 0 {w} {h}" font-family="{_FONT}" font-size="{_num(TICK_FONT)}">',
            f'<text x="{_num(lay.width / 2)}" y="{_num(TITLE_FONT + 4)}" '
            f'font-size="{_num(TITLE_FONT)}" text-anchor="middle">{escape(c.title)}</text>']
    parts = head + _yaxis(c, lay) + _marks(c, lay) + _xaxis(c, lay) + _legend(c, lay)
    return "".join([*parts, "</svg>"])
