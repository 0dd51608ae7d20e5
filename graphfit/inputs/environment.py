"""Each engine's environment variables graphfit reads, one reader per engine (its
`environment` part in graphfit.planner.engines.table): vLLM's `VLLM_USE_V2_MODEL_RUNNER` (the
model runner); SGLang's `SGLANG_ENABLE_SINGLE_CG_DRAFT` (multi-layer EAGLE's draft-extend graph
count, graphfit.planner.engines.sglang_mtp_graphs), its MoE all-to-all token budgets
(`SGLANG_BUDGETS`: megamoe, mori, pplx, DeepEP v2, FlashInfer,
NixlEP, Mooncake: s55e) and `SGLANG_MAMBA_SSM_DTYPE`
(a hybrid mamba model's state dtype, graphfit.planner.engines.sglang_mamba_memory),
`SGLANG_ENABLE_POST_CAPTURE_KV_SIZING`, `SGLANG_MOONCAKE_CUSTOM_MEM_POOL` and
`MOONCAKE_PROTOCOL` (the memory reserve, graphfit.planner.engines.sglang_post_capture);
TensorRT-LLM's `TRTLLM_MOE_A2A_WORKSPACE_MB` (the one-sided MoE all-to-all workspace,
graphfit.inputs.trtllm_a2a) and `TRTLLM_FORCE_ALLTOALL_METHOD` (the method it selects, s60t).

A module of its own, without the value readers, because every command consults the environment
and most never read a flag table or a file (start-up: graphfit.cli imports this on every run).
"""

from __future__ import annotations

from collections.abc import Mapping

from graphfit.inputs.settings import COMMAND_LINE, Setting
from graphfit.planner.core.errors import ConfigError

ENV_V2_RUNNER = "VLLM_USE_V2_MODEL_RUNNER"
ENV_SINGLE_CG = "SGLANG_ENABLE_SINGLE_CG_DRAFT"
ENV_MAMBA_SSM_DTYPE = "SGLANG_MAMBA_SSM_DTYPE"
ENV_POST_CAPTURE = "SGLANG_ENABLE_POST_CAPTURE_KV_SIZING"  # sglang_post_capture
ENV_MOONCAKE_POOL = "SGLANG_MOONCAKE_CUSTOM_MEM_POOL"
ENV_MOONCAKE_PROTOCOL = "MOONCAKE_PROTOCOL"  # sglang_post_capture (environ.py:887)
ENV_NVFP4_DISPATCH = "SGLANG_MOE_NVFP4_DISPATCH"  # EnvBool (environ.py:1185), sglang_layernorm_sp
MAMBA_SSM_DTYPES = ("float32", "bfloat16", "float16")  # configs/mamba_utils.py:60-64
# SGLang's EnvBool spellings (environ.py:143-150)
_SGLANG_TRUE = ("true", "1", "yes", "y")
_SGLANG_FALSE = ("false", "0", "no", "n")
# SGLang's per-rank MoE all-to-all token budgets (EnvInt, environ.py:153-158) -> the
# SglangOptions field each sets; defaults environ.py:1470, 930, 1453, 1441, 1224 (unset)
SGLANG_BUDGETS = {
    "SGLANG_OPT_DEEPGEMM_MEGA_MOE_NUM_MAX_TOKENS_PER_RANK": "megamoe_tokens_per_rank",
    "SGLANG_MORI_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "mori_dispatch_tokens_per_rank",
    "SGLANG_PPLX_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "pplx_dispatch_tokens_per_rank",
    "SGLANG_DEEPEP_V2_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "deepep_v2_dispatch_tokens_per_rank",
    "SGLANG_FLASHINFER_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "flashinfer_dispatch_tokens_per_rank",
    # s55e: NixlEP's EnvInt (environ.py:1452) and Mooncake's get_int_env_var (utils/common.py:
    # 1444-1452: blank or unparsable -> 128, as int() here), both 128 (mooncake.py:157-159)
    "SGLANG_NIXL_EP_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "nixl_dispatch_tokens_per_rank",
    "SGLANG_MOONCAKE_EP_NUM_MAX_DISPATCH_TOKENS_PER_RANK": "mooncake_dispatch_tokens_per_rank",
}

