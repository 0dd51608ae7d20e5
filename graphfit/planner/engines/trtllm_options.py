"""`TrtllmOptions`: the inputs only TensorRT-LLM's model reads. See
`graphfit.planner.core.options` for the split between these and the shared `EngineConfig`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.options import EngineOptions, positive_int, sizes


@dataclass(frozen=True)
class TrtllmOptions(EngineOptions):
    """TensorRT-LLM (PyTorch backend) inputs graphfit's model reads.

    draft_len_schedule: the speculative config's `draft_len_schedule` thresholds (batch
        sizes); `DecodeCudaGraphConfig._merge_schedule_keys` joins them to the generated
        CUDA-graph batch sizes and forces padding on (graphfit.planner.engines.trtllm, whose
        rules cite the commits tests/oracle/trtllm_reference.py pins). None: no schedule.
    max_beam_width: beams per generation request (`max_beam_width`): the graph runner's
        static rows are batch x beams and `cache_indirection` is allocated per beam.
    parallel_draft: PARD (`decoding_type: PARD`): the target verifies 2 x max_draft_len
        tokens per request (K + 1 accepted + K - 1 mask tokens) instead of 1 + max_draft_len.
    """

    engine: ClassVar[str] = "trtllm"
    label: ClassVar[str] = "TensorRT-LLM"

    draft_len_schedule: tuple[int, ...] | None = None
    max_beam_width: int = 1
    parallel_draft: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "draft_len_schedule",
                           sizes("draft_len_schedule", self.draft_len_schedule))
        positive_int("max_beam_width", self.max_beam_width)
        if not isinstance(self.parallel_draft, bool):
            raise ConfigError(
                f"parallel_draft: expected true/false, got {excerpt(self.parallel_draft)}")


__all__ = ["TrtllmOptions"]
