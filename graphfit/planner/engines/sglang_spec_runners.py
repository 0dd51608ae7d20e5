"""SGLang 0.5.23's multi-layer EAGLE draft-extend graphs (`--enable-multi-layer-eagle`).

With multi-layer EAGLE (EAGLE / EAGLE3 / NEXTN, speculative/spec_info.py:354) the draft
worker builds no draft-decode runner (`cuda_graph_runner = None`,
multi_layer_eagle_worker_v2.py:417-418) and one draft-extend runner per draft step, all of
them sharing ONE buffer set owned by the composite
`MultiLayerEagleMultiStepDraftExtendCudaGraphRunner`
(multi_layer_eagle_draft_extend_cuda_graph_runner.py:540-655). graphfit plans that
composite as one component, `mtp_draft_extend`:

* ladder: each step's `get_batch_sizes_to_capture(model_runner)` with the default width 1
  (:186), the same list as the single-layer draft runners; every step captures every size
  (per-step graphs), or one graph per size holds all steps (the single-CG variant,
  SGLANG_ENABLE_SINGLE_CG_DRAFT, on by default, :980-1129): the sizes and buffers are the same;
* width: `resolve_num_tokens_per_req(phase="draft_extend") + num_front_tokens` (:188-191) =
  speculative_num_draft_tokens; the front tokens of the boundary-KV fix exist only for hybrid
  (mamba) request pools (multi_layer_eagle_worker_v2.py:245-281), which graphfit's SGLang
  model does not plan;
* buffers: `_allocate_buffers` (:655-760); padding: `prepare` through
  `fill_draft_extend_prepare_buffers` (kernels/ops/speculative/multi_layer_eagle.py:733-796:
  token rows of the padded tail are left as they are, seq_lens gets the backend's fill,
  num_accept_tokens -1, select_index is recomputed for every row).
"""

from __future__ import annotations

from graphfit.planner.core.buffers import (
    KEEP,
    ONLY_SENTINEL,
    ONLY_ZERO,
    ZERO,
    Axis,
    BufferSpec,
    FillKind,
    FillPolicy,
)
from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.batch import graph_input
from graphfit.planner.engines.sglang_draft_shape import (
    draft_dtype,
    draft_extend_hidden,
    draft_vocab,
)
from graphfit.planner.engines.sglang_mamba_buffers import draft_extend_track_buffers
from graphfit.planner.engines.sglang_seq_len_fill import backend_fill, draft_decode_fill

RUNNER = "mtp_draft_extend"
SRC = "multi_layer_eagle_draft_extend_cuda_graph_runner.py"
KERNEL = "kernels/ops/speculative/multi_layer_eagle.py"
MROPE_SECTIONS = 3  # mrope_positions is [3, tokens] (:671)
NO_ACCEPT = FillPolicy(FillKind.SENTINEL, -1)  # num_accept_tokens[:bs].fill_(-1) (:779)
# architectures whose model override turns multi-layer EAGLE on for --speculative-algorithm
# EAGLE (NEXTN is renamed EAGLE first, speculative_hook.py:109-116)
AUTO_ARCHITECTURES = frozenset({
    "MiMoV2ForCausalLM", "MiMoV2FlashForCausalLM",  # model_overrides/mimo_v2.py:20-25
    "GigaChat35ForCausalLM", "GigaChat35ForCausalLMNextN",  # model_overrides/gigachat35.py:21-28
    "Step3p5ForCausalLM", "Step3p7ForConditionalGeneration",  # overrides.py:331-350
})
MULTI_LAYER_METHODS = frozenset({SpecMethod.EAGLE, SpecMethod.EAGLE3, SpecMethod.MTP})


def multi_layer_eagle(config: EngineSettings) -> bool:
    """Whether SGLang runs the multi-layer EAGLE worker (spec_info.py:354: `is_eagle()` and
    the switch; STANDALONE and NGRAM ignore it, FROZEN_KV_MTP is picked first, :343)."""
    return (config.multi_layer_eagle and config.spec_method in MULTI_LAYER_METHODS
            and not config.frozen_kv_mtp)


def auto_multi_layer(config: EngineSettings) -> bool:
    """The model overrides that turn it on for EAGLE (AUTO_ARCHITECTURES)."""
    return (config.spec_method in (SpecMethod.EAGLE, SpecMethod.MTP)
            and not config.frozen_kv_mtp and config.architecture in AUTO_ARCHITECTURES)


def mtp_hidden_size(config: EngineSettings) -> int:
    """`get_draft_input_from_target_hidden_dim` (eagle_utils.py:237-276): EAGLE3 reads its
    aux target layers, the others the draft's spec_hidden_size (sglang_draft_shape)."""
    return draft_extend_hidden(config)


