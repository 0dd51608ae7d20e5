"""SGLang 0.5.23's two-batch-overlap split buffer, shared by its graph runners' catalogues.

With --enable-two-batch-overlap a captured batch is split in two child batches; the plugin
every `BaseRunner` builds (model_executor/runner/base_runner.py:245) keeps their real token
counts in one persistent (2,) int32 tensor (batch_overlap/two_batch_overlap.py:341-345), set
at capture (:363-366) and before each replay (:390-393). The split's alignment (even batch
sizes) is the decode model's `batch_alignment`.
"""

from __future__ import annotations

from graphfit.planner.core.buffers import KEEP, Axis, BufferSpec

TBO_SPLIT_BUFFER = "tbo_children_num_token_non_padded"
TBO_CHILDREN = 2


def tbo_split_buffer(runner: str) -> BufferSpec:
    """The plugin's buffer for `runner`: allocated whether or not two-batch overlap is on, by
    the runners built on `BaseRunner.__init__` (the decode target, decode_cuda_graph_runner.py
    :284, and prefill runners, prefill_cuda_graph_runner.py:321; the EAGLE draft runners skip
    that __init__, eagle_draft_cuda_graph_runner.py:103-150)."""
    return BufferSpec(TBO_SPLIT_BUFFER, "int32", Axis.FIXED, (), TBO_CHILDREN, KEEP,
                      source=f"{runner}: two_batch_overlap.py:341-345 (the two child batches' "
                             f"real token counts, set before each replay, :390-393)")
