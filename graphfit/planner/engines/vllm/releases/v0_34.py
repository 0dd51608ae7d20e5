"""vLLM 0.34.0: what changed from 0.33.0 (file:line in the 0.34.0 wheel).

- The V1 model runner is removed: `VLLM_USE_V2_MODEL_RUNNER` set to anything but 1 is an
  error (platforms/interface.py:1481-1491); the V1 dispatcher and proposers are deleted, so
  suffix decoding runs on V2 (v1/worker/gpu/spec_decode/suffix/speculator.py:499-510).
- Capture sizes are split into prefill token sizes and decode request counts
  (config/vllm.py:2558-2737; grids config/compilation.py:54-126); see `vllm/split.py`.
- EAGLE/EAGLE3/MTP/draft_model with k >= 2 capture one-token draft-decode graphs up to
  max_num_seqs requests (`get_draft_decode_cudagraph_request_sizes`, config/vllm.py:708-733).
- Graph memory is reserved at start-up by a profiling capture: PIECEWISE graphs measured in
  full, FULL graphs extrapolated as the first + (n - 1) x max(second, 1 MiB)
  (`profile_cudagraph_memory`, v1/worker/gpu/cudagraph_utils.py:989-1096, 1098-1107).
- `custom_class` is gone: speculators are per-method config classes
  (v1/worker/gpu/spec_decode/speculator_config.py).
"""

from __future__ import annotations

from dataclasses import replace

from graphfit.planner.engines.vllm.releases.v0_33 import RELEASE as PREVIOUS

RELEASE = replace(
    PREVIOUS,
    release="0.34.0",
    previous=PREVIOUS.release,
    v1_runner=False,
    runner_fallbacks=(),
    split_sizes=True,
    draft_decode_graphs=True,
    custom_class=False,
    flag_table="vllm-0.34.0.json",
    profiles_graph_memory=True,
)
