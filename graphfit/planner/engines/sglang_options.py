"""`SglangOptions`: the inputs only SGLang's model reads (its parallelism, its GPU memory,
two-batch overlap). See `graphfit.planner.core.options` for the split between these and the
shared `EngineConfig`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.options import EngineOptions, positive_int, true_false


@dataclass(frozen=True)
class SglangOptions(EngineOptions):
    """SGLang 0.5.23 server arguments graphfit's model reads.

    gpu_memory_gb: GPU memory in GiB as nvidia-smi reports it; SGLang sizes the default
        decode graph max_bs and request pool from it (srt/arg_groups/memory_hook.py:78-89).
        None: unknown (the model covers what it cannot know).
    tp_size: tensor parallel size (`--tp-size`).
    attn_dp_size: attention data-parallel groups (`--attn-dp-size`); attn_cp_size: attention
        context parallelism (`--attn-cp-size`). The attention TP width is
        tp_size // attn_dp_size // attn_cp_size (srt/runtime_context.py:73-76), which
        aligns the captured batch sizes.
    two_batch_overlap: `--enable-two-batch-overlap`: only even batch sizes are captured
        (model_executor/runner/base_cuda_graph_runner.py:83-104).
    """

    engine: ClassVar[str] = "sglang"
    label: ClassVar[str] = "SGLang"

    gpu_memory_gb: float | None = None
    tp_size: int = 1
    attn_dp_size: int = 1
    attn_cp_size: int = 1
    two_batch_overlap: bool = False

    def __post_init__(self) -> None:
        gb = self.gpu_memory_gb
        if gb is not None:
            if isinstance(gb, bool) or not isinstance(gb, (int, float)) or not gb > 0:
                raise ConfigError(f"gpu_memory_gb: must be a number > 0 (GiB), got {gb!r}")
            object.__setattr__(self, "gpu_memory_gb", float(gb))
        for name in ("tp_size", "attn_dp_size", "attn_cp_size"):
            positive_int(name, getattr(self, name))
        true_false("two_batch_overlap", self.two_batch_overlap)


__all__ = ["SglangOptions"]
