"""TensorRT-LLM's prefill CUDA graphs (piecewise or breakable) as the plan's `prefill` component.

Sources (NVIDIA/TensorRT-LLM; tests/oracle/trtllm_reference.py `CITES` pins the commits):

* inputs: `prefill_cuda_graph_backend` (disabled / piecewise / breakable) and
  `prefill_capture_num_tokens` (tensorrt_llm/llmapi/llm_args.py@0004396720:5872-5884);
  `TorchLlmArgs.normalize_prefill_cuda_graph_config`
  (tensorrt_llm/llmapi/llm_args.py@0004396720:6216-6273) maps the legacy
  `torch_compile_config.enable_piecewise_cuda_graph` / `capture_num_tokens` onto them and
  gives a backend that is on without a list `_DEFAULT_PREFILL_CAPTURE_NUM_TOKENS`
  (tensorrt_llm/llmapi/llm_args.py@0004396720:5512-5513: 1..128 in powers of two, 256..3072
  step 256).
* ladder: `PyTorchModelEngine.__init__`
  (tensorrt_llm/_torch/pyexecutor/model_engine.py@c0edad93fd:583-601) keeps
  `_filter_prefill_capture_num_tokens(list, max_num_tokens, max_batch_size, max_seq_len)`
  (= `_filter_piecewise_capture_num_tokens`,
  tensorrt_llm/_torch/pyexecutor/model_engine.py@c0edad93fd:207-248):
  counts in (0, max_num_tokens], clamped to max_batch_size x (max_seq_len - 1), sorted and
  unique (graphfit.planner.engines.trtllm_ladders.piecewise_capture_num_tokens).
* dispatch: `get_padding_params`
  (tensorrt_llm/_torch/pyexecutor/engine/runners/common.py@13b902ed48:84-145): a
  forward with at least one context request and n <= the largest count tokens pads to the
  smallest count >= n (bisect_left) and replays that prefill graph; a generation-only forward
  or a larger one is not padded (eager, or the decode graphs). The graphs are token-keyed and
  run attention eagerly between captured pieces (torch.compile's `PiecewiseRunner` replays an
  entry only at exactly a captured count, `PiecewiseRunner.__call__`,
  tensorrt_llm/_torch/compilation/piecewise_optimizer.py@05fff03d90:159-235), so graphfit
  dispatches them as PIECEWISE graphs keyed on tokens: mixed batches only, uniform decodes
  never. Attention DP pads every rank to the count above the largest rank's tokens
  (`trtllm_ladders.prefill_padding`), a captured count, so one rank's buffers hold it whenever
  they hold the largest graph.
* buffers: the graphs read the engine's persistent `input_ids_cuda` / `position_ids_cuda`
  [max_num_tokens] int32 (and `mrope_position_ids_cuda` (3, 1, max_num_tokens) for an mrope
  model), which eager context batches of up to max_num_tokens tokens also write
  (`PyTorchModelEngine.__init__`, tensorrt_llm/_torch/pyexecutor/model_engine.py@c0edad93fd:732-752;
  `_allocate_decoder_buffers`,
  tensorrt_llm/_torch/pyexecutor/engine/runners/decoder/runner.py@0ea8c1debd:370-422): token
  rows, sized by the eager prefills.
"""

from __future__ import annotations

from graphfit.planner.core.batches import BatchFamily, Requests, Stream
from graphfit.planner.core.buffers import ZERO, Axis, BufferSpec, Demand
from graphfit.planner.core.dispatch import NO_GRAPH, DispatchTables, shared_dispatches
from graphfit.planner.core.enums import CUDAGraphMode, Unit
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.base import ComponentModel
from graphfit.planner.engines.trtllm_ladders import (
    DEFAULT_PREFILL_CAPTURE_NUM_TOKENS,
    piecewise_capture_num_tokens,
)

COMPONENT = "prefill"
DISABLED = "disabled"
BREAKABLE = "breakable"
_WHY = ("prefill graphs read the engine's persistent token buffer, which eager context "
        "batches of up to max_num_tokens tokens also write")


