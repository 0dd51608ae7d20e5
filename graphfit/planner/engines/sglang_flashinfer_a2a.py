"""SGLang 0.5.23's FlashInfer all-to-all backend (`--moe-a2a-backend flashinfer`): its start-up
rules, restated so graphfit starts exactly the lines SGLang starts.

The graph runners: FlashInfer A2A needs attention DP over the whole TP group, so every
attention group is one rank and nothing is gathered for attention
(`require_attn_tp_gather`, utils/common.py:4133-4156); attention DP already gathers the MLP
input (:4080-4092), the rank-uniform bucket FlashInfer needs. Prefill graphs stay on by
default (cuda_graph_hook.py:223-229); no memory reserve of its own (memory_hook.py:317,
391-397 count DeepEP only). Its start-up rules:

* topology: `--attn-dp-size == --tp-size` with attention DP on (`handle_a2a_moe`,
  arg_groups/moe_hook.py:471-488, `_flashinfer_a2a_topology_is_supported` :43-67), or Muse
  Spark's LayerNorm-SP group TP4/EP4 or TP8/EP8 without attention DP
  (graphfit.planner.engines.sglang_layernorm_sp.flashinfer_sp_topology; such a line is then
  refused or not modelled there, issue 23 s64k);
* the MoE runner after its resolution by quantization (overrides.py:1449-1520) must be
  flashinfer_cutlass / _cutedsl / _trtllm / _trtllm_routed or deep_gemm (moe_hook.py:
  531-540), and each FlashInfer runner takes only some `--quantization` values
  (`handle_moe_kernel_config`, moe_hook.py:80-147). Both read the flag a model class's
  override settled, e.g. copied from config.json (`settled_flag`), and the runner as
  `_moe_runner_backend_quant_constraints` resolves it (`quant_runner`: mxfp8, issue 23 s66m;
  nvfp4_online on SM100 and modelopt_fp4 on SM110 / SM120, `gpu_runner`, issue 23 s67m);
* `validate_flashinfer_a2a_token_budget` (moe_hook.py:734-774, run after speculation,
  pipeline.py:318): the prefill chunk per rank, a prefill graph max the line fixes, and the
  largest decode / verify graph must fit the workspace,
  SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK when set (environ.py:1224), else
  max(chunk per rank, 4096) (overrides.py:1886-1894).
"""

from __future__ import annotations

from collections.abc import Mapping

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines.sglang_eplb_checks import check_runner_ep
from graphfit.planner.engines.sglang_layernorm_sp import flashinfer_sp_topology
from graphfit.planner.engines.sglang_megamoe import decode_forward
from graphfit.planner.engines.sglang_prefill import chunk_or
from graphfit.planner.engines.sglang_quantization import (
    RUNNER_QUANT,
    class_runner,
    flag_known,
    kernel_runner,
    resolved_flag,
)

RUNNERS = ("flashinfer_cutlass", "flashinfer_cutedsl", "flashinfer_trtllm",
           "flashinfer_trtllm_routed", "deep_gemm")  # moe_hook.py:531-540
# each FlashInfer runner's --quantization values: sglang_quantization.RUNNER_QUANT
DEFAULT_WORKSPACE_FLOOR = 4096  # overrides.py:1889-1894
ENV = "SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK"


def workspace_tokens(configured: int | None, chunk_per_rank: int) -> int:
    """`flashinfer_a2a_max_dispatch_tokens_per_rank` (overrides.py:1886-1894)."""
    if configured is not None:
        return configured
    return max(chunk_per_rank, DEFAULT_WORKSPACE_FLOOR)


