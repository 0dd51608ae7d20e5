"""SGLang 0.5.23's DSPARK speculative algorithm: its resolution and its draft graph runner.

DSPARK (speculative/dspark_components/) drafts gamma tokens in one draft forward and verifies
the anchor plus those gamma tokens in one target forward. Its resolution (`_handle_dspark`,
arg_groups/speculative_hook.py:666-883) forces steps and topk to 1 (a warning when given
otherwise, :763-789) and sets `speculative_num_draft_tokens` to gamma + 1 (:828-840), gamma
being --speculative-dspark-block-size, else the draft config's block size, else 7 when
--speculative-num-draft-tokens is not given either (:807-823, dspark_config.py:21).

Graphs, in the default SGLANG_RAGGED_VERIFY_MODE=static (environ.py:1572):
- the target's usual target-verify runner, width gamma + 1: the token-bucket ragged verify
  graphs are built only in compact mode (decode_cuda_graph_runner.py:162-167, 397-405);
- the draft is a second `TpModelWorker` (`build_draft_tp_worker`, dspark_worker_v2.py:
  226-239) whose `init_cuda_graphs` (:581-621) builds a plain `DecodeCudaGraphRunner` on the
  draft model runner: TARGET_VERIFY (decode_cuda_graph_runner.py:359-367, allowed because
  DSPARK is of the DFLASH family, spec_info.py:126-136) with `decode_num_tokens_per_req` rows
  per request: gamma = num_draft_tokens - 1 when the draft samples from the anchor row
  (spec_info.py:291-301), gamma + 1 when it does not (model_runner.py:880-889; the draft
  config's `sample_from_anchor`, default True, dspark_config.py:29-31:
  SglangOptions.dspark_samples_anchor, read from a local draft by graphfit.inputs.
  sglang_dspark); its batch sizes
  filtered by `get_batch_sizes_to_capture` with that width (decode_cuda_graph_runner.py:
  386-390), the target runner's `DecodeInputBuffers` with the draft's hidden size;
- the draft proposal (the Markov block) folded into the draft graph as a capture tail hook
  (SGLANG_DSPARK_FOLDED_PROPOSAL, default on, environ.py:555; dspark_worker_v2.py:600-613):
  `DsparkDraftSampler` (dspark_draft_sampler.py:30-140) sized from the declared decode list's
  maximum (max(cuda_graph_config.decode.bs), dspark_worker_v2.py:696-711): `out` int64
  max_bs * gamma, three per-request sampling parameters, and, for a sampling (non-greedy,
  SGLANG_DSPARK_USE_GREEDY_DRAFT off, environ.py:554) draft, `step_logits`
  [max_bs, gamma, vocab] allocated by the warmup call before capture (:92-94, 125-140) in the
  dtype of base logits + Markov bias (the model dtype, models/dspark.py:244-246).

No other persistent graph buffer in the default mode: the target-hidden KV injection
allocates none (dspark_kv_inject.py), the verify epilogue and the sampling-accept graph need
compact mode or a DeepSeek-V4.1 target with a MoE draft (dspark_worker_v2.py:400-468), the
confidence head exists only outside static mode (models/dspark.py:487-489).

What SGLang refuses, restated here: pp_size != 1 outside PD prefill (speculative_hook.py:
714-718); a block size <= 0 (:807-812); num_draft_tokens != gamma + 1 (:826-835);
num_draft_tokens < 2 (:846-850). Attention DP (--enable-dp-lm-head; the dense draft keys its
graphs by the local batch, decode_cuda_graph_runner.py:776-789): graphfit.planner.engines.
sglang_spec_dp. Not modelled (refused with the reason): pipeline parallelism.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from graphfit.planner.core.buffers import KEEP, Axis, BufferSpec
from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.base import KeyedComponentModel
from graphfit.planner.engines.batch import BatchRunner
from graphfit.planner.engines.sglang_draft_shape import draft_dtype, draft_vocab
from graphfit.planner.engines.sglang_dspark_epilogue import (
    builds_epilogue,
    compact_component,
    confidence_buffers,
    has_confidence_head,
)
from graphfit.planner.engines.sglang_dspark_modes import (
    check_ragged_verify,
    folds_sampler,
    keeps_step_logits,
)
from graphfit.planner.engines.sglang_pool import request_pool
from graphfit.planner.engines.sglang_spec_dp import check_dspark

RUNNER = "dspark_draft"  # graphfit's component name for the draft's DecodeCudaGraphRunner
GAMMA_DEFAULT = 7  # DEFAULT_DSPARK_GAMMA, dspark_config.py:21


def dspark(config: EngineSettings) -> bool:
    return config.spec_method is SpecMethod.DSPARK


def resolve_dspark(config: EngineSettings) -> dict[str, object]:
    """`_handle_dspark` (speculative_hook.py:666-883): steps and topk forced to 1, the verify
    window is --speculative-num-draft-tokens (= gamma + 1)."""
    window = config.speculative_num_draft_tokens
    if window is None:
        raise ConfigError(
            "speculative_num_draft_tokens: give --speculative-dspark-block-size or "
            "--speculative-num-draft-tokens (gamma is read from a local draft's config only; "
            "speculative_hook.py:814-823)")
    if window < 2:
        raise ConfigError(
            f"speculative_num_draft_tokens: SGLang's DSPARK needs >= 2 (= gamma + 1), got "
            f"{window} (speculative_hook.py:846-850)")
    if config.pp_size != 1:
        raise ConfigError(
            f"pp_size: SGLang's DSPARK supports pp_size 1 only outside PD prefill "
            f"(speculative_hook.py:714-718), got {config.pp_size}")
    check_ragged_verify(config)  # SGLang's environment (sglang_dspark_modes)
    check_dspark(config)  # attention DP (graphfit.planner.engines.sglang_spec_dp)
    return {"num_speculative_tokens": 1, "speculative_eagle_topk": 1,
            "speculative_num_draft_tokens": window}


def draft_width(window: int, sample_from_anchor: bool = True) -> int:
    """Rows per request of the draft runner: gamma when the draft samples from the anchor
    row (spec_info.py:291-301), gamma + 1 when not (model_runner.py:880-889)."""
    return window - 1 if sample_from_anchor else window


def sampler_buffers(config: EngineSettings, gamma: int, declared_max_bs: int
                    ) -> tuple[BufferSpec, ...]:
    """`DsparkDraftSampler` (dspark_draft_sampler.py:30-140), built with
    max(cuda_graph_config.decode.bs) (dspark_worker_v2.py:696-711), the declared decode list's
    maximum, not the filtered one. No step logits for a greedy draft, `verify_ids` under
    the mid fold (graphfit.planner.engines.sglang_dspark_modes)."""
    bs = declared_max_bs
    staged = "staged before each replay (stage_sampling_params, dspark_draft_sampler.py:" \
             "142-144)"
    specs = [
        BufferSpec("sampler_out", "int64", Axis.FIXED, (), bs * gamma, KEEP,
                   source=f"{RUNNER}: dspark_draft_sampler.py:54-62 (written by the graph's "
                          f"Markov block before it is read)"),
        BufferSpec("sampler_temperatures", "float32", Axis.FIXED, (), bs, KEEP,
                   source=f"{RUNNER}: dspark_draft_sampler.py:84-91 ({staged})"),
        BufferSpec("sampler_greedy_mask", "bool", Axis.FIXED, (), bs, KEEP,
                   source=f"{RUNNER}: dspark_draft_sampler.py:84-91 ({staged})"),
        BufferSpec("sampler_step_temperatures", "float32", Axis.FIXED, (), bs, KEEP,
                   source=f"{RUNNER}: dspark_draft_sampler.py:84-91 ({staged})"),
    ]
    if keeps_step_logits(config):
        # the draft model's base logits: its lm_head's vocabulary and dtype
        # (models/dspark.py:393-396, dspark_draft_sampler.py:200-202), the draft ModelConfig's
        specs.append(BufferSpec(
            "sampler_step_logits", draft_dtype(config), Axis.FIXED, (), bs, KEEP,
            trailing=(gamma, draft_vocab(config)),
            source=f"{RUNNER}: dspark_draft_sampler.py:125-140 (allocated by the warmup "
                   f"call before capture; written by each step)"))
    if config.dspark_mid_fold:
        specs.append(BufferSpec(
            "sampler_verify_ids", "int64", Axis.FIXED, (), bs, KEEP, trailing=(gamma + 1,),
            source=f"{RUNNER}: dspark_draft_sampler.py:63-68 (SGLANG_OPT_DSV41_DSPARK_MID_"
                   f"FOLD; written by the graph tail before it is read)"))
    return tuple(specs)



class _Buffers(Protocol):
    def __call__(self, config: EngineSettings, width: int, max_bs: int, *, runner: str = ...,
                 hidden: int | None = ...) -> tuple[BufferSpec, ...]: ...


def dspark_runner(config: EngineSettings, declared: tuple[int, ...],
                  sizes_for: Callable[[str, int], tuple[int, ...]],
                  target_buffers: _Buffers) -> BatchRunner:
    """The draft's DecodeCudaGraphRunner: the target runner's class and buffers
    (`target_buffers`, sglang.py) on the draft model runner, its sizes filtered with its
    own width (`sizes_for`), and the folded sampler's buffers when it captures graphs.
    `declared`: the resolved decode list (the sampler's max_bs)."""
    window = config.uniform_query_len
    width = draft_width(window, config.dspark_samples_anchor)
    sizes = sizes_for("DSPARK draft", width)
    top = sizes[-1] if sizes else 0
    buffers = target_buffers(config, width, top, runner=RUNNER,
                             hidden=config.draft_hidden_size)
    if sizes and folds_sampler(config):
        buffers += sampler_buffers(config, window - 1, max(declared))
        if has_confidence_head(config):  # compact / cap-accept (sglang_dspark_epilogue)
            buffers += confidence_buffers(window - 1, max(declared), RUNNER)
    return BatchRunner(RUNNER, width, request_pool(config), buffers, sizes)


def dspark_keyed(config: EngineSettings, declared: tuple[int, ...],
                 sizes_for: Callable[[str, int], tuple[int, ...]]
                 ) -> tuple[KeyedComponentModel, ...]:
    """The compact verify graphs and their epilogue (`target_compact`,
    graphfit.planner.engines.sglang_dspark_epilogue) when SGLang builds them: compact mode,
    graphs on and a target that captures at least one batch size. `sizes_for` as in
    `dspark_runner` (empty when graphs are off)."""
    if not dspark(config) or not builds_epilogue(config):
        return ()
    window = config.uniform_query_len
    target = sizes_for("decode", window)
    if not target:
        return ()
    draft = sizes_for("DSPARK draft", draft_width(window, config.dspark_samples_anchor))
    return (compact_component(config, target, max(declared), request_pool(config),
                              shares_draft_tokens=bool(draft) and folds_sampler(config)),)
