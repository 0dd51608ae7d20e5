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
reads it (so `sample_from_anchor` decides the width as in SGLang); a MiniMax M3.1 draft's is
rewritten by SGLang's own `configure_minimax_m3_dspark` as its ModelConfig does
(model_config.py:1020-1029), the stub's hidden size is the rewritten config's, and SGLang's
own `DSparkMiniMaxDraftModel` is built on it (meta device) before the worker's checks, as
`build_draft_tp_worker` does (`minimax_model`).

Outside static verify (SGLANG_RAGGED_VERIFY_MODE=compact / cap-accept) the draft stub carries
SGLang's own confidence head (`build_confidence_head` on the draft's hf_config, models/
dspark.py:487-507, None under static), so the sampler allocates its confidence outputs itself
(dspark_draft_sampler.py:69-81). Under compact with decode graphs on, the worker's
`DsparkVerifyEpilogue` (dspark_worker_v2.py:409-417) is built here by SGLang's own class with
max(cuda_graph_config.decode.bs) and the verify window, the sampler writing into its
`draft_tokens_buf` (`out=`, :696-711); its strided logits / hidden are allocated by its own
`_ensure_out` (dspark_verify.py:971-990) from compact outputs shaped as the target hands them:
the process-wide logits buffer's float32 rows (graph_shared_output.py:62-70) and the captured
target layers' hidden side by side (layers/aux_hidden_states.py:97-102), the layer count from
SGLang's own `parse_dspark_draft_config` / `resolve_target_layer_ids` (dflash_utils.py:
556-585) on the draft and target configs (model_runner_components/spec_aux_hidden_state.py:
215-283 does the same).