def settled_flag(config: EngineSettings) -> str | None:
    """The `--quantization` SGLang's MoE rules read: the flag after the model class's
    override (a copy of the checkpoint's method: Qwen3-MoE / GLM-4 MoE / the DeepSeek family on
    SM100, Nemotron-H's ModelOpt, MiniMax-M3 on any GPU; sglang_quantization.resolved_flag),
    the given flag where graphfit does not know the copy. Reading only the given flag planned
    or refused lines by a flag SGLang had already replaced (issue 23 s64m, s66m)."""
    return resolved_flag(config) if flag_known(config) else config.quant_method


def quant_runner(runner: str, quant: str | None) -> str:
    """The runner after `_moe_runner_backend_quant_constraints` on CUDA under FlashInfer A2A
    (arg_groups/overrides.py:1485-1512): mxfp8 turns `auto`, or a runner outside
    MXFP8_MOE_RUNNER_BACKEND_CHOICES (arg_groups/choices.py:161), into flashinfer_trtllm;
    FlashInfer A2A's runner assert (moe_hook.py:531-540) then sees that one."""
    if quant in ("mxfp8", "nvfp4_online") and runner == "auto":
        # nvfp4_online: flashinfer_trtllm off flashinfer_megamoe (overrides.py:1462-1465); its
        # GPU and explicit-runner refusals come first (sglang_quantization.check_runner)
        return "flashinfer_trtllm"
    return kernel_runner(runner, quant)


# SGLang's `is_sm110` / `is_sm120` (capability major 11 / 12, CUDA >= 12.8 assumed as for
# SM100: utils/common.py:304-308, 323-327; runtime_context.py:1834-1835)
CUTLASS_FP4_MAJORS = (11, 12)


def gpu_runner(runner: str, quant: str | None, capability: int | None,
               hopper_or_sm100: bool) -> str:
    """`quant_runner`, then the GPU's pick: an auto runner under modelopt_fp4 becomes
    flashinfer_cutlass on SM110 / SM120 (overrides.py:1513-1522: trtllm-gen's MoE kernels are
    SM100-only) and stays auto elsewhere, which FlashInfer A2A's runner assert refuses.
    `capability`: major * 10 + minor, None where unknown; `hopper_or_sm100`: the line's GPU
    is known to be SM90 or SM100 though its capability is not. An unknown GPU is not
    modelled: the answer depends on it (graphfit called every such line not modelled before
    issue 23 s67m)."""
    runner = quant_runner(runner, quant)
    if runner != "auto" or quant != "modelopt_fp4":
        return runner
    if capability is None:
        if hopper_or_sm100:
            return runner
        raise ConfigError("flashinfer: --quantization modelopt_fp4 with the auto MoE runner is "
                          "flashinfer_cutlass on SM110 / SM120 only (arg_groups/overrides.py:"
                          "1513-1522); the GPU is unknown: name it (--gpu-memory-gb B200 / "
                          "RTX5090 ...): not modelled")
    return "flashinfer_cutlass" if capability // 10 in CUTLASS_FP4_MAJORS else runner


def _runner_quantization(config: EngineSettings) -> None:
    """`handle_moe_kernel_config`'s runner / quantization rules (moe_hook.py:70-147, which
    run before the topology assert, pipeline.py:294-295) on the settled flag and the runner
    `_moe_runner_backend_quant_constraints` settles (moe_hook.py:77), whose expert-parallel
    assert (moe_hook.py:89-92, 102-105) a runner it picked meets too."""
    quant = settled_flag(config)
    runner = gpu_runner(config.moe_runner_backend, quant, config.gpu_capability,
                        bool(config.sm90 or config.sm100))
    allowed = RUNNER_QUANT.get(runner)
    if allowed is not None and quant not in allowed:
        raise ConfigError(f"flashinfer: the {runner} MoE runner does not take --quantization "
                          f"{quant}: SGLang asserts (moe_hook.py:80-147; hybrid NVFP4 "
                          f"metadata is not read)")
    if runner != config.moe_runner_backend:  # the given runner's: sglang_quantization's check
        check_runner_ep(runner, quant, config.ep_size, config.tp_size, "flashinfer")


