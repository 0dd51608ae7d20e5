"""SGLang 0.5.23's LoRA start-up checks (issue 23, s65d, s66l).

`check_server_args` (arg_groups/validation_hook.py:172-222, run after the resolution hooks,
entrypoints/engine.py:1153-1165) calls `check_lora_server_args` (arg_groups/lora_hook.py:
33-180), which ends in `check_lora_moe_runner_args` (:183-237). Restated, in SGLang's order:

* `--max-loras-per-batch` must be positive, LoRA or not (AssertionError, :36; s66l);
* LoRA is on with `--enable-lora` or any `--lora-paths` (:39-41), unless `enable_lora` is
  given False, which keeps it off whatever the paths (:45-47; s67l);
* with LoRA on and `--lora-backend triton_v2` beside a runner that is not lora_*, the V2 modes
  check (`_check_v2_lora_modes`, :20-30): attention DP > 1, PD-multiplexing (s66l), two-batch
  overlap, SGLANG_EXPERIMENTAL_LORA_OPTI (s66l), ROCm (`get_platform().is_hip`, :27: a named
  AMD GPU, SglangOptions.gpu_rocm; s68l) (:50-54);
* with LoRA on (s66l unless said): overlap loading needs `--max-loaded-loras` at most twice
  `--max-loras-per-batch` (:61-70); the speculative compatibility check (:73,
  `check_lora_speculative_compatibility`, :240-300; `speculative_problem`); the parse of
  `--lora-paths` (:76-136: an item neither a string nor a mapping, a mapping without
  `lora_name` / `lora_path`, a value neither a list, a mapping nor None; s67l, read by
  graphfit.inputs.sglang_lora.invalid_paths from a config file); `all` alone in
  `--lora-target-modules` (:146-149); no `--lora-paths` needs both `--max-lora-rank` and
  `--lora-target-modules` (s65d, :152-155); `--max-loaded-loras` at least
  `--max-loras-per-batch` and at least the adapters listed (:157-165); a non-negative
  `--lora-drain-wait-threshold` (:176-178). The chunk-size assert (:167-171) cannot fail from a
  line: argparse's choices (fields/lora.py:84-90) refuse first, as graphfit's flag table does;
* a lora_* draft runner on a speculative line (:186-196;
  graphfit.planner.engines.sglang_draft_deepep.runner_flag_problem, s63d);
* a lora_* target runner (`--moe-runner-backend`) then needs, one refusal each (:197-237):
  LoRA on; `--lora-backend triton_v2`; the V2 modes (as above); `--quantization` unset, fp8 or
  modelopt_fp4 (after the model overrides, sglang_quantization.resolved_flag); lora_marlin for
  modelopt_fp4; the standard dispatch (`--moe-a2a-backend none` after the Waterfill override);
  no elastic EP (`--ep-join-mode`); trivial expert placement without EPLB or redundant experts.
"""

from __future__ import annotations

from graphfit.planner.core.enums import SpecMethod
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import (
    sglang_adaptive,
    sglang_draft_deepep,
    sglang_quantization,
    sglang_waterfill,
)

HOOK = "arg_groups/lora_hook.py"
QUANTS = (None, "fp8", "modelopt_fp4")
# the algorithm SGLang's check sees after resolution (NEXTN has become EAGLE, :243-244)
SGLANG_NAMES = {SpecMethod.EAGLE: "EAGLE", SpecMethod.MTP: "EAGLE", SpecMethod.EAGLE3: "EAGLE3",
                SpecMethod.DFLASH: "DFLASH", SpecMethod.DSPARK: "DSPARK",
                SpecMethod.DRAFT_MODEL: "STANDALONE", SpecMethod.UNO: "UNO"}
LORA_SPEC = ("EAGLE", "EAGLE3", "DFLASH", "DSPARK")  # :252
SPEC_RUNNER = "experimental_sgl_trtllm"


def _v2_mode(config: EngineSettings, option: str) -> str | None:
    """`_check_v2_lora_modes` (:20-30) on the modes graphfit reads."""
    for unsupported, mode in ((config.attn_dp_size > 1, "DP-attention with --attn-dp-size > 1"),
                              (config.enable_pdmux, "PD-multiplexing"),
                              (config.two_batch_overlap, "two-batch overlap"),
                              (config.lora_experimental_opti, "SGLANG_EXPERIMENTAL_LORA_OPTI"),
                              (config.gpu_rocm, "ROCm")):  # a named AMD GPU (s68l)
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


