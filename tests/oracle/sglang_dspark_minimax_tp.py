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

Glue (not SGLang): the TP and attention-TP groups and their custom all-reduce are
namespaces holding only what SGLang reads of them. The target lm_head is SGLang's own
`ParallelLMHead` built as the oracle's targets build it (`_lm_head`), so under attention DP
with --enable-dp-lm-head it is on the attention-TP group, as SGLang shards it.
"""

from __future__ import annotations

import inspect
import os
import types
from typing import Any
from unittest import mock

from tests.oracle import sglang_dspark_oracle as ko
from tests.oracle import sglang_oracle as so


def _lm_head(vocab: int, tied: bool = False) -> Any:
    """SGLang's own `ParallelLMHead` as the target builds it (`use_attn_tp_group=
    get_parallel().enable_dp_lm_head`: llama.py:573-579 untied, minimax_m3.py:2005-2011,
    minimax_m3_vl.py:145-151), or with `tied` the `VocabParallelEmbedding` a tied Llama
    serves as its lm_head (llama.py:432-437, 570-571), on the meta device under the line's
    published layout: tp_size, org_vocab_size, the shard are SGLang's
    (vocab_parallel_embedding.py:243-300)."""
    import torch
    from sglang.srt.layers.vocab_parallel_embedding import (
        ParallelLMHead,
        VocabParallelEmbedding,
    )
    from sglang.srt.runtime_context import get_parallel

    with torch.device("meta"):
        if tied:
            return VocabParallelEmbedding(vocab, 8, params_dtype=torch.bfloat16)
        return ParallelLMHead(vocab, 8, params_dtype=torch.bfloat16,
                              use_attn_tp_group=get_parallel().enable_dp_lm_head)


def _own_v2(tp: int, multicast: bool) -> Any:
    """SGLang's own `CustomAllReduceV2.__init__` and `_init_workspace`
    (custom_all_reduce_v2.py:110-350) for a group of `tp` ranks, from a private copy of the
    module executed under the line's environment (its sizes are read at import, :72-77), so
    its `pull_enabled`, planes, `has_multicast` and `max_push_size` are SGLang's (issue 23,
    s45a). Glue: the H100's tuned table (`_sm90_configs(132)`, configs/custom_all_reduce_v2.
    py:266), the GPUs' answers (`can_use_custom_all_reduce_v2`, one node), the symmetric
    allocation on meta with or without a multicast pointer, and the JIT planes as namespaces
    holding what they are given."""
    import importlib.util

    import torch
    from sglang.srt.distributed.device_communicators import custom_all_reduce_v2 as car2
    from sglang.srt.distributed.device_communicators.configs import (
        custom_all_reduce_v2 as cfg,
    )

    spec = importlib.util.spec_from_file_location(
        "sglang.srt.distributed.device_communicators._graphfit_oracle_car2", car2.__file__)
    assert spec is not None and spec.loader is not None, "oracle glue"
    own = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(own)

    def alloc(nbytes: int, device: Any, group: Any) -> tuple[Any, Any]:
        tensor = torch.empty((nbytes,), dtype=torch.uint8, device="meta")
        return tensor, types.SimpleNamespace(
            multicast_ptr=int(multicast),
            get_buffer=lambda i, shape, dtype: torch.empty(shape, dtype=dtype, device="meta"))

    def communicator(*, push: Any, pull: Any) -> Any:
        return types.SimpleNamespace(push=push, pull=pull, world_size=tp,
                                     set_pull_multicast_blocks=lambda n: None)

    dist = types.SimpleNamespace(get_rank=lambda group: 0, get_world_size=lambda group: tp,
                                 barrier=lambda group: None)
    with mock.patch.multiple(own, dist=dist, get_all_reduce_config=lambda ws: cfg._sm90_configs(
                                 132)[ws],
                             can_use_custom_all_reduce_v2=lambda **_: True,
                             in_the_same_node_as=lambda group, source_rank: [True] * tp,
                             _allocate_symmetric_memory=alloc,
                             PushPlane=lambda *a, **k: ("push", a, k),
                             PullPlane=lambda *a, **k: ("pull", a, k),
                             Communicator=communicator, IPCManager=lambda: None,
                             VmmGraphInputManager=lambda **_: None), \
            mock.patch.object(torch.cuda, "synchronize", lambda *a: None):
        ca = own.CustomAllReduceV2(group=object(), device=torch.device("meta"))
    assert not ca.disabled, "oracle glue"
    ca.close = lambda: None  # glue: nothing of the GPUs' to tear down on meta (:564-573)
    return ca


def _group(tp: int, custom_all_reduce: bool, multicast: bool) -> Any:
    """A TP group of `tp` ranks. Its `ca_comm`: None with --disable-custom-all-reduce, else
    the class SGLang's own `dispatch_custom_allreduce` picks on a CUDA machine whose group
    is one NVLink domain (custom_all_reduce.py:373-398; `can_use_custom_all_reduce_v2` is
    the GPUs' answer, yes on both GPU kinds here) under the line's environment: SGLang's own
    CustomAllReduceV2 (`_own_v2`) with or without a multicast plane, or a legacy
    CustomAllreduce stand-in, which has no `has_multicast` (custom_all_reduce.py:40-372)."""
    from sglang.srt.distributed.device_communicators import custom_all_reduce as car
    from sglang.srt.distributed.device_communicators import custom_all_reduce_v2 as car2

    ca: Any = None
    if custom_all_reduce and tp > 1:
        with mock.patch.object(car, "_is_cuda", True), \
                mock.patch.object(car2, "can_use_custom_all_reduce_v2", lambda **_: True):
            chosen = car.dispatch_custom_allreduce(group=None, device=None)
        if chosen is car2.CustomAllReduceV2:
            ca = _own_v2(tp, multicast)
        else:
            assert chosen is car.CustomAllreduce, f"oracle glue: {chosen}"
            assert "has_multicast" not in inspect.getsource(car), "oracle glue"
            comm = types.SimpleNamespace(push=object(), pull=object(), world_size=tp)
            ca = types.SimpleNamespace(disabled=False, obj=comm)
    return types.SimpleNamespace(world_size=tp, rank_in_group=0, device_group=object(),
                                 cpu_group=types.SimpleNamespace(group_name="tp"), ca_comm=ca)


def _attached(r: so.Resolved, config: Any, vocab: int, tp: int, custom_all_reduce: bool,
              multicast: bool, tied: bool = False) -> tuple[list[tuple[int, ...]], int]:
    """(symmetric buffers SGLang allocates, the sampler's step-logit width) on one GPU kind.
    The attach runs in the target's scope (dspark_worker_v2.py:313-323, after the draft
    scope closed): the TP group of size `tp` and the attention-TP group of the published
    layout, each with the custom all-reduce the line leaves on (parallel_state.py:2813-2826)."""
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
    with so.sglang_stubs.stubbed(), so.published(r):
        attn = _group(int(get_parallel().attn_tp_size), custom_all_reduce, multicast)
    with so.sglang_stubs.stubbed(), so.published(r), \
            get_parallel().override(tp_rank=0, attn_tp_rank=0, tp_group=group,
                                    attn_tp_group=attn), \
            mock.patch.object(vocab_gather, "_alloc_symm", alloc), \
            mock.patch.object(triton_symm_mem_ag, "create_state", create_state), \
            mock.patch.object(torch.cuda, "is_current_stream_capturing", lambda: False):
        lm_head = _lm_head(vocab, tied)
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
            environ: dict[str, str], custom_all_reduce: bool, tied: bool = False
            ) -> tuple[str, int | None]:
    """("raises" | "gpus" | "plain", the step-logit width when "plain"); module docstring.
    `tied`: the target serves its tied embedding as the lm_head (`_lm_head`)."""
    from sglang.srt.utils.hf_transformers_utils import get_config

    with mock.patch.dict(os.environ, environ), so.sglang_stubs.fake_cuda(r.gpu_mem_mib):
        try:
            config = ko.minimax_rewritten(get_config(config_dir, trust_remote_code=False))
            found = [_attached(r, config, vocab, tp, custom_all_reduce, multicast, tied)
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
