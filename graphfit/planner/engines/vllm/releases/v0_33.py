"""vLLM 0.33.0: the base release (the model's modules describe it in full, domain.md §1-5).

Both runners exist; an unset `VLLM_USE_V2_MODEL_RUNNER` picks V2 unless the config needs a
feature it lacks (`_get_v2_model_runner_unsupported_features`, config/vllm.py:3053-3087) --
of those graphfit models the suffix method (:3066-3068). One list of capture sizes
(`_set_cudagraph_sizes`, config/vllm.py:2398-2654), rounded to multiples of 1+k by the V1
runner (config/compilation.py:1537-1565).
"""

from __future__ import annotations

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.engines.vllm.releases import Release

RELEASE = Release(
    release="0.33.0",
    previous=None,
    v1_runner=True,
    runner_fallbacks=(SpecMethod.SUFFIX,),
    split_sizes=False,
    draft_decode_graphs=False,
    custom_class=True,  # config/speculative.py (SpeculativeMethod literal)
    flag_table="vllm.json",
)
