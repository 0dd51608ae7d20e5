"""SGLang 0.5.23's DSPARK modes chosen by its environment (read on a pasted line's
`VAR=value` prefix by graphfit.inputs.sglang_dspark_env, carried as SglangOptions fields).

- `SGLANG_DSPARK_FOLDED_PROPOSAL=0` (environ.py:555, on by default): the draft graph is still
  captured but no sampler is folded into it; the proposer runs the Markov block eagerly from
  the graph's hidden states (dspark_worker_v2.py:600-613): no `sampler_*` buffers
  (`dspark_proposal` "eager", which wins over the greedy switch: that one only shapes the
  folded sampler).
- `SGLANG_DSPARK_USE_GREEDY_DRAFT=1` (environ.py:552-554): the folded sampler argmaxes every
  row and never asks for step logits (`logits_out=None`, dspark_draft_sampler.py:189-193):
  no `sampler_step_logits` (`dspark_proposal` "greedy").
- `SGLANG_OPT_DSV41_DSPARK_MID_FOLD=1` (environ.py:1891): the folded sampler also allocates
  `verify_ids` [max_bs, gamma + 1] int64 (dspark_draft_sampler.py:63-68), whatever the target
  model (`dspark_mid_fold`).
- `SGLANG_RAGGED_VERIFY_MODE` (environ.py:1572, "static"), read for DSPARK only
  (spec_info.py:160-164): "compact" keys the target's verify graphs by token bucket
  (capture slots min(tokens, max_bs), decode_cuda_graph_runner.py:397-406, 699-702,
  791-794; that dispatch is modelled in graphfit.planner.engines.sglang_dspark_compact and
  compared with SGLang's runner methods; SGLang's own refusal of two-batch overlap / no
  padding under compact, :411-421, is restated), adds the verify epilogue
  (built at dspark_worker_v2.py:409-417, buffers dspark_verify.py:576-665) and the confidence head
  (models/dspark.py:487-507, whose buffers the sampler allocates, dspark_draft_sampler.py:
  69-81); "cap-accept" keeps static graphs but adds the same confidence head and turns the
  draft's metadata glue graph off (decode_cuda_graph_runner.py:1713-1726; a DeepSeek-V4
  backend's graph, deepseek_v4_backend.py:1401-1415, that graphfit plans in no mode). Both
  are planned by graphfit.planner.engines.sglang_dspark_epilogue. Any other value makes
  SGLang raise at start-up (`read_ragged_verify_mode`, ragged_verify.py:19-27): refused with
  SGLang's words.
"""

from __future__ import annotations

from graphfit.planner.core.enums import CUDAGraphMode
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_dspark_compact import check_compact_features

PROPOSALS = ("sampling", "greedy", "eager")
RAGGED_MODES = ("static", "cap-accept", "compact")  # RaggedVerifyMode, ragged_verify.py:13-16


def check_ragged_verify(config: EngineSettings) -> None:
    """DSPARK under SGLANG_RAGGED_VERIFY_MODE: SGLang's own refusals. "static", "cap-accept"
    and "compact" are planned (compact's tiers and epilogue, cap-accept's confidence outputs:
    graphfit.planner.engines.sglang_dspark_epilogue)."""
    mode = config.ragged_verify_mode
    if mode not in RAGGED_MODES:
        raise ConfigError(
            f"SGLANG_RAGGED_VERIFY_MODE={mode[:40]!r}: SGLang raises at start-up (expected "
            f"one of {', '.join(RAGGED_MODES)}; ragged_verify.py:19-27)")
    if mode == "compact" and config.cudagraph_mode is not CUDAGraphMode.NONE:
        # SGLang's own refusal, raised by the target runner's constructor
        # (decode_cuda_graph_runner.py:411-421): only when decode graphs are captured
        check_compact_features(two_batch_overlap=config.two_batch_overlap, lora=False,
                               disable_padding=config.cuda_graph_padding is False)


def folds_sampler(config: EngineSettings) -> bool:
    return config.dspark_proposal != "eager"


def keeps_step_logits(config: EngineSettings) -> bool:
    return config.dspark_proposal == "sampling"