# read as written, any sign: only a NixlEP / Mooncake dispatcher reads these, and it asserts
# just `<= 1024` at model build (graphfit.planner.engines.sglang_first_dispatch, s60k); the
# other five likewise, each read only on its own backend, whose start-up check compares it
# as it is (graphfit.planner.engines.sglang_budget_floor, s63k)
SIGNED_BUDGETS = frozenset(SGLANG_BUDGETS.values())

__all__ = ["ENV_V2_RUNNER", "SGLANG_BUDGETS", "SGLANG_ENVIRONMENT", "SIGNED_BUDGETS",
           "TRTLLM_ENVIRONMENT", "VLLM_ENVIRONMENT", "environment", "implied_release_note"]


def environment(environ: Mapping[str, str]) -> list[Setting]:
    """VLLM_USE_V2_MODEL_RUNNER=1 selects the V2 model runner (0 the V1 runner)."""
    raw = environ.get(ENV_V2_RUNNER)
    if raw is None or raw.strip() == "":
        return []
    value = raw.strip().lower()
    if value not in ("0", "1", "true", "false"):
        raise ConfigError(f"{ENV_V2_RUNNER}: expected 0 or 1, got {raw!r}")
    runner = "v2" if value in ("1", "true") else "v1"
    origin = f"{ENV_V2_RUNNER}={raw.strip()}"
    settings = [Setting("runner", runner, origin, COMMAND_LINE)]
    release = _v1_release() if runner == "v1" else None
    if release is not None:  # a weak hint: --engine-version wins
        settings.append(Setting("engine_version", release,
                                f"{origin} (the V1 runner: vLLM {release} and earlier)",
                                COMMAND_LINE, weak=True))
    return settings


def implied_release_note(env: list[Setting], others: list[Setting]) -> str | None:
    """The note for a release the environment implied (VLLM_USE_V2_MODEL_RUNNER=0 with a default
    release that has no V1 runner), when no other input named a release."""
    from graphfit.planner.engines.registry import default_version

    implied = [s for s in env if s.field == "engine_version"]
    if not implied or any(s.field == "engine_version" and not s.weak for s in others):
        return None
    return (f"{implied[0].origin.split(' (')[0]}: the V1 runner, which vLLM "
            f"{default_version('vllm')} (the default) removed; planned as vLLM "
            f"{implied[0].value}, the newest release with it (--engine-version overrides)")


def _v1_release() -> str | None:
    """The newest modelled vLLM release that still has the V1 runner, when the default
    release has none (0.34 removed it: platforms/interface.py:1481-1491); None otherwise."""
    from graphfit.planner.engines.registry import default_version, engine_model, versions

    def has_v1(version: str) -> bool:
        changes = getattr(engine_model("vllm", version), "changes", None)
        return bool(getattr(changes, "v1_runner", True))

    if has_v1(default_version("vllm")):
        return None
    older = [v for v in versions("vllm") if has_v1(v)]
    return older[-1] if older else None


