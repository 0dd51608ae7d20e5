"""The live tensors of SGLang 0.5.23's DSPARK worker outside the graph runners' `.buffers`:
the compact verify epilogue and the folded draft sampler (its confidence outputs included).

Why through the model runners' capture hooks: the worker keeps both objects private
(`DsparkWorkerV2._verify_epilogue` / `._draft_sampler`), but hands each to the model runner
whose graphs read it, and that model runner is what every graph runner holds:

- the epilogue's bound `capture_hook` goes into the TARGET model runner's
  `capture_tail_hooks` (dspark_worker_v2.py:451-453), so the target's DecodeCudaGraphRunner
  replays it in each verify graph (decode_cuda_graph_runner.py:1469);
- the sampler goes into the DRAFT model runner's `capture_tail_hooks` inside the closure of
  `make_draft_sampler_capture_hook` (dspark_worker_v2.py:606-612,
  draft_worker_common.py:148-159).

Read from there, the tensors count with the rows SGLang allocated: the epilogue's per-request
buffers are `<name>_buf` (dspark_verify.py:606-656), its strided logits / hidden are None
until the first warmup call allocates them (`_ensure_out`, :971-1002: the plugin's check runs
before capture, so they count at the rows SGLang's code allocates, max_bs * stride); the
sampler's are `out`, `params.*`, `step_logits` (None until its warmup call, dspark_draft_
sampler.py:125-140), `verify_ids` and the confidence head's `confidence_out` /
`confidence_raw_out` (:69-81). Nothing of SGLang is imported here: objects are told by the
attributes SGLang's classes set.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# DsparkVerifyEpilogue's per-request buffers, `<name>_buf` (dspark_verify.py:606-656; the
# block accept lens only under SGLANG_OPT_DSV41_POST_FORWARD_CUDA_GRAPH, :657-661)
EPILOGUE_BUFFERS = ("verify_lens", "inject_gate", "correct_len", "bonus", "cap_trim_lens",
                    "commit_lens", "new_seq_lens", "gated_commit_lens", "out_tokens",
                    "sim_temperatures", "sim_seed", "block_accept_lens", "draft_tokens")
EPILOGUE_STRIDED = ("strided_logits", "strided_hidden")  # allocated by warmup, :971-1002
# DsparkDraftSampler's tensors (dspark_draft_sampler.py:54-91), graphfit's `sampler_<name>`
SAMPLER_TENSORS = ("out", "step_logits", "verify_ids", "confidence_out", "confidence_raw_out")
SAMPLER_PARAMS = ("temperatures", "greedy_mask", "step_temperatures")  # DraftParams, :84-91


def _is_tensor(value: Any) -> bool:
    return hasattr(value, "shape") and hasattr(value, "dtype") and \
        len(getattr(value, "shape", ())) > 0


def _hooks(runner: Any) -> tuple[Any, ...]:
    """The model runner's capture tail hooks (model_runner.py:396) of a graph runner."""
    hooks = getattr(getattr(runner, "model_runner", None), "capture_tail_hooks", None)
    return tuple(hooks or ())


def _closed_over(hook: Any) -> Iterator[Any]:
    for cell in getattr(hook, "__closure__", None) or ():
        try:
            yield cell.cell_contents
        except ValueError:  # an empty cell
            continue


def verify_epilogue(runner: Any) -> Any | None:
    """The `DsparkVerifyEpilogue` whose bound capture hook the runner's model runner holds
    (dspark_worker_v2.py:451-453), None when there is none (static mode, graphs off)."""
    for hook in _hooks(runner):
        owner = getattr(hook, "__self__", None)
        if owner is not None and hasattr(owner, "verify_lens_buf") \
                and hasattr(owner, "draft_tokens_buf"):
            return owner
    return None


def dspark_sampler(runner: Any) -> Any | None:
    """The `DsparkDraftSampler` the draft model runner's capture hook closes over
    (draft_worker_common.py:148-159), None when the proposal stays eager."""
    for hook in _hooks(runner):
        for value in _closed_over(hook):
            if hasattr(value, "markov_head") and hasattr(value, "params") \
                    and hasattr(value, "out"):
                return value
    return None


def epilogue_tensors(name: str, runner: Any) -> dict[str, tuple[str, Any]]:
    """graphfit buffer name (of `target_compact`) -> (where SGLang keeps it, tensor) of the
    epilogue the runner's model runner holds; tensors not allocated yet are left out."""
    epilogue = verify_epilogue(runner)
    if epilogue is None:
        return {}
    where = f"{name}.model_runner.capture_tail_hooks[DsparkVerifyEpilogue]"
    found = {buf: (f"{where}.{buf}_buf", getattr(epilogue, f"{buf}_buf", None))
             for buf in EPILOGUE_BUFFERS}
    found.update({buf: (f"{where}.{buf}", getattr(epilogue, buf, None))
                  for buf in EPILOGUE_STRIDED})
    return {buf: hit for buf, hit in found.items() if _is_tensor(hit[1])}


def sampler_tensors(name: str, runner: Any) -> dict[str, tuple[str, Any]]:
    """`sampler_<name>` (of `dspark_draft`) -> (where SGLang keeps it, tensor) of the folded
    draft sampler, its confidence outputs included; tensors not allocated yet left out."""
    sampler = dspark_sampler(runner)
    if sampler is None:
        return {}
    where = f"{name}.model_runner.capture_tail_hooks[DsparkDraftSampler]"
    found = {f"sampler_{attr}": (f"{where}.{attr}", getattr(sampler, attr, None))
             for attr in SAMPLER_TENSORS}
    params = getattr(sampler, "params", None)
    found.update({f"sampler_{attr}": (f"{where}.params.{attr}", getattr(params, attr, None))
                  for attr in SAMPLER_PARAMS})
    return {buf: hit for buf, hit in found.items() if _is_tensor(hit[1])}


__all__ = ["dspark_sampler", "epilogue_tensors", "sampler_tensors", "verify_epilogue"]