def mtp_seq_len_fill(config: EngineSettings, width: int) -> int:
    """The draft-extend backend's `get_cuda_graph_seq_len_fill_value()`, which the composite
    takes from its step runners (:209-211, 595): 1 for every backend but aiter, whose fill is
    its `num_draft_tokens` = speculative_num_draft_tokens (layers/attention/aiter_backend.py:
    370, 3416-3417), the component's width (graphfit.planner.engines.sglang_seq_len_fill
    states the rule for every runner). An unknown backend (None) keeps 1."""
    return backend_fill(config.mtp_draft_backend, width)


def mtp_buffers(config: EngineSettings, width: int, max_bs: int, *, gathered: bool
                ) -> tuple[BufferSpec, ...]:
    """The shared buffer set of every step's runner (`_allocate_buffers`, :655-760).

    `gathered`: `require_gathered_buffer()` (attention DP): the logits keep one row per
    token (`prune_draft_extend_logits` is off, :176-178) and the global token counts exist.
    """
    tokens = max_bs * width
    stale = (f"{KERNEL}:768-771: the padded tail keeps the previous replay's rows "
             f"(SGLang's own behaviour; graphfit cannot claim a safe fill)")
    seq_fill = FillPolicy(FillKind.SENTINEL, mtp_seq_len_fill(config, width))
    specs = [
        graph_input(RUNNER, "input_ids", "int64", Axis.TOKENS, tokens, KEEP, why=stale),
        graph_input(RUNNER, "positions", "int64", Axis.TOKENS, tokens, KEEP, why=stale),
        graph_input(RUNNER, "out_cache_loc", "int64", Axis.TOKENS, tokens, KEEP,
                    why=f"allocated as ones (:669); {stale}"),
        graph_input(RUNNER, "mrope_positions", "int64", Axis.TOKENS, tokens, KEEP,
                    leading=(MROPE_SECTIONS,), why="allocated for every model (:671)"),
        graph_input(RUNNER, "hidden_states", draft_dtype(config), Axis.TOKENS, tokens, KEEP,
                    trailing=(mtp_hidden_size(config),),
                    why=f"{KERNEL}:795-796 copies the real rows only"),
        graph_input(RUNNER, "seq_lens", "int32", Axis.REQUESTS, max_bs, seq_fill,
                    ONLY_SENTINEL, why=f"{KERNEL}:774-775: seq_lens[:bs] = fill value"),
        graph_input(RUNNER, "seq_lens_cpu", "int32", Axis.REQUESTS, max_bs, seq_fill,
                    ONLY_SENTINEL, why=f"{SRC}: prepare refills the host copy (:895-899)"),
        graph_input(RUNNER, "req_pool_indices", "int64", Axis.REQUESTS, max_bs, KEEP,
                    why=f"{KERNEL}:776 copies the real rows only (a staging backend zeroes "
                        f"the tail, :805)"),
        graph_input(RUNNER, "num_correct_drafts", "int32", Axis.REQUESTS, max_bs, KEEP,
                    why=f"allocated as ones (:676); {KERNEL}:778 copies the real rows"),
        graph_input(RUNNER, "num_accept_tokens", "int32", Axis.REQUESTS, max_bs, NO_ACCEPT,
                    ONLY_SENTINEL, why=f"{KERNEL}:779: num_accept_tokens[:bs] = -1"),
        graph_input(RUNNER, "extend_seq_lens", "int32", Axis.REQUESTS, max_bs, KEEP,
                    why="constant: full(width) for every row (:681-683)"),
        graph_input(RUNNER, "extend_start_loc", "int32", Axis.REQUESTS, max_bs, KEEP,
                    why="constant: arange(0, max_num_token, width) (:684-686)"),
        graph_input(RUNNER, "select_index", "int64", Axis.REQUESTS, max_bs, KEEP,
                    why=f"{KERNEL}:782-785 recomputes every row: row * width + "
                        f"num_correct_drafts, inside the row's window"),
    ]
    logits_axis, logits_rows = ((Axis.TOKENS, tokens) if gathered
                                else (Axis.REQUESTS, max_bs))
    specs.append(graph_input(RUNNER, "next_token_logits_buffer", "float32", logits_axis,
                             logits_rows, KEEP, trailing=(draft_vocab(config),),
                             why="one row per request unless attention DP gathers "
                                 "(:689-695); written by the graph"))
    if gathered:
        ranks = config.attn_dp_size
        specs += [BufferSpec(name, "int32", Axis.FIXED, (), ranks, KEEP,
                             source=f"{RUNNER}: {SRC}:717-730; {KERNEL}:791-793 sets the "
                                    f"padded token count")
                  for name in ("global_num_tokens_gpu", "global_num_tokens_for_logprob_gpu")]
    # the hybrid-mamba extra buffer's tracked slots (:742-746; graphfit.planner.engines.
    # sglang_mamba_buffers)
    specs += draft_extend_track_buffers(config, RUNNER, max_bs)
    return tuple(specs)


