"""A MiniMax M3.1 DSPARK draft (`DSparkMiniMaxDraftModel`) at lm_head TP > 1 in SGLang 0.5.23:
what the vocab-parallel draft logits change, and which of it a launch line decides.

The worker hands the draft the target's `lm_head` (dspark_worker_v2.py:307-323 ->
`DSparkDraftMixin.attach_shared_modules`, models/dspark.py:550-574). The MiniMax draft declares
vocab-parallel draft logits (`supports_vocab_parallel_draft_logits`, dspark_minimax.py:176), so
at lm_head TP > 1 (`lm_head.tp_size`: the TP size, vocab_parallel_embedding.py:258-263, outside
attention DP) one of two paths is taken:

- a `VanillaMarkov` head (markov_head_type "vanilla", the default, models/dspark.py:392-396)
  with `SGLANG_DSPARK_OPT_MARKOV_W2_TP_SHARD` on (environ.py:559, default on): the head is
  sharded (`configure_tp_shard`, models/dspark.py:201-236). It raises, and the server does not
  start, when the target lm_head's `org_vocab_size` (the target's `vocab_size`,
  vocab_parallel_embedding.py:270) differs from the head's vocabulary (the draft config's
  `vocab_size`, models/dspark.py:393). Its per-step exchange is `make_vocab_gather`
  (vocab_gather.py:198-226): the NCCL ring, which holds no buffer, when
  `SGLANG_DSPARK_NVLINK_VOCAB_GATHER` is off (environ.py:565, default on) or the TP group has
  no custom all-reduce (`--disable-custom-all-reduce`: `set_custom_all_reduce`,
  distributed/bootstrap.py:252, so `ca_comm` stays None, parallel_state.py:478, 502;
  `_nvlink_ca_comm`, vocab_gather.py:170-182) or only the legacy one without a multicast
  plane (`SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2=0`, environ.py:1532; custom_all_reduce.py:
  387-398). Otherwise whether the NVLink gather and its
  symmetric-memory `pull_out` [TP * rows, vocab / TP] (vocab_gather.py:103-115), held by the
  captured draft graphs, exist depends on the custom all-reduce's multicast plane
  (`has_multicast`, :175) and the rendezvous' multicast alias (:103-108): facts of the
  GPUs and their NVLink fabric, not of the line: refused as not modelled.
  The folded sampler's kept step logits are then gathered whole: width the head's vocabulary
  (`step_logits_width`, dspark_draft.py:191-193), which equals the target's `org_vocab_size`
  that the unsharded width is (dspark_draft_sampler.py:200-202) once the shard check passed:
  the sampler's buffers are those of TP 1.
- any other head, or the shard switch off: the base logits go through a `MultimemAllGatherer`
  (models/dspark.py:569-573) whose symmetric buffer [max_tokens, vocab] bf16 is built by the
  warmup's eager call (triton_symm_mem_ag.py:523-551) only where the rendezvous gives a
  multicast pointer (:543-551): refused as not modelled.

Under attention DP (issue 23, s44s) DSPARK needs --enable-dp-lm-head (speculative_hook.py:
674-711); the dense draft is built on the attention-TP group (draft_parallel.py:53-63,
`patch_tensor_parallel_group`, parallel_state.py:3146-3162), so its constructors see
attention TP = TP / DP; the attach runs in the target's scope (dspark_worker_v2.py:313-323)
on the target's lm_head, whose group its model class decides (`lm_group`): on the
attention-TP group (`use_attn_tp_group`) the same rules hold at that group's size, except
that no base-logit gatherer is built (models/dspark.py:569); at attention TP 1 the attach
gathers nothing (:556-560) and not even the vocabulary check runs.

The target-hidden projection's `_fc_gatherer` (dspark_minimax.py:139-141, 167-172) runs only in
the eager KV injection (`write_target_hidden_kv`, models/dspark.py:838-853, called by
dspark_kv_inject.py:223, 257): its buffer, if any, is memory outside every graph, like the
draft's KV pool that graphfit's plan holds for no DSPARK draft.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.sglang_dspark_env import flag

W2_TP_SHARD = "SGLANG_DSPARK_OPT_MARKOV_W2_TP_SHARD"  # environ.py:559, default on
NVLINK_GATHER = "SGLANG_DSPARK_NVLINK_VOCAB_GATHER"  # environ.py:565, default on
CA_V2 = "SGLANG_OPT_USE_CUSTOM_ALL_REDUCE_V2"  # environ.py:1532, default on
CA_V2_MAX_KB = "SGLANG_CUSTOM_ALL_REDUCE_V2_MAX_SIZE_KB"  # environ.py:1535, default 16384
CA_V2_PULL_KB = "SGLANG_FORCE_CUSTOM_ALL_REDUCE_V2_PULL_SIZE_KB"  # environ.py:1536, unset


def _env_int(environ: Mapping[str, str], name: str, default: int | None) -> int | None:
    """An EnvInt as SGLang reads it (environ.py:153-158, 67-86): `int(value)`; unset or
    unparsable keeps the default (the latter with a warning)."""
    raw = environ.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        return default


def pull_plane(environ: Mapping[str, str]) -> bool:
    """Whether the TP group's CustomAllReduceV2 builds its pull plane (issue 23, s45a).

    The sizes are read once at import (custom_all_reduce_v2.py:72-77): the forced pull size,
    when set, overrides the tuned one (:151-152); else the tuned table's pull bytes, at
    least 16 MB in every table (configs/custom_all_reduce_v2.py:142-333), are clipped to the
    max size (:147-148). A size <= 0 opts out (`pull_enabled`, :175): no pull plane
    (:322-333), so `comm.pull` is None and the NVLink vocab gather allocates no `pull_out`
    (vocab_gather.py:103): slices past the push slot take the NCCL ring (:117-124), and
    the push path writes a fresh tensor each call (:139-147), a graph intermediate."""
    forced = _env_int(environ, CA_V2_PULL_KB, None)
    if forced is not None:
        return forced * 1024 > 0
    size = _env_int(environ, CA_V2_MAX_KB, 16 * 1024)
    return size is not None and size > 0


# Under attention DP with --enable-dp-lm-head, the group each target class builds its lm_head
# on: (untied, tied). "attn_tp": `ParallelLMHead(use_attn_tp_group=get_parallel().
# enable_dp_lm_head)`, or a tied `embed_tokens` built with `use_attn_tp_group=
# is_dp_attention_enabled()`; "tp": built without use_attn_tp_group (the full TP group).
# - MiniMax-M3 (minimax_m3.py:2005-2011), MiniMax-M3-VL (minimax_m3_vl.py:145-151): the head.
# - Llama: untied head llama.py:573-579; tied, `embed_tokens` (llama.py:570-571) on the TP
#   group (llama.py:432-437).
# - Qwen2: untied head without use_attn_tp_group (qwen2.py:539-544); tied at PP 1,
#   `embed_tokens` (qwen2.py:536-537) on the attention-TP group (qwen2.py:370-375).
# - Qwen3: untied head qwen3.py:582-589; tied at PP 1, `embed_tokens` (qwen3.py:579-580) of
#   Qwen3Model, a Qwen2Model (qwen3.py:490, qwen2.py:370-375).
# - Qwen2-MoE, Qwen3-MoE: always their own head, whatever the tie (qwen2_moe.py:1237-1243,
#   qwen3_moe.py:1017-1023).
DP_LM_HEAD_TARGETS: dict[str, tuple[str, str]] = {
    "MiniMaxM3SparseForCausalLM": ("attn_tp", "attn_tp"),
    "MiniMaxM3SparseForConditionalGeneration": ("attn_tp", "attn_tp"),
    "LlamaForCausalLM": ("attn_tp", "tp"),
    "Qwen2ForCausalLM": ("tp", "attn_tp"),
    "Qwen3ForCausalLM": ("attn_tp", "attn_tp"),
    "Qwen3MoeForCausalLM": ("attn_tp", "attn_tp"),
    "Qwen2MoeForCausalLM": ("attn_tp", "attn_tp"),
}
# classes that tie only on a single pipeline stage (`pp_group.world_size == 1 and
# tie_word_embeddings`, qwen2.py:536, qwen3.py:579); SGLang allows DSPARK at PP > 1 only on
# a PD prefill server (speculative_hook.py:713-717)
TIED_AT_PP1 = frozenset({"Qwen2ForCausalLM", "Qwen3ForCausalLM"})
# classes that tie whatever the stages: on a later stage their `embed_tokens` is a
# PPMissingLayer (llama.py:432-439, 570-571), no vocab shard for the draft to gather on
TIED_FIRST_STAGE = frozenset({"LlamaForCausalLM"})


def lm_group(architecture: object, tied: bool, pp_size: int = 1) -> str:
    """Under attention DP with --enable-dp-lm-head, the group the target's lm_head is sharded
    on (`use_attn_tp_group`, vocab_parallel_embedding.py:243-263): "attn_tp", "tp", or
    "unknown" for a target class graphfit has not read (each model class decides:
    `DP_LM_HEAD_TARGETS`) and for a tied Llama on a later pipeline stage (`pp_size` > 1),
    whose head there is no vocab shard (`TIED_FIRST_STAGE`)."""
    if not isinstance(architecture, str) or architecture not in DP_LM_HEAD_TARGETS:
        return "unknown"
    untied, tied_group = DP_LM_HEAD_TARGETS[architecture]
    if not tied or (pp_size > 1 and architecture in TIED_AT_PP1):
        return untied
    return "unknown" if pp_size > 1 and architecture in TIED_FIRST_STAGE else tied_group


def tp_problem(text: Mapping[str, Any], tp_size: int, lm_vocab: int | None,
               environ: Mapping[str, str], custom_all_reduce: bool,
               attn_group: bool = False) -> str | None:
    """Why the rewritten MiniMax draft config `text` is refused at lm_head TP `tp_size` > 1
    (module docstring): SGLang's own ValueError, or "not modelled" where the GPUs decide a
    graph buffer; None: planned with TP 1's rules (no buffer of its own). `lm_vocab`: the
    target's `vocab_size` (None: its config is not local). `attn_group`: the lm_head is on
    the attention-TP group (`use_attn_tp_group`, attention DP with --enable-dp-lm-head): the
    shard's gather runs on that group (models/dspark.py:213-218), whose custom all-reduce
    follows the same switch (parallel_state.py:2813-2826, `use_custom_allreduce=None`), and
    no base-logit gatherer is built (models/dspark.py:569): the base logits go through
    `gather_and_crop_vocab` (:121-125), which keeps no buffer."""
    head = str(text.get("markov_head_type", "vanilla")).lower()  # models/dspark.py:392
    if head != "vanilla" or not flag(environ, W2_TP_SHARD, True):
        if attn_group:
            return None
        return (f"a MiniMax M3.1 DSPARK draft at TP {tp_size} (unsharded Markov head) is not "
                f"modelled: its base-logit gather's buffer needs NVLink multicast "
                f"(models/dspark.py:569-573, triton_symm_mem_ag.py:543-551)")
    vocab = text.get("vocab_size")
    if lm_vocab is None or not isinstance(vocab, int) or isinstance(vocab, bool):
        return (f"a MiniMax M3.1 DSPARK draft at TP {tp_size} is not modelled without the "
                f"target's and the draft's vocab_size (models/dspark.py:204-209)")
    if vocab != lm_vocab:
        return (f"SGLang's Markov TP shard raises (models/dspark.py:204-209): ValueError: "
                f"lm_head.org_vocab_size {lm_vocab} != markov vocab_size {vocab}")
    # off, the TP group's custom all-reduce is the legacy CustomAllreduce
    # (dispatch_custom_allreduce, custom_all_reduce.py:387-398), which has no multicast plane
    # (no `has_multicast`, :40): `_nvlink_ca_comm` gives the NCCL ring (vocab_gather.py:175)
    # and with the V2 pull plane switched off (`pull_plane`) the gather keeps no buffer
    if flag(environ, NVLINK_GATHER, True) and custom_all_reduce and flag(environ, CA_V2, True) \
            and pull_plane(environ):
        group = " (attention-TP group)" if attn_group else ""
        return (f"a MiniMax M3.1 DSPARK draft at TP {tp_size}{group} is not modelled: its vocab "
                f"gather's buffer needs NVLink multicast (vocab_gather.py:103-115); "
                f"--disable-custom-all-reduce plans it")
    return None


__all__ = ["CA_V2", "CA_V2_MAX_KB", "CA_V2_PULL_KB", "DP_LM_HEAD_TARGETS", "NVLINK_GATHER",
           "TIED_AT_PP1", "TIED_FIRST_STAGE", "W2_TP_SHARD", "lm_group", "pull_plane", "tp_problem"]
