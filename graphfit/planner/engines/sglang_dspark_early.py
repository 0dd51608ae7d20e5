"""The DSPARK target verify runner's inputs SGLang 0.5.23 keeps out of the input pool under
SGLANG_OPT_DSV41_TARGET_METADATA_EARLY (issue 23, s54d).

With the variable on, the target verify runner stages its verify inputs on a side stream
beside the draft graph (early_verify_metadata.py:1-26), so it keeps those slots private: its
`share_buffers` call excludes `STAGED_SLOTS` -- positions, out_cache_loc, req_pool_indices,
seq_lens (early_verify_metadata.py:45-53) -- whenever `_wants_early_verify_metadata()` holds
(decode_cuda_graph_runner.py:505-509), i.e. (:1814-1827):

* the variable is on, on the target worker's TARGET_VERIFY runner of a DSPARK line;
* not the ragged (compact) verify mode (`ragged_verify_mode`, :397-401, :162-167:
  SGLANG_RAGGED_VERIFY_MODE=compact);
* a CUDA device (graphfit plans CUDA);
* no attention DP, no gathered buffer (`require_gathered_buffer`, :311-313), no two-batch
  overlap.

graphfit then plans those four target inputs as the target runner's own buffers (the pool
shares them with the DSPARK draft runner otherwise, graphfit.planner.engines.sglang_shared).
The variable changes nothing else graphfit plans: the stream and event it makes hold no
buffers (early_verify_metadata.py:63-66), and the glue graphs it keys by attention variant
(:1829-1838) are DeepSeek-V4.1 metadata glue graphs graphfit does not plan in any mode
(graphfit.planner.engines.sglang_dspark_modes).
"""

from __future__ import annotations

from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import sglang_moe_a2a
from graphfit.planner.engines.sglang_dspark import dspark

STAGED_SLOTS = frozenset({"positions", "out_cache_loc", "req_pool_indices", "seq_lens"})
TARGET = "target"  # graphfit's target (verify) runner


def staged(config: EngineSettings) -> bool:
    """`_wants_early_verify_metadata()` of the target verify runner (module docstring)."""
    return (config.dspark_early_verify_metadata and dspark(config)
            and config.ragged_verify_mode != "compact"
            and config.attn_dp_size == 1 and not sglang_moe_a2a.attn_tp_gather(config)
            and not config.two_batch_overlap)


def private_inputs(config: EngineSettings) -> dict[str, frozenset[str]]:
    """Runner -> the inputs it keeps out of the pool beyond sglang_shared.POOLED's."""
    return {TARGET: STAGED_SLOTS} if staged(config) else {}
