"""The `global_num_tokens` entries of SGLang 0.5.23's EAGLE draft runners (issue 23, s69p).

`EAGLEDraftCudaGraphRunner` and `EAGLEDraftExtendCudaGraphRunner` allocate
`global_num_tokens_gpu` and `global_num_tokens_for_logprob_gpu` (int32) only when their own
`require_gathered_buffer()` holds (speculative/eagle_draft_cuda_graph_runner.py:235-251,
speculative/eagle_draft_extend_cuda_graph_runner.py:215-231): one entry per attention-DP
rank (`deployment_attn_dp_size()`, layers/dp_attention.py:60-67) when `require_mlp_tp_gather()`
holds, else one (the attention-TP gather, asserted). Unlike the target's decode buffers
(runner_utils/buffers.py:212-217, `sglang.global_num_tokens`), nothing is allocated without
a gather.

Why its own module: graphfit planned no such entries on the draft runners before s69p,
although SGLang builds them on every attention-DP line and every all-to-all line that
gathers the attention input. The runners read the requirements inside
`speculative_moe_a2a_backend_context` (eagle_worker_v2.py:286-296; layers/moe/utils.py:
957-975), so they are asked of the draft runners' view (`sglang_moe_a2a.for_drafts`):
`--speculative-moe-a2a-backend none` on a DeepEP target with `--moe-dense-tp-size 1` and the
DP LM head keeps the draft's MLP gather (one entry per rank) while the target keeps one.
"""

from __future__ import annotations

from graphfit.planner.core.buffers import KEEP, Axis, BufferSpec
from graphfit.planner.engines import sglang_moe_a2a
from graphfit.planner.engines.sglang_mlp_gather import Gathered, mlp_tp_gather

NAMES = ("global_num_tokens_gpu", "global_num_tokens_for_logprob_gpu")
# where each EAGLE draft runner allocates them (component name -> file:lines)
SOURCES = {"drafter": "eagle_draft_cuda_graph_runner.py:235-251",
           "draft_extend": "eagle_draft_extend_cuda_graph_runner.py:215-231"}


def draft_rows(config: Gathered) -> int | None:
    """Entries per buffer on the draft runners of `config` (the draft runners' view): None
    where `require_gathered_buffer()` is false (no buffers), the attention-DP size under the
    MLP gather, else 1."""
    if mlp_tp_gather(config):
        return config.attn_dp_size
    return 1 if sglang_moe_a2a.attn_tp_gather(config) else None


def draft_global_num_tokens(runner: str, config: Gathered) -> list[BufferSpec]:
    """The two buffers on the EAGLE draft runner `runner` ("drafter" or "draft_extend"), or
    none (`draft_rows`); set to the padded token count before each replay (:694-697,
    :608-610), so their padding is kept."""
    rows = draft_rows(config)
    if rows is None:
        return []
    return [BufferSpec(name, "int32", Axis.FIXED, (), rows, KEEP,
                       source=f"{runner}: {SOURCES[runner]} (set before each replay)")
            for name in NAMES]


__all__ = ["NAMES", "SOURCES", "draft_global_num_tokens", "draft_rows"]
