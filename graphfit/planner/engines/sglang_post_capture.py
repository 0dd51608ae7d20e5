"""Whether SGLang 0.5.23 sizes the KV cache after graph capture, which decides its default
memory reserve (graphfit.planner.engines.sglang_memory: 1536 MiB + TP x PP / 8 GiB instead of
the activation + graph reserve, memory_hook.py:289-295, and a VLM's flat 8 GiB, :423-431).

The switch is `SGLANG_ENABLE_POST_CAPTURE_KV_SIZING` (an EnvBool, off by default,
environ.py:640). A Muse Spark model turns it on unless the variable is in the environment
(`apply_muse_spark_env_defaults`, muse_spark_hook.py:14, 19-25, 37-60: `field.is_set()` is
"the name is in os.environ", environ.py:89-90), run before the memory hook
(arg_groups/pipeline.py:120-122). So a value SGLang cannot parse is set yet reads as the
default, off (environ.py:67-86), for a Muse Spark model too: graphfit's reader records it as
off (graphfit.inputs.environment). No server flag turns it on.

With the switch on, `post_capture_kv_sizing_planned` (arg_groups/overrides.py:1791-1862) still
declines, and the normal reserve applies, for: an MLA attention model (:1802, 1808-1809);
decode graphs off outside a PD prefill server (:1838-1842); outside a PD decode server, prefill
graphs off or a chunked-prefill size above the largest prefill capture size (:1844-1854;
`max_prefill_buffer_tokens`, :1865-1883, is the chunked-prefill size: no provider registers a
ceiling in 0.5.23, prefill_buffer_ceiling.py); a DeepSeek-V4 or MiniMax-M3 sparse model
(:1856-1860, configs/model_config.py:395-431). Under --enable-unified-memory the answer depends
on the model's hybrid-SWA layout and the speculative algorithm (:1826-1836), not restated here.
--enable-kv-cache-sharding (:1799-1800), --prefill-only-disable-kv-cache and
--enable-memory-saver (:1811-1814) decline too, and so does SGLANG_MOONCAKE_CUSTOM_MEM_POOL
set to anything (:1815-1816) (`declined`: graphfit reads them only for this). Inputs graphfit
does not read and that also decline (a pasted line lists their flags as ignored): a device
other than CUDA, --dcp-size > 1 (refused by graphfit anyway), MOONCAKE_PROTOCOL=efa with the
Mooncake transfer backend (:1817-1822) and PP dynamic chunking (:1878-1879).
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.core.errors import ConfigError

ENV_POST_CAPTURE = "SGLANG_ENABLE_POST_CAPTURE_KV_SIZING"
# MUSE_SPARK_ARCHITECTURES (muse_spark_hook.py:14): the variable defaults to on for these
MUSE_SPARK_ARCHITECTURES = frozenset({"MuseSparkForConditionalGeneration"})
# is_deepseek_v4 / is_minimax_sparse (configs/model_config.py:395-400, 426-431)
SPARSE_ARCHITECTURES = frozenset({
    "DeepseekV4ForCausalLM", "DeepseekV4ForCausalLMNextN", "DeepseekV4ForCausalLMDSpark",
    "MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration"})


def switch_on(env: bool | None, architecture: str | None) -> bool:
    """`envs.SGLANG_ENABLE_POST_CAPTURE_KV_SIZING.get()` as the memory hook reads it: the
    environment's value (`env`: None when the variable is not set), else on for a Muse Spark
    model (muse_spark_hook.py:50-54), else off (environ.py:640)."""
    if env is not None:
        return env
    return architecture in MUSE_SPARK_ARCHITECTURES


@dataclass(frozen=True)
class PostCaptureInputs:
    """What `post_capture_kv_sizing_planned` reads that graphfit models (module docstring),
    at the point the memory hook asks (after the CUDA-graph hook, before the backends)."""

    switch: bool  # switch_on(...)
    architecture: str | None
    mla: bool
    disaggregation_mode: str  # "null" | "prefill" | "decode"
    decode_graphs: bool
    prefill_graphs: bool
    prefill_max_tokens: int  # max(cuda_graph_config.prefill.bs), 0 when none
    chunked_prefill_size: int
    unified_memory: bool = False
    # --enable-kv-cache-sharding, --enable-memory-saver, --prefill-only-disable-kv-cache,
    # SGLANG_MOONCAKE_CUSTOM_MEM_POOL
    declined: bool = False

    def __post_init__(self) -> None:
        if self.disaggregation_mode not in ("null", "prefill", "decode"):
            raise ConfigError(f"disaggregation_mode: {self.disaggregation_mode!r} is not one "
                              f"of null, prefill, decode")


UNIFIED_NOT_MODELLED = ("post-capture KV sizing under --enable-unified-memory: SGLang's answer "
                        "depends on the hybrid-SWA pool and the draft pools "
                        "(overrides.py:1826-1836), not modelled")


def planned(p: PostCaptureInputs) -> bool:
    """SGLang's `post_capture_kv_sizing_planned` (overrides.py:1791-1862) over graphfit's
    inputs; ConfigError where graphfit cannot restate it (unified memory with the switch on)."""
    if not p.switch or p.mla or p.declined:
        return False
    if p.unified_memory:
        raise ConfigError(UNIFIED_NOT_MODELLED)
    if p.disaggregation_mode != "prefill" and not p.decode_graphs:
        return False
    if p.disaggregation_mode != "decode" and (
            not p.prefill_graphs or p.chunked_prefill_size <= 0
            or p.chunked_prefill_size > p.prefill_max_tokens):
        return False
    return p.architecture not in SPARSE_ARCHITECTURES


__all__ = ["ENV_POST_CAPTURE", "MUSE_SPARK_ARCHITECTURES", "SPARSE_ARCHITECTURES",
           "UNIFIED_NOT_MODELLED", "PostCaptureInputs", "planned", "switch_on"]
