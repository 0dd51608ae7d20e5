"""`tune(config, trace)`: the optimised ladder for a config, compared with its default ladder.

Ties the pieces together and keeps the promises the CLI prints:
- the largest size stays the config's own max (what buffers and coverage were planned for),
  so no batch that replayed a graph before falls back to eager, and vLLM's buffer formula
  (sized from that max) stays safe;
- the comparison with the default ladder states both graph counts: "at equal count" only when
  the optimised ladder has the default's count (no --max-graphs, no budget cut), else "K
  graphs against the default's D". The programme is solved once, at the count asked for;
- the optimised ladder is re-planned as `--cudagraph-capture-sizes` and verified
  exhaustively, and a warning says so if the engine would capture a different list.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.config import EngineConfig
from graphfit.planner.core.enums import CUDAGraphMode, Runner, Unit
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.verify import Verification
from graphfit.planner.plan import plan
from graphfit.planner.tuning.memory import GraphMemoryModel
from graphfit.planner.tuning.optimize import LadderCost, ladder_cost, optimal_ladder
from graphfit.planner.tuning.trace import Trace


def default_multiple_of(config: EngineConfig) -> int:
    """q when vLLM's V1 runner rounds capture sizes to multiples of q (spec decode with FULL
    decode graphs), else 1. On that grid a pasted ladder is captured exactly as given."""
    q = config.uniform_query_len
    if (config.runner is Runner.V1 and q > 1
            and plan(config).cudagraph_mode.decode_mode is CUDAGraphMode.FULL):
        return q
    return 1


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
         budget_bytes: float | None = None) -> Tuning:
    """Optimise the config's ladder for `trace`. Raises ConfigError for inconsistent input."""
    if config.cudagraph_mode is CUDAGraphMode.NONE:
        raise ConfigError("cudagraph_mode: NONE captures no graphs; nothing to optimise")
    T = config.max_num_batched_tokens
    if trace.max_size > T:
        raise ConfigError(
            f"trace {trace.source}: num_tokens {trace.max_size} exceeds max_num_batched_tokens "
            f"{T}; was the trace recorded with this config?")
    base_plan = plan(config)
    if base_plan.unit is not Unit.TOKENS:
        raise ConfigError(
            f"engine: {config.engine.value} captures per batch size (requests); optimize models "
            "per-token ladders only")
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
    warnings: list[str] = []
    if budget_bytes is not None:
        if memory is None:
            raise ConfigError("budget: needs a graph memory model (a measured --graph-profile "
                              "or --bytes-per-token)")
        budget_graphs = memory.max_graphs(M, budget_bytes)
        if memory.ladder_bytes(baseline.sizes) > budget_bytes:
            warnings.append(f"the default ladder ({baseline.num_graphs} graphs) exceeds the "
                            f"budget; at most {budget_graphs} graphs fit")
    count = requested if budget_graphs is None else min(requested, budget_graphs)
    chosen = ladder_cost(optimal_ladder(trace, count, M, g), trace)
    equal = chosen if count == baseline.num_graphs else None
    if chosen.num_graphs < count:
        warnings.append(f"only {chosen.num_graphs} distinct useful sizes on this trace; "
                        f"{count} graphs were allowed")
    tuned = config.replace(cudagraph_capture_sizes=chosen.sizes, max_cudagraph_capture_size=None)
    tuned_plan = plan(tuned)
    if tuned_plan.capture_sizes != chosen.sizes:
        warnings.append(
            f"the engine rounds this list (multiples of q={config.uniform_query_len}): it "
            f"would capture {','.join(map(str, tuned_plan.capture_sizes))}; keep "
            "--multiple-of at its default")
    user_max = config.max_cudagraph_capture_size
    if user_max is not None and user_max != M:
        warnings.append(f"when pasting, drop --max-cudagraph-capture-size {user_max} or set it "
                        f"to {M}: vLLM rejects a max that differs from the list's last size")
    if trace.weight_above(M) > 0:
        share = trace.weight_above(M) / trace.total_weight
        warnings.append(f"{100 * share:.1f}% of steps exceed the max capture size {M} and run "
                        "eagerly (unpadded) under every ladder")
    return Tuning(config, trace, M, g, baseline, equal, chosen, requested, budget_graphs,
                  memory, budget_bytes, tuned, tuned_plan.verify(), tuple(warnings))