Glue (not SGLang logic): the draft stub's fields the sampler reads (markov_head,
sample_from_anchor from that config, default True); the noise and TP-sync objects it only
stores (the epilogue asks its TP sync only with the fused accept tail on); the dtypes of the
compact outputs handed to `_ensure_out` (float32 logits, the model dtype's hidden).
"""

from __future__ import annotations

import dataclasses
import json
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

    _compact_refusal(r)
    dmr = so._model_runner_stub(r, pool, fill, device, hidden_size, vocab_size, draft=True)
    # the draft model runner's hf_config: the draft checkpoint's, read by SGLang's get_config
    # with the line's override args, as the draft's ModelConfig reads it (model_config.py:
    # 950-975 -> :612-626)
    dmr.model_config.hf_config = minimax_rewritten(get_config(
        get_spec().speculative_draft_model_path, trust_remote_code=False,
        model_override_args=json.loads(getattr(r.record, "json_model_override_args", None)
                                       or "{}")))
    # the draft ModelConfig's hidden size (model_config.py:1566, its hf_text_config's; a
    # MiniMax draft's rewritten config), which the runner reads (decode_cuda_graph_runner.py:
    # 474); the oracle's dense drafts share the target's
    from sglang.srt.utils.hf_transformers.common import get_hf_text_config

    text = get_hf_text_config(dmr.model_config.hf_config)
    dmr.model_config.hidden_size = int(text.hidden_size)
    # the draft ModelConfig's vocabulary and dtype (model_config.py:1605, :881, SGLang's own
    # `_get_and_verify_dtype` on the line's --dtype), which the runner's logits view and
    # input_embeds take (decode_cuda_graph_runner.py:474-478) and the draft model's lm_head /
    # Markov head are built with (models/dspark.py:393-396; the loader's default dtype)
    from sglang.srt.configs.model_config import _get_and_verify_dtype

    draft_vocab = int(text.vocab_size)
    draft_dtype = _get_and_verify_dtype(text, getattr(r.record, "dtype", "auto"))
    dmr.model_config.vocab_size = draft_vocab
    dmr.model_config.dtype = draft_dtype
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
    declared_max_bs = max(get_exec().graph.cuda_graph_config.decode.bs)
    epilogue = _epilogue(r, dmr.model_config.hf_config, declared_max_bs, hidden_size,
                         vocab_size)
    if envs.SGLANG_DSPARK_FOLDED_PROPOSAL.get():  # dspark_worker_v2.py:600-613
        gamma = int(get_spec().speculative_num_draft_tokens) - 1  # dspark_config.py:130-133
        sampler = _sampler(gamma, declared_max_bs, draft_vocab, draft_dtype,
                           bool(envs.SGLANG_DSPARK_USE_GREEDY_DRAFT.get()), anchor,
                           confidence_head=_confidence_head(dmr.model_config.hf_config),
                           out=None if epilogue is None else epilogue.draft_tokens_buf)
        for name, tensor in (("out", sampler.out),
                             ("temperatures", sampler.params.temperatures),
                             ("greedy_mask", sampler.params.greedy_mask),
                             ("step_temperatures", sampler.params.step_temperatures),
                             ("step_logits", sampler.step_logits),
                             ("verify_ids", sampler.verify_ids),
                             ("confidence_out", sampler.confidence_out),
                             ("confidence_raw_out", sampler.confidence_raw_out)):
            if tensor is not None:  # compared on shape and dtype (axis "tokens")
                table[f"sampler_{name}"] = so._buffer(f"sampler_{name}", tensor, "tokens",
                                                      None, "empty")
    # live: SGLang's own input buffers (what the runner holds as `.buffers`) and the sampler
    # the worker holds beside it
    live = types.SimpleNamespace(buffers=run.live, sampler=sampler, model_runner=dmr,
                                 epilogue=epilogue)
    return dataclasses.replace(run, name="dspark_draft", buffers=table, live=live)


def _compact_refusal(r: so.Resolved) -> None:
    """The target runner constructor's refusal under compact ragged verify
    (decode_cuda_graph_runner.py:411-421), in SGLang's words: that constructor needs an
    attention backend and a device, so its inline check is restated here on SGLang's own
    `ragged_verify_compact_graphs_enabled` (:162-167) and the resolved flags it reads."""
    from sglang.srt.model_executor.runner.decode_cuda_graph_runner import (
        ragged_verify_compact_graphs_enabled,
    )
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

    algorithm = SpeculativeAlgorithm.from_string(r.speculative_algorithm)
    if ragged_verify_compact_graphs_enabled(algorithm) and (
            r.enable_two_batch_overlap or r.disable_cuda_graph_padding):
        raise ValueError("Compact ragged verify does not support two-batch-overlap, LoRA, or "
                         "disable-cuda-graph-padding (bs pads to the captured tier); disable "
                         "SGLANG_RAGGED_VERIFY_MODE or the conflicting feature.")


def _confidence_head(draft_hf_config: Any) -> Any:
    """SGLang's `build_confidence_head` (models/dspark.py:487-507) on the draft's config, on
    the meta device: None under SGLANG_RAGGED_VERIFY_MODE=static."""
    import torch
    from sglang.srt.models.dspark import build_confidence_head

    with torch.device("meta"):
        return build_confidence_head(draft_hf_config)


def _target_layers(r: so.Resolved, draft_hf_config: Any) -> int:
    """How many target layers SGLang captures for the DSPARK draft: SGLang's own
    `parse_dspark_draft_config` ids, else `resolve_target_layer_ids` for the target's
    num_hidden_layers (spec_aux_hidden_state.py:215-283): the line's target ModelConfig's
    hf_text_config times its num_loops (:223-234; issue 23 s69k: was the oracle model's)."""
    from sglang.srt.arg_groups.model_override_base import model_config_of
    from sglang.srt.speculative.dflash_utils import parse_dflash_draft_config
    from sglang.srt.speculative.dspark_components.dspark_config import (
        parse_dspark_draft_config,
    )

    ids = parse_dspark_draft_config(draft_hf_config=draft_hf_config).target_layer_ids
    if ids is None:
        text = model_config_of(r.record).hf_text_config
        base = parse_dflash_draft_config(draft_hf_config=draft_hf_config)
        ids = base.resolve_target_layer_ids(
            target_num_layers=int(text.num_hidden_layers) * int(getattr(text, "num_loops", 1)),
            draft_num_layers=base.require_num_layers())
    return len(ids)


def _epilogue(r: so.Resolved, draft_hf_config: Any, max_bs: int, hidden_size: int,
              vocab_size: int) -> Any:
    """The worker's `DsparkVerifyEpilogue` when it builds one (compact mode with decode
    graphs allowed, dspark_worker_v2.py:208-211, 409-417; the DeepSeek-V4.1 static trigger
    needs a V4.1 target), its strided buffers allocated by `_ensure_out` as the first warmup
    does (dspark_verify.py:1001-1002). None otherwise."""
    import torch
    from sglang.srt.environ import envs
    from sglang.srt.model_executor.cuda_graph_config import Backend
    from sglang.srt.runtime_context import get_exec, get_spec
    from sglang.srt.speculative.dspark_components.dspark_verify import DsparkVerifyEpilogue
    from sglang.srt.speculative.ragged_verify import ragged_verify_compact_enabled

    allowed = get_exec().graph.cuda_graph_config.decode.backend != Backend.DISABLED
    if not (ragged_verify_compact_enabled() and allowed):
        return None
    tp_sync = types.SimpleNamespace(enabled=lambda site: False)
    # the V4.1 static epilogue's extras as the worker decides them (dspark_worker_v2.py:
    # 400-431): its static support needs a deepseek_v41 target (:391; glue: the oracle's
    # target is Llama) and static mode; the deferred commit by SGLang's own eligibility
    # (:623-650, defer_context_kv_refusal), the future relay by post_fold (:428-431)
    static_supported = False
    if _defer_context_kv_eligible(static_supported):
        raise NotImplementedError("a deferred commit under compact: not built by the oracle")
    epilogue = DsparkVerifyEpilogue(
        max_bs=max_bs, verify_num_draft_tokens=int(get_spec().speculative_num_draft_tokens),
        device="meta", tp_sync=tp_sync, simulated_correct_len=None,
        simulate_fold=envs.SGLANG_DSPARK_SIMULATE_FOLD.get(),
        fused_accept_tail=envs.SGLANG_DSPARK_FUSED_ACCEPT_TAIL.get(), deferred_commit=None,
        post_fold=static_supported and envs.SGLANG_OPT_DSV41_DSPARK_POST_FOLD.get())
    layers = _target_layers(r, draft_hf_config)
    logits = torch.empty((1, vocab_size), dtype=torch.float32, device="meta")
    hidden = torch.empty((1, layers * hidden_size), dtype=torch.bfloat16, device="meta")
    with mock.patch.object(torch.cuda, "is_current_stream_capturing", lambda: False):
        epilogue.strided_logits = epilogue._ensure_out(None, logits)
        epilogue.strided_hidden = epilogue._ensure_out(None, hidden)
    return epilogue


def _defer_context_kv_eligible(static_supported: bool) -> bool:
    """SGLang's own `DSparkWorkerV2._defer_context_kv_eligible` (dspark_worker_v2.py:623-650)
    on a worker stub holding what it reads: `_draft_is_moe` from SGLang's own
    `draft_is_deepseek_v4` (dspark_config.py:34-48)."""
    from sglang.srt.speculative.dspark_components.dspark_config import draft_is_deepseek_v4
    from sglang.srt.speculative.dspark_components.dspark_worker_v2 import DSparkWorkerV2

    worker = types.SimpleNamespace(_draft_is_moe=draft_is_deepseek_v4())
    return bool(DSparkWorkerV2._defer_context_kv_eligible(worker, static_supported))


def _sampler(gamma: int, max_bs: int, vocab_size: int, dtype: Any, greedy: bool,
             anchor: bool, *,
             confidence_head: Any = None, out: Any = None) -> Any:
    """SGLang's `maybe_build_draft_sampler` (dspark_draft_sampler.py:205-246) on a draft
    stub, then the warmup's first `_step_logits` call (:125-140)."""
    import torch
    from sglang.srt.models.dspark import VanillaMarkov
    from sglang.srt.speculative.dspark_components.dspark_draft_sampler import (
        maybe_build_draft_sampler,
    )

    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)  # the loader's model dtype: the draft ModelConfig's
    try:
        with torch.device("meta"):
            head = VanillaMarkov(vocab_size=vocab_size, markov_rank=MARKOV_RANK)
    finally:
        torch.set_default_dtype(previous)
    model = types.SimpleNamespace(
        markov_head=head, sample_from_anchor=anchor, confidence_head=confidence_head,
        lm_head=types.SimpleNamespace(org_vocab_size=vocab_size))
    sampler = maybe_build_draft_sampler(
        draft_model=model, gamma=gamma, max_bs=max_bs, device="meta", tp_rank=0,
        noise=None, greedy_draft=greedy, tp_sync=None, out=out)
    assert sampler is not None
    if not greedy:  # a greedy draft keeps no step logits (dspark_draft_sampler.py:189-193)
        base = torch.empty((max_bs, gamma, vocab_size), dtype=dtype, device="meta")
        # the warmup runs outside capture; CPU torch cannot answer the query itself
        with mock.patch.object(torch.cuda, "is_current_stream_capturing", lambda: False):
            sampler._step_logits(base)
    return sampler


def worker_parse(r: so.Resolved) -> None:
    """What the DSPARK worker parses at start-up, graphs or not: SGLang's own
    `parse_dspark_draft_config` on the draft's config as `get_config` reads it
    (`resolve_runtime_config`, dspark_worker_v2.py:261-265 -> dspark_config.py:93; the
    target's aux hidden states parse it too, spec_aux_hidden_state.py:260-267). It raises
    where the argument hook only warned and fell back to the flags or 7
    (speculative_hook.py:796-805): the server does not start. A hub id (no config here)
    is left to the resolution."""
    from sglang.srt.speculative.dspark_components.dspark_config import (
        resolve_runtime_config,
    )
    from sglang.srt.utils.hf_transformers_utils import get_config

    config = minimax_rewritten(so._draft_hf_config(r, overridden=True))
    if config is not None and is_minimax(config):
        minimax_model(r, config)  # built before the worker's own checks (module docstring)
    if config is not None:
        # the worker's own start-up check on the parse: markov_rank > 0, a mask token id
        # below the target's embedding rows (dspark_config.py:84-135), the rows read as
        # dspark_worker_v2.py:250-254 reads them: of the target's hf_text_config (SGLang's
        # own get_hf_text_config, model_config.py:636, 1605; a VL target's text config, s54m)
        from sglang.srt.utils.hf_transformers.common import get_hf_text_config

        target = get_hf_text_config(get_config(
            str(r.record.model_path), trust_remote_code=False,
            model_override_args=json.loads(
                getattr(r.record, "json_model_override_args", None) or "{}")))
        rows = getattr(target, "padded_vocab_size", None) or target.vocab_size
        resolve_runtime_config(draft_hf_config=config,
                               speculative_num_draft_tokens=r.speculative_num_draft_tokens,
                               target_vocab_size=int(rows))


MINIMAX = "DSparkMiniMaxDraftModel"


def is_minimax(config: Any) -> bool:
    return list(getattr(config, "architectures", None) or [])[:1] == [MINIMAX]


def minimax_rewritten(config: Any) -> Any:
    """The draft's hf_config as its ModelConfig holds it: a MiniMax M3.1 DSPARK draft
    rewritten by SGLang's own `configure_minimax_m3_dspark` (model_config.py:1020-1029,
    unguarded: its exception is the server's), any other unchanged."""
    if config is None or list(getattr(config, "architectures", None) or [])[:1] != [MINIMAX]:
        return config
    from sglang.srt.configs.minimax_vl import configure_minimax_m3_dspark

    return configure_minimax_m3_dspark(config)


def minimax_model(r: so.Resolved, config: Any) -> Any:
    """SGLang's own `DSparkMiniMaxDraftModel(config)` (models/dspark_minimax.py:175), built as
    `build_draft_tp_worker` builds the draft model (draft_worker_common.py:66-115) before the
    worker's own checks (dspark_worker_v2.py:226-265), on the meta device under the line's
    published parallel layout: whatever its constructors raise, the server does not start.
    Under attention DP the dense draft is built in the draft scope SGLang's worker enters
    (`resolve_draft_parallel_layout` -> `draft_tp_context`, dspark_worker_v2.py:200-238):
    its own `patch_tensor_parallel_group` on the attention-TP group (parallel_state.py:
    3115-3170). Glue: this process's ranks (0) and groups that the constructors and the
    multimem gatherer only ask their size (triton_symm_mem_ag.py:459-493; no collective is
    built)."""
    import contextlib

    import torch

    with so.sglang_stubs.stubbed(), so.published(r):
        from sglang.srt.distributed.parallel_state import patch_tensor_parallel_group
        from sglang.srt.models.dspark_minimax import DSparkMiniMaxDraftModel
        from sglang.srt.runtime_context import get_parallel

        size = int(r.record.tp_size)
        group = types.SimpleNamespace(world_size=size, rank_in_group=0)
        attn = types.SimpleNamespace(world_size=int(get_parallel().attn_tp_size),
                                     rank_in_group=0)
        scope = (patch_tensor_parallel_group(attn, owns_attention=True)
                 if get_parallel().attn_dp_enabled else contextlib.nullcontext())
        with get_parallel().override(tp_rank=0, attn_tp_rank=0, tp_group=group,
                                     attn_tp_group=attn, moe_tp_group=group), \
                scope, torch.device("meta"):
            try:
                return DSparkMiniMaxDraftModel(config)
            except RuntimeError as exc:  # the glue, not SGLang: fail the oracle itself
                if "has not been written" in str(exc):
                    raise AssertionError(f"oracle glue: {exc}") from exc
                raise
