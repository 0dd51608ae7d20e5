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
(:1856-1860, configs/model_config.py:395-431).
--enable-kv-cache-sharding (:1799-1800), --prefill-only-disable-kv-cache and
--enable-memory-saver (:1811-1814) decline too, and so does SGLANG_MOONCAKE_CUSTOM_MEM_POOL
set to anything (:1815-1816) (`declined`: graphfit reads them only for this).
Also restated (issue 23 s32k): a device other than CUDA (:1805; SGLang strips an index,
"cuda:1" is "cuda", serving_hook.py:650-660; a pasted line or config file naming another
device is refused as not modelled, graphfit.inputs.sglang_post_capture, so this serves a raw
ServerArgs); MOONCAKE_PROTOCOL (an EnvStr, "rdma", environ.py:887) "efa" in any case with the
Mooncake transfer backend (the default, arg_groups/fields/disagg.py:65-71; :1817-1822); PP
dynamic chunking, which raises the prefill buffer to max(chunked, --max-prefill-tokens,
ceil(1.25 x chunked)) under --pp-size > 1 (`max_prefill_buffer_tokens`, :1865-1883); and
--enable-unified-memory, which keeps post-capture sizing only for a hybrid-SWA model
(`is_hybrid_swa_model`, configs/model_config.py:2651-2697) without a mamba-like state and
without an EAGLE / EAGLE3 / FROZEN_KV_MTP / NEXTN / STANDALONE / DFLASH / DSPARK draft
(:1826-1836; spec_info.py:50-66, 102-130). --dcp-size other than 1 declines (:1807-1808; issue
23 s44d: graphfit plans DCP on MHA models, for which this is the rule that decides).
"""

from __future__ import annotations

import math
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
    device: str = "cuda"  # SGLang's device, its index stripped (serving_hook.py:650-660)
    transfer_backend: str = "mooncake"  # --disaggregation-transfer-backend
    mooncake_protocol: str = "rdma"  # MOONCAKE_PROTOCOL (environ.py:887)
    pp_size: int = 1
    dynamic_chunking: bool = False  # --enable-dynamic-chunking
    max_prefill_tokens: int = 16384  # --max-prefill-tokens (fields/schedule.py:71-82)
    # under unified memory: is_hybrid_swa (None: no config.json read), a mamba-like state,
    # the speculative algorithm as SGLang names it (None: none)
    hybrid_swa: bool | None = None
    mamba: bool = False
    spec_algorithm: str | None = None
    dcp_size: int = 1  # --dcp-size: decode context parallelism declines (:1807-1808)

    def __post_init__(self) -> None:
        if self.disaggregation_mode not in ("null", "prefill", "decode"):
            raise ConfigError(f"disaggregation_mode: {self.disaggregation_mode!r} is not one "
                              f"of null, prefill, decode")
        for name, least in (("pp_size", 1), ("max_prefill_tokens", 0), ("dcp_size", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ConfigError(f"{name}: expected an integer >= {least}, got {value!r}")


UNIFIED_NOT_MODELLED = ("post-capture KV sizing under --enable-unified-memory: SGLang's answer "
                        "depends on whether the model is hybrid-SWA (overrides.py:1826-1836, "
                        "configs/model_config.py:2651-2697), read from a local config.json: "
                        "pass --model-path DIR")
# speculative algorithms whose draft pools the unified-memory solver budgets again after
# capture: is_eagle (EAGLE, EAGLE3, FROZEN_KV_MTP; NEXTN is an alias of EAGLE,
# spec_info.py:50-66, 102-109), is_standalone, is_dflash_family (DFLASH, DSPARK, :126-130)
UNIFIED_DECLINING_DRAFTS = frozenset({"EAGLE", "EAGLE3", "FROZEN_KV_MTP", "NEXTN",
                                      "STANDALONE", "DFLASH", "DSPARK"})


def prefill_buffer_tokens(p: PostCaptureInputs) -> int:
    """`max_prefill_buffer_tokens` (overrides.py:1865-1883): the chunked-prefill size, raised
    under PP dynamic chunking to the larger of --max-prefill-tokens and 1.25 x the chunk (no
    ceiling provider is registered in 0.5.23, prefill_buffer_ceiling.py)."""
    chunked = max(p.chunked_prefill_size, 0)
    if p.dynamic_chunking and p.pp_size > 1 and chunked:
        return max(chunked, p.max_prefill_tokens, math.ceil(chunked * 1.25))
    return chunked


def _unified_keeps(p: PostCaptureInputs) -> bool:
    """Under --enable-unified-memory (overrides.py:1826-1836): only the hybrid-SWA byte pool is
    resized after capture, and not with a draft pool the solver budgets again."""
    if p.hybrid_swa is None:
        raise ConfigError(UNIFIED_NOT_MODELLED)
    if not p.hybrid_swa or p.mamba:
        return False
    return (p.spec_algorithm or "").upper() not in UNIFIED_DECLINING_DRAFTS


def planned(p: PostCaptureInputs) -> bool:
    """SGLang's `post_capture_kv_sizing_planned` (overrides.py:1791-1862) over graphfit's
    inputs; ConfigError where graphfit cannot restate it (unified memory with the switch on
    and no model config read)."""
    if not p.switch or p.device != "cuda" or p.dcp_size != 1 or p.mla or p.declined:
        return False
    if p.transfer_backend == "mooncake" and p.mooncake_protocol.lower() == "efa":
        return False  # :1817-1822
    if p.unified_memory and not _unified_keeps(p):
        return False
    if p.disaggregation_mode != "prefill" and not p.decode_graphs:
        return False
    if p.disaggregation_mode != "decode" and (
            not p.prefill_graphs or p.chunked_prefill_size <= 0
            or prefill_buffer_tokens(p) > p.prefill_max_tokens):
        return False
    return p.architecture not in SPARSE_ARCHITECTURES


INKLING_UNIFIED_FAILS = (
    "SGLang 0.5.23 fails on Inkling, --enable-unified-memory, SGLANG_ENABLE_POST_CAPTURE_KV_"
    "SIZING and no --mem-fraction-static: its memory hook reads unpublished config "
    "(configs/inkling.py:234)")


def inkling_unified_fails(*, switch: bool, architecture: str | None, unified_memory: bool,
                          hybrid_swa: bool | None, declined: bool, transfer_backend: str,
                          mooncake_protocol: str, dcp_size: int = 1) -> bool:
    """Where SGLang's memory hook itself raises: `post_capture_kv_sizing_planned`, asked for
    the default fraction (memory_hook.py:281-289), reaches its unified-memory branch
    (overrides.py:1826-1830) on a hybrid-SWA Inkling target; `mambaish_config` then reads
    `InklingModelConfig.mamba2_cache_params`, whose `get_exec()` (configs/inkling.py:234, not
    guarded as `get_parallel()` is at :221-224) raises ValueError "config namespace 'exec'
    not published" (runtime_context.py:1065-1069). SGLang's launcher resolves before it
    publishes (launch_server.py:29; engine.py:1153 before :1175), as the oracle does. With a
    given fraction the hook never asks, and at run time, once published, the same call
    answers False (a mamba-like state: `planned`). The branch is reached past the switch,
    the declining flags, --dcp-size other than 1 and Mooncake over EFA (:1796-1822; Inkling is
    not MLA, and graphfit refuses a device other than CUDA); `hybrid_swa` None (no config.json
    read) is not this rule's to answer."""
    from graphfit.planner.engines.sglang_mamba_inkling import INKLING_ARCHS

    efa = transfer_backend == "mooncake" and mooncake_protocol.lower() == "efa"
    return (switch and not declined and not efa and dcp_size == 1 and unified_memory
            and hybrid_swa is True
            and architecture in INKLING_ARCHS)


