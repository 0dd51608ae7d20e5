"""SGLang 0.5.23's block drafts (DFLASH, DSPARK) under attention DP (`--attn-dp-size N > 1`).

SGLang's argument checks (restated with SGLang's reasons, on CUDA):

* DFLASH (`_handle_dflash`, arg_groups/speculative_hook.py:303-316): `--enable-dp-lm-head`
  is required (the greedy projection and the selector borrow the target's head), context
  parallelism is refused; SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION is refused with DFLASH
  whatever the parallelism (`check_coordination`, :252-258).
* DSPARK (`_handle_dspark`, :674-711): `--enable-dp-lm-head` is required; the target's
  all-to-all backend must be none, megamoe or mori; with a backend or the coordination
  variable (`dp_spec_prefill_coordination`) the ragged verify mode must be static; context
  parallelism is refused; a `--speculative-moe-a2a-backend` must equal the target's backend.

The graphs, per attention-DP rank (graphfit plans one rank; every rank captures the same):

* the target runner is the usual target-verify runner of an attention-DP server: it gathers
  the MLP input (`require_mlp_tp_gather`, utils/common.py:4067-4092), so its sizes are
  multiples of the attention-TP width, its `global_num_tokens` buffers hold one count per DP
  rank (runner_utils/buffers.py:212-220), and it keys its graph by the LARGEST rank's batch
  (`_max_dp_batch_size`, decode_cuda_graph_runner.py:837-843, 871-874, 1624-1628);
* DFLASH's draft runs eager: `init_cuda_graphs` turns the draft's decode graphs off when the
  target's attention DP is on (dflash_worker_v2.py:718-725), so no draft graph runner, no
  folded sampler (built only before a capture, :741-747); what the draft model holds from its
  load stays (a LiLiCorr head's weight-sized buffers, models/lilicorr.py:571-572); the
  draft model runner's eager runner holds no graph input (cuda_graph_setup.py:436-441);
* DSPARK's dense draft (any draft but a DeepSeek-V4 one, `draft_is_deepseek_v4`,
  dspark_config.py:34-48) runs attention-TP-local: its runner does not gather the MLP input
  (`_forward_is_dp_local`, decode_cuda_graph_runner.py:766-789), so it keys its graphs by the
  rank's OWN batch, aligns its sizes only when the attention input is gathered (an
  all-to-all backend with more than one attention-TP rank, utils/common.py:4133-4156), and
  its `global_num_tokens` buffers hold one count. A DeepSeek-V4 draft keeps the DP-global
  path and its own attention backend: not modelled (graphfit.inputs.sglang_spec_dp refuses
  it);
* SGLANG_RAGGED_VERIFY_MODE under attention DP (allowed with backend none and no
  coordination): cap-accept keeps the batch-size verify graphs above. Compact files the
  target's verify graphs under token tiers (graphfit.planner.engines.sglang_dspark_compact),
  which its runner takes before any batch-size key (decode_cuda_graph_runner.py:850-858,
  1608-1621), so the largest-rank key does not apply: each rank replays the tier of its own
  requests, an idle rank that of the largest rank's (`compact_requests`); the tiers, slots,
  `global_num_tokens` count (one per DP rank, captured as [tier] * ranks, :740-745) and the
  epilogue are the single-rank ones.

`--enable-dp-lm-head` itself sizes no graph input (the logits buffers keep the vocabulary
rows, decode_cuda_graph_runner.py:466-477) and, with --moe-dense-tp-size unset, leaves
`require_mlp_tp_gather` true (utils/common.py:4090-4092; set: sglang_mlp_gather, s69c).
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_mlp_gather import mlp_tp_gather
from graphfit.planner.engines.sglang_moe_a2a import attn_tp_gather

DSPARK_DP_BACKENDS = ("none", "megamoe", "mori")  # speculative_hook.py:677-682


@dataclass(frozen=True)
class Gather:
    """A decode runner's gather requirements (`decode_graph_gather_requirements`,
    decode_cuda_graph_runner.py:763-773): `mlp` sizes the `global_num_tokens` buffers by DP
    rank and keys the graph by the largest rank's batch; either one aligns the sizes to the
    attention-TP width (`require_gathered_buffer`)."""

    mlp: bool
    attn: bool

    def __post_init__(self) -> None:
        if not isinstance(self.mlp, bool) or not isinstance(self.attn, bool):
            raise ConfigError("Gather: mlp and attn must be booleans")

    @property
    def any(self) -> bool:
        return self.mlp or self.attn


def attention_dp(config: EngineSettings) -> bool:
    """`attn_dp_enabled` (runtime_context.py:191-199)."""
    return config.attn_dp_size > 1


def check_dflash(config: EngineSettings) -> None:
    """`_handle_dflash`'s attention-DP checks (speculative_hook.py:303-316), SGLang's words."""
    if not attention_dp(config):
        return
    if not config.enable_dp_lm_head:
        raise ConfigError("attn_dp_size: DFLASH with dp attention requires --enable-dp-lm-head "
                          "(speculative_hook.py:307-309)")
    if config.attn_cp_size != 1:
        raise ConfigError("attn_cp_size: DFLASH with dp attention does not support context "
                          "parallel (speculative_hook.py:310-313)")


def check_dspark(config: EngineSettings) -> None:
    """`_handle_dspark`'s attention-DP checks (speculative_hook.py:674-711), SGLang's words.
    The ragged verify mode SGLang reads here is checked first by
    graphfit.planner.engines.sglang_dspark_modes (an unknown value raises in both)."""
    if not attention_dp(config):
        return
    if not config.enable_dp_lm_head:
        raise ConfigError("attn_dp_size: DSpark with dp attention requires --enable-dp-lm-head "
                          "(speculative_hook.py:674-676)")
    backend = config.moe_a2a_backend
    if backend not in DSPARK_DP_BACKENDS:
        raise ConfigError(f"moe_a2a_backend: DSpark with dp attention supports moe_a2a_backend "
                          f"'none' (built-in TP MoE), 'megamoe', or 'mori', got {backend!r} "
                          f"(speculative_hook.py:677-682)")
    if ((backend != "none" or config.dp_spec_prefill_coordination)
            and config.ragged_verify_mode != "static"):
        raise ConfigError("SGLANG_RAGGED_VERIFY_MODE: DSpark DP MoE or prefill coordination "
                          "requires SGLANG_RAGGED_VERIFY_MODE=static (speculative_hook.py:"
                          "683-696)")
    if config.attn_cp_size > 1:
        raise ConfigError(f"attn_cp_size: DSpark with dp attention does not support context "
                          f"parallel (attn_cp_size={config.attn_cp_size}; speculative_hook.py:"
                          f"697-701)")
    draft = config.speculative_moe_a2a_backend
    if draft is not None and draft != backend:
        raise ConfigError(f"speculative_moe_a2a_backend: DSpark ignores "
                          f"--speculative-moe-a2a-backend; with dp attention it must match the "
                          f"target moe_a2a_backend={backend!r} (got {draft!r}; "
                          f"speculative_hook.py:702-711)")


def check_coordination(config: EngineSettings) -> None:
    """SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION (`dp_spec_prefill_coordination`): SGLang
    allows it with single-layer EAGLE / EAGLE3 (NEXTN is EAGLE by then) or DSPARK only
    (speculative_hook.py:252-258), so never with DFLASH; it changes scheduling, no graph.
    The multi-layer switch is the one given (an architecture's override turning it on is not
    restated here)."""
    if not config.dp_spec_prefill_coordination:
        return
    method = config.spec_method
    single_eagle = (method in (SpecMethod.EAGLE, SpecMethod.EAGLE3, SpecMethod.MTP)
                    and not config.multi_layer_eagle and not config.frozen_kv_mtp)
    if not (single_eagle or method is SpecMethod.DSPARK):
        raise ConfigError("SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION: DP spec/prefill "
                          "coordination requires single-layer EAGLE, EAGLE3 or DSPARK "
                          "(speculative_hook.py:252-258)")


def dflash_draft_graphs(config: EngineSettings) -> bool:
    """Whether DFLASH's draft captures decode graphs: not under attention DP
    (dflash_worker_v2.py:718-725; the other conditions are the decode graphs' own)."""
    return not attention_dp(config)


def target_gather(config: EngineSettings) -> Gather:
    """The target runner's requirements: the MLP input gathered under attention DP unless a
    `--moe-dense-tp-size` with the DP LM head turns it off (utils/common.py:4079-4130,
    sglang_mlp_gather; issue 23 s69c), the attention input with a live all-to-all backend
    or a set dense TP size (sglang_moe_a2a)."""
    return Gather(mlp_tp_gather(config), attn_tp_gather(config))


def draft_gather(config: EngineSettings) -> Gather:
    """A DSPARK dense draft's runner: no MLP gather under attention DP
    (`_forward_is_dp_local`, decode_cuda_graph_runner.py:766-789), the attention input
    gathered as the target's (`require_attn_tp_gather` reads no draft flag, utils/common.py:
    4133-4156). Every other block draft: the target's."""
    if config.spec_method is SpecMethod.DSPARK and attention_dp(config):
        return Gather(False, attn_tp_gather(config))
    return target_gather(config)


def shown(config: EngineSettings) -> str | None:
    """The plan's `attn_dp_size` input line for a block draft under attention DP: how each
    runner keys its graphs (None: not a block draft under attention DP)."""
    if not attention_dp(config) or config.spec_method not in (SpecMethod.DFLASH,
                                                              SpecMethod.DSPARK):
        return None
    if config.spec_method is SpecMethod.DFLASH:
        draft = "the DFLASH draft runs eager (dflash_worker_v2.py:718-725)"
    else:
        draft = ("the DSPARK draft by the rank's own batch (decode_cuda_graph_runner.py:"
                 "766-789)")
    if config.spec_method is SpecMethod.DSPARK and config.ragged_verify_mode == "compact":
        target = ("the target's compact verify by the rank's own tier, an idle rank's by the "
                  "largest rank's (dspark_worker_v2.py:892-916, 976-981)")
    else:
        target = "the target keys its graphs by the largest rank's batch"
    return f"{config.attn_dp_size}: {target}, {draft}"


def graph_batch(gather: Gather, local: int, ranks: tuple[int, ...]) -> int:
    """The batch a runner keys its graph by on a rank whose own batch is `local`, with every
    rank's batch in `ranks` (`can_run_graph` / `replay_prepare`, decode_cuda_graph_runner.py:
    871-874, 1624-1628): the largest rank's under an MLP gather, else the rank's own. It is
    then padded to the runner's next captured size (Plan.pad)."""
    if local not in ranks:
        raise ConfigError(f"graph_batch: the rank's batch {local} is not among {ranks}")
    return max(ranks) if gather.mlp else local


def compact_requests(local: int, ranks: tuple[int, ...]) -> int:
    """The requests whose full verify (`requests * width` tokens) picks a rank's compact verify
    tier (SGLANG_RAGGED_VERIFY_MODE=compact) under attention DP, with every rank's batch in
    `ranks`. The target's compact runner never keys by the largest rank's batch
    (can_run_graph / replay_prepare take the ragged layout's tier first,
    decode_cuda_graph_runner.py:850-858, 1608-1621); the layout's tier comes from the
    DSPARK worker:

    * a busy rank's layout is its own: the DP-global request count and the gathered tier
      agreement apply to a DeepSeek-V4 (MoE) draft only (`global_num_reqs`,
      dspark_worker_v2.py:976-981; `_dp_verify_tier_num_tokens`, :906-916), which graphfit
      refuses under attention DP, so a dense draft's tier follows the rank's own requests
      (dspark_planner.py:424, 729-744);
    * an idle rank (no request) replays a uniform layout of the LARGEST rank's request count
      (`_idle_verify_ragged_layout`, dspark_worker_v2.py:892-904; idle_ragged_layout,
      dspark_planner.py:639-651).

    The tier is then the compact dispatch's (graphfit.planner.engines.sglang_dspark_compact)."""
    if local not in ranks:
        raise ConfigError(f"compact_requests: the rank's batch {local} is not among {ranks}")
    return local if local > 0 else max(ranks)