def sglang_environment(environ: Mapping[str, str]) -> list[Setting]:
    """SGLANG_ENABLE_SINGLE_CG_DRAFT as SGLang's EnvBool parses it (environ.py:143-150);
    unset, or a value it cannot parse (it warns and keeps the default, environ.py:67-86): on,
    SGLang's default (environ.py:1921), so no setting. The all-to-all token budgets
    (`SGLANG_BUDGETS`) as its EnvInt parses them (`int(value)`, environ.py:153-158; a value
    it cannot parse keeps the default, :78-86); then DSPARK's modes (sglang_dspark_env)."""
    from graphfit.inputs.sglang_dspark_early import environment as dspark_early_environment
    from graphfit.inputs.sglang_dspark_env import dspark_environment  # DSPARK's modes
    from graphfit.inputs.sglang_dsv4 import environment as dsv4_environment
    from graphfit.inputs.sglang_lora import environment as lora_environment
    from graphfit.inputs.sglang_mamba_env import mamba_environment  # the mamba memory solve
    from graphfit.inputs.sglang_mori_env import environment as mori_environment
    from graphfit.inputs.sglang_server_flags import environment as server_flags_environment
    from graphfit.inputs.sglang_spec_dp import environment as spec_dp_environment

    out: list[Setting] = []
    raw = environ.get(ENV_SINGLE_CG)
    if raw is not None and raw.lower() in (*_SGLANG_TRUE, *_SGLANG_FALSE):
        out.append(Setting("single_cg_draft", raw.lower() in _SGLANG_TRUE,
                           f"{ENV_SINGLE_CG}={raw}", COMMAND_LINE))
    for name, field in SGLANG_BUDGETS.items():
        given = environ.get(name)
        if given is None:
            continue
        try:
            value = int(given)
        except ValueError:
            continue  # SGLang warns and keeps its default
        out.append(Setting(field, value, f"{name}={given}", COMMAND_LINE))
    raw = environ.get(ENV_NVFP4_DISPATCH)  # Muse Spark's LayerNorm SP check (s64k)
    if raw is not None:  # set: its value; one EnvBool cannot parse keeps False (:67-89)
        out.append(Setting("moe_nvfp4_dispatch", raw.lower() in _SGLANG_TRUE,
                           f"{ENV_NVFP4_DISPATCH}={raw}", COMMAND_LINE))
    return [*out, *_post_capture(environ), *_mamba_ssm_dtype(environ), *_megamoe_env(environ),
            *dspark_environment(environ), *mamba_environment(environ),
            *spec_dp_environment(environ),  # DP spec / prefill coordination
            *_lazy_compaction(environ),  # unified memory's PD check (s41u)
            *dsv4_environment(environ),  # DeepSeek-V4's KV pools (sglang_dsv4)
            *dspark_early_environment(environ),  # DSPARK's staged verify inputs (s54d)
            *lora_environment(environ),  # the LoRA start-up checks (s66l)
            *server_flags_environment(environ),  # check_server_args's PP checks (s67b)
            *_nextn_fp8_moe(environ),  # DeepSeek NextN drafts' MoE config (s69d)
            *mori_environment(environ)]  # MoRI EPv2 / receive bound (s70j)


# flashinfer_megamoe's variables (environ.py:1235, 1240, 1246) -> SglangOptions fields
MEGAMOE_BOOLS = {"SGLANG_FLASHINFER_MEGAMOE_IN_KERNEL_FC2_REDUCE": "megamoe_fc2_reduce",
                 "SGLANG_FLASHINFER_CUTEDSL_NVFP4_W4A16": "nvfp4_w4a16",
                 # HYV4's deep_gemm pick (environ.py:1348; sglang_class_picks)
                 "SGLANG_ENABLE_JIT_DEEPGEMM": "jit_deepgemm"}
ENV_MEGAMOE_COMBINE = "SGLANG_FLASHINFER_MEGAMOE_COMBINE_DTYPE"


def _megamoe_env(environ: Mapping[str, str]) -> list[Setting]:
    """flashinfer_megamoe's environment as SGLang reads it: two EnvBools (a value it cannot
    parse keeps the default, environ.py:67-86, 143-150) and the combine dtype, an EnvStr kept
    as written (checked by graphfit.planner.engines.sglang_flashinfer_megamoe)."""
    out: list[Setting] = []
    for name, field in MEGAMOE_BOOLS.items():
        raw = environ.get(name)
        if raw is not None and raw.lower() in (*_SGLANG_TRUE, *_SGLANG_FALSE):
            out.append(Setting(field, raw.lower() in _SGLANG_TRUE, f"{name}={raw}",
                               COMMAND_LINE))
    raw = environ.get(ENV_MEGAMOE_COMBINE)
    if raw is not None:
        out.append(Setting("megamoe_combine_dtype", raw, f"{ENV_MEGAMOE_COMBINE}={raw}",
                           COMMAND_LINE))
    return out


