"""`TrtllmOptions`: the inputs only TensorRT-LLM's model reads. See
`graphfit.planner.core.options` for the split between these and the shared `EngineConfig`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from graphfit.planner.core.options import EngineOptions, sizes


@dataclass(frozen=True)
class TrtllmOptions(EngineOptions):
    """TensorRT-LLM (PyTorch backend) inputs graphfit's model reads.

    draft_len_schedule: the speculative config's `draft_len_schedule` thresholds (batch
        sizes); `DecodeCudaGraphConfig._merge_schedule_keys` joins them to the generated
        CUDA-graph batch sizes and forces padding on (graphfit.planner.engines.trtllm, whose
        rules cite the commits tests/oracle/trtllm_reference.py pins). None: no schedule.
    """

    engine: ClassVar[str] = "trtllm"
    label: ClassVar[str] = "TensorRT-LLM"

    draft_len_schedule: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "draft_len_schedule",
                           sizes("draft_len_schedule", self.draft_len_schedule))


__all__ = ["TrtllmOptions"]
