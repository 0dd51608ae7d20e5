"""SGLang 0.5.23's DFLASH speculative algorithm: its resolution and its draft graph runner.

DFLASH drafts a whole block of `block_size` tokens in one draft forward and verifies it with
the target in one forward (speculative/dflash_worker_v2.py). SGLang fixes steps and topk to 1
and sets `speculative_num_draft_tokens` to the block size (arg_groups/speculative_hook.py:
331-386), so the target runner is the usual target-verify runner of width block_size. The
draft is a second `TpModelWorker` (`build_draft_tp_worker`, dflash_worker_v2.py:431-437)
whose `init_cuda_graphs` (dflash_worker_v2.py:698-752) builds a plain
`DecodeCudaGraphRunner` on the draft model runner: a draft worker captures TARGET_VERIFY
(decode_cuda_graph_runner.py:362-367, allowed because DFLASH `supports_target_verify_for_
draft`, spec_info.py:135-136) with `decode_num_tokens_per_req` = block_size rows per request
(model_runner.py:876-895, spec_info.py:291-301: only a DSPARK draft drops one), its batch
sizes filtered by `get_batch_sizes_to_capture` with that width (decode_cuda_graph_runner.py:
386-390), the same `DecodeInputBuffers` and padding registry as the target's runner.

Before capture a greedy draft sampler is folded into the graph (`_maybe_build_draft_sampler`,
dflash_worker_v2.py:741-747, 884-998): for a plain DFlash draft `_DflashDraftSampler`
(:135-178) allocates `out` int64 of max(cuda_graph_config.decode.bs) * (block_size - 1)
tokens, plus per-rank argmax / all-gather buffers under TP > 1. A block of 1 keeps the head
eager (:892-893).

What SGLang refuses or turns off (modelled here as a refusal with the reason, or as no draft
graphs): pp_size != 1 (speculative_hook.py:319-322); a block size <= 0 or one that differs
from --speculative-num-draft-tokens (:368-382); a draft window smaller than the block
(:427-434). Under attention DP SGLang needs --enable-dp-lm-head and the draft runs eager
(:303-316, dflash_worker_v2.py:718-725): graphfit.planner.engines.sglang_spec_dp.
"""

from __future__ import annotations

from graphfit.planner.core.buffers import KEEP, Axis, BufferSpec
from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_lilicorr_weights import token_table
from graphfit.planner.engines.sglang_spec_dp import check_dflash

RUNNER = "dflash_draft"  # graphfit's component name for the draft's DecodeCudaGraphRunner
BLOCK_DEFAULT = 16  # speculative_hook.py:414-421 when the draft config names no block size


def dflash(config: EngineSettings) -> bool:
    return config.spec_method is SpecMethod.DFLASH


def resolve_dflash(config: EngineSettings) -> dict[str, object]:
    """`_handle_dflash` (speculative_hook.py:287-446): steps and topk forced to 1 (a warning
    when given otherwise, :331-366), the block size is --speculative-num-draft-tokens."""
    block = config.speculative_num_draft_tokens
    if block is None:
        raise ConfigError(
            "speculative_num_draft_tokens: SGLang's DFLASH reads the block size from the "
            "draft's config.json (speculative_hook.py:388-423, default 16); give "
            "--speculative-num-draft-tokens or --speculative-dflash-block-size")
    if block < 2:
        raise ConfigError(
            f"speculative_num_draft_tokens: a DFLASH block of {block} drafts no token "
            f"(its sampler stays eager, dflash_worker_v2.py:892-893): not modelled")
    if config.pp_size != 1:
        raise ConfigError(f"pp_size: SGLang's DFLASH supports pp_size 1 only "
                          f"(speculative_hook.py:319-322), got {config.pp_size}")
    check_dflash(config)  # attention DP (graphfit.planner.engines.sglang_spec_dp)
    return {"num_speculative_tokens": 1, "speculative_eagle_topk": 1,
            "speculative_num_draft_tokens": block}