def _prefill_max(config: EngineSettings) -> int:
    """A prefill graph max the line fixes with --cuda-graph-max-bs-prefill, which attention
    DP's re-clamp leaves alone (parallel_hook.py:338-362 clamps only a max the user did not
    give: a max derived from a given --cuda-graph-bs-prefill is clamped too, the list kept;
    attention DP is always on here), whatever list is given with it. 0 when the prefill
    backend resolves to disabled, as the budget reads it (moe_hook.py:741-744): by the flags
    or by any of cuda_graph_hook.py's rules, two-batch overlap among them (:218-221), as
    graphfit's prefill component resolves it (sglang_prefill_plan), or when the max is
    clamped (then at most the chunk per rank)."""
    from graphfit.planner.engines.sglang_prefill import DISABLED
    from graphfit.planner.engines.sglang_prefill_plan import prefill_backend

    if config.disaggregation_mode == "decode" or prefill_backend(config) == DISABLED:
        return 0
    return config.cuda_graph_max_bs_prefill or 0


def check(config: EngineSettings, changes: Mapping[str, object], *, speculative: bool,
          decode_graphs: bool, decode_default: int, chunk_default: int) -> None:
    """Every FlashInfer A2A start-up rule above for one line (`changes`: what
    SglangModel.resolve set so far)."""
    if config.moe_a2a_backend != "flashinfer":
        return
    _runner_quantization(config)
    if not ((config.attn_dp_size > 1 and config.attn_dp_size == config.tp_size)
            or flashinfer_sp_topology(config)):
        raise ConfigError(f"flashinfer needs attention DP over the whole TP group "
                          f"(--attn-dp-size == --tp-size, here {config.attn_dp_size} and "
                          f"{config.tp_size}): SGLang asserts (moe_hook.py:471-488)")
    # a model class's override may pick it from auto, then the flag may (overrides.py:1449-1520)
    runner = gpu_runner(class_runner(config)[1], settled_flag(config), config.gpu_capability,
                        bool(config.sm90 or config.sm100))
    if runner not in RUNNERS:
        raise ConfigError(f"flashinfer runs with --moe-runner-backend {', '.join(RUNNERS)}, "
                          f"not {runner}: SGLang asserts (moe_hook.py:531-540)")
    chunk = chunk_or(config.chunked_prefill_size, chunk_default) // config.attn_dp_size
    if config.disaggregation_mode != "decode" and chunk <= 0:
        raise ConfigError("FlashInfer MoE A2A requires chunked prefill: --chunked-prefill-size "
                          "must be > 0; SGLang refuses (moe_hook.py:755-760)")
    required = 0
    if config.disaggregation_mode != "decode":
        required = max(chunk, _prefill_max(config))
    if decode_graphs and config.disaggregation_mode != "prefill":
        max_bs, requests, per_request = decode_forward(config, changes, speculative,
                                                       decode_default)
        if requests is not None:  # moe_hook.py:668-670, not aligned
            max_bs = min(max_bs, max(1, requests // config.attn_dp_size))
        required = max(required, max_bs * per_request)
    capacity = workspace_tokens(config.flashinfer_dispatch_tokens_per_rank, chunk)
    if required > capacity:
        where = (f"{ENV}={capacity}" if config.flashinfer_dispatch_tokens_per_rank is not None
                 else f"max(chunk per rank, {DEFAULT_WORKSPACE_FLOOR})")
        raise ConfigError(f"flashinfer: {required} tokens per rank (prefill chunk or graph, "
                          f"decode graph) > its workspace, {where} = {capacity}: SGLang "
                          f"refuses (moe_hook.py:749-774)")


__all__ = ["CUTLASS_FP4_MAJORS", "DEFAULT_WORKSPACE_FLOOR", "ENV", "RUNNERS", "RUNNER_QUANT",
           "check", "gpu_runner", "quant_runner", "settled_flag", "workspace_tokens"]
