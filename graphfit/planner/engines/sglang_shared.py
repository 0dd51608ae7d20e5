"""The buffers SGLang 0.5.23's graph runners share, as graphfit shared buffers.

Two mechanisms make one tensor of what graphfit would otherwise plan per runner:

* The process-wide input-buffer pool (`share_input_buffer`, model_executor/input_buffers.py:
  16-41): every runner that calls `share_buffers()` on its buffer set (the decode / target
  verify runner, decode_cuda_graph_runner.py:507-509; the EAGLE draft runner,
  speculative/eagle_draft_cuda_graph_runner.py:287; the draft-extend runner,
  speculative/eagle_draft_extend_cuda_graph_runner.py:297, all but `select_index`; DFLASH's
  and DSPARK's draft DecodeCudaGraphRunner, the same call on the draft model runner,
  dspark_worker_v2.py:581-621) gets, for
  a field of the same name, numel, dtype and device as an earlier one, a view of that earlier
  tensor. The pool is keyed by size, so only same-sized fields coalesce: across SGLang's
  adaptive states the request-axis fields (one row per request of the same max_bs) and the
  token-axis fields of runners of the same width (the target verify runner of s steps and the
  draft-extend runner of s steps, both s + 1 tokens a request).
* The process-wide logits buffer (`GraphSharedOutput`, model_executor/graph_shared_output.py:
  16-73): one (max_rows, vocab) float32 tensor per vocabulary size; every target runner
  views its first max_num_token rows (decode_cuda_graph_runner.py:466-477), every
  draft-extend runner its first max_bs rows (eagle_draft_extend_cuda_graph_runner.py:
  249-253). max_rows is `max_decode_logits_rows` (model_runner.py:905-929): the most rows
  any draft-token count captures, the adaptive candidates' included, i.e. the largest view.

graphfit plans each group as one `BufferSpec.shared` buffer: sized for the most rows any user
needs, counted once, every user still proven against it (graphfit.planner.plan).
The cross-runner sharing is safe in SGLang because each runner fills its inputs right before
its own replay and the runners run one at a time (input_buffers.py:28-34); graphfit's runners
refill their own padded tails before each replay in the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from math import prod

from graphfit.planner.core.buffers import Axis, BufferSpec, as_shared
from graphfit.planner.engines.base import ComponentModel
from graphfit.planner.engines.sglang_tbo import TBO_SPLIT_BUFFER

# runners whose buffer sets go through share_buffers(), and their buffers that do not: kept
# outside the set (the two-batch-overlap plugin's, two_batch_overlap.py:341-345; the draft
# runner's sampling attributes, eagle_draft_cuda_graph_runner.py:225-233) or excluded from
# sharing (per-width gather indices, eagle_draft_extend_cuda_graph_runner.py:292-297)
POOLED: dict[str, frozenset[str]] = {
    "target": frozenset({TBO_SPLIT_BUFFER}),
    "drafter": frozenset({"temperatures", "top_ks"}),
    "draft_extend": frozenset({"select_index"}),
    # DFLASH's draft DecodeCudaGraphRunner on the draft model runner: the same
    # share_buffers() call as the target's (decode_cuda_graph_runner.py:505-509; no early
    # verify staging on a draft worker, :1814-1827); its sampler's buffers sit outside the
    # set under names no other runner has (issue 23, s47r)
    "dflash_draft": frozenset({TBO_SPLIT_BUFFER}),
    # DSPARK's draft is the same plain DecodeCudaGraphRunner on the draft model runner
    # (dspark_worker_v2.py:581-621, the call at decode_cuda_graph_runner.py:505-509; no early
    # verify staging on a draft worker, :1814-1827); its folded sampler's buffers sit on the
    # sampler under `sampler_*` names no other runner has (issue 23, s48r)
    "dspark_draft": frozenset({TBO_SPLIT_BUFFER}),
}
LOGITS = "next_token_logits_buffer"
# (DFLASH's and DSPARK's draft runners view the same GraphSharedOutput,
# decode_cuda_graph_runner.py:466-477)
LOGITS_RUNNERS = frozenset({"target", "draft_extend", "dflash_draft", "dspark_draft"})
LOGITS_SHARED = "graph_shared_logits"
# the draft runners whose logits view comes from the same process-wide GraphSharedOutput:
# EAGLE's draft-extend runner (eagle_draft_extend_cuda_graph_runner.py:249-253) and
# DFLASH's and DSPARK's DecodeCudaGraphRunner on the draft model runner
# (decode_cuda_graph_runner.py:466-477, graphfit.planner.engines.sglang_dflash.RUNNER,
# sglang_dspark.RUNNER)
DRAFT_LOGITS_RUNNERS = frozenset({"draft_extend", "dflash_draft", "dspark_draft"})


def numel(spec: BufferSpec) -> int:
    """Elements the engine allocates for the buffer (its reference rows times a row)."""
    return spec.reference_capacity * prod(spec.leading) * prod(spec.trailing)


def _base(component: str) -> str:
    return component.split(".")[0]


def _key(component: str, spec: BufferSpec,
         private: Mapping[str, frozenset[str]] | None = None) -> tuple[object, ...] | None:
    """Which SGLang tensor the buffer is (None: its own): the logits by dtype and vocabulary,
    a pooled field by name, numel, dtype and layout; `private`: a runner's further inputs
    kept out of the pool on this line (graphfit.planner.engines.sglang_dspark_early)."""
    base = _base(component)
    if spec.name == LOGITS and base in LOGITS_RUNNERS:
        return (LOGITS_SHARED, spec.dtype, spec.trailing)
    if private and spec.name in private.get(base, frozenset()):
        return None
    if base in POOLED and spec.name not in POOLED[base]:
        return (spec.name, numel(spec), spec.dtype, spec.leading, spec.trailing,
                spec.axis is Axis.FIXED)
    return None


def _name(key: tuple[object, ...], names: Iterable[tuple[object, ...]]) -> str:
    """The shared buffer's name: `graph_shared_logits` (with the vocabulary when the draft's
    differs from the target's), else `pool_<field>` with the element count when several pool
    entries have that field name."""
    same = [k for k in names if k[0] == key[0]]
    if key[0] == LOGITS_SHARED:
        # one tensor per vocabulary (graph_shared_output.py:62-73): a draft whose vocabulary
        # is not the target's has its own (graphfit.planner.engines.sglang_draft_shape)
        trailing = key[2]
        assert isinstance(trailing, tuple)
        return LOGITS_SHARED if len(same) == 1 else f"{LOGITS_SHARED}_{trailing[0]}"
    return f"pool_{key[0]}" if len(same) == 1 else f"pool_{key[0]}_{key[1]}"


def share_like_sglang(components: tuple[ComponentModel, ...],
                      private: Mapping[str, frozenset[str]] | None = None
                      ) -> tuple[ComponentModel, ...]:
    """The components with every buffer SGLang makes one tensor of two or more runners' marked
    as that shared buffer (module docstring); the rest unchanged. `private`: see `_key`."""
    users: dict[tuple[object, ...], list[str]] = {}
    for comp in components:
        for spec in comp.buffers:
            key = _key(comp.name, spec, private)
            if key is not None:
                users.setdefault(key, []).append(comp.name)
    groups = [k for k, who in users.items() if len(who) > 1]
    names = {k: _name(k, groups) for k in groups}
    out = []
    for comp in components:
        buffers = []
        for spec in comp.buffers:
            key = _key(comp.name, spec, private)
            buffers.append(as_shared(spec, names[key]) if key in names else spec)
        out.append(replace(comp, buffers=tuple(buffers)))
    return tuple(out)


def draft_logits_rows(components: tuple[ComponentModel, ...], target_vocab: int
                      ) -> tuple[ComponentModel, ...]:
    """The components with the engine's rows on every draft logits view whose vocabulary is
    not the target's.

    `GraphSharedOutput.get_logits_buffer` allocates one `(max_rows, vocab)` tensor per
    vocabulary and hands each caller its first `rows` rows (graph_shared_output.py:62-73), so
    a draft vocabulary of its own is a tensor of the process-wide max_rows rows, not of the
    draft runner's max_bs. max_rows is `max_decode_logits_rows` (model_runner.py:905-929):
    the largest logits view any target-verify runner takes, adaptive candidates included,
    i.e. the most rows of graphfit's target runners' `next_token_logits_buffer`. The draft
    model runner asks after the target's (scheduler.py:1124-1126) and gets the same object
    unless its own max_rows is larger (graph_shared_output.py:52-60): the target-verify
    widths it counts are the target's, so graphfit takes the target's rows, never fewer than
    the view's own. Only the reference (what SGLang allocates) changes; graphfit sizes the
    view for the rows its batches need, as before."""
    rows = max((spec.reference_capacity for comp in components
                if _base(comp.name) == "target" for spec in comp.buffers
                if spec.name == LOGITS), default=0)
    out = []
    for comp in components:
        if _base(comp.name) not in DRAFT_LOGITS_RUNNERS:
            out.append(comp)
            continue
        out.append(replace(comp, buffers=tuple(
            replace(spec, reference_capacity=max(rows, spec.reference_capacity))
            if spec.name == LOGITS and spec.trailing != (target_vocab,) else spec
            for spec in comp.buffers)))
    return tuple(out)