def pre_capture_activation_reserve_mb(disaggregation_mode: str, running_requests: int,
                                      draft_tokens: int | None, chunked_prefill_size: int,
                                      max_prefill_tokens: int, tp_size: int, pp_size: int,
                                      gpu_mib: float | None) -> float:
    """`pre_capture_activation_reserve_mb` (runtime_context.py:1797-1819), in MiB: the
    activation slack a hybrid mamba model's state cache keeps under post-capture sizing
    (mem_cache/kv_cache_configurator.py:3020-3030), since that state is allocated before
    capture. `running_requests`: a decode server's max_running_requests, else its decode
    max_bs, else 1 (:1801-1805); `gpu_mib`: the device's memory (get_device_memory_capacity,
    MiB)."""
    if disaggregation_mode == "decode":
        tokens = max(running_requests * (draft_tokens or 1), 2048)
    elif chunked_prefill_size > 0:
        tokens = max(chunked_prefill_size, 2048)
    else:
        tokens = max(max_prefill_tokens, 2048)
    reserved = 512 + tokens * 1.5 + tp_size * pp_size / 8 * 1024
    if gpu_mib is not None and gpu_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return reserved


def capped_full_prefill_role(disaggregation_mode: str, prefill_backend: str,
                             max_mamba_cache_size: int | None,
                             prefill_max_requests: int | None,
                             full_prefill_max_req: int | None) -> bool:
    """`capped_full_prefill_role` (mem_cache/kv_cache_configurator.py:3011-3020): a PD prefill
    server whose FULL prefill graphs hold every prefill batch (--prefill-max-requests at most
    the graphs' request slots), with the state cache fixed by --max-mamba-cache-size, keeps
    no pre-capture activation slack for its mamba state (:3021-3035). The slots are
    cuda_graph_config.prefill.full_prefill_max_req as given: the runner setup fills its
    default (chunked // 512) only at capture (cuda_graph_setup.py:581-589), after the pool
    (model_runner.py:1004), so a line that leaves it unset is never exempt."""
    return (disaggregation_mode == "prefill" and prefill_backend == "full"
            and max_mamba_cache_size is not None and prefill_max_requests is not None
            and full_prefill_max_req is not None
            and prefill_max_requests <= full_prefill_max_req)


__all__ = ["ENV_POST_CAPTURE", "MUSE_SPARK_ARCHITECTURES", "SPARSE_ARCHITECTURES",
           "UNIFIED_DECLINING_DRAFTS", "UNIFIED_NOT_MODELLED", "PostCaptureInputs",
           "capped_full_prefill_role", "planned",
           "pre_capture_activation_reserve_mb", "prefill_buffer_tokens", "switch_on"]
