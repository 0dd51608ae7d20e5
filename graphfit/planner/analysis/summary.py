"""Summaries of a plan for people: padding waste per batch family, compact ladders.

Every family speaks its own unit: a uniform decode of r requests x q tokens, a mixed batch of
n tokens; each component's families are listed, so batch-size engines and vLLM read alike.
"""

from __future__ import annotations

from graphfit.planner.analysis.waste import PaddingStats, family_stats
from graphfit.planner.core.batches import BatchFamily, Requests
from graphfit.planner.core.enums import CUDAGraphMode
from graphfit.planner.plan import ComponentPlan, Plan


def family_label(component: str, family: BatchFamily, last: int) -> str:
    """"target uniform decode, 1..33 requests x 4", "drafter query, 1..132 tokens"."""
    if family.requests is Requests.PER_UNIT:
        unit = "request" if last == 1 else "requests"
        span = f"1..{last} {unit}" if family.first == 1 else f"{family.first}..{last} {unit}"
        return f"{component} {family.name}, {span} x {family.step}"
    return f"{component} {family.name}, {family.first}..{last * family.step} tokens"


def padded_families(comp: ComponentPlan) -> list[tuple[BatchFamily, int]]:
    """The families whose batches can pad, with the last unit worth summarising.

    Mixed families are cut at the largest captured size (above it everything runs eagerly);
    capture runs, never-padded families and families that never meet a graph are left out.
    """
    out: list[tuple[BatchFamily, int]] = []
    for family in comp.families:
        if not family.padded or family.points is not None or family.empty:
            continue
        entries = comp.tables.uniform if family.uniform else comp.tables.mixed
        if all(d.mode is CUDAGraphMode.NONE for d in entries):
            continue  # these batches always run eagerly: nothing pads
        last = family.last
        if family.requests is Requests.UP_TO_TOKENS:
            last = min(last, comp.tables.max_size // family.step)
        if last >= family.first:
            out.append((family, last))
    return out


def plan_padding(plan: Plan) -> list[PaddingStats]:
    """Waste for the batch families each component actually sees."""
    return [family_stats(family_label(comp.name, family, last), family, comp.tables, last)
            for comp in plan.components.values() for family, last in padded_families(comp)]


def compress_sizes(sizes: tuple[int, ...]) -> str:
    """1,2,4,8,16,...,248 -> "1, 2, 4, 8..248/8": arithmetic runs of 4+ shown as ranges."""
    parts: list[str] = []
    i = 0
    while i < len(sizes):
        j = i
        if i + 1 < len(sizes):
            step = sizes[i + 1] - sizes[i]
            while j + 1 < len(sizes) and sizes[j + 1] - sizes[j] == step:
                j += 1
        if j - i >= 3:
            parts.append(f"{sizes[i]}..{sizes[j]}/{sizes[i + 1] - sizes[i]}")
            i = j + 1
        else:
            parts.append(str(sizes[i]))
            i += 1
    return ", ".join(parts)


def decode_family(comp: ComponentPlan) -> BatchFamily | None:
    """The component's uniform decode batches (r requests x width tokens), if it has them."""
    return next((f for f in comp.families if f.uniform and f.padded and f.points is None),
                None)


def mixed_family(comp: ComponentPlan) -> BatchFamily | None:
    """The component's mixed batches when some of them replay graphs (vLLM), else None."""
    if all(d.mode is CUDAGraphMode.NONE for d in comp.tables.mixed):
        return None
    return next((f for f in comp.families if not f.uniform and f.padded and f.points is None),
                None)


def decode_stats(plan: Plan) -> PaddingStats:
    """Waste over the target's uniform decodes of every request count it can schedule."""
    comp = plan.component("target")
    family = decode_family(comp)
    if family is None:  # pragma: no cover - every engine model declares one
        return PaddingStats("no uniform decodes", 0, 0, 0, 0, 0, ())
    label = f"uniform decode, {family.first}..{family.last} requests x {family.step}"
    # the plan walked this family already; its walk holds every batch unless it left eager
    # ones out (engines whose eager batches skip the buffers)
    whole = next((w.segments for w in comp.walks
                  if w.family is family and w.count == family.count), None)
    return family_stats(label, family, comp.tables, segments=whole)