def speculative_problem(config: EngineSettings) -> str | None:
    """`check_lora_speculative_compatibility` (:240-300) on a LoRA line: NGRAM or no
    speculation pass; another algorithm than EAGLE / EAGLE3 / DFLASH / DSPARK (NEXTN is EAGLE
    by then) is refused; then, in order, DSPARK under a ragged verify mode other than static,
    adaptive speculation where SGLang keeps it on, the experimental_sgl_trtllm MoE runner on
    the target or the draft, and SGLANG_ENABLE_OVERLAP_PLAN_STREAM."""
    method = config.spec_method
    if method in (SpecMethod.NONE, SpecMethod.NGRAM):
        return None
    name = "FROZEN_KV_MTP" if config.frozen_kv_mtp else SGLANG_NAMES.get(method,
                                                                           method.value.upper())
    if name not in LORA_SPEC:
        return (f"LoRA is only compatible with NGRAM, EAGLE, NEXTN, EAGLE3, DFLASH or DSPARK "
                f"speculative decoding, not {name} (ValueError, {HOOK}:252-264)")
    mode = config.ragged_verify_mode
    adaptive = (config.speculative_adaptive
                and sglang_adaptive.fallback_reason(config) is None)  # still on (s66l)
    for unsupported, what, lines in (
            (name == "DSPARK" and mode != "static",
             f"SGLANG_RAGGED_VERIFY_MODE={mode[:40]!r}", "271-276"),
            (adaptive, "--speculative-adaptive", "277-282"),
            (SPEC_RUNNER in (config.moe_runner_backend, config.speculative_moe_runner_backend),
             f"the {SPEC_RUNNER} MoE runner", "283-289"),
            (config.overlap_plan_stream, "SGLANG_ENABLE_OVERLAP_PLAN_STREAM=1", "290-295")):
        if unsupported:
            return (f"LoRA with speculative decoding does not support {what} (ValueError, "
                    f"{HOOK}:{lines}, 297-300)")
    return None


def _limits_problem(config: EngineSettings) -> str | None:
    """The asserts after the speculative check on a LoRA line (:146-178)."""
    why = f"AssertionError, {HOOK}"
    if config.lora_target_all_mixed:
        return f"--lora-target-modules: 'all' must be the only module named ({why}:146-149)"
    if not config.lora_paths_given and not (config.max_lora_rank
                                            and config.lora_target_modules_given):
        return ("When no initial --lora-paths is provided, SGLang needs both "
                f"--max-lora-rank and --lora-target-modules ({why}:152-155)")
    loaded, per_batch = config.max_loaded_loras, config.max_loras_per_batch
    if loaded is not None and loaded < per_batch:
        return (f"--max-loaded-loras {loaded} must be >= --max-loras-per-batch {per_batch} "
                f"({why}:158-161)")
    if loaded is not None and config.lora_paths_count > loaded:
        return (f"--lora-paths lists {config.lora_paths_count} adapters, more than "
                f"--max-loaded-loras {loaded} ({why}:162-165)")
    if config.lora_drain_wait_threshold < 0:
        return f"--lora-drain-wait-threshold must be non-negative ({why}:176-178)"
    return None


def problem(config: EngineSettings) -> str | None:
    """SGLang's first LoRA start-up refusal of a resolved line (module docstring), or None."""
    per_batch = config.max_loras_per_batch
    if per_batch <= 0:
        return (f"--max-loras-per-batch must be positive, got {per_batch} (AssertionError, "
                f"{HOOK}:36)")
    on = config.enable_lora or (config.lora_paths_given and not config.lora_disabled)
    backend = config.moe_runner_backend or "auto"
    if on:
        if config.lora_backend == "triton_v2" and not backend.startswith("lora"):
            said = _v2_mode(config, "--lora-backend triton_v2")
            if said:
                return said
        loaded = config.max_loaded_loras
        if config.enable_lora_overlap_loading and (loaded is None or loaded > 2 * per_batch):
            return (f"LoRA overlap loading needs --max-loaded-loras <= {2 * per_batch}, twice "
                    f"--max-loras-per-batch (AssertionError, {HOOK}:61-70)")
        said = (speculative_problem(config) or config.lora_paths_invalid
                or _limits_problem(config))
        if said:
            return said
    return sglang_draft_deepep.runner_flag_problem(config) or _runner_problem(config, on)


def check(config: EngineSettings) -> None:
    said = problem(config)
    if said:
        raise ConfigError(said)


__all__ = ["check", "problem", "speculative_problem"]
