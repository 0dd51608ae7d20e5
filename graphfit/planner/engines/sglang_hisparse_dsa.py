"""HiSparse's DSA backend and KV dtype checks in SGLang 0.5.23 (issue 23, s69b).

Why: a DSA line with `--enable-hisparse` can name `--dsa-prefill-backend` /
`--dsa-decode-backend`. SGLang refuses some pairs, in two places, and graphfit planned them.

1. The resolution's hisparse arm (`_dsa_split_backend_resolution`, arg_groups/overrides.py:
   600-712). It runs for a DeepSeek-family DSA target (`_DEEPSEEK_FAMILY_ARCHS`, :745-760)
   on CUDA or ROCm. It is skipped when the config has learnable sinks (:642-656) or for GLM-5
   with an FP8 cache on SM12x (:637-641, 658-666). A backend left unset takes
   `_hisparse_default_backend` (hisparse_hook.py:26-29). Then, on CUDA only:
   * an FP8 cache with tilelang on either side is refused (:685-691);
   * triton on either side is refused (`_check_dsa_backend_constraints`, :558-567).
   The constraint's tilelang / DCP / SM89 arm (:569-582) needs FP8 with tilelang, which the
   first refusal already took.
2. `validate_hisparse`'s own checks at `check_server_args` (hisparse_hook.py:154-165), after
   the radix / mixed-chunk / speculation checks (graphfit.planner.engines.
   sglang_server_hisparse). MiniMax-M3 skips them (:150-152), and so does DeepSeek-V4 on
   ROCm (:131-148); DeepSeek-V4 on CUDA meets them with its resolved dtype (`auto` is
   fp8_e4m3, overrides.py:892-903).
   * The KV dtype the view holds must be bfloat16, `auto` or fp8_e4m3. A family target's
     dtype was already resolved to bfloat16 or fp8_e4m3 (graphfit.inputs.sglang_kv_auto), so
     only a DSA architecture outside the family (a NextN head served as the target) can meet
     this, e.g. with `bf16`, which is kept as written.
   * Each named backend, prefill first, must be in the allow-list: on ROCm tilelang, triton or
     aiter; on CUDA flashmla_sparse for bfloat16, flashmla_kv or flashinfer_sparse_mla for
     fp8_e4m3, any of the three for another dtype (:18-37, 44-61).

A family target's `auto` dtype depends on the GPU: fp8_e4m3 from SM100 on without learnable
sinks, else bfloat16 (overrides.py:532-538). config.json's `learnable_sink` is read with the
backends (`dsa_learnable_sink`, issue 23 s69m). Where graphfit does not know the capability,
or the GPU is SM100+ and the sinks were not read, both dtypes are tried (fp8_e4m3 first on
SM100+, the dtype without sinks, so that its refusal is the one said). A line is judged only
where both give an answer of the same kind (both refuse, or both plan).
"""

from __future__ import annotations

from graphfit.planner.core.settings import EngineSettings

OVERRIDES = "arg_groups/overrides.py"
HOOK = "hisparse_hook.py"  # arg_groups/
# the flags' choices (server_args fields; graphfit/inputs/flags/sglang.json)
DSA_BACKENDS = frozenset({
    "flashmla_sparse", "flashmla_sparse_q8", "flashmla_kv", "flashmla_auto",
    "flashinfer_sparse_mla", "triton_sparse_mla", "fa3", "tilelang", "triton", "aiter",
    "trtllm", "intel_xpu"})
# `_DEEPSEEK_FAMILY_ARCHS` (overrides.py:745-760): where the DSA dtype / backend passes run
FAMILY = frozenset({
    "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "KimiK25ForConditionalGeneration",
    "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM",
    "Glm5NextForConditionalGeneration", "HYV4ForCausalLM", "HYV4ForCausalLMNextN",
    "LongcatFlashForCausalLM", "LongcatFlashForCausalLMNextN", "Dots3NoteForCausalLM"})
# hisparse_hook.py:18-23
CUDA_BY_DTYPE = {"bfloat16": frozenset({"flashmla_sparse"}),
                 "fp8_e4m3": frozenset({"flashmla_kv", "flashinfer_sparse_mla"})}
