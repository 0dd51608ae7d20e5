"""vLLM: ladders (`ladder`, `split`), dispatchers (`dispatch`), buffers (`buffers`), the model,
and one model per modelled release (`releases/`: each a delta of its predecessor)."""

from graphfit.planner.engines.vllm.ladder import request_counts
from graphfit.planner.engines.vllm.model import VLLM, VllmModel
from graphfit.planner.engines.vllm.releases import v0_32, v0_34

VLLM_0_32 = VllmModel(v0_32.RELEASE)
VLLM_0_33 = VLLM
VLLM_0_34 = VllmModel(v0_34.RELEASE)

__all__ = ["VLLM", "VLLM_0_32", "VLLM_0_33", "VLLM_0_34", "VllmModel", "request_counts"]
