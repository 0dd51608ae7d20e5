"""What SGLang and TensorRT-LLM share: per-batch-size graph runners.

Both capture one graph per batch size (requests), pad a decode batch of bs requests with
dummy requests to the next captured size (bisect_left, or only exact sizes without padding)
and run larger batches and prefills eagerly. A padded batch of bs requests of `width` tokens
reads bs_padded rows of every request-axis buffer and bs_padded * width rows of every
token-axis buffer. Dispatch tables are keyed on tokens like vLLM's, so `Plan.pad` works
unchanged: the decode batch is the uniform batch bs * width.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.core.batches import BatchFamily, Requests, Stream
from graphfit.planner.core.buffers import Axis, BufferSpec, Demand, FillKind, FillPolicy
from graphfit.planner.core.dispatch import NO_GRAPH, Dispatch, DispatchTables
from graphfit.planner.core.enums import CUDAGraphMode, Engine, SpecMethod, Unit
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.ladder import Ladder
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.base import ComponentModel

_STREAMS = {
    ("target", Axis.TOKENS): Stream.TARGET_TOKENS,
    ("target", Axis.REQUESTS): Stream.TARGET_REQUESTS,
    ("drafter", Axis.TOKENS): Stream.DRAFTER_TOKENS,
    ("drafter", Axis.REQUESTS): Stream.DRAFTER_REQUESTS,
}


def graph_input(runner: str, name: str, dtype: str, axis: Axis, reference_capacity: int,
                fill: FillPolicy, safe_fills: frozenset[FillKind] | None = None, *,
                leading: tuple[int, ...] = (), trailing: tuple[int, ...] = (),
                scale: int = 1, graph_only: bool = False, why: str = "") -> BufferSpec:
    """A persistent graph input of `runner`, fed by that runner's batches on `axis`.

    `scale`: entries per row of the axis in a flat buffer; `graph_only`: written by graph
    replays only (a graph runner's private static inputs, never by eager batches).
    """
    stream = Stream.GRAPH_TOKENS if graph_only else _STREAMS[runner_role(runner), axis]
    return BufferSpec(name, dtype, axis, (Demand(stream, scale=scale),), reference_capacity,
                      fill, leading, trailing, source=why, safe_fills=safe_fills)


def runner_role(name: str) -> str:
    """"target" for the target runner and its per-step copies ("target.s3", SGLang's
    adaptive speculation, graphfit.planner.engines.sglang_adaptive), else "drafter"."""
    return "target" if name.split(".")[0] == "target" else "drafter"


@dataclass(frozen=True)
class BatchRunner:
    """A graph runner: `width` tokens per request, captured at `sizes` (requests), decode
    batches of 1..max_requests requests.

    `eager_tokens` > 0 means eager batches (larger than the ladder, or prefill) write the same
    persistent buffers unpadded, up to that many tokens (TensorRT-LLM); SGLang's graph inputs
    are private to the graph runner, so eager batches never touch them. `max_requests` may be
    0: no decode batch fits at all (TensorRT-LLM with max_num_tokens < tokens per request);
    `request_limit` bounds the requests of any batch (eager prefills too), default
    max_requests. `persistent` names the buffers of `buffers` the engine allocates whether
    or not it captures graphs (weight-sized tensors built when the model loads, e.g. SGLang's
    LiLiCorr draft head, models/lilicorr.py:571-572): they stay in the component, and in the
    plan's memory, with graphs off, where the graph inputs go.
    """

    name: str
    width: int
    max_requests: int
    buffers: tuple[BufferSpec, ...]
    sizes: tuple[int, ...] = ()
    eager_tokens: int = 0
    request_limit: int = 0
    persistent: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if self.width < 1 or self.max_requests < 0:
            raise ConfigError(f"{self.name}: width must be >= 1 and max_requests >= 0")
        unknown = self.persistent - {b.name for b in self.buffers}
        if unknown:
            raise ConfigError(f"{self.name}: persistent names no buffer of the runner: "
                              f"{', '.join(sorted(unknown))[:100]}")
        if any(b.axis is not Axis.FIXED for b in self.buffers if b.name in self.persistent):
            raise ConfigError(f"{self.name}: a persistent buffer must be fixed-size (no batch "
                              f"rows: nothing dispatches it without graphs)")


_VLLM_ONLY_METHODS = frozenset({SpecMethod.DFLASH, SpecMethod.DSPARK, SpecMethod.NGRAM_GPU,
                                SpecMethod.SUFFIX, SpecMethod.EXTRACT_HIDDEN_STATES})
# SGLang's LoRA self-draft (graphfit.planner.engines.sglang_uno): no other engine has it
SGLANG_ONLY_METHODS = frozenset({SpecMethod.UNO})


def resolve_common(config: EngineSettings, engine: Engine,
                   own_methods: frozenset[SpecMethod] = frozenset()) -> None:
    """What neither SGLang nor TensorRT-LLM has: PIECEWISE, DFlash (vLLM's runner and
    attention settings are VllmOptions, which EngineConfig keeps off these engines).
    `own_methods`: methods of that set the engine does have (TensorRT-LLM's DFlash, SA)."""
    if config.cudagraph_mode is CUDAGraphMode.PIECEWISE:
        raise ConfigError(
            f"cudagraph_mode: {engine.value} captures whole decode graphs; use FULL or NONE")
    if config.spec_method in SGLANG_ONLY_METHODS - own_methods:
        raise ConfigError(f"spec_method: uno is SGLang's LoRA self-draft "
                          f"(--speculative-algorithm UNO); {engine.value} has no such method")
    if config.spec_method in _VLLM_ONLY_METHODS - own_methods:
        raise ConfigError(f"spec_method: {config.spec_method.value} is not modelled for "
                          f"{engine.value}")
    sizes = config.cudagraph_capture_sizes
    for a, b in zip(sizes or (), (sizes or ())[1:]):
        if a == b:
            raise ConfigError(f"cudagraph_capture_sizes: duplicate capture size {a}")
        if a > b:
            raise ConfigError(f"cudagraph_capture_sizes: capture sizes must be sorted "
                              f"ascending ({a} before {b})")


def explicit_batch_ladder(config: EngineSettings) -> Ladder:
    """The user's batch sizes exactly; none may exceed max_num_seqs."""
    sizes = config.cudagraph_capture_sizes
    if sizes is None:  # pragma: no cover - EngineConfig rejects this
        raise ConfigError("cudagraph_capture_sizes: the explicit ladder needs a list")
    if sizes[-1] > config.max_num_seqs:
        raise ConfigError(f"cudagraph_capture_sizes: batch size {sizes[-1]} exceeds "
                          f"max_num_seqs ({config.max_num_seqs})")
    return Ladder(sizes)


def batch_tables(sizes: tuple[int, ...], width: int, max_num_seqs: int, *, padding: bool,
                 graphs: bool) -> DispatchTables:
    """Token-keyed tables for a batch-size ladder: only uniform batches replay graphs."""
    tokens = tuple(s * width for s in sizes)
    mixed = (NO_GRAPH,) * len(sizes)
    uniform = tuple(Dispatch(CUDAGraphMode.FULL, s * width, s) if graphs else NO_GRAPH
                    for s in sizes)
    return DispatchTables(tokens, mixed, uniform, width, max_num_seqs, padding)


def batch_components(config: EngineSettings, runners: list[BatchRunner]
                     ) -> tuple[ComponentModel, ...]:
    """Each runner as a component: its tables, its buffers and the batches that reach it.

    Capture runs every size of the runner's ladder (with dummy requests), decodes of
    1..max_requests dispatch through the table, and for TensorRT-LLM eager batches of up to
    eager_tokens share the buffers.
    """
    graphs = config.cudagraph_mode is not CUDAGraphMode.NONE
    out: list[ComponentModel] = []
    for runner in runners:
        role = runner_role(runner.name)
        streams = frozenset({_STREAMS[(role, axis)] for axis in (Axis.TOKENS, Axis.REQUESTS)})
        if any(d.stream is Stream.GRAPH_TOKENS for b in runner.buffers for d in b.demands):
            streams |= {Stream.GRAPH_TOKENS}
        sizes = runner.sizes if graphs else ()
        # capture runs every ladder size, which SGLang's ceil-aligned pool can put above
        # max_requests: those dummy batches are requests of this component too
        limit = max(runner.max_requests, runner.request_limit, sizes[-1] if sizes else 0, 1)
        tables = batch_tables(sizes, runner.width, limit,
                              padding=config.cuda_graph_padding, graphs=graphs)
        families = [BatchFamily("decode", streams, runner.width, 1, runner.max_requests,
                                Requests.PER_UNIT, uniform=True,
                                eager_writes=runner.eager_tokens > 0)]
        if sizes:
            families.append(BatchFamily("capture", streams, runner.width, 1, sizes[-1],
                                        Requests.PER_UNIT, uniform=True, points=sizes))
        if runner.eager_tokens:
            families.append(BatchFamily("prefill (eager)", streams - {Stream.GRAPH_TOKENS},
                                        1, 1, runner.eager_tokens, Requests.UP_TO_TOKENS))
        uses_buffers = graphs or runner.eager_tokens > 0
        kept = runner.buffers if uses_buffers else tuple(
            b for b in runner.buffers if b.name in runner.persistent)
        out.append(ComponentModel(runner.name, Unit.REQUESTS, tables, kept, tuple(families)))
    return tuple(out)
