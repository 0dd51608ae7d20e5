"""DeepSeek-V4's KV cache dtype and V4.1's default attention backend as SGLang 0.5.23 resolves
them (issue 23, s48k), for graphfit.planner.engines.sglang_dsv4_plan.

* The KV dtype: `_deepseek_v4_kv_cache_dtype` (arg_groups/overrides.py:892-913, run from
  `apply_deepseek_v4_defaults`, deepseek_v4_hook.py:83) makes auto fp8_e4m3 (bfloat16 on NPU;
  graphfit plans CUDA) and refuses anything but fp8_e4m3 / bfloat16 (that refusal is
  graphfit.planner.engines.sglang_arch_overrides.model_refusals).
* The default backend: `_default_dsv4_attention_backend` (deepseek_v4_hook.py:45-60, applied
  when the backend is auto, :85-90) gives flashmla_mega only for a deepseek_v41 model on a
  CUDA SM100 device whose KV dtype is fp8_e4m3, unless attention is tensor parallel on a
  server that is no PD role (`_attention_is_tensor_parallel`, :33-42: attention TP =
  tp // attn_dp // attn_cp, runtime_context.py:73-76; prefill CP, which counts as not TP, is
  refused by graphfit as not modelled) or SGLANG_DSV4_KV_LAYOUT is set to a name other than
  auto / v41 / v41_new (an explicit v4, `V4_LAYOUT`; v41 / v41_new leave the pools unrestated
  anyway). Otherwise flashmla.
* trtllm's KV dtype assert (:108-111): the resolved dtype must be fp8_e4m3 (auto is by then).

The layout the backend picks is graphfit.planner.engines.sglang_dsv4_plan.kv_layout's.
"""

from __future__ import annotations

from graphfit.planner.core.settings import EngineSettings

FP8 = "fp8_e4m3"
# SGLANG_DSV4_KV_LAYOUT=v4 written out (its default is v4, environ.py:1754, but only a set
# variable turns V4.1's default backend to flashmla, deepseek_v4_hook.py:57); recorded by
# graphfit.inputs.sglang_dsv4.environment in SglangOptions.dsv4_env_unmodelled, the V4
# layout graphfit restates
V4_LAYOUT = "SGLANG_DSV4_KV_LAYOUT=v4 (set: the V4 layout, V4.1's default backend flashmla)"


def kv_dtype(config: EngineSettings) -> str:
    """The KV cache dtype after DeepSeek-V4's resolution on CUDA: auto (or not given) is
    fp8_e4m3 (overrides.py:901-903); any other name as given."""
    given = config.kv_cache_dtype
    return FP8 if given in (None, "auto") else given


def attention_tp(config: EngineSettings) -> bool:
    """`_attention_is_tensor_parallel` (deepseek_v4_hook.py:33-42): attention TP > 1."""
    return config.tp_size // config.attn_dp_size // config.attn_cp_size > 1


def default_backend(config: EngineSettings) -> str:
    """`_default_dsv4_attention_backend` for a deepseek_v41 model on a CUDA SM100 device (the
    caller's conditions, deepseek_v4_hook.py:51-53): flashmla_mega over an fp8_e4m3 cache
    (:54) without attention TP off PD (:56) and without an explicit SGLANG_DSV4_KV_LAYOUT=v4
    (:57), else flashmla."""
    if kv_dtype(config) != FP8:
        return "flashmla"
    if config.disaggregation_mode == "null" and attention_tp(config):
        return "flashmla"
    if config.dsv4_env_unmodelled == V4_LAYOUT:
        return "flashmla"
    return "flashmla_mega"


def trtllm_dtype_refusal(config: EngineSettings) -> str | None:
    """trtllm's assert on the resolved dtype (deepseek_v4_hook.py:108-111), SGLang's
    sentence, or None where it holds."""
    got = kv_dtype(config)
    if got in ("auto", FP8):
        return None
    return f"--dsv4-attn-backend trtllm requires kv_cache_dtype=fp8_e4m3, got {got}."


__all__ = ["FP8", "V4_LAYOUT", "attention_tp", "default_backend", "kv_dtype",
           "trtllm_dtype_refusal"]
