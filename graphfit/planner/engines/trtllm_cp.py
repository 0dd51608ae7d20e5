"""TensorRT-LLM context parallelism as graph planning sees it (issue 23, s44t).

A rank of a context-parallel group (`context_parallel_size` > 1) whose `cp_config.cp_type`
is not helix never captures a decode graph. `PyTorchModelEngine.warmup` returns as soon as it
sees cp_size > 1 with a cp_type other than HELIX (None when cp_config has no cp_type), before
the one `allow_capture()` that captures the graphs
(tensorrt_llm/_torch/pyexecutor/model_engine.py@c0edad93fd:1410-1416, the capture
tensorrt_llm/_torch/pyexecutor/model_engine.py@c0edad93fd:1481-1490). Outside that context
`maybe_get_cuda_graph` hands an uncaptured key no graph
(tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:594-599), so every batch runs
eagerly. The runner is still enabled and has already allocated its static tensors
(tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py@c0edad93fd:179-180), so they stay in the
plan with their rows. The per-rank plan is that: the declared ladder, no graph captured.

Helix stays refused: its warmup goes on and captures (the early return above is for the
other types; `has_cp_helix` is cp_size > 1 with cp_type HELIX,
tensorrt_llm/mapping.py@b35ac1b643:229-231), over ranks graphfit does not restate. Under
attention DP each rank's token count for the gather is ceil(tokens / cp_size) over tp x cp
ranks (tensorrt_llm/_torch/pyexecutor/engine/runners/common.py@13b902ed48:32-39); without
attention DP that split does not apply (the function returns None,
tensorrt_llm/_torch/pyexecutor/engine/runners/common.py@13b902ed48:41), but the attention
runs with attn_cp_size = cp_size, attn_tp_size = tp_size (the mapping's fallback for a type
other than ULYSSES, tensorrt_llm/mapping.py@b35ac1b643:83-86). The refusal names which of the
two the line hits (s48t). The prefill and encoder graphs under context parallelism were not
read, so a non-helix line with them is refused as not modelled too.
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings

WARMUP_SKIP = ("tensorrt_llm/_torch/pyexecutor/model_engine.py@c0edad93fd:1410-1416")


def skips_capture(config: EngineSettings) -> bool:
    """Whether this rank's warmup returns before capturing: cp_size > 1 and a cp_type other
    than helix (none given included)."""
    return config.context_parallel_size > 1 and config.cp_type != "helix"


def cp_label(config: EngineSettings) -> str:
    """`context_parallel_size N, cp_type T` as the line gave them."""
    kind = config.cp_type or "absent"
    return f"context_parallel_size {config.context_parallel_size}, cp_type {kind}"


def check_context_parallel(config: EngineSettings) -> None:
    """One error line for what graphfit does not plan under context parallelism: helix, and
    the prefill and encoder graphs beside a non-helix cp_type. The mapping's own refusals
    (MoE EP beside non-helix CP) are trtllm_moe.check_moe_mapping's."""
    if config.context_parallel_size == 1:
        return
    if config.cp_type == "helix":
        raise ConfigError(helix_refusal(config))
    # the mapping's refusal of MoE EP beside non-helix CP runs before this, with the derived
    # EP size (graphfit.planner.engines.trtllm_moe.check_moe_mapping)
    others = (("prefill_cuda_graph_backend", config.prefill_cuda_graph_backend != "disabled"),
              ("cuda_graph_config mode encode", config.cuda_graph_mode == "encode"),
              ("encoder_cuda_graph_config", config.encoder_graph_batch_sizes is not None),
              ("multimodal_config.encoder_cuda_graph", bool(config.mm_encoder_graphs)))
    for name, on in others:
        if on:
            raise ConfigError(f"context_parallel_size: {config.context_parallel_size} with "
                              f"{name} is not modelled (those graphs under context "
                              f"parallelism were not read); plan with 1")


def helix_refusal(config: EngineSettings) -> str:
    """The one error line for helix: what a helix rank runs that graphfit does not plan (its
    warmup captures graphs, unlike the other types'). With
    attention DP the gathered per-rank counts are ceil(tokens / cp_size) (common.py 32-39, in
    the module docstring); without it, the attention splits each sequence over cp_size
    context ranks (attn_cp_size, mapping.py 83-86)."""
    cp = config.context_parallel_size
    what = (f"attention DP gathers ceil(tokens / {cp}) per rank over tp x cp ranks"
            if config.enable_attention_dp else
            f"attention runs over attn_cp_size {cp} context ranks")
    return f"context_parallel_size: {cp} with cp_type helix is not modelled ({what}); plan with 1"


def no_capture_warning(config: EngineSettings) -> str:
    """The ladder note of a rank that captures nothing."""
    return (f"{cp_label(config)}: TensorRT-LLM's warmup returns before the CUDA-graph capture "
            f"({WARMUP_SKIP}); no graph is captured, every batch runs eagerly")


__all__ = ["check_context_parallel", "cp_label", "helix_refusal", "no_capture_warning",
           "skips_capture"]
