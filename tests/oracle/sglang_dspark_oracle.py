"""SGLang 0.5.23's DSPARK draft graphs built by SGLang's own code on CPU (the oracle side).

The draft worker's `init_cuda_graphs` (speculative/dspark_components/dspark_worker_v2.py:
581-621) builds a plain `DecodeCudaGraphRunner` on the draft model runner
(`is_draft_worker=True`): built here as sglang_oracle builds the target's, with SGLang's own
width (`ModelRunner.decode_num_tokens_per_req`: gamma when the draft samples from the anchor
row, model_runner.py:880-895, spec_info.py:291-301), capture list
(`get_batch_sizes_to_capture`) and gather requirements. Before that, with
SGLANG_DSPARK_FOLDED_PROPOSAL on (its default), `_maybe_build_draft_sampler`
(dspark_worker_v2.py:696-711) builds SGLang's own `DsparkDraftSampler`
(dspark_draft_sampler.py:30-140) with max(cuda_graph_config.decode.bs), here on a draft-model
stub carrying SGLang's own `VanillaMarkov` head (models/dspark.py:186-246) built on the meta
device in the model dtype (the loader's default dtype); its lazily sized `step_logits` are
allocated by calling the sampler's own `_step_logits` as the warmup does (:125-140) with base
logits in the lm_head's dtype (models/dspark.py:128-142).

The draft model runner stub's `hf_config` is the draft checkpoint's as SGLang's `get_config`
reads it (so `sample_from_anchor` decides the width as in SGLang).

Glue (not SGLang logic): the draft stub's fields the sampler reads (markov_head,
sample_from_anchor from that config, default True; confidence_head None, which is
`build_confidence_head` under SGLANG_RAGGED_VERIFY_MODE=static, models/dspark.py:487-489);
the noise and TP-sync objects it only stores.
"""

from __future__ import annotations

import dataclasses
import types
from typing import Any
from unittest import mock

from tests.oracle import sglang_oracle as so

MARKOV_RANK = 8  # any rank > 0 (dspark_config.py:94-98); it sizes no graph buffer


def dspark_runner(r: so.Resolved, pool: int, fill: int, device: str, hidden_size: int,
                  vocab_size: int) -> so.Runner:
    from sglang.srt.environ import envs
    from sglang.srt.model_executor.model_runner import ModelRunner
    from sglang.srt.model_executor.runner.base_cuda_graph_runner import (
        get_batch_sizes_to_capture,
    )
    from sglang.srt.model_executor.runner.decode_cuda_graph_runner import (
        DecodeCudaGraphRunner,
    )
    from sglang.srt.runtime_context import get_exec, get_spec
    from sglang.srt.speculative.dspark_components.dspark_config import (
        get_dspark_sample_from_anchor,
    )
    from sglang.srt.utils.common import get_cuda_graph_batch_size_alignment
    from sglang.srt.utils.hf_transformers_utils import get_config

    dmr = so._model_runner_stub(r, pool, fill, device, hidden_size, vocab_size, draft=True)
    # the draft model runner's hf_config: the draft checkpoint's, read by SGLang's get_config
    dmr.model_config.hf_config = get_config(get_spec().speculative_draft_model_path,
                                            trust_remote_code=False)
    anchor = get_dspark_sample_from_anchor(dmr.model_config.hf_config)
    width = int(ModelRunner.decode_num_tokens_per_req(dmr, num_draft_tokens=None))
    mlp_gather, attn_gather = DecodeCudaGraphRunner.decode_graph_gather_requirements(dmr)
    gathered = bool(mlp_gather or attn_gather)
    capture_bs, _ = get_batch_sizes_to_capture(dmr, width, gathered_buffer_required=gathered)
    align = get_cuda_graph_batch_size_alignment(gathered_buffer_required=gathered)
    run = so._target_runner(dmr, tuple(capture_bs), width, pool, align, fill, mlp_gather,
                            gathered, device)
    table = dict(run.buffers)
    sampler = None
    if envs.SGLANG_DSPARK_FOLDED_PROPOSAL.get():  # dspark_worker_v2.py:600-613
        gamma = int(get_spec().speculative_num_draft_tokens) - 1  # dspark_config.py:130-133
        sampler = _sampler(gamma, max(get_exec().graph.cuda_graph_config.decode.bs),
                           vocab_size, bool(envs.SGLANG_DSPARK_USE_GREEDY_DRAFT.get()), anchor)
        for name, tensor in (("out", sampler.out),
                             ("temperatures", sampler.params.temperatures),
                             ("greedy_mask", sampler.params.greedy_mask),
                             ("step_temperatures", sampler.params.step_temperatures),
                             ("step_logits", sampler.step_logits),
                             ("verify_ids", sampler.verify_ids),
                             ("confidence_out", sampler.confidence_out)):
            if tensor is not None:  # compared on shape and dtype (axis "tokens")
                table[f"sampler_{name}"] = so._buffer(f"sampler_{name}", tensor, "tokens",
                                                      None, "empty")
    # live: SGLang's own input buffers (what the runner holds as `.buffers`) and the sampler
    # the worker holds beside it
    live = types.SimpleNamespace(buffers=run.live, sampler=sampler, model_runner=dmr)
    return dataclasses.replace(run, name="dspark_draft", buffers=table, live=live)


def _sampler(gamma: int, max_bs: int, vocab_size: int, greedy: bool, anchor: bool) -> Any:
    """SGLang's `maybe_build_draft_sampler` (dspark_draft_sampler.py:205-246) on a draft
    stub, then the warmup's first `_step_logits` call (:125-140)."""
    import torch
    from sglang.srt.models.dspark import VanillaMarkov
    from sglang.srt.speculative.dspark_components.dspark_draft_sampler import (
        maybe_build_draft_sampler,
    )

    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)  # the loader's model dtype
    try:
        with torch.device("meta"):
            head = VanillaMarkov(vocab_size=vocab_size, markov_rank=MARKOV_RANK)
    finally:
        torch.set_default_dtype(previous)
    model = types.SimpleNamespace(
        markov_head=head, sample_from_anchor=anchor, confidence_head=None,
        lm_head=types.SimpleNamespace(org_vocab_size=vocab_size))
    sampler = maybe_build_draft_sampler(
        draft_model=model, gamma=gamma, max_bs=max_bs, device="meta", tp_rank=0,
        noise=None, greedy_draft=greedy, tp_sync=None, out=None)
    assert sampler is not None
    if not greedy:  # a greedy draft keeps no step logits (dspark_draft_sampler.py:189-193)
        base = torch.empty((max_bs, gamma, vocab_size), dtype=torch.bfloat16, device="meta")
        # the warmup runs outside capture; CPU torch cannot answer the query itself
        with mock.patch.object(torch.cuda, "is_current_stream_capturing", lambda: False):
            sampler._step_logits(base)
    return sampler