def prefill_counts(config: EngineSettings) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(kept, unrecordable): the token counts TensorRT-LLM captures prefill graphs at, and the
    requested ones above max_batch_size x (max_seq_len - 1) it clamps with a warning. Both
    empty when the backend is disabled."""
    if config.prefill_cuda_graph_backend == DISABLED:
        return (), ()
    wanted = config.prefill_capture_num_tokens
    if wanted is None:
        wanted = DEFAULT_PREFILL_CAPTURE_NUM_TOKENS
    return piecewise_capture_num_tokens(wanted, config.max_num_batched_tokens,
                                        config.max_num_seqs, config.max_model_len)


def check_prefill(config: EngineSettings) -> None:
    """TensorRT-LLM's refusals that graphfit can see: the breakable backend runs no
    multimodal model (`PyTorchModelEngine.__init__` calls
    `_validate_breakable_cuda_graph_compatibility` at
    tensorrt_llm/_torch/pyexecutor/model_engine.py@c0edad93fd:474; its body, which raises
    "breakable prefill CUDA graph does not support multimodal models", lies past the lines
    counted in that copy and was read in a newer one) and takes no torch_compile_config
    (`TorchLlmArgs.normalize_prefill_cuda_graph_config`,
    tensorrt_llm/llmapi/llm_args.py@0004396720:6216-6273)."""
    if config.prefill_cuda_graph_backend == BREAKABLE and config.multimodal:
        raise ConfigError("prefill_cuda_graph_backend: breakable prefill CUDA graphs do not "
                          "support multimodal models (TensorRT-LLM refuses them too)")
    if config.prefill_cuda_graph_backend == BREAKABLE and config.torch_compile:
        raise ConfigError("prefill_cuda_graph_backend: breakable prefill CUDA graphs do not "
                          "support torch_compile_config (TensorRT-LLM refuses them too)")


def prefill_warnings(config: EngineSettings) -> tuple[str, ...]:
    """What TensorRT-LLM warns about the prefill ladder (unrecordable counts) and why a backend
    that is on captures nothing."""
    if config.prefill_cuda_graph_backend == DISABLED:
        return ()
    kept, unrecordable = prefill_counts(config)
    out: list[str] = []
    if unrecordable:
        ceiling = max(0, config.max_num_seqs * (config.max_model_len - 1))
        shown = ", ".join(map(str, unrecordable[:8])) + (", ..." if len(unrecordable) > 8
                                                          else "")
        out.append(f"prefill_capture_num_tokens: {shown} above max_batch_size x (max_seq_len "
                   f"- 1) = {ceiling}, clamped to it (TensorRT-LLM warns too)")
    if not kept:
        out.append(f"prefill_cuda_graph_backend {config.prefill_cuda_graph_backend}: no token "
                   f"count in (0, max_num_tokens {config.max_num_batched_tokens}] to capture; "
                   f"every prefill runs eagerly")
    return tuple(out)


def prefill_tables(sizes: tuple[int, ...], max_num_seqs: int) -> DispatchTables:
    """Token-keyed tables: a mixed batch pads to the next captured count (PIECEWISE, no
    request key); uniform decodes (no context request) never replay a prefill graph."""
    piece = shared_dispatches(CUDAGraphMode.PIECEWISE)
    return DispatchTables(sizes, tuple(piece(s, None) for s in sizes),
                          (NO_GRAPH,) * len(sizes), 1, max_num_seqs, True)


def _token_buffer(name: str, tokens: int, leading: tuple[int, ...] = ()) -> BufferSpec:
    return BufferSpec(name, "int32", Axis.TOKENS, (Demand(Stream.TARGET_TOKENS),), tokens,
                      ZERO, leading, source=f"prefill: {_WHY}")


def prefill_component(config: EngineSettings) -> ComponentModel | None:
    """The prefill graphs as a component (None when the backend is disabled or keeps no
    count)."""
    sizes, _ = prefill_counts(config)
    if not sizes:
        return None
    T = config.max_num_batched_tokens
    buffers = [_token_buffer("input_ids", T), _token_buffer("position_ids", T)]
    if config.multimodal:
        buffers.append(_token_buffer("mrope_position_ids", T, (3, 1)))
    streams = frozenset({Stream.TARGET_TOKENS, Stream.TARGET_REQUESTS})
    families = (
        # context and mixed batches of 1..max_num_tokens tokens: padded when they fit a graph,
        # eager (still writing the shared buffers) above the largest count
        BatchFamily("prefill", streams, 1, 1, T, Requests.UP_TO_TOKENS),
        BatchFamily("capture", streams, 1, 1, sizes[-1], Requests.UP_TO_TOKENS,
                    points=sizes),
    )
    return ComponentModel(COMPONENT, Unit.TOKENS, prefill_tables(sizes, config.max_num_seqs),
                          tuple(buffers), families)
