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
from graphfit.planner.core.enums import CUDAGraphMode, Engine, Runner, SpecMethod, Unit
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
                why: str = "") -> BufferSpec:
    """A persistent graph input of `runner`, fed by that runner's batches on `axis`."""
    stream = _STREAMS[("target" if runner == "target" else "drafter", axis)]
    return BufferSpec(name, dtype, axis, (Demand(stream),), reference_capacity, fill,
                      leading, trailing, source=why, safe_fills=safe_fills)


@dataclass(frozen=True)
class BatchRunner:
    """A graph runner: `width` tokens per request, decode batches of 1..max_requests requests.

    `eager_tokens` > 0 means eager batches (larger than the ladder, or prefill) write the same
    persistent buffers unpadded, up to that many tokens (TensorRT-LLM); SGLang's graph inputs
    are private to the graph runner, so eager batches never touch them.
    """

    name: str
    width: int
    max_requests: int
    buffers: tuple[BufferSpec, ...]
    eager_tokens: int = 0

    def __post_init__(self) -> None:
        if self.width < 1 or self.max_requests < 1:
            raise ConfigError(f"{self.name}: width and max_requests must be >= 1")


_VLLM_ONLY_METHODS = frozenset({SpecMethod.DFLASH, SpecMethod.DSPARK, SpecMethod.NGRAM_GPU,
                                SpecMethod.SUFFIX, SpecMethod.EXTRACT_HIDDEN_STATES})


def resolve_common(config: EngineSettings, engine: Engine) -> None:
    """Fields neither SGLang nor TensorRT-LLM has: the V2 runner, PIECEWISE, DFlash."""
    if config.runner is not Runner.V1:
        raise ConfigError(f"runner: {config.runner.value} is vLLM's; {engine.value} has one")
    if config.cudagraph_mode is CUDAGraphMode.PIECEWISE:
        raise ConfigError(
            f"cudagraph_mode: {engine.value} captures whole decode graphs; use FULL or NONE")
    if config.spec_method in _VLLM_ONLY_METHODS:
        raise ConfigError(f"spec_method: {config.spec_method.value} is not modelled for "
                          f"{engine.value}")
    for name in ("attention_backend", "attention_cudagraph_support",
                 "drafter_attention_cudagraph_support"):
        if getattr(config, name) is not None:
            raise ConfigError(f"{name}: vLLM-only (set engine vllm)")
    if not config.dspark_sample_from_anchor:
        raise ConfigError("dspark_sample_from_anchor: vLLM-only (set engine vllm)")
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


def batch_components(config: EngineSettings, ladder: Ladder,
                     runners: list[BatchRunner]) -> tuple[ComponentModel, ...]:
    """Each runner as a component: its tables, its buffers and the batches that reach it.

    Capture runs every ladder size (with dummy requests), decodes of 1..max_requests dispatch
    through the table, and for TensorRT-LLM eager batches of up to eager_tokens share the
    buffers.
    """
    graphs = config.cudagraph_mode is not CUDAGraphMode.NONE
    out: list[ComponentModel] = []
    for runner in runners:
        streams = frozenset({_STREAMS[("target" if runner.name == "target" else "drafter",
                                       axis)] for axis in (Axis.TOKENS, Axis.REQUESTS)})
        tables = batch_tables(ladder.sizes, runner.width, config.max_num_seqs,
                              padding=config.cuda_graph_padding, graphs=graphs)
        families = [BatchFamily("decode", streams, runner.width, 1, runner.max_requests,
                                Requests.PER_UNIT, uniform=True,
                                eager_writes=runner.eager_tokens > 0)]
        if graphs:
            families.append(BatchFamily("capture", streams, runner.width, 1, ladder.max_size,
                                        Requests.PER_UNIT, uniform=True, points=ladder.sizes))
        if runner.eager_tokens:
            families.append(BatchFamily("prefill (eager)", streams, 1, 1, runner.eager_tokens,
                                        Requests.UP_TO_TOKENS))
        uses_buffers = graphs or runner.eager_tokens > 0
        out.append(ComponentModel(runner.name, Unit.REQUESTS, tables,
                                  runner.buffers if uses_buffers else (), tuple(families)))
    return tuple(out)
