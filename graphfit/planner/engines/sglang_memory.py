"""SGLang 0.5.23's default `mem_fraction_static`: the memory it leaves outside weights + KV.

When `--mem-fraction-static` is not given, `handle_gpu_memory_settings`
(arg_groups/memory_hook.py:283-343) reserves, in MiB, for a CUDA GPU without post-capture KV
sizing (SGLANG_ENABLE_POST_CAPTURE_KV_SIZING is off by default, environ.py:640):

    512 + 1.5 * activation_tokens + tp * pp / 8 * 1024 + graph reserve,
    at least 10 GiB on GPUs above 60 GiB, + 2 GiB for DeepEP with decode graphs (:316-317,
    402-414)

where activation_tokens is, for a PD **decode** server, max(running requests x draft tokens,
2048) with running requests = --max-running-requests or the decode max_bs (memory_hook.py:
298-304), else max(chunked_prefill_size, 2048) (:305-306), or with chunking off
(`--chunked-prefill-size` <= 0) max(max_prefill_tokens, 2048) (:307-308; issue 23 s68b). The
graph reserve
(`reserve_for_graph_mb`, :357-397): 2 MiB per decode max_bs unless a PD prefill server or decode
graphs are off; with attention DP 3 MiB x max_bs x attn_dp (4.5 above max_bs 300); 8 MiB per
prefill capture size unless a PD decode server or prefill graphs are off -- on an MLA model
(`use_mla_backend`: DeepSeek-style attention) a flat 1.5 GiB for the prefill graphs instead
(:384-389), plus 1 GiB with DeepEP and breakable prefill graphs (:391-397). The fraction is
round((gpu - reserved) / gpu, 3), or 0.95 when the GPU memory is
unknown (:324-328). A multimodal model with a vision encoder, outside the PD decode role and
without --language-only / --language-model-only (:282-289), then has that fraction lowered by
the encoder's size (`adjust_mem_fraction_for_vlm`, :417-462): x 0.95 x a factor that falls
0.1 per doubling of layers x hidden^2 over ViT-L/14's 24 x 1024^2, clamped to [0.8, 1.05]
(no vision_config: unchanged, :432-434).

Post-capture KV sizing (`post_capture_kv_sizing`: SGLang's `post_capture_kv_sizing_planned`,
arg_groups/overrides.py:1791-1862, on with SGLANG_ENABLE_POST_CAPTURE_KV_SIZING or a Muse
Spark model, muse_spark_hook.py:19-25) reserves 1536 MiB + tp * pp / 8 GiB only
(memory_hook.py:291-295), and a VLM then keeps a flat 8 GiB for its image encoder instead of
the factor, whatever its vision_config (:423-431; GPU memory unknown: unchanged). Whether
SGLang plans it is graphfit.planner.engines.sglang_post_capture's answer, given here as an
input.

The hook runs before speculative resolution and before the attention-DP split of
chunked_prefill_size, so it sees the values as given (draft tokens None counts as 1) and the
decode max_bs before any clamp to a speculative default of max_running_requests.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphfit.planner.core.errors import ConfigError

MIB_PER_GIB = 1024
BASE_RESERVE_MIB = 512
ACTIVATION_MIB_PER_TOKEN = 1.5
MIN_ACTIVATION_TOKENS = 2048
LARGE_GPU_MIB = 60 * MIB_PER_GIB  # above it the reserve is at least FLOOR_MIB
FLOOR_MIB = 10 * MIB_PER_GIB
UNKNOWN_GPU_FRACTION = 0.95
UNKNOWN_GPU_MAX_BS = 160  # memory_hook.py: nvidia-smi gave no answer
# GPU memory classes of memory_hook.py:89-180: (below GiB, max_bs at TP < 4, at TP >= 4)
MEMORY_CLASSES = ((20, 8, 8), (35, 48, 160), (60, 32, 160), (90, 256, 512), (160, 256, 512))
LARGE_GPU_MAX_BS = 512


def default_decode_max_bs(gpu_memory_gb: float | None, tp_size: int) -> tuple[int, str]:
    """SGLang's decode max_bs when none is given, and why (memory_hook.py:89-180)."""
    if gpu_memory_gb is None:
        return UNKNOWN_GPU_MAX_BS, (
            "GPU memory unknown (SGLang's fallback when nvidia-smi gives no answer; pass "
            "--gpu-memory-gb or a GPU name such as H100)")
    for below, small_tp, large_tp in MEMORY_CLASSES:
        if gpu_memory_gb < below:
            value = small_tp if tp_size < 4 else large_tp
            return value, f"GPU memory {gpu_memory_gb:g} GB (< {below}), TP {tp_size}"
    return LARGE_GPU_MAX_BS, f"GPU memory {gpu_memory_gb:g} GB (>= 160)"


