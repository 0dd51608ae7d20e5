"""SVG reports written in pure Python (no matplotlib): sweep heatmap, ladder and waste chart.

A report is a list of panels stacked vertically; each panel draws with absolute coordinates
into a string, so the output is a single self-contained SVG file any browser renders.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from graphfit.planner.analysis.properties import decode_requests
from graphfit.planner.analysis.sweep import SweepResult
from graphfit.planner.core.enums import CUDAGraphMode, Unit
from graphfit.planner.plan import Plan

WIDTH = 960
FONT = "font-family='DejaVu Sans, Helvetica, Arial, sans-serif'"
MODE_COLOURS = {CUDAGraphMode.FULL: "#2e7d32", CUDAGraphMode.PIECEWISE: "#f9a825",
                CUDAGraphMode.NONE: "#9e9e9e"}
FAIL, INVALID = "#c62828", "#e0e0e0"
OK_SHADES = ("#e8f5e9", "#c8e6c9", "#a5d6a7", "#81c784", "#66bb6a", "#43a047", "#2e7d32")


def _text(x: float, y: float, text: str, size: int = 12, anchor: str = "start",
          weight: str = "normal", fill: str = "#212121") -> str:
    return (f"<text x='{x:.1f}' y='{y:.1f}' font-size='{size}' text-anchor='{anchor}' "
            f"font-weight='{weight}' fill='{fill}' {FONT}>{escape(text)}</text>")


def _rect(x: float, y: float, w: float, h: float, fill: str, title: str = "") -> str:
    tip = f"<title>{escape(title)}</title>" if title else ""
    return (f"<rect x='{x:.2f}' y='{y:.2f}' width='{max(w, 0.5):.2f}' "
            f"height='{max(h, 0.5):.2f}' fill='{fill}'>{tip}</rect>")


def _line(x1: float, y1: float, x2: float, y2: float, stroke: str = "#616161",
          width: float = 1.0) -> str:
    return (f"<line x1='{x1:.2f}' y1='{y1:.2f}' x2='{x2:.2f}' y2='{y2:.2f}' "
            f"stroke='{stroke}' stroke-width='{width}'/>")


def _shade(waste: float, worst: float) -> str:
    if worst <= 0:
        return OK_SHADES[0]
    i = min(len(OK_SHADES) - 1, int(waste / worst * (len(OK_SHADES) - 1) + 0.5))
    return OK_SHADES[i]


def heatmap_panel(result: SweepResult, top: float, height: float = 260) -> list[str]:
    """Grid of points: x = first axis, y = second axis; red fails, green shades = waste."""
    names = list(result.axes)
    xs = result.axes[names[0]]
    ys = result.axes[names[1]] if len(names) > 1 else (0,)
    left, right, plot_h = 70.0, WIDTH - 30.0, height - 60
    cell_w, cell_h = (right - left) / len(xs), plot_h / len(ys)
    worst = max((r.decode_waste for r in result.results if r.ok), default=0.0)
    by_point = {tuple(r.point[n] for n in names): r for r in result.results}
    out = [_text(left, top + 16, f"Sweep: {len(result.results):,} configs, "
                 f"{len(result.failing):,} failing, {len(result.invalid):,} invalid "
                 f"(red: short buffer, green: safe, darker = more decode padding)",
                 13, weight="bold")]
    y0 = top + 28
    for j, yv in enumerate(ys):
        row_y = y0 + (len(ys) - 1 - j) * cell_h
        run_start, run_colour, run_tip = 0, "", ""
        for i in range(len(xs) + 1):
            colour, tip = "", ""
            if i < len(xs):
                key = (xs[i], yv) if len(names) > 1 else (xs[i],)
                r = by_point.get(key)
                if r is None or r.ok is None:
                    colour, tip = INVALID, (r.error if r else "")
                elif r.ok:
                    colour = _shade(r.decode_waste, worst)
                else:
                    colour = FAIL
                    tip = "; ".join(f"{d['buffer']} {d['first']}-{d['last']}" for d in r.ranges)
            if i == len(xs) or colour != run_colour or (colour == FAIL and tip != run_tip):
                if run_colour:
                    out.append(_rect(left + run_start * cell_w, row_y, (i - run_start) * cell_w,
                                     cell_h, run_colour, run_tip))
                run_start, run_colour, run_tip = i, colour, tip
    out.append(_line(left, y0 + plot_h, right, y0 + plot_h))
    out.append(_line(left, y0, left, y0 + plot_h))
    for i in sorted({0, len(xs) // 4, len(xs) // 2, 3 * len(xs) // 4, len(xs) - 1}):
        out.append(_text(left + (i + 0.5) * cell_w, y0 + plot_h + 14, str(xs[i]), 10, "middle"))
    for j in sorted({0, len(ys) // 2, len(ys) - 1}):
        out.append(_text(left - 6, y0 + (len(ys) - 0.5 - j) * cell_h + 4, str(ys[j]), 10, "end"))
    out.append(_text((left + right) / 2, y0 + plot_h + 30, names[0], 11, "middle"))
    if len(names) > 1:
        out.append(f"<g transform='translate(24 {y0 + plot_h / 2:.1f}) rotate(-90)'>"
                   f"{_text(0, 0, names[1], 11, 'middle')}</g>")
    return out


def ladder_panel(plan: Plan, title: str, top: float, height: float = 240) -> list[str]:
    """Decode batches of 1..R requests: padding per batch, coloured by graph mode, with the
    capture ladder as ticks (sizes in the engine's unit, drawn in decode tokens)."""
    c = plan.config
    q = c.uniform_query_len
    reqs = decode_requests(plan)
    left, right, plot_h = 70.0, WIDTH - 30.0, height - 70
    y0 = top + 40
    span = max(len(reqs) * q, 1)
    pads = []
    for r in reqs:
        d = plan.pad(r * q, uniform_decode=True)
        pads.append((r, d.mode, d.padded - r * q))
    worst = max((w for _, _, w in pads), default=0) or 1
    sx = (right - left) / span
    out = [_text(left, top + 16, title, 13, weight="bold"),
           _text(left, top + 32, f"{len(plan.capture_sizes)} graphs, max "
                 f"{plan.max_capture_size} ({plan.unit.value})"
                 f"; bars: padded tokens per decode of r requests x {q} (worst {worst})", 11,
                 fill="#424242")]
    for r, mode, waste in pads:
        h = waste / worst * plot_h
        out.append(_rect(left + (r - 1) * q * sx, y0 + plot_h - h, max(q * sx - 0.3, 0.5), h,
                         MODE_COLOURS.get(mode, "#9e9e9e"), f"{r} requests: {mode.value} +{waste}"))
    unit = q if plan.unit is Unit.REQUESTS else 1
    for size in plan.capture_sizes:
        x = left + min(size * unit, span) * sx
        out.append(_line(x, y0 + plot_h, x, y0 + plot_h + 6, "#1565c0"))
    out.append(_line(left, y0 + plot_h, right, y0 + plot_h))
    out.append(_text(left, y0 + plot_h + 20, "1", 10))
    out.append(_text(right, y0 + plot_h + 20, f"{span} tokens", 10, "end"))
    legend = [("FULL", MODE_COLOURS[CUDAGraphMode.FULL]),
              ("PIECEWISE", MODE_COLOURS[CUDAGraphMode.PIECEWISE]),
              ("eager", MODE_COLOURS[CUDAGraphMode.NONE]), ("capture size", "#1565c0")]
    x = left
    for name, colour in legend:
        out.append(_rect(x, y0 + plot_h + 28, 10, 10, colour))
        out.append(_text(x + 14, y0 + plot_h + 37, name, 10))
        x += 110
    return out


def document(panels: Sequence[tuple[list[str], float]], title: str) -> str:
    """Stack panels (elements, height) into one SVG document."""
    height = sum(h for _, h in panels) + 40
    body = [_rect(0, 0, WIDTH, height, "#ffffff"), _text(20, 26, title, 16, weight="bold")]
    for elements, _ in panels:
        body += elements
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{WIDTH}' height='{height:.0f}' "
            f"viewBox='0 0 {WIDTH} {height:.0f}'>\n" + "\n".join(body) + "\n</svg>\n")


def sweep_report(result: SweepResult, focus: Plan | None, focus_label: str = "") -> str:
    """Heatmap of the sweep, then the ladder chart of one config (a failing one if any)."""
    panels: list[tuple[list[str], float]] = [(heatmap_panel(result, 40), 270)]
    if focus is not None:
        panels.append((ladder_panel(focus, focus_label or "Ladder", 40 + 270), 250))
    return document(panels, "graphfit sweep")


def compare_report(plans: Sequence[tuple[str, Plan]]) -> str:
    """One ladder chart per side of a comparison."""
    panels = []
    top = 40.0
    for label, p in plans:
        panels.append((ladder_panel(p, label, top), 250.0))
        top += 250
    return document(panels, "graphfit compare")
