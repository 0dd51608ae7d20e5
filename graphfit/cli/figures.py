"""The report figures (matplotlib): plan, sweep, compare and optimize.

Imported only by `graphfit.cli.reports.write_report` callers once a report is asked for;
everything here speaks the engine's unit (`Plan.unit` / `ComponentPlan.unit`: tokens for vLLM,
requests for SGLang and TensorRT-LLM) and reads the plan's public API, never an engine name.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.gridspec import GridSpec, SubplotSpec
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import blended_transform_factory

from graphfit.planner.analysis.summary import decode_family, padded_families
from graphfit.planner.analysis.sweep import VIT_AXES, SweepResult, vit_points
from graphfit.planner.core.batches import BatchFamily, Requests
from graphfit.planner.core.enums import CUDAGraphMode, Unit
from graphfit.planner.core.verify import Verification, ViolationRange
from graphfit.planner.plan import ComponentPlan, Plan
from graphfit.planner.plan import plan as make_plan
from graphfit.planner.tuning.optimize import LadderCost
from graphfit.planner.tuning.tune import Tuning

MODE_COLOURS = {CUDAGraphMode.FULL: "#2e7d32", CUDAGraphMode.PIECEWISE: "#ef6c00",
                CUDAGraphMode.NONE: "#9e9e9e"}
LADDER = "#1565c0"
SHORT = "#c62828"
SIDES = ("#1565c0", "#c2185b")
EAGER_SPAN = "#eeeeee"
WARN = "#e65100"
# every figure is two columns: the panels on the left, their legends (and the sweep's colour
# bar) on the right, so that every panel's plot area spans the same width and they line up
LEGEND_COLUMN = 0.3


@dataclass(frozen=True)
class Batches:
    """One family's batches in the component's unit: size, padding, graph mode."""

    label: str
    x: np.ndarray
    waste: np.ndarray
    modes: tuple[CUDAGraphMode, ...]
    uniform: bool


def _unit_step(comp: ComponentPlan, family: BatchFamily) -> int:
    """Tokens per unit on the x axis: 1 for token counts, the width for request counts."""
    return family.step if comp.unit is Unit.REQUESTS and family.requests is Requests.PER_UNIT \
        else 1


def family_batches(comp: ComponentPlan, family: BatchFamily, last: int) -> Batches:
    """Every batch of the family up to `last` units, walked segment by segment."""
    xs: list[int] = []
    waste: list[int] = []
    modes: list[CUDAGraphMode] = []
    per = _unit_step(comp, family)
    for seg in comp.tables.segments(family.step, family.first, last, uniform=family.uniform):
        for a in range(seg.first, seg.last + 1):
            tokens = a * family.step
            xs.append(tokens // per)
            if seg.dispatch is None:
                waste.append(0)
                modes.append(CUDAGraphMode.NONE)
            else:
                waste.append((seg.dispatch.padded - tokens) // per)
                modes.append(seg.dispatch.mode)
    if family.requests is Requests.PER_UNIT:
        what = (f"{family.name}: r requests x {family.step} "
                f"token{'' if family.step == 1 else 's'}")
    else:
        what = f"{family.name} batches"
    return Batches(what, np.array(xs), np.array(waste), tuple(modes), family.uniform)


def _runs(modes: Sequence[CUDAGraphMode]) -> list[tuple[int, int, CUDAGraphMode]]:
    """[start, stop) index runs of one mode."""
    out = []
    start = 0
    for i in range(1, len(modes) + 1):
        if i == len(modes) or modes[i] is not modes[start]:
            out.append((start, i, modes[start]))
            start = i
    return out


def _ladder_strip(ax: Axes, rows: Sequence[tuple[str, Sequence[float], str]],
                  title: str = "") -> None:
    """Capture ladders as rows of ticks above a panel (one row per ladder, named on the left)."""
    offsets = list(range(len(rows)))[::-1]  # the first row on top
    ax.eventplot([list(sizes) for _, sizes, _ in rows], colors=[c for _, _, c in rows],
                 lineoffsets=offsets, linelengths=0.7, linewidths=1.0)
    ax.set_yticks(offsets, [name for name, _, _ in rows], fontsize=8)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.tick_params(axis="x", labelbottom=False, length=0)
    ax.tick_params(axis="y", length=0)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    if title:  # wrapped: a title wider than its panel would squeeze the panel
        ax.set_title("\n".join(part for line in title.split("\n")
                               for part in textwrap.wrap(line, 120) or [""]),
                     loc="left", fontsize=10)


@dataclass
class Layout:
    """The figure's rows in ONE gridspec of two columns: panels on the left, their legends
    (and the sweep's colour bar) on the right. A panel is two rows, its capture-size strip
    over its plot; one gridspec makes constrained layout give every row the same margins, so
    every plot spans the same width and the panels line up."""

    fig: Figure
    grid: GridSpec
    starts: list[int]

    @classmethod
    def of(cls, fig: Figure, parts: Sequence[tuple[str, float]]) -> Layout:
        """parts: ("panel", strip rows) or ("row", height ratio)."""
        ratios: list[float] = []
        starts = []
        for kind, value in parts:
            starts.append(len(ratios))
            ratios += [0.12 + 0.1 * value, 1.0] if kind == "panel" else [value]
        grid = fig.add_gridspec(len(ratios), 2, height_ratios=ratios,
                                width_ratios=[1, LEGEND_COLUMN])
        return cls(fig, grid, starts)

    def panel(self, part: int) -> tuple[Axes, Axes, Axes]:
        """The strip, the plot (sharing its x axis) and the legend's axes of a panel."""
        row = self.starts[part]
        main = self.fig.add_subplot(self.grid[row + 1, 0])
        strip = self.fig.add_subplot(self.grid[row, 0], sharex=main)
        return strip, main, _legend_axes(self.fig, self.grid[row:row + 2, 1])

    def row(self, part: int, column: int | None = 0) -> SubplotSpec:
        """A plain row's cell (column None: both columns)."""
        row = self.starts[part]
        return self.grid[row, :] if column is None else self.grid[row, column]


def _legend_axes(fig: Figure, spec: SubplotSpec) -> Axes:
    ax = fig.add_subplot(spec)
    ax.axis("off")
    return ax


def _legend(where: Axes, handles: Sequence[Artist] | None = None,
            source: Axes | None = None) -> None:
    """The legend in its own axes of the right column (`source`: the axes whose labelled
    artists it lists, when no handles are given)."""
    if handles is None:
        handles = (source or where).get_legend_handles_labels()[0]
    made = where.legend(handles=list(handles), fontsize=8, loc="upper left",
                        bbox_to_anchor=(0, 1), frameon=False, borderaxespad=0)
    made.set_in_layout(False)  # the column is wide enough; panels keep one width


NOTE_WIDTH = 165  # characters of a notes line at 8.5 pt across a 12-inch figure


def _shown(lines: Sequence[str]) -> list[str]:
    """The notes as printed: at most five (and a count), each wrapped to the figure's width."""
    kept = list(lines[:5]) + ([f"... and {len(lines) - 5} more"] if len(lines) > 5 else [])
    return [part for line in kept for part in textwrap.wrap(line, NOTE_WIDTH) or [""]]


def _notes(fig: Figure, spec: SubplotSpec, lines: Sequence[str], colour: str) -> None:
    """A text row at the bottom of the figure (its height from `_rows_for`, so nothing
    overlaps)."""
    ax = fig.add_subplot(spec)
    ax.axis("off")
    ax.text(0.0, 1.0, "\n".join(_shown(lines)), fontsize=8.5, color=colour, va="top",
            ha="left", transform=ax.transAxes)


def _rows_for(lines: Sequence[str]) -> float:
    """Height ratio of a notes row holding these lines (wrapped as `_notes` prints them)."""
    return 0.06 * len(_shown(lines)) + 0.02


def _mode_legend(seen: set[CUDAGraphMode]) -> list[Patch]:
    names = {CUDAGraphMode.FULL: "FULL graph", CUDAGraphMode.PIECEWISE: "PIECEWISE graph",
             CUDAGraphMode.NONE: "eager (no graph)"}
    return [Patch(color=MODE_COLOURS[m], label=names[m]) for m in MODE_COLOURS if m in seen]


def _unit_word(unit: Unit) -> str:
    return "tokens" if unit is Unit.TOKENS else "requests"


def _violation_span(comp: ComponentPlan, r: ViolationRange) -> tuple[float, float] | None:
    """The range's batches on the component's x axis (None when they cannot be placed)."""
    if comp.unit is Unit.TOKENS:
        return r.first - 0.5, r.last + 0.5
    width = comp.width
    if r.step == width:
        return r.first / width - 0.5, r.last / width + 0.5
    return None


def _shortfall_text(r: ViolationRange) -> str:
    span = f"{r.first}" if r.first == r.last else f"{r.first}-{r.last}"
    how = "run eagerly, need" if r.eager else f"pad to {r.padded}, need"
    return (f"{r.key} short: batches of {span} tokens {how} {r.needed} rows "
            f"> capacity {r.capacity}")


def padding_panel(strip: Axes, ax: Axes, plan: Plan, comp: ComponentPlan,
                  verification: Verification | None, title: str,
                  legend: Axes | None = None) -> list[str]:
    """Padding per batch of each family of `comp` (lines: mixed batches, dots: uniform
    decodes, coloured by graph mode), its capture sizes in the strip above, the eager region
    shaded and every range where a buffer goes short in red. Returns the shortfall lines."""
    unit = _unit_word(comp.unit)
    sizes = plan.graph_sizes(comp.name) or plan.capture_sizes
    families = padded_families(comp)
    right = max([sizes[-1] if sizes else 1]
                + [last * family.step // _unit_step(comp, family) for family, last in families
                   if family.uniform])
    x_max = max(right, 1) * 1.06 + 1
    seen: set[CUDAGraphMode] = set()
    kinds: dict[str, Artist] = {}
    top = 1.0
    for family, last in families:
        per = _unit_step(comp, family)
        last = min(last, max(1, int(x_max * per) // family.step))
        batches = family_batches(comp, family, last)
        if not len(batches.x):
            continue
        top = max(top, float(batches.waste.max()))
        for start, stop, mode in _runs(batches.modes):
            seen.add(mode)
            colour = MODE_COLOURS.get(mode, MODE_COLOURS[CUDAGraphMode.NONE])
            xs, ys = batches.x[start:stop], batches.waste[start:stop]
            if batches.uniform:
                ax.scatter(xs, ys, s=12, color=colour, zorder=3, linewidths=0)
            else:
                ax.plot(xs, ys, color=colour, lw=0.9, alpha=0.85, zorder=2)
        marker = "o" if batches.uniform else ""
        kinds[batches.label] = Line2D([], [], color="#424242", marker=marker, markersize=4,
                                      lw=0 if batches.uniform else 1, label=batches.label)
    max_size = sizes[-1] if sizes else 0
    if max_size and max_size < x_max:
        ax.axvspan(max_size + 0.5, x_max, color=EAGER_SPAN, zorder=0)
        ax.text(max_size + (x_max - max_size) / 2, 0.5, f"> {max_size}:\neager",
                transform=blended_transform_factory(ax.transData, ax.transAxes),
                ha="center", va="center", fontsize=8, color="#616161")
    _ladder_strip(strip, [(f"capture sizes ({len(sizes)})", sizes, LADDER)], _shorten(title))
    shortfalls: list[str] = []
    beyond: list[ViolationRange] = []
    short_patch = False
    if verification is not None:
        for r in verification.ranges():
            if r.component != comp.name:
                continue
            shortfalls.append(_shortfall_text(r))
            span = _violation_span(comp, r)
            if span is None:
                continue
            short_patch = True
            if span[0] > x_max:  # beyond this view (eager batches): pointed at below
                beyond.append(r)
                continue
            ax.axvspan(*span, color=SHORT, alpha=0.25, zorder=1)
            ax.annotate(f"{r.key}: {r.needed} rows\n> capacity {r.capacity}",
                        xy=(span[0], top * 1.12), fontsize=8, color=SHORT, ha="right",
                        va="top", fontweight="bold", zorder=5,
                        bbox={"fc": "white", "ec": "none", "alpha": 0.85, "pad": 1})
    if beyond:
        keys = sorted({r.key for r in beyond})
        what = keys[0] if len(keys) == 1 else f"{len(keys)} buffers"
        first, last = min(r.first for r in beyond), max(r.last for r in beyond)
        ax.annotate(f"{what} short at {first}-{last} {unit} (beyond this view) ->",
                    xy=(0.995, 0.04), xycoords="axes fraction", ha="right", fontsize=8,
                    color=SHORT, fontweight="bold",
                    bbox={"fc": "white", "ec": "none", "alpha": 0.85, "pad": 1})
    ax.set_xlim(0, x_max)
    ax.set_ylim(-0.04 * top, top * 1.2 + 0.5)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(f"batch size ({unit})")
    ax.set_ylabel(f"padding ({unit})")
    ax.grid(axis="y", color="#e0e0e0", lw=0.6)
    handles: list[Artist] = [*kinds.values(), *_mode_legend(seen)]
    if short_patch:
        handles.append(Patch(color=SHORT, alpha=0.4, label="a buffer goes short"))
    _legend(legend or ax, handles)
    return shortfalls


def _components(plan: Plan) -> list[ComponentPlan]:
    return [c for c in plan.components.values() if padded_families(c)]


def _config_title(plan: Plan) -> str:
    from graphfit.cli.render import config_line

    return config_line(plan)


def _waste_numbers(plan: Plan, comp: ComponentPlan) -> str:
    """The panel's key numbers: graphs, largest size, waste (and worst padding) per family."""
    from graphfit.planner.analysis.summary import plan_padding

    unit = _unit_word(comp.unit)
    sizes = plan.graph_sizes(comp.name) or plan.capture_sizes
    parts = [f"{len(sizes)} graphs up to {sizes[-1] if sizes else 0} {unit}"]
    for stats in plan_padding(plan):
        if stats.label.startswith(f"{comp.name} "):
            kind = stats.label[len(comp.name) + 1:].split(",")[0]
            parts.append(f"{kind}: {100 * stats.waste_fraction:.1f}% padding, worst "
                         f"+{stats.worst_waste}")
    return "; ".join(parts)


def plan_figure(plan: Plan, verification: Verification | None = None) -> Figure:
    """One padding panel per component with its key numbers; red where the ENGINE's own
    sizing goes short (`Plan.verify_engine`), or where an audited sizing (`plan
    --capacity`, passed as `verification`) does."""
    from graphfit.cli.render import human_bytes

    check = plan.verify_engine() if verification is None else verification
    whose = "The engine's own buffer sizing" if verification is None else \
        "The --capacity sizing"
    comps = _components(plan) or [plan.component("target")]
    shortfalls = [f"{_shortfall_text(r)}" for r in check.ranges()]
    notes = ([f"{whose} goes short:", *shortfalls] if shortfalls
             else [f"{whose} is safe for every reachable batch."])
    fig = Figure(figsize=(12, 1.2 + 3.5 * len(comps) + 0.25 * len(notes)), layout="constrained")
    layout = Layout.of(fig, [("panel", 1)] * len(comps) + [("row", _rows_for(notes))])
    own = plan.verify()
    fig.suptitle(f"graphfit plan: {_config_title(plan)}\n"
                 f"persistent buffers {human_bytes(plan.total_bytes)}"
                 f"{f' (+{human_bytes(plan.host_bytes)} host)' if plan.host_bytes else ''}"
                 f"; graphfit's plan "
                 f"{'SAFE' if own.ok else 'UNSAFE'} over {own.checked:,} batch/buffer checks",
                 fontsize=11, x=0.01, ha="left")
    for k, comp in enumerate(comps):
        strip, ax, legend = layout.panel(k)
        title = (f"{comp.name}: padding per batch ({_unit_word(comp.unit)}) and capture sizes\n"
                 f"{_waste_numbers(plan, comp)}")
        padding_panel(strip, ax, plan, comp, check, title, legend)
    _notes(fig, layout.row(len(comps), None), notes, SHORT if shortfalls else "#2e7d32")
    return fig


def _shorten(text: str, limit: int = 130) -> str:
    """Each line of `text` cut to `limit` characters."""
    return "\n".join(line if len(line) <= limit else line[:limit - 3] + "..."
                     for line in text.split("\n"))


def sweep_figure(result: SweepResult, focus: Plan | None = None,
                 focus_verification: Verification | None = None,
                 focus_label: str = "") -> Figure:
    """The grid as a heatmap of decode padding waste with a colour bar (red: a buffer goes
    short, grey: the engine rejects the config), the ViT workloads' bytes when the sweep
    varies them (`vit_panel`), then the focus config's padding panels. The heatmap's axes
    are the batch axes: a cell is red when any ViT workload of that config goes short."""
    names = [n for n in result.axes if n not in VIT_AXES] or list(result.axes)
    vit = any(n in VIT_AXES for n in result.axes)
    xs = result.axes[names[0]]
    ys = result.axes[names[1]] if len(names) > 1 else (0,)
    waste = np.full((len(ys), len(xs)), np.nan)
    failing = np.zeros((len(ys), len(xs)))
    invalid = np.zeros((len(ys), len(xs)))
    xi = {v: i for i, v in enumerate(xs)}
    yi = {v: i for i, v in enumerate(ys)}
    buffers: dict[str, int] = {}
    for r in result.results:
        i = xi[r.point[names[0]]]
        j = yi[r.point[names[1]]] if len(names) > 1 else 0
        if r.ok is None:
            invalid[j, i] = 1
        elif r.ok:
            if not failing[j, i]:
                waste[j, i] = 100 * r.decode_waste
        else:
            failing[j, i] = 1
            waste[j, i] = np.nan
            for key in dict.fromkeys(str(d["buffer"]) for d in r.ranges):
                buffers[key] = buffers.get(key, 0) + 1
    comps = _components(focus) if focus is not None else []
    shortfalls: list[str] = []
    if focus is not None and focus_verification is not None:
        shortfalls = [_shortfall_text(r) for r in focus_verification.ranges()]
    notes = [f"{focus_label}: {line}" for line in shortfalls[:1]] + shortfalls[1:]
    fig = Figure(figsize=(12, 4.4 + 3.4 * len(comps) + 0.25 * len(notes) + 3.0 * vit),
                 layout="constrained")
    layout = Layout.of(fig, [("row", 1.5)] + [("row", 1.2)] * vit + [("panel", 1)] * len(comps)
                       + ([("row", _rows_for(notes))] if notes else []))
    ax = fig.add_subplot(layout.row(0))
    extent = (-0.5, len(xs) - 0.5, -0.5, len(ys) - 0.5)
    image = ax.imshow(waste, origin="lower", aspect="auto", cmap="viridis", extent=extent,
                      interpolation="nearest")
    ax.imshow(np.ma.masked_where(failing == 0, failing), origin="lower", aspect="auto",
              cmap=ListedColormap([SHORT]), extent=extent, interpolation="nearest")
    ax.imshow(np.ma.masked_where(invalid == 0, invalid), origin="lower", aspect="auto",
              cmap=ListedColormap(["#bdbdbd"]), extent=extent, interpolation="nearest")
    # the colour bar sits in the legend column, so the heatmap spans the panels' width
    holder = _legend_axes(fig, layout.row(0, 1))
    bar = fig.colorbar(image, cax=holder.inset_axes((0, 0.05, 0.07, 0.9)))
    bar.set_label("decode padding waste\n(% of computed tokens)", fontsize=9)
    ax.set_xticks(*_ticks(xs))
    ax.set_xlabel(_axis_label(names[0]))
    if len(names) > 1:
        ax.set_yticks(*_ticks(ys))
        ax.set_ylabel(_axis_label(names[1]))
    else:
        ax.set_yticks([])
    ax.set_title(f"{len(result.results):,} configs: {len(result.failing):,} with a short buffer "
                 f"(red), {len(result.invalid):,} rejected by the engine (grey); colour: "
                 "padding waste of decodes of 1..S requests", loc="left", fontsize=10)
    handles: list[Artist] = [Patch(color=SHORT, label=f"short: {key}\n({n} configs)")
                             for key, n in sorted(buffers.items(), key=lambda kv: -kv[1])[:4]]
    if result.invalid:
        handles.append(Patch(color="#bdbdbd", label="rejected by\nthe engine"))
    if handles:
        ax.legend(handles=handles, fontsize=8, loc="upper right", bbox_to_anchor=(1.0, -0.13),
                  ncol=len(handles), frameon=False)
    fig.suptitle(f"graphfit sweep: {' x '.join(names)}\n{len(result.results):,} configs, "
                 f"{len(result.failing):,} failing, {len(result.invalid):,} rejected; "
                 f"{result.checked:,} batch/buffer checks (exhaustive)",
                 fontsize=11, x=0.01, ha="left")
    if vit:
        vit_panel(fig.add_subplot(layout.row(1)), result)
    if focus is not None:
        for k, comp in enumerate(comps):
            strip, main, legend = layout.panel(1 + vit + k)
            title = (f"{focus_label}: {comp.name}, padding per batch "
                     f"({_unit_word(comp.unit)})\n{_waste_numbers(focus, comp)}")
            padding_panel(strip, main, focus, comp, focus_verification, title, legend)
    if notes:
        _notes(fig, layout.row(1 + vit + len(comps), None), notes, SHORT)
    return fig


def vit_panel(ax: Axes, result: SweepResult) -> None:
    """Per ViT workload of the sweep (image set x images per call): graphfit's static
    buffer bytes beside SGLang's own per-key bytes for the same keys, the key count above."""
    points = vit_points(result)
    xs = np.arange(len(points))
    ours = [p.vit_bytes / 2**20 for _, p in points]
    theirs = [p.vit_reference_bytes / 2**20 for _, p in points]
    ax.bar(xs - 0.2, ours, 0.4, label="graphfit static buffers", color="#1f77b4")
    ax.bar(xs + 0.2, theirs, 0.4, label="SGLang per-key buffers", color="#bdbdbd")
    for x, (_, p) in zip(xs, points, strict=True):
        top = max(p.vit_bytes, p.vit_reference_bytes) / 2**20
        ax.annotate(f"{p.vit_keys} key{'s' if p.vit_keys != 1 else ''}", (x, top),
                    ha="center", va="bottom", fontsize=8)
    ax.set_xticks(xs, [_shorten(label, 44) for label, _ in points], fontsize=8,
                  rotation=20, ha="right")
    ax.set_ylabel("ViT buffers (MiB)")
    ax.set_title("SGLang ViT graphs per image workload: bytes and captured keys", loc="left",
                 fontsize=10)
    ax.legend(fontsize=8, loc="upper left", frameon=False)


def _axis_label(name: str) -> str:
    meaning = {"max_num_seqs": "max_num_seqs (S, requests)",
               "num_speculative_tokens": "num_speculative_tokens (k)"}
    return meaning.get(name, name)


def _ticks(values: Sequence[int], most: int = 12) -> tuple[list[int], list[str]]:
    step = max(1, -(-len(values) // most))
    idx = list(range(0, len(values), step))
    if idx[-1] != len(values) - 1:
        idx.append(len(values) - 1)
    return idx, [str(values[i]) for i in idx]


def _decode_tokens(plan: Plan) -> tuple[np.ndarray, np.ndarray, tuple[CUDAGraphMode, ...]]:
    """Uniform decodes of r = 1..R requests: padding in tokens computed (comparable across
    engines: vLLM pads tokens, batch-size engines pad requests of `width` tokens)."""
    comp = plan.component("target")
    family = decode_family(comp)
    if family is None or family.empty:
        return np.array([]), np.array([]), ()
    per = _unit_step(comp, family)
    batches = family_batches(comp, family, family.last)
    return np.arange(family.first, family.last + 1), batches.waste * per, batches.modes


def compare_figure(sides: Sequence[tuple[str, Plan]]) -> Figure:
    """Both sides' decode padding per request count (tokens computed), and their mixed
    batches where a side has mixed graphs; each side's capture sizes in the strips."""
    mixed = [(label, p) for label, p in sides if any(
        not f.uniform for f, _ in padded_families(p.component("target")))]
    shortfalls = [f"{label}: {_shortfall_text(v)}" for label, p in sides
                  for v in p.verify_engine().ranges()]
    notes = (["The engines' own buffer sizing goes short:", *shortfalls] if shortfalls else [])
    fig = Figure(figsize=(12, 1.0 + 3.6 * (2 if mixed else 1) + 0.25 * len(notes)),
                 layout="constrained")
    panels = [("panel", float(len(sides)))] + ([("panel", float(len(mixed)))] if mixed else [])
    layout = Layout.of(fig, panels + ([("row", _rows_for(notes))] if notes else []))
    strip, ax, legend = layout.panel(0)
    decodes = [_decode_tokens(p) for _, p in sides]
    last = max((len(r) for r, _, _ in decodes), default=1)
    width = 0.8 / len(sides)
    rows: list[tuple[str, Sequence[float], str]] = []
    for k, ((label, p), (r, waste, modes)) in enumerate(zip(sides, decodes)):
        colour = SIDES[k % len(SIDES)]
        graphed = sum(1 for m in modes if m is not CUDAGraphMode.NONE)
        mean = float(waste.mean()) if len(waste) else 0.0
        name = (f"{label}: {len(p.capture_sizes)} graphs ({p.unit.value}),\n"
                f"{graphed}/{len(modes)} decodes replay a graph,\n"
                f"mean padding {mean:.2f} tokens")
        offset = (k - (len(sides) - 1) / 2) * width
        if last <= 160:
            ax.bar(r + offset, waste, width=width, color=colour, label=name)
        else:
            ax.step(r, waste, where="mid", color=colour, lw=1.0, label=name)
        eager = [x + offset for x, m in zip(r, modes) if m is CUDAGraphMode.NONE]
        if eager:
            ax.scatter(eager, [0] * len(eager), marker="x", s=18, color=colour, zorder=4,
                       label=f"{label}: decode runs eagerly")
        sizes = [s for s in _as_requests(p) if s <= last * 1.05]
        rows.append((f"{label} capture sizes", sizes, colour))
    _ladder_strip(strip, rows, "Uniform decodes: padding per batch, capture sizes as requests "
                  "(a token size s counts s/q)")
    ax.set_xlim(0, last * 1.03 + 1)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("uniform decode batch (requests)")
    ax.set_ylabel("padding (tokens computed)")
    ax.grid(axis="y", color="#e0e0e0", lw=0.6)
    _legend(legend, source=ax)
    if mixed:
        strip2, ax2, legend2 = layout.panel(1)
        span = max(p.max_capture_size for _, p in mixed)
        rows = []  # the mixed strip's rows
        for k, (label, p) in enumerate(sides):
            if (label, p) not in mixed:
                continue
            comp = p.component("target")
            colour = SIDES[k % len(SIDES)]
            for family, top in padded_families(comp):
                if family.uniform:
                    continue
                batches = family_batches(comp, family, min(top, int(span * 1.05)))
                ax2.plot(batches.x, batches.waste, color=colour, lw=2.4 if k == 0 else 0.9,
                         alpha=0.45 if k == 0 else 1.0, label=f"{label}: mixed batches")
            rows.append((f"{label} capture sizes", p.capture_sizes, colour))
        _ladder_strip(strip2, rows, "Mixed (prefill + decode) batches: padding per batch and "
                      "capture sizes (tokens)")
        ax2.set_xlim(0, span * 1.05)
        ax2.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax2.set_xlabel("mixed batch size (tokens)")
        ax2.set_ylabel("padding (tokens)")
        ax2.grid(axis="y", color="#e0e0e0", lw=0.6)
        _legend(legend2, source=ax2)
    fig.suptitle("graphfit compare: " + " vs ".join(label for label, _ in sides)
                 + f"\n{_config_title(sides[0][1])}", fontsize=12, x=0.01, ha="left")
    if notes:
        _notes(fig, layout.row(len(panels), None), notes, SHORT)
    return fig


def _as_requests(plan: Plan) -> list[float]:
    """Capture sizes on a decode-requests axis: tokens / q for token ladders."""
    if plan.unit is Unit.REQUESTS:
        return list(plan.capture_sizes)
    q = plan.config.uniform_query_len
    return [s / q for s in plan.capture_sizes]


def _pad_waste(sizes: Sequence[int], xs: np.ndarray) -> np.ndarray:
    ladder = np.asarray(sizes)
    idx = np.searchsorted(ladder, xs, side="left")
    inside = idx < len(ladder)
    out = np.zeros(len(xs))
    out[inside] = ladder[idx[inside]] - xs[inside]
    return out


def optimize_figure(t: Tuning) -> Figure:
    """The trace's histogram under the optimised ladder (the default's in the strip too),
    then the padding per batch size under both ladders."""
    unit = _unit_word(make_plan(t.config).unit)
    trace = t.trace
    M = t.max_size
    right = int(M * 1.08) + 1
    counts = np.zeros(right + 1)
    for n, w in zip(trace.sizes, trace.weights):
        if n <= right:
            counts[n] += w
    share = 100 * counts / trace.total_weight
    # the small-decode warning printed next to the paste line, on the figure too
    warnings = [f"warning: {w}" for w in t.paste_warnings]
    fig = Figure(figsize=(12, 7.8 + 0.25 * len(warnings)), layout="constrained")
    layout = Layout.of(fig, [("row", 0.24), ("row", 1.2), ("row", 1.0)]
                       + ([("row", _rows_for(warnings))] if warnings else []))
    hist = fig.add_subplot(layout.row(1))
    strip = fig.add_subplot(layout.row(0), sharex=hist)
    pads = fig.add_subplot(layout.row(2), sharex=hist)
    _ladder_strip(strip, [(f"default capture sizes ({t.baseline.num_graphs})", t.baseline.sizes,
                           "#616161"),
                          (f"optimised capture sizes ({t.chosen.num_graphs})", t.chosen.sizes,
                           LADDER)],
                  f"Capture sizes, and the trace under the optimised ladder: {trace.describe()}")
    for s in t.chosen.sizes:
        hist.axvline(s, color=LADDER, lw=0.6, alpha=0.35, zorder=0)
    hist.plot([], [], color=LADDER, lw=0.8, alpha=0.6, label="optimised capture size")
    sizes = np.nonzero(counts)[0]
    hist.vlines(sizes, 0, share[sizes], color="#37474f", lw=1.3, label="steps of that size",
                zorder=2)
    eager = 100 * trace.weight_above(M) / trace.total_weight
    for ax in (hist, pads):
        ax.axvspan(M + 0.5, right + 0.5, color=EAGER_SPAN, zorder=0)
    note = f"{eager:.1f}%\nof steps\n> {M}:\neager" if eager else f"> {M}:\neager"
    hist.text(M + (right - M) / 2, 0.5, note,
              transform=blended_transform_factory(hist.transData, hist.transAxes),
              ha="center", va="center", fontsize=8, color="#616161")
    hist.set_ylabel("share of steps (%)")
    hist.set_ylim(bottom=0)
    hist.tick_params(axis="x", labelbottom=False)
    _legend(_legend_axes(fig, layout.row(1, 1)), source=hist)
    xs = np.arange(1, right + 1)
    for cost, colour, name, lw in ((t.baseline, "#757575", "default", 1.6),
                                   (t.chosen, LADDER, "optimised", 1.0)):
        pads.step(xs, _pad_waste(cost.sizes, xs), where="mid", color=colour, lw=lw,
                  label=_cost_label(name, cost, unit))
    pads.set_xlim(0.5, right + 0.5)
    pads.yaxis.set_major_locator(MaxNLocator(integer=True))
    pads.set_xlabel(f"batch size ({unit})")
    pads.set_ylabel(f"padding ({unit})")
    pads.set_title("Padding per batch size under each ladder", loc="left", fontsize=10)
    pads.grid(axis="y", color="#e0e0e0", lw=0.6)
    _legend(_legend_axes(fig, layout.row(2, 1)), source=pads)
    graphs, default = t.graph_counts
    compared = (f"both with {graphs} graphs" if graphs == default
                else f"{graphs} graphs against the default's {default}")
    fig.suptitle(f"graphfit optimize: {100 * abs(t.reduction):.1f}% "
                 f"{'more' if t.reduction < 0 else 'less'} expected padding per step than the "
                 f"default ladder, {compared}\n"
                 f"{t.baseline.expected_waste:.2f} -> {t.chosen.expected_waste:.2f} {unit} of "
                 f"padding per step; {eager:.1f}% of steps above {M} {unit} run eagerly",
                 fontsize=11, x=0.01, ha="left")
    if warnings:
        _notes(fig, layout.row(3, None), warnings, WARN)
    return fig


def _cost_label(name: str, cost: LadderCost, unit: str) -> str:
    return (f"{name}, {cost.num_graphs} graphs:\n{cost.expected_waste:.2f} {unit} of padding "
            f"per step\n({100 * cost.waste_fraction:.2f}% of computed)")
