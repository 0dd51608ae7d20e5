"""What runs without a graph: the share of reachable uniform-decode batch sizes that the
target dispatches eagerly, and the one setting that would capture them.

A padding table can say "waste 0.0%" while most decode sizes never meet a graph (Qwen3-Next
MTP k=4 at 1024 sequences: the default ladder stops at 512 tokens, 102 requests). The
remedy is always the largest capture size: raising it to the widest uniform decode
(max_num_seqs x q tokens, or max_num_seqs requests for batch-size engines) captures the rest;
its cost is the extra graphs and buffer bytes of that plan, computed by planning it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from graphfit.planner.analysis.waste import family_stats
from graphfit.planner.core.batches import BatchFamily
from graphfit.planner.core.enums import CUDAGraphMode, Engine, Unit
from graphfit.planner.core.errors import GraphfitError
from graphfit.planner.plan import ComponentPlan, Plan, plan

# the flag that sets each engine's largest capture size
CAPTURE_FLAGS = {Engine.VLLM: "--max-cudagraph-capture-size",
                 Engine.SGLANG: "--cuda-graph-max-bs-decode",
                 Engine.TRTLLM: "cuda_graph_config.max_batch_size"}


@dataclass(frozen=True)
class EagerShare:
    """Eager uniform-decode sizes of one plan, and the remedy when one exists."""

    eager: int                  # uniform-decode request counts dispatched without a graph
    reachable: int              # request counts 1..last that reach the target
    trace_eager: float | None = None  # weight of a trace's steps that run eagerly
    trace_steps: float | None = None  # weight of a trace's steps in all
    flag: str | None = None          # e.g. "--max-cudagraph-capture-size 4096"
    eager_after: int | None = None   # eager sizes with the flag
    graphs_added: int = 0
    bytes_added: int = 0

    @property
    def fraction(self) -> float:
        return self.eager / self.reachable if self.reachable else 0.0


def uniform_family(comp: ComponentPlan) -> BatchFamily | None:
    """The target's uniform-decode family (every request count it can see)."""
    return next((f for f in comp.families if f.uniform and f.padded and f.points is None
                 and not f.engine_only and not f.empty), None)


def eager_counts(p: Plan) -> tuple[int, int, BatchFamily | None]:
    """(eager request counts, reachable request counts, the family) for the target."""
    comp = p.components.get("target")
    family = uniform_family(comp) if comp is not None else None
    if comp is None or family is None:
        return 0, 0, None
    stats = family_stats("target uniform decode", family, comp.tables)
    eager = dict(stats.modes).get(CUDAGraphMode.NONE.value, 0)
    return eager, stats.batches, family


def _trace_share(p: Plan, family: BatchFamily, steps: Mapping[int, float]
                 ) -> tuple[float, float]:
    """(eager weight, total weight) of a trace's steps {size: weight}, sizes in the plan's
    unit: a request count for batch-size engines (a uniform decode of that many requests),
    a token count for vLLM (dispatched as the engine dispatches a step of that many tokens:
    a trace does not say which steps were uniform decodes)."""
    comp = p.components["target"]
    eager = total = 0.0
    for size, weight in steps.items():
        if size < 1 or weight <= 0:
            continue
        if p.unit is Unit.REQUESTS:
            if size > family.last:
                continue
            hit = comp.tables.lookup(size * family.step, uniform_decode=True, num_reqs=size)
        else:
            if size > p.config.max_num_batched_tokens:
                continue  # the scheduler never builds it
            hit = p.pad(size)
        total += weight
        if hit.mode is CUDAGraphMode.NONE:
            eager += weight
    return eager, total


def eager_share(p: Plan, trace_steps: Mapping[int, float] | None = None) -> EagerShare | None:
    """The eager share of `p`'s uniform decodes (None: no uniform decode reaches a target),
    with the capture-size flag that would capture them when graphs are on and one helps."""
    eager, reachable, family = eager_counts(p)
    if family is None:
        return None
    trace_eager: float | None = None
    trace_total: float | None = None
    if trace_steps:
        trace_eager, trace_total = _trace_share(p, family, trace_steps)
    share = EagerShare(eager, reachable, trace_eager, trace_total)
    if eager == 0 or p.cudagraph_mode is CUDAGraphMode.NONE:
        return share
    widest = family.last if p.unit is Unit.REQUESTS else family.last * family.step
    if p.config.cudagraph_capture_sizes is not None:  # an explicit list: add the widest
        change: dict[str, object] = {
            "cudagraph_capture_sizes": (*p.config.cudagraph_capture_sizes, widest)}
    else:
        change = {"max_cudagraph_capture_size": widest}
    padding_off = p.config.engine is Engine.TRTLLM and not p.config.cuda_graph_padding
    if padding_off:  # without padding only exact sizes replay (domain.md section 7)
        change["cuda_graph_padding"] = True
    try:
        wider = plan(p.config.replace(**change))
    except GraphfitError:
        return share
    after, _, _ = eager_counts(wider)
    if after >= eager:
        return share
    # a described or plugin engine (an EngineName) has no built-in flag: the field's name
    built_in = p.config.engine if isinstance(p.config.engine, Engine) else None
    name = "max_cudagraph_capture_size"
    if built_in is not None:
        name = CAPTURE_FLAGS.get(built_in, name)
        if "cudagraph_capture_sizes" in change:
            name = {Engine.VLLM: "--cudagraph-capture-sizes ... +",
                    Engine.SGLANG: "--cuda-graph-bs-decode ... +"}.get(built_in, name)
    flag = f"{name} {widest}"
    if padding_off:
        flag = f"cuda_graph_config.enable_padding true, {flag}"
    return EagerShare(eager, reachable, trace_eager, trace_total, flag, after,
                      len(wider.graph_keys()) - len(p.graph_keys()),
                      wider.total_bytes - p.total_bytes)
