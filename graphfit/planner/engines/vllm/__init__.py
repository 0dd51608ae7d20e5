"""vLLM 0.33: ladders (`ladder`), dispatchers (`dispatch`), buffers (`buffers`), the model."""

from graphfit.planner.engines.vllm.ladder import request_counts
from graphfit.planner.engines.vllm.model import VLLM, VllmModel

__all__ = ["VLLM", "VllmModel", "request_counts"]
