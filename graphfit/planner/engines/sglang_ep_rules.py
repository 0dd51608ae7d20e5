"""SGLang 0.5.23's start-up rules on the expert-parallel size outside EPLB and the MoE
kernel hook, restated so graphfit refuses the lines SGLang stops on before it plans them.
Each reads `--ep-size` AS GIVEN: the three hooks run before `handle_a2a_moe`
(arg_groups/pipeline.py:147, 225, 278 vs 295), which is where an a2a backend that spans the
TP group first declares ep_size = tp_size (moe_hook.py:292-293, overrides.py:1611-1620), and
a resolved view reads only the declarations made so far (model_override_base.py:124-135).
So `--tp-size 4 --ep-size 2 --moe-dp-size 2 --moe-a2a-backend deepep` passes the moe_dp
rule (2 x 2 = 4), though its later ep_size is 4.

* `--moe-dp-size` (`handle_context_parallelism`, arg_groups/parallel_hook.py:170-193): above
  1 it must divide `--tp-size`, ep_size x moe_dp_size may not pass tp_size, and equal it
  once ep_size > 1, and PP must be off (:170-183); and a moe_dp_size other than the
  attention-CP size must be 1 (:189-192).
* AITER all-reduce fusion (`--enable-aiter-allreduce-fusion`) is refused with context
  parallelism (attention CP above 1, :166-168) and with `--moe-dp-size` above 1 (:185-187),
  unless deterministic inference cleared it first (attention_hook.py:599-607, at
  pipeline.py:240 before :278), which `--rl-on-policy-target` turns on (attention_hook.py:
  585-592). ROCm's own switch-on for GLM-MoE-DSA (model_hook.py:438-457) is set by the
  reader (graphfit.inputs.sglang_rocm_aiter) on a named AMD GPU.
* `--enable-pd-role-switch` on a prefill / decode server does not rebuild expert
  parallelism: an ep_size above 1 is refused (pd_disaggregation_hook.py:165-169,
  190-196; its other clauses are in sglang_mamba_memory.check_inputs).
* GPT-OSS with the Triton kernel MoE runner needs ep_size 1 (`handle_model_specific_
  adjustments`, arg_groups/model_hook.py:568-571), on the runner after the overrides:
  an explicit `--moe-runner-backend triton_kernel` stays so (GPT-OSS's override only
  replaces auto, model_overrides/gpt_oss.py:64; mxfp8's swap is kernel_runner's).
"""

from __future__ import annotations

from graphfit.planner.core.errors import ConfigError
from graphfit.planner.core.settings import EngineSettings
from graphfit.planner.engines import sglang_dwdp

GPT_OSS = "GptOssForCausalLM"  # model_hook.py:515
PD_ROLES = ("prefill", "decode")  # pd_disaggregation_hook.py:153


def check_moe_dp(moe_dp: int, ep: int, tp: int, pp: int, attn_cp: int) -> None:
    """parallel_hook.py:170-192 in SGLang's order; `ep` is `--ep-size` as given."""
    hook = "arg_groups/parallel_hook.py"
    if moe_dp > 1:
        if tp % moe_dp:
            raise ConfigError(f"--moe-dp-size {moe_dp} must divide --tp-size {tp}: SGLang "
                              f"asserts ({hook}:172-174)")
        if ep * moe_dp > tp:
            raise ConfigError(f"--ep-size {ep} x --moe-dp-size {moe_dp} must not exceed "
                              f"--tp-size {tp}: SGLang asserts ({hook}:175-177)")
        if pp != 1:
            raise ConfigError(f"--moe-dp-size {moe_dp} does not take pipeline parallelism "
                              f"(--pp-size {pp}): SGLang asserts ({hook}:178)")
        if ep > 1 and ep * moe_dp != tp:
            raise ConfigError(f"--ep-size {ep} x --moe-dp-size {moe_dp} must equal "
                              f"--tp-size {tp}: SGLang asserts ({hook}:180-183)")
    if attn_cp != moe_dp and moe_dp != 1:
        raise ConfigError(f"--moe-dp-size {moe_dp} must equal the attention context-parallel "
                          f"size ({attn_cp}) or be 1: SGLang asserts ({hook}:189-192)")


def check_aiter(aiter: bool, deterministic: bool, attn_cp: int, moe_dp: int) -> None:
    """parallel_hook.py:166-168 and 185-187 on the flag deterministic inference left."""
    if not aiter or deterministic:
        return  # attention_hook.py:599-607 cleared it
    for size, flag, lines in ((attn_cp, "--attn-cp-size", "166-168"),
                              (moe_dp, "--moe-dp-size", "185-187")):
        if size > 1:
            raise ConfigError(f"AITER all-reduce fusion on with {flag} {size}: Aiter "
                              f"allreduce fusion is not supported with context parallelism: "
                              f"SGLang asserts (arg_groups/parallel_hook.py:{lines})")


def check_role_switch(role_switch: bool, mode: str, ep: int) -> None:
    """The PD role switch's expert-parallel clause (pd_disaggregation_hook.py:165-169)."""
    if role_switch and mode in PD_ROLES and ep > 1:
        raise ConfigError(f"--enable-pd-role-switch does not rebuild expert parallelism "
                          f"(--ep-size {ep}): SGLang refuses "
                          f"(arg_groups/pd_disaggregation_hook.py:165-169, 190-196)")


def check_gpt_oss(arch: str | None, runner: str, ep: int) -> None:
    """GPT-OSS's Triton kernel runner at ep_size 1 (model_hook.py:568-571); `runner` is the
    one SGLang's hooks see."""
    if arch == GPT_OSS and runner == "triton_kernel" and ep != 1:
        raise ConfigError(f"{GPT_OSS}: the triton_kernel MoE runner needs --ep-size 1, got "
                          f"{ep}: SGLang asserts "
                          f"(arg_groups/model_hook.py:568-571)")


def check(config: EngineSettings, runner: str) -> None:
    """The three rules on one line; `runner` is the MoE runner after the overrides."""
    ep = config.ep_size
    check_aiter(config.enable_aiter_allreduce_fusion,
                config.enable_deterministic_inference or config.rl_on_policy_target is not None,
                config.attn_cp_size, config.moe_dp_size)
    check_moe_dp(config.moe_dp_size, ep, config.tp_size, config.pp_size, config.attn_cp_size)
    check_role_switch(config.enable_pd_role_switch, config.disaggregation_mode,
                      sglang_dwdp.given_ep_size(config))  # before DWDP (pipeline.py:147)
    check_gpt_oss(config.architecture, runner, ep)


__all__ = ["GPT_OSS", "PD_ROLES", "check", "check_aiter", "check_gpt_oss", "check_moe_dp",
           "check_role_switch"]
