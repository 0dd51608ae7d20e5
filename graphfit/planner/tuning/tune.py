"""`tune(config, trace)`: the optimised ladder for a config, compared with its default ladder.

Ties the pieces together and keeps the promises the CLI prints:
- the largest size stays the config's own max (what buffers and coverage were planned for),
  so no batch that replayed a graph before falls back to eager, and vLLM's buffer formula
  (sized from that max) stays safe;
- the comparison with the default ladder states both graph counts: "at equal count" only when
  the optimised ladder has the default's count (no --max-graphs, no budget cut), else "K
  graphs against the default's D". The programme is solved once, at the count asked for;
- the optimised ladder is re-planned as the engine's own list and verified exhaustively, and
  a warning says so if the engine would capture a different list.

Batch-size engines (SGLang, TensorRT-LLM) are optimised in requests, the unit their ladders
count: the trace holds decode batch sizes, the max stays the config's (its filters already
applied: SGLang's request pool, TensorRT-LLM's min(max_batch_size, max_num_tokens // q)), and
a config with padding off (only exact sizes replay a graph) is optimised with padding on.
`include` keeps sizes the user wants (`optimal_ladder_including`); `paste_warnings` says what
the ladder means for small decodes (`advice.small_decode_gaps`), shown next to the paste line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graphfit.planner.config import EngineConfig
from graphfit.planner.core.enums import CUDAGraphMode, Unit
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.verify import Verification
from graphfit.planner.engines.base import capture_multiple
from graphfit.planner.engines.registry import engine_model
from graphfit.planner.plan import plan
from graphfit.planner.tuning.advice import small_decode_gaps
from graphfit.planner.tuning.memory import GraphMemoryModel
from graphfit.planner.tuning.optimize import (
    LadderCost,
    ladder_cost,
    optimal_ladder,
    optimal_ladder_including,
)
from graphfit.planner.tuning.trace import Trace


def default_multiple_of(config: EngineConfig) -> int:
    """q when vLLM's V1 runner rounds capture sizes to multiples of q (spec decode with FULL
    decode graphs), else 1 (batch-size ladders count requests: no grid). On that grid a pasted
    ladder is captured exactly as given."""
    model = engine_model(config.engine, config.engine_version)
    if getattr(model, "capture_multiple", None) is None:
        return 1  # the engine's runner never rounds (checked before planning)
    return capture_multiple(model, config, plan(config).cudagraph_mode)


@dataclass(frozen=True)
class Tuning:
    """The outcome of `tune`: costs per step on the trace, the ladder to paste, its proof."""

    config: EngineConfig
    trace: Trace
    max_size: int
    multiple_of: int
    baseline: LadderCost  # the config's own (default) runtime ladder
    # optimised at the baseline's graph count: only when that is the count solved for (then
    # it is `chosen`); None when a count or a budget asked for another one
    equal_count: LadderCost | None
    chosen: LadderCost  # optimised with the requested count, capped by the budget
    requested_graphs: int
    budget_graphs: int | None
    memory: GraphMemoryModel | None
    budget_bytes: float | None
    tuned_config: EngineConfig
    verification: Verification
    warnings: tuple[str, ...]
    include: tuple[int, ...] = ()  # sizes kept on request (--include)
    paste_warnings: tuple[str, ...] = ()  # about the pasted ladder's small decodes

    @property
    def reduction(self) -> float:
        """Fractional cut in expected padding waste of `chosen` vs the baseline (negative:
        more waste). They have `graph_counts` graphs: equal unless a count or budget was
        given, so say which when reporting it."""
        base = self.baseline.expected_waste
        return 1.0 - self.chosen.expected_waste / base if base > 0 else 0.0

    @property
    def graph_counts(self) -> tuple[int, int]:
        """(graphs of the optimised ladder, graphs of the default ladder)."""
        return self.chosen.num_graphs, self.baseline.num_graphs

    @property
    def reduction_at_equal_count(self) -> float | None:
        """`reduction` when it compares ladders of the same graph count, else None."""
        return self.reduction if self.equal_count is not None else None

    @property
    def capture_sizes_flag(self) -> str:
        """The flag to paste into `vllm serve` (space-separated: vLLM 0.33 refuses commas)."""
        return "--cudagraph-capture-sizes " + " ".join(map(str, self.chosen.sizes))

    def graph_bytes(self, cost: LadderCost) -> float | None:
        return self.memory.ladder_bytes(cost.sizes) if self.memory else None


def tune(config: EngineConfig, trace: Trace, *, max_graphs: int | None = None,
         multiple_of: int | None = None, memory: GraphMemoryModel | None = None,
         budget_bytes: float | None = None, include: Sequence[int] = ()) -> Tuning:
    """Optimise the config's ladder for `trace`. Raises ConfigError for inconsistent input."""
    if config.cudagraph_mode is CUDAGraphMode.NONE:
        raise ConfigError("cudagraph_mode: NONE captures no graphs; nothing to optimise")
    warnings: list[str] = []
    if config.cuda_graph_padding is False:  # batch-size engines: only exact sizes replay
        config = config.replace(cuda_graph_padding=True)
        warnings.append("padding is off in this config: only batches of exactly a captured "
                        "size replay a graph, so nothing pads; compared and optimised with "
                        "padding on, which the pasted settings turn on")
    base_plan = plan(config)
    tokens = base_plan.unit is Unit.TOKENS
    limit = config.max_num_batched_tokens if tokens else config.max_num_seqs
    if trace.max_size > limit:
        what = ("num_tokens", "max_num_batched_tokens") if tokens else ("batch size",
                                                                         "max_num_seqs")
        raise ConfigError(
            f"trace {trace.source}: {what[0]} {trace.max_size} exceeds {what[1]} {limit}; was "
            "the trace recorded with this config?")
    if not base_plan.has_graphs:
        raise ConfigError("cudagraph_capture_sizes: the config captures no graphs (no size "
                          "fits); nothing to optimise")
    baseline = ladder_cost(base_plan.capture_sizes, trace)
    M = base_plan.max_capture_size
    g = default_multiple_of(config) if multiple_of is None else multiple_of
    if isinstance(g, bool) or not isinstance(g, int) or g < 1:
        raise ConfigError(f"multiple_of: must be an integer >= 1, got {g!r}")
    requested = baseline.num_graphs if max_graphs is None else max_graphs
    if isinstance(requested, bool) or not isinstance(requested, int) or requested < 1:
        raise ConfigError(f"max_graphs: must be an integer >= 1, got {requested!r}")
    budget_graphs = None
    if budget_bytes is not None:
        if memory is None:
            raise ConfigError("budget: needs a graph memory model (a measured --graph-profile "
                              "or --bytes-per-token)")
        budget_graphs = memory.max_graphs(M, budget_bytes)
        if memory.ladder_bytes(baseline.sizes) > budget_bytes:
            warnings.append(f"the default ladder ({baseline.num_graphs} graphs) exceeds the "
                            f"budget; at most {budget_graphs} graphs fit")
    count = requested if budget_graphs is None else min(requested, budget_graphs)
    kept = tuple(sorted({int(s) for s in include} - {M}))
    chosen = ladder_cost(optimal_ladder_including(trace, count, M, g, kept) if kept
                         else optimal_ladder(trace, count, M, g), trace)
    tuned = config.replace(cudagraph_capture_sizes=chosen.sizes, max_cudagraph_capture_size=None)
    tuned_plan = plan(tuned)
    added = _added_by_engine(chosen.sizes, tuned_plan.capture_sizes, M)
    if added and len(set(kept) | set(added)) < count:
        # the engine captures these besides any list it is given (vLLM 0.34: a decode graph
        # for the full batch of max_num_seqs requests, config/vllm.py:2558-2737): they are
        # graphs anyway, so the ladder is optimised around them, within the same count
        kept_with = tuple(sorted(set(kept) | set(added)))
        chosen = ladder_cost(optimal_ladder_including(trace, count, M, g, kept_with), trace)
        tuned = config.replace(cudagraph_capture_sizes=chosen.sizes,
                               max_cudagraph_capture_size=None)
        tuned_plan = plan(tuned)
        warnings.append(f"the engine adds {','.join(map(str, added))} to any list it is given; "
                        "the optimised ladder keeps "
                        f"{'it' if len(added) == 1 else 'them'} within the graph count")
    # "equal count" only when the ladders really have the same number of graphs
    equal = chosen if chosen.num_graphs == baseline.num_graphs else None
    if chosen.num_graphs < count:
        warnings.append(f"only {chosen.num_graphs} distinct useful sizes on this trace; "
                        f"{count} graphs were allowed")
    if tuned_plan.capture_sizes != chosen.sizes:
        why = ("adds sizes to it" if set(chosen.sizes) < set(tuned_plan.capture_sizes)
               else f"rounds it to multiples of q={config.uniform_query_len}" if tokens
               else "filters it")
        warnings.append(
            f"the engine {why}: it would capture {','.join(map(str, tuned_plan.capture_sizes))}"
            "; pass --multiple-of the engine's grid (q for vLLM's V1 runner, the batch alignment "
            "for SGLang) and --include sizes on that grid")
    user_max = config.max_cudagraph_capture_size
    if user_max is not None and user_max != M:
        warnings.append(f"when pasting, drop the max capture size {user_max} or set it to {M}: "
                        "the engine rejects or replaces a max that differs from the list's "
                        "last size")
    if trace.weight_above(M) > 0:
        share = trace.weight_above(M) / trace.total_weight
        warnings.append(f"{100 * share:.1f}% of steps exceed the max capture size {M} and run "
                        "eagerly (unpadded) under every ladder")
    decodes = base_plan.component("target").families
    most = max((f.last for f in decodes if f.uniform), default=config.max_num_seqs)
    gaps = small_decode_gaps(chosen.sizes, base_plan.unit, config.uniform_query_len, most,
                             trace)
    return Tuning(config, trace, M, g, baseline, equal, chosen, requested, budget_graphs,
                  memory, budget_bytes, tuned, tuned_plan.verify(), tuple(warnings),
                  kept, tuple(gaps))


def _added_by_engine(asked: Sequence[int], captured: Sequence[int], max_size: int
                     ) -> tuple[int, ...]:
    """The sizes the engine captures besides a list it keeps whole (none when it drops or
    moves any asked size: that is rounding or filtering, not adding), up to the max."""
    if not set(asked) <= set(captured):
        return ()
    return tuple(sorted(s for s in set(captured) - set(asked) if s <= max_size))
