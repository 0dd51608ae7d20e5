"""SGLang's own answer for a MiniMax M3.1 DSPARK draft at lm_head TP > 1: its
`DSparkMiniMaxDraftModel` built on the meta device, then its own `attach_shared_modules`
(models/dspark.py:550-574: the Markov head's TP shard and `make_vocab_gather`, or the base
logits' `MultimemAllGatherer`) on the target's lm_head, and the base-logit gatherer's own
`_build` (triton_symm_mem_ag.py:523-551) as the warmup's eager call runs it.

The GPUs' part is played twice: a TP group whose custom all-reduce has an NVLink multicast
plane and whose symmetric-memory rendezvous gives a multicast alias, and one whose does not.
The symmetric buffers SGLang keeps are read off its own objects (the NVLink gather's
`pull_out`, vocab_gather.py:103-115; the state `_build` returns, triton_symm_mem_ag.py:543-551;
the allocations themselves, `_alloc_symm` and `create_state`, are glue on meta). Outcome:

- "raises": SGLang's exception (the server does not start), the same on both;
- "gpus": a symmetric buffer the captured graphs would hold exists on the multicast GPUs (so
  the plan depends on the fabric, not the line);
- "plain": no symmetric buffer on either: the NCCL ring; with the folded sampler's step-logit
  width (`_step_logits_width`, dspark_draft_sampler.py:200-202) on the sharded head.

Glue (not SGLang): the TP group and its custom all-reduce are namespaces holding only what
SGLang reads of them; the target lm_head is a namespace with the ParallelLMHead fields SGLang
reads (tp_size, org_vocab_size, num_embeddings_per_partition, shard_indices, weight,
use_attn_tp_group; vocab_parallel_embedding.py:243-300).
"""

from __future__ import annotations

import os
import types
from typing import Any
from unittest import mock

from tests.oracle import sglang_dspark_oracle as ko
from tests.oracle import sglang_oracle as so

PAD = 64  # ParallelLMHead's default vocab padding (vocab_parallel_embedding.py: pad_vocab_size)


def _lm_head(vocab: int, tp: int) -> Any:
    import torch

    padded = -(-vocab // PAD) * PAD
    per = padded // tp
    return types.SimpleNamespace(
        tp_size=tp, org_vocab_size=vocab, num_embeddings_per_partition=per,
        shard_indices=types.SimpleNamespace(org_vocab_start_index=0,
                                            org_vocab_end_index=min(per, vocab)),
        weight=torch.empty((per, 8), dtype=torch.bfloat16, device="meta"),
        use_attn_tp_group=False)


def _group(tp: int, custom_all_reduce: bool, multicast: bool) -> Any:
    comm = types.SimpleNamespace(push=object(), pull=object(), world_size=tp)
    ca = types.SimpleNamespace(disabled=False, obj=comm, has_multicast=multicast,
                               max_push_size=1 << 16)
    return types.SimpleNamespace(world_size=tp, rank_in_group=0, device_group=object(),
                                 cpu_group=types.SimpleNamespace(group_name="tp"),
                                 ca_comm=ca if custom_all_reduce else None)


def _attached(r: so.Resolved, config: Any, vocab: int, tp: int, custom_all_reduce: bool,
              multicast: bool) -> tuple[list[tuple[int, ...]], int]:
    """(symmetric buffers SGLang allocates, the sampler's step-logit width) on one GPU kind."""
    import torch
    from sglang.srt.distributed.device_communicators import triton_symm_mem_ag, vocab_gather
    from sglang.srt.runtime_context import get_parallel
    from sglang.srt.speculative.dspark_components.dspark_draft_sampler import (
        _step_logits_width,
    )

    buffers: list[tuple[int, ...]] = []

    def alloc(group: Any, shape: tuple[int, int], dtype: Any) -> tuple[Any, int]:
        return torch.empty(shape, dtype=dtype, device="meta"), int(multicast)

    def create_state(*, group: Any, rank_in_group: int, max_tokens: int,
                     hidden_size: int, **_: Any) -> Any:
        return types.SimpleNamespace(symm_mem_hdl=types.SimpleNamespace(
            multicast_ptr=int(multicast)), max_token_num=max_tokens, hidden_dim=hidden_size)

    model = ko.minimax_model(r, config)
    group = _group(tp, custom_all_reduce, multicast)
    lm_head = _lm_head(vocab, tp)
    with so.sglang_stubs.stubbed(), so.published(r), \
            get_parallel().override(tp_rank=0, attn_tp_rank=0, tp_group=group,
                                    attn_tp_group=group), \
            mock.patch.object(vocab_gather, "_alloc_symm", alloc), \
            mock.patch.object(triton_symm_mem_ag, "create_state", create_state), \
            mock.patch.object(torch.cuda, "is_current_stream_capturing", lambda: False):
        model.attach_shared_modules(embed_tokens=None, lm_head=lm_head)
        shard = model.markov_head.vocab_shard
        pull_out = getattr(getattr(shard, "gather", None), "pull_out", None)
        if pull_out is not None:  # kept only with a multicast alias (vocab_gather.py:103-115)
            buffers.append(tuple(pull_out.shape))
        gatherer = model._base_logits_gatherer
        if gatherer is not None and gatherer._state is gatherer._UNINIT:
            # the warmup's first eager call on the [bs * gamma, vocab / TP] local logits,
            # outside capture (CPU torch cannot answer the capture query itself)
            state = gatherer._build(torch.empty((8, lm_head.num_embeddings_per_partition),
                                                dtype=torch.bfloat16, device="meta"))
            if state is not None and state is not gatherer._UNINIT:  # kept (:543-551)
                buffers.append((state.max_token_num, state.hidden_dim))
        return buffers, int(_step_logits_width(model))


def outcome(r: so.Resolved, config_dir: str, vocab: int, tp: int,
            environ: dict[str, str], custom_all_reduce: bool) -> tuple[str, int | None]:
    """("raises" | "gpus" | "plain", the step-logit width when "plain"); module docstring."""
    from sglang.srt.utils.hf_transformers_utils import get_config

    with mock.patch.dict(os.environ, environ), so.sglang_stubs.stubbed():
        try:
            config = ko.minimax_rewritten(get_config(config_dir, trust_remote_code=False))
            found = [_attached(r, config, vocab, tp, custom_all_reduce, multicast)
                     for multicast in (True, False)]
        except AssertionError as exc:
            if "oracle glue" in str(exc):
                raise
            return "raises", None
        except Exception:  # SGLang's own exception: the server does not start
            return "raises", None
    (mc_buffers, width), (plain_buffers, _) = found
    assert plain_buffers == [], plain_buffers  # no multicast: SGLang never keeps one
    return ("gpus", None) if mc_buffers else ("plain", width)
