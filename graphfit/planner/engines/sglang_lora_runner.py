"""SGLang 0.5.23's start-up checks of the LoRA MoE runners (issue 23, s65d).

`check_server_args` (arg_groups/validation_hook.py:172-222, run after the resolution hooks,
entrypoints/engine.py:1153-1165) calls `check_lora_server_args` (arg_groups/lora_hook.py:
33-180), which ends in `check_lora_moe_runner_args` (:183-237). Restated, in SGLang's order:

* LoRA is on with `--enable-lora` or any `--lora-paths` (:39-41);
* with LoRA on and `--lora-backend triton_v2` beside a runner that is not lora_*, the V2 modes
  check (`_check_v2_lora_modes`, :20-30): attention DP > 1, then two-batch overlap (:50-53);
* with LoRA on, no `--lora-paths` needs both `--max-lora-rank` and `--lora-target-modules`
  (AssertionError, :152-155);
* a lora_* draft runner on a speculative line (:186-196;
  graphfit.planner.engines.sglang_draft_deepep.runner_flag_problem, s63d);
* a lora_* target runner (`--moe-runner-backend`) then needs, one refusal each (:197-237):
  LoRA on; `--lora-backend triton_v2`; the V2 modes (as above); `--quantization` unset, fp8 or
  modelopt_fp4 (after the model overrides, sglang_quantization.resolved_flag); lora_marlin for
  modelopt_fp4; the standard dispatch (`--moe-a2a-backend none` after the Waterfill override);
  no elastic EP (`--ep-join-mode`); trivial expert placement without EPLB or redundant experts.

Not restated: PD-multiplexing, SGLANG_EXPERIMENTAL_LORA_OPTI and ROCm in the V2 modes check;
the other asserts of check_lora_server_args (overlap loading, `--max-loaded-loras`, the chunk
size, the target-module list) and its speculative compatibility check (:240-300).
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import sglang_draft_deepep, sglang_quantization, sglang_waterfill

HOOK = "arg_groups/lora_hook.py"
QUANTS = (None, "fp8", "modelopt_fp4")


def _v2_mode(config: EngineSettings, option: str) -> str | None:
    """`_check_v2_lora_modes` (:20-30) on the modes graphfit reads."""
    for unsupported, mode in ((config.attn_dp_size > 1, "DP-attention with --attn-dp-size > 1"),
                              (config.two_batch_overlap, "two-batch overlap")):
        if unsupported:
            return f"{option} does not yet support {mode} (ValueError, {HOOK}:20-30)"
    return None


def _runner_problem(config: EngineSettings, on: bool) -> str | None:
    """`check_lora_moe_runner_args` on the target's runner (:197-237)."""
    backend = config.moe_runner_backend or "auto"
    if not backend.startswith("lora"):
        return None
    flag = f"--moe-runner-backend {backend}"
    why = f"ValueError, {HOOK}"
    if not on:
        return f"{flag} requires --enable-lora (or --lora-paths) ({why}:200-203)"
    if (config.lora_backend or "csgmv") != "triton_v2":
        return f"{flag} requires --lora-backend triton_v2 ({why}:204-207)"
    said = _v2_mode(config, flag)
    if said:
        return said
    if sglang_quantization.flag_known(config):
        quant = sglang_quantization.resolved_flag(config)
        if quant not in QUANTS:
            return (f"{flag} supports unquantized BF16, 128-block FP8 and ModelOpt NVFP4 MoE, "
                    f"got --quantization {quant} ({why}:210-214)")
        if quant == "modelopt_fp4" and backend != "lora_marlin":
            return (f"{flag} cannot run ModelOpt NVFP4 MoE; use --moe-runner-backend "
                    f"lora_marlin ({why}:215-219)")
    a2a = sglang_waterfill.after_a2a(config).moe_a2a_backend or "none"
    if a2a != "none":
        return f"{flag} requires Standard dispatch, got --moe-a2a-backend {a2a} ({why}:220-224)"
    if config.ep_join_mode is not None:
        return f"{flag} does not yet support elastic EP ({why}:225-228)"
    if (config.enable_eplb or config.init_expert_location != "trivial"
            or config.ep_num_redundant_experts > 0):
        return (f"{flag} currently requires trivial expert placement without EPLB or redundant "
                f"experts ({why}:229-237)")
    return None


def problem(config: EngineSettings) -> str | None:
    """SGLang's first LoRA start-up refusal of a resolved line (module docstring), or None."""
    on = config.enable_lora or config.lora_paths_given
    backend = config.moe_runner_backend or "auto"
    if on:
        if config.lora_backend == "triton_v2" and not backend.startswith("lora"):
            said = _v2_mode(config, "--lora-backend triton_v2")
            if said:
                return said
        if not config.lora_paths_given and not (config.max_lora_rank
                                                and config.lora_target_modules_given):
            return ("When no initial --lora-paths is provided, SGLang needs both "
                    f"--max-lora-rank and --lora-target-modules (AssertionError, {HOOK}:152-155)")
    return sglang_draft_deepep.runner_flag_problem(config) or _runner_problem(config, on)


def check(config: EngineSettings) -> None:
    said = problem(config)
    if said:
        raise ConfigError(said)


__all__ = ["check", "problem"]