# --------------------------------------------------------------------------------------------
# FROZEN_KV_MTP (`--speculative-algorithm FROZEN_KV_MTP`): speculative/frozen_kv_mtp_*.py
# --------------------------------------------------------------------------------------------

FROZEN_RUNNER = "frozen_drafter"
FROZEN_SRC = "frozen_kv_mtp_cuda_graph_runner.py"


def frozen_kv_mtp(config: EngineSettings) -> bool:
    """Whether SGLang runs the FROZEN_KV_MTP worker (spec_info.py:343 picks it before the
    multi-layer switch is read: FROZEN_KV_MTP ignores --enable-multi-layer-eagle)."""
    return config.frozen_kv_mtp and config.spec_method is SpecMethod.MTP


def frozen_hidden_size(config: EngineSettings) -> int:
    """The draft loop's recurrent hidden width: the draft model's `backbone_hidden_size`
    (frozen_kv_mtp_worker_v2.py:329-331, models/gemma4_mtp.py:80), which a pasted line's
    local Gemma 4 assistant draft gives as `draft_hidden_size`
    (graphfit.inputs.sglang_draft); the target's hidden size when nobody gives it (the
    assistant is trained on its target's hidden states)."""
    return config.draft_hidden_size or config.hidden_size


def frozen_buffers(config: EngineSettings, topk: int, max_bs: int, *, gathered: bool
                   ) -> tuple[BufferSpec, ...]:
    """`FrozenKVMTPCudaGraphRunner.__init__` (frozen_kv_mtp_cuda_graph_runner.py:90-188):
    the draft loop runs `max_bs * topk` expanded rows (width topk, :123-128); its padded tail
    is reset only when the batch is padded (`execute`, :413-418: seq_lens to the fill value,
    positions and req_pool_indices to zero; seq_lens_cpu :444-447); the per-request inputs
    (hidden_states, bonus_tokens) are copied for the real rows only (:428-430).

    The recurrent hidden state is the draft model's `backbone_hidden_size`
    (`frozen_hidden_size`).
    """
    rows = max_bs * topk
    # the draft backend's seq_len fill value (:133-135): with topk 1 the draft model runner's
    # own backend (frozen_kv_mtp_worker_v2.py:259-261: the draft flag, else the decode one),
    # else triton / trtllm_mha (:263-271), both 1
    seq_fill = FillPolicy(FillKind.SENTINEL, draft_decode_fill(config) if topk == 1 else 1)
    inputs = f"{FROZEN_SRC}:428-430 copies the real rows only"
    specs = [
        graph_input(FROZEN_RUNNER, "req_pool_indices", "int64", Axis.TOKENS, rows, ZERO,
                    ONLY_ZERO, why=f"one row per expanded (request, branch); zeroed when "
                                   f"padded ({FROZEN_SRC}:413-418)"),
        graph_input(FROZEN_RUNNER, "positions", "int64", Axis.TOKENS, rows, ZERO, ONLY_ZERO,
                    why=f"zeroed when padded ({FROZEN_SRC}:413-418)"),
        graph_input(FROZEN_RUNNER, "mrope_positions", "int64", Axis.TOKENS, rows, KEEP,
                    leading=(MROPE_SECTIONS,), why="allocated for every model (:146)"),
        graph_input(FROZEN_RUNNER, "seq_lens", "int64", Axis.TOKENS, rows, seq_fill,
                    ONLY_SENTINEL, why=f"refilled when padded ({FROZEN_SRC}:413-414)"),
        graph_input(FROZEN_RUNNER, "seq_lens_cpu", "int64", Axis.TOKENS, rows, seq_fill,
                    ONLY_SENTINEL, why=f"host copy, refilled when padded ({FROZEN_SRC}:"
                                       f"444-447)"),
        graph_input(FROZEN_RUNNER, "topk_p", "float32", Axis.REQUESTS, max_bs, KEEP,
                    trailing=(topk,), why="never copied in by execute (the graph's own)"),
        graph_input(FROZEN_RUNNER, "topk_index", "int64", Axis.REQUESTS, max_bs, KEEP,
                    trailing=(topk,), why="never copied in by execute (the graph's own)"),
        graph_input(FROZEN_RUNNER, "hidden_states", draft_dtype(config), Axis.REQUESTS,
                    max_bs, KEEP,
                    trailing=(frozen_hidden_size(config),), why=inputs),
        graph_input(FROZEN_RUNNER, "bonus_tokens", "int64", Axis.REQUESTS, max_bs, KEEP,
                    why=inputs),
    ]
    if gathered:
        specs += [BufferSpec(name, "int32", Axis.FIXED, (), config.attn_dp_size, KEEP,
                             source=f"{FROZEN_RUNNER}: {FROZEN_SRC}:157-174")
                  for name in ("global_num_tokens_gpu", "global_num_tokens_for_logprob_gpu")]
    return tuple(specs)