VIT_BASE_FACTOR = 0.95  # memory_hook.py:438 (base_mem_fraction_reduction_ratio)
VIT_BASELINE = (24, 1024)  # ViT-L/14: layers, hidden size (memory_hook.py:444-445)
VIT_SENSITIVITY = 0.1  # per 100% more complexity (memory_hook.py:457)
VIT_FACTOR_RANGE = (0.8, 1.05)  # memory_hook.py:459
MLA_PREFILL_GRAPH_MIB = 1.5 * MIB_PER_GIB  # memory_hook.py:384-389
POST_CAPTURE_RESERVE_MIB = 1536  # memory_hook.py:291-295
POST_CAPTURE_VLM_MIB = 8 * MIB_PER_GIB  # memory_hook.py:423-431


@dataclass(frozen=True)
class VisionEncoder:
    """The vision encoder's size as SGLang reads it from `hf_config.vision_config`
    (memory_hook.py:440-441: num_hidden_layers, default 24; hidden_size, default 1024)."""

    layers: int
    hidden_size: int

    def __post_init__(self) -> None:
        for name in ("layers", "hidden_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"vision encoder {name}: must be an integer >= 1, got "
                                  f"{value!r}")

    def factor(self) -> float:
        """What `adjust_mem_fraction_for_vlm` multiplies the fraction by (:436-462)."""
        layers, hidden = VIT_BASELINE
        ratio = (self.layers * self.hidden_size ** 2) / (layers * hidden ** 2)
        low, high = VIT_FACTOR_RANGE
        dynamic = max(low, min(high, 1.0 - VIT_SENSITIVITY * (ratio - 1.0)))
        return VIT_BASE_FACTOR * dynamic


@dataclass(frozen=True)
class StaticMemoryInputs:
    """What the default reserve reads, at the point SGLang computes it (see the docstring)."""

    gpu_memory_gb: float | None
    disaggregation_mode: str  # "null" | "prefill" | "decode"
    max_running_requests: int | None
    decode_max_bs: int
    decode_graphs: bool
    prefill_graphs: bool
    prefill_sizes: int  # len(cuda_graph_config.prefill.bs)
    chunked_prefill_size: int
    draft_tokens: int | None = None
    tp_size: int = 1
    pp_size: int = 1
    attn_dp_size: int = 1
    mla: bool = False  # use_mla_backend (model_override_base.py:185-189)
    vision: VisionEncoder | None = None  # SGLang's is_vlm with a vision_config (:282-289)
    deepep: bool = False  # --moe-a2a-backend deepep (reserve_for_deepep_a2a_mb, :402-414)
    prefill_breakable: bool = False  # the prefill backend is breakable (:391-397 with deepep)
    # SGLang's is_vlm (:282-289) even without a vision_config (then only post-capture sizing
    # lowers it); a `vision` implies it
    vlm: bool = False
    post_capture_kv_sizing: bool = False  # post_capture_kv_sizing_planned (module docstring)
    # --max-prefill-tokens (SGLang's default 16384): the activation tokens with chunking off
    max_prefill_tokens: int = 16384

    def __post_init__(self) -> None:
        if self.disaggregation_mode not in ("null", "prefill", "decode"):
            raise ConfigError(f"disaggregation_mode: {self.disaggregation_mode!r} is not one "
                              f"of null, prefill, decode")
        for name in ("chunked_prefill_size", "max_prefill_tokens"):  # any sign (<= 0: off)
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(f"{name}: must be an integer, got {value!r}")


DEEPEP_MIB = 2 * 1024  # memory_hook.py:413
DEEPEP_BREAKABLE_PREFILL_MIB = 1 * 1024  # memory_hook.py:391-397