CUDA_ANY = frozenset({"flashmla_sparse", "flashmla_kv", "flashinfer_sparse_mla"})  # :35-37
ROCM = frozenset({"tilelang", "triton", "aiter"})
KV_OK = ("bfloat16", "auto", "fp8_e4m3")  # :154-158
HISPARSE_KV = ("bfloat16", "fp8_e4m3")  # :23
V4 = "DeepseekV4ForCausalLM"


def dtypes(config: EngineSettings) -> tuple[str, ...]:
    """The KV dtype(s) SGLang's view may hold at these checks (module docstring): one where
    graphfit can tell, both of a family target's where its `auto` depends on what graphfit
    does not know."""
    kv = config.kv_cache_dtype or "auto"
    if config.architecture == V4 and kv == "auto":
        return ("fp8_e4m3",)  # `_deepseek_v4_kv_cache_dtype` (overrides.py:892-903)
    if config.architecture not in FAMILY:
        return (kv,)  # no resolution pass rewrites it
    if kv == "bf16":
        return ("bfloat16",)  # overrides.py:539-540
    if kv != "auto":
        return (kv,)
    cap = config.gpu_capability
    sink = config.dsa_learnable_sink  # None where graphfit did not read it (s69m)
    if config.gpu_rocm or (cap is not None and cap < 100) or sink:
        return ("bfloat16",)  # :532-535 (an MI300X reports capability 9.x)
    if cap is not None:  # SM100+: fp8_e4m3 unless the config has sinks
        return ("fp8_e4m3",) if sink is False else ("fp8_e4m3", "bfloat16")
    return ("bfloat16", "fp8_e4m3")


def _arm(config: EngineSettings, kv: str) -> str | None:
    """The hisparse arm's refusals (overrides.py:677-702) under dtype `kv`, on CUDA."""
    cap = config.gpu_capability
    if (config.gpu_rocm or config.architecture not in FAMILY
            or (config.architecture == "GlmMoeDsaForCausalLM" and kv == "fp8_e4m3"
                and cap is not None and cap // 10 == 12)):
        return None
    default = "flashmla_kv" if kv == "fp8_e4m3" else "flashmla_sparse"
    chosen = tuple(b or default for b in config.dsa_backends or (None, None))
    if kv == "fp8_e4m3" and "tilelang" in chosen:
        return f"CUDA TileLang FP8 KV does not support HiSparse. (ValueError, {OVERRIDES}:685-691)"
    if "triton" in chosen:
        return ("The triton DSA backend is only supported on ROCm/HIP (a HiSparse line; "
                f"ValueError, {OVERRIDES}:558-567)")
    return None


def _hook(config: EngineSettings, kv: str) -> str | None:
    """`validate_hisparse`'s dtype and backend checks (hisparse_hook.py:154-165) under `kv`."""
    if kv not in KV_OK:
        return (f"HiSparse requires one of {HISPARSE_KV} KV cache dtypes, but got "
                f"--kv-cache-dtype={kv} (ValueError, {HOOK}:64-76)")
    allowed = ROCM if config.gpu_rocm else CUDA_BY_DTYPE.get(kv, CUDA_ANY)
    for backend, label in zip(config.dsa_backends or (None, None), ("prefill", "decode"),
                              strict=True):
        if backend is not None and backend not in allowed:
            return (f"HiSparse supports DSA {label} backend(s) {sorted(allowed)} with "
                    f"--kv-cache-dtype={kv}, not {backend} (ValueError, {HOOK}:54-61)")
    return None


def problem(config: EngineSettings, between: str | None) -> str | None:
    """The first refusal of a served DSA HiSparse line (module docstring): the hisparse arm
    at resolution, else `between` (validate_hisparse's radix / mixed-chunk / speculation
    refusal, or None), else the dtype / backend checks. Under each dtype `dtypes` tries; one
    answer only where all give one (the first dtype's refusal where all refuse, None where
    all plan or where they differ: not judged)."""
    said = [_arm(config, kv) or between or _hook(config, kv) for kv in dtypes(config)]
    return said[0] if all(s is not None for s in said) else None


__all__ = ["DSA_BACKENDS", "FAMILY", "dtypes", "problem"]