def _post_capture(environ: Mapping[str, str]) -> list[Setting]:
    """SGLANG_ENABLE_POST_CAPTURE_KV_SIZING (EnvBool, off, environ.py:640, 143-150). Any value
    in the environment, even one SGLang cannot parse (it warns and reads the default, off,
    :67-86), keeps a Muse Spark model's default (on) from applying, since that default is set
    only when the name is absent (muse_spark_hook.py:50-54, `is_set`, environ.py:89-90): so an
    unparsable value is recorded as off, an absent one as nothing. SGLANG_MOONCAKE_CUSTOM_MEM_POOL
    (EnvStr, unset by default, environ.py:864) set to anything turns post-capture sizing off
    (arg_groups/overrides.py:1815-1816). MOONCAKE_PROTOCOL (EnvStr, "rdma", environ.py:887),
    "efa" in any case, turns it off with the Mooncake transfer backend (:1817-1822)."""
    out: list[Setting] = []
    raw = environ.get(ENV_POST_CAPTURE)
    if raw is not None:
        out.append(Setting("post_capture_kv_sizing", raw.lower() in _SGLANG_TRUE,
                           f"{ENV_POST_CAPTURE}={raw}", COMMAND_LINE))
    pool = environ.get(ENV_MOONCAKE_POOL)
    if pool is not None:  # an EnvStr: any value, even empty, is not None (:1815-1816)
        out.append(Setting("post_capture_declined", True, f"{ENV_MOONCAKE_POOL}={pool}",
                           COMMAND_LINE))
    protocol = environ.get(ENV_MOONCAKE_PROTOCOL)
    if protocol is not None:  # an EnvStr kept as written; "efa" in any case declines
        out.append(Setting("mooncake_protocol", protocol, f"{ENV_MOONCAKE_PROTOCOL}={protocol}",
                           COMMAND_LINE))
    return out


ENV_LAZY_COMPACTION = "SGLANG_DISABLE_LAZY_COMPACTION"


def _lazy_compaction(environ: Mapping[str, str]) -> list[Setting]:
    """SGLANG_DISABLE_LAZY_COMPACTION (EnvBool, off, environ.py:602, 143-150): on, a unified-
    memory PD line is refused (kv_cache_hook.py:554-557; graphfit.planner.engines.
    sglang_unified_switches). A value SGLang cannot parse keeps the default (:67-86)."""
    raw = environ.get(ENV_LAZY_COMPACTION)
    if raw is None or raw.lower() not in (*_SGLANG_TRUE, *_SGLANG_FALSE):
        return []
    return [Setting("disable_lazy_compaction", raw.lower() in _SGLANG_TRUE,
                    f"{ENV_LAZY_COMPACTION}={raw}", COMMAND_LINE)]


ENV_NEXTN_FP8_MOE = "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE"


def _nextn_fp8_moe(environ: Mapping[str, str]) -> list[Setting]:
    """SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE (EnvBool, off, environ.py:1187, 143-150): on, a
    modelopt_fp4 DeepSeek-family NextN draft under the deep_gemm runner gets FP8 block experts
    instead of unquantized ones (models/deepseek_nextn.py:66-79; graphfit.planner.engines.
    sglang_draft_nextn_fp4, issue 23 s69d). A value SGLang cannot parse keeps off (:67-86)."""
    raw = environ.get(ENV_NEXTN_FP8_MOE)
    if raw is None or raw.lower() not in (*_SGLANG_TRUE, *_SGLANG_FALSE):
        return []
    return [Setting("nvfp4_ckpt_fp8_nextn_moe", raw.lower() in _SGLANG_TRUE,
                    f"{ENV_NEXTN_FP8_MOE}={raw}", COMMAND_LINE)]


def _mamba_ssm_dtype(environ: Mapping[str, str]) -> list[Setting]:
    """SGLANG_MAMBA_SSM_DTYPE, the hybrid mamba state dtype (mamba2_state_dtype, configs/
    mamba_utils.py:47-103): it overrides the model config's mamba_ssm_dtype, and
    --mamba-ssm-dtype overrides it (the flag writes the variable, arg_groups/serving_hook.py:
    439-440), hence a lower priority than the flag in the same layer. A value SGLang does not
    know it ignores with a warning (:96-101), so does graphfit."""
    raw = environ.get(ENV_MAMBA_SSM_DTYPE)
    if raw not in MAMBA_SSM_DTYPES:
        return []
    return [Setting("mamba_ssm_dtype", raw, f"{ENV_MAMBA_SSM_DTYPE}={raw}", COMMAND_LINE,
                    priority=-1)]


VLLM_ENVIRONMENT = environment
SGLANG_ENVIRONMENT = sglang_environment


def trtllm_environment(environ: Mapping[str, str]) -> list[Setting]:
    """TensorRT-LLM's variables graphfit reads: the MoE all-to-all workspace's MiB and the
    forced all-to-all method (graphfit.inputs.trtllm_a2a)."""
    from graphfit.inputs.trtllm_a2a import environment as a2a_environment

    return a2a_environment(environ)


TRTLLM_ENVIRONMENT = trtllm_environment