def graph_reserve_mib(m: StaticMemoryInputs) -> float:
    """`reserve_for_graph_mb` (memory_hook.py:357-397), with DeepEP's breakable-prefill delta
    (bridge pool + NVL first touch during capture: 1 GiB, :391-397) inside the prefill term,
    so under the 10 GiB floor, unlike the decode-side 2 GiB (`reserved_mib`)."""
    out = 0.0
    if m.disaggregation_mode != "prefill" and m.decode_graphs:
        out += m.decode_max_bs * 2
    if m.attn_dp_size > 1 and m.disaggregation_mode != "prefill":
        out += m.decode_max_bs * m.attn_dp_size * 3
        if m.decode_max_bs > 300:
            out += m.decode_max_bs * m.attn_dp_size * 1.5
    if m.disaggregation_mode != "decode" and m.prefill_graphs:
        out += MLA_PREFILL_GRAPH_MIB if m.mla else m.prefill_sizes * 8
        if m.prefill_breakable and m.deepep:
            out += DEEPEP_BREAKABLE_PREFILL_MIB
    return out


def reserved_mib(m: StaticMemoryInputs) -> float:
    """The MiB SGLang keeps outside weights + KV (memory_hook.py:291-318)."""
    if m.post_capture_kv_sizing:  # graphs and activations measured after capture
        return POST_CAPTURE_RESERVE_MIB + m.tp_size * m.pp_size / 8 * MIB_PER_GIB
    if m.disaggregation_mode == "decode":
        running = m.max_running_requests or m.decode_max_bs or 1
        activation = max(running * (m.draft_tokens or 1), MIN_ACTIVATION_TOKENS)
    elif m.chunked_prefill_size > 0:
        activation = max(m.chunked_prefill_size, MIN_ACTIVATION_TOKENS)
    else:  # chunking off (:307-308)
        activation = max(m.max_prefill_tokens, MIN_ACTIVATION_TOKENS)
    reserved = BASE_RESERVE_MIB + activation * ACTIVATION_MIB_PER_TOKEN
    reserved += m.tp_size * m.pp_size / 8 * MIB_PER_GIB
    reserved += graph_reserve_mib(m)
    gpu = None if m.gpu_memory_gb is None else m.gpu_memory_gb * MIB_PER_GIB
    if gpu is not None and gpu > LARGE_GPU_MIB:
        reserved = max(reserved, FLOOR_MIB)
    if m.deepep and m.disaggregation_mode != "prefill" and m.decode_graphs:
        reserved += DEEPEP_MIB  # on top of the floor (memory_hook.py:316-317, 402-414)
    return reserved


def mem_fraction_static(m: StaticMemoryInputs) -> float:
    """SGLang's default `mem_fraction_static` (memory_hook.py:324-335): rounded to 3 places,
    then (a vision-language model) lowered by its vision encoder, unrounded."""
    gpu = None if m.gpu_memory_gb is None else m.gpu_memory_gb * MIB_PER_GIB
    fraction = UNKNOWN_GPU_FRACTION if gpu is None else round((gpu - reserved_mib(m)) / gpu, 3)
    if not (m.vlm or m.vision is not None):
        return fraction
    return vlm_fraction(fraction, m.vision, post_capture_kv_sizing=m.post_capture_kv_sizing,
                        gpu_mib=gpu)


def vlm_fraction(fraction: float, vision: VisionEncoder | None, *,
                 post_capture_kv_sizing: bool, gpu_mib: float | None) -> float:
    """`adjust_mem_fraction_for_vlm` (memory_hook.py:417-462) for a VLM's fraction: with
    post-capture KV sizing a flat 8 GiB less (GPU memory unknown: unchanged); else x the
    vision encoder's factor (no vision_config: unchanged)."""
    if post_capture_kv_sizing:
        return fraction - POST_CAPTURE_VLM_MIB / gpu_mib if gpu_mib is not None else fraction
    return fraction * vision.factor() if vision is not None else fraction


def vlm_applies(disaggregation_mode: str, language_only: bool = False) -> bool:
    """SGLang's `is_vlm` for a model it treats as multimodal (memory_hook.py:283-289; the
    --language-model-only case is not multimodal at all, graphfit.planner.engines.
    sglang_multimodal): not a PD decode server and not --language-only."""
    return disaggregation_mode != "decode" and not language_only