def sampler_buffers(config: EngineSettings, block: int, declared_max_bs: int
                    ) -> tuple[BufferSpec, ...]:
    """`_DflashDraftSampler.__init__` (dflash_worker_v2.py:147-178): sized from the declared
    decode list's maximum (max(cuda_graph_config.decode.bs), :996), not the filtered one,
    (block - 1) tokens per request; the TP > 1 argmax buffers (:159-178) per rank. A Domino
    draft (`dflash_domino`) folds `_DominoDraftSampler` instead (:937-967): `out` alone, the
    same size, at any TP size (its all-gathers allocate inside the graph's pool). A selector
    draft (`dflash_selector_top_k` K, chosen first, :907) folds `_SelectorDraftSampler`
    (:254-283): `out`, per-request temperatures / greedy mask, uniforms (block - 1 each) and
    the candidate / q rows (block - 1) x K, all sized from the same maximum. None at all
    under SGLANG_DFLASH_EAGER_DRAFT_SAMPLER=1 (`dflash_eager_sampler`: the head stays eager,
    :890-891)."""
    if config.dflash_eager_sampler:  # SGLANG_DFLASH_EAGER_DRAFT_SAMPLER (:890-891)
        return ()
    tokens = declared_max_bs * (block - 1)
    why = "written by the draft graph's in-graph argmax before it is read"
    top_k = config.dflash_selector_top_k
    if top_k is not None:  # `_SelectorDraftSampler.__init__` (dflash_worker_v2.py:254-283)
        gamma = block - 1
        src = f"{RUNNER}: dflash_worker_v2.py:266-283 (selector sampler)"
        return tuple(BufferSpec(name, dtype, Axis.FIXED, (), count, KEEP, trailing=trailing,
                                source=src)
                     for name, dtype, trailing, count in (
                         ("sampler_out", "int64", (), tokens),
                         ("sampler_temperatures", "float32", (), declared_max_bs),
                         ("sampler_greedy_mask", "bool", (), declared_max_bs),
                         ("sampler_uniforms", "float32", (gamma,), declared_max_bs),
                         ("sampler_candidate_out", "int64", (gamma, top_k), declared_max_bs),
                         ("sampler_q_out", "float32", (gamma, top_k), declared_max_bs)))
    lilicorr = config.dflash_lilicorr_top_k
    if lilicorr is not None:  # `LiLiCorrDraftSampler.__init__` (lilicorr_utils.py:239-290)
        return lilicorr_buffers(config, block, declared_max_bs, lilicorr)
    if config.dflash_domino:  # `_DominoDraftSampler.__init__` (dflash_worker_v2.py:322-345)
        return (BufferSpec("sampler_out", "int64", Axis.FIXED, (), tokens, KEEP,
                           source=f"{RUNNER}: dflash_worker_v2.py:341-344 (Domino rollout; "
                                  f"written by the draft graph before it is read)"),)
    specs = [BufferSpec("sampler_out", "int64", Axis.FIXED, (), tokens, KEEP,
                        source=f"{RUNNER}: dflash_worker_v2.py:156-158 ({why})")]
    tp = config.tp_size
    if tp > 1:
        for name, dtype, count, lead in (
                ("sampler_local_max", config.dtype, tokens, ()),
                ("sampler_local_arg", "int64", tokens, ()),
                ("sampler_gathered_max", config.dtype, tp * tokens, ()),
                ("sampler_gathered_ids", "int64", tp * tokens, ()),
                ("sampler_best_rank", "int64", tokens, (1,)),
                ("sampler_selected_ids", "int64", tokens, (1,))):
            specs.append(BufferSpec(name, dtype, Axis.FIXED, (), count, KEEP, lead,
                                    source=f"{RUNNER}: dflash_worker_v2.py:159-178 (TP "
                                           f"{tp} argmax; {why})"))
    return tuple(specs)


def lilicorr_buffers(config: EngineSettings, block: int, max_bs: int, top_k: int
                     ) -> tuple[BufferSpec, ...]:
    """A LiLiCorr draft's folded sampler (`build_lilicorr_draft_sampler`, lilicorr_utils.py:
    377-419, chosen after a selector and before a Domino one, dflash_worker_v2.py:924-934):
    max_bs is the last of `draft_graph_batch_sizes()`, the sorted positive decode list
    (:371-374), i.e. max(cuda_graph_config.decode.bs) as for the other samplers; the anchor
    rows are the draft's `fc` output width (its hidden size, models/dflash.py:764-774) in the
    head's dtype (its slot embedding's, the model dtype); `block - 1` slots of `top_k`
    candidates each. The weight-sized token table the sampler holds is planned with the
    draft's head geometry (graphfit.planner.engines.sglang_lilicorr_weights.token_table)."""
    slots = block - 1
    hidden = config.draft_hidden_size or config.hidden_size
    src = f"{RUNNER}: lilicorr_utils.py:264-290 (LiLiCorr sampler)"
    return token_table(config) + tuple(
        BufferSpec(name, dtype, Axis.FIXED, (), count, KEEP, trailing=trailing, source=src)
        for name, dtype, trailing, count in (
            ("sampler_out", "int64", (), max_bs * slots),
            ("sampler_anchor", config.dtype, (hidden,), max_bs),
            ("sampler_anchor_valid", "bool", (), max_bs),
            ("sampler_temperatures", "float32", (), max_bs),
            ("sampler_greedy_mask", "bool", (), max_bs),
            ("sampler_uniforms", "float32", (slots,), max_bs),
            ("sampler_q_out", "float32", (slots, top_k), max_bs),
            ("sampler_candidate_out", "int64", (slots, top_k), max_bs)))


def draft_graph_input_note() -> tuple[str, str]:
    return ("dflash", "the draft's DecodeCudaGraphRunner (TARGET_VERIFY, width block size) "
                      "with its in-graph greedy sampler")


