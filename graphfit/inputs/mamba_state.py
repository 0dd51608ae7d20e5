"""A hybrid linear-attention model's state shape from its config.json: what SGLang's
`mamba2_cache_params` reads to price one request's conv and SSM states
(graphfit.planner.engines.sglang_mamba_memory).

Read for GraniteMoeHybrid (`granite_shape`), Nemotron-H (`nemotron_h_shape`), Falcon-H1
(`falcon_h1_shape`), Kimi-Linear (`kimi_linear_shape`; Kimi-K3's `text_config` too), Glm5Next
(`glm5_next_shape`: KDA in its `layer_types` + `linear_num_heads` form), Jet-Nemotron
(`jet_nemotron_shape`), LFM2 /
LFM2-MoE (`lfm2_shape`), the Bailing hybrids (`bailing_shape`: KDA or lightning),
GigaChat3.5 (`gigachat_shape`, registered only through configs/linear_attn_model_registry.py),
Zaya (`zaya_shape`), LFM2-VL (`lfm2_shape` of its text_config) and
the Qwen3-Next-style gated-delta-net models
(SGLang's `Qwen3NextConfig` and the Qwen3.5 text config deriving from it,
configs/qwen3_next.py:259-310, configs/qwen3_5.py:15-34; a Qwen3.5 model's text part under
`text_config`): the linear layers are those with
(l + 1) % full_attention_interval != 0 (qwen3_next.py:259-277), the shape
`Mamba2StateShape.create(intermediate = linear_value_head_dim x linear_num_value_heads,
n_groups = linear_num_key_heads, num_heads = linear_num_value_heads, head_dim =
linear_value_head_dim, state_size = linear_key_head_dim, conv_kernel =
linear_conv_kernel_dim)` (qwen3_next.py:287-310). Every key must be stated in the file:
SGLang's class defaults are not restated, so a file that leaves one out gives no shape (the
plan then says the state cache is not sized from memory). The config's `mamba_ssm_dtype`
(text_config's first, configs/mamba_utils.py:75-85) is read too; a value SGLang does not know
it ignores with a warning (:88-92), so does graphfit.
"""

from __future__ import annotations

from typing import Any

from graphfit.inputs.reading import load_json
from graphfit.inputs.settings import FILE, Setting

GDN_ARCHITECTURES = frozenset({
    "Qwen3NextForCausalLM", "Qwen3_5ForCausalLM", "Qwen3_5MoeForCausalLM",
    "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration",
    # InternS2PreviewConfig derives from Qwen3_5MoeConfig (configs/interns2preview.py:16-24)
    "InternS2PreviewForConditionalGeneration"})
GDN_KEYS = ("num_hidden_layers", "full_attention_interval", "linear_conv_kernel_dim",
            "linear_key_head_dim", "linear_value_head_dim", "linear_num_key_heads",
            "linear_num_value_heads")
SSM_DTYPES = ("float32", "bfloat16", "float16")  # configs/mamba_utils.py:60-64
GRANITE = "GraniteMoeHybridForCausalLM"
GRANITE_KEYS = ("hidden_size", "mamba_expand", "mamba_n_groups", "mamba_n_heads",
                "mamba_d_head", "mamba_d_state", "mamba_d_conv")
# transformers >= 5.15 spells them linear_attention / full_attention
# (configs/granitemoehybrid.py:25-32)
GRANITE_MAMBA = ("mamba", "linear_attention")
GRANITE_ATTENTION = ("attention", "full_attention")
GRANITE_CHUNK = 256  # GraniteMoeHybridConfig's default mamba_chunk_size (granitemoehybrid.py:166)
NEMOTRON_H = ("NemotronHForCausalLM", "NemotronHPuzzleForCausalLM")
NEMOTRON_KEYS = ("mamba_num_heads", "mamba_head_dim", "n_groups", "ssm_state_size")
# NemotronHConfig._pattern_to_list (configs/nemotron_h.py:497-510)
NEMOTRON_PATTERN = {"M": "mamba", "E": "moe", "*": "attention", "-": "mlp"}
NEMOTRON_CHUNK = 256  # DEFAULT_MAMBA_CHUNK_SIZE (nemotron_h.py:41, 222-243)
FALCON_H1 = "FalconH1ForCausalLM"
FALCON_KEYS = ("num_hidden_layers", "mamba_n_heads", "mamba_n_groups", "mamba_d_state",
               "mamba_d_conv")
FALCON_CHUNK = 256  # FalconH1Config's default mamba_chunk_size (falcon_h1.py:166)
KIMI_LINEAR = "KimiLinearForCausalLM"
# Kimi-K3 (configs/kimi_k3.py:79-97): a KimiLinearConfig under `text_config`, taken by
# `kimi_linear_config` (configs/hybrid_arch.py:128-131), so the same KDA state read there
KIMI_K3 = "KimiK3ForConditionalGeneration"
GLM5_NEXT = "Glm5NextForConditionalGeneration"
JET_NEMOTRON = "JetNemotronForCausalLM"
# JetBlockConfig's fields, none defaulted (configs/jet_nemotron.py:14-23)
JET_KEYS = ("mode", "expand_v", "num_heads", "head_dim", "norm_eps", "conv_size",
            "dconv_generator_reduction", "dconv_implementation")
# the top-level keys Glm5NextConfig copies into its text config (configs/glm5_next.py:8-74,
# 305-316) that the state reads; the text config's own win
GLM5_KEYS = ("num_hidden_layers", "linear_attn_config", "linear_head_dim", "linear_num_heads",
             "linear_conv_kernel_dim", "layer_types")
KIMI_KEYS = ("num_heads", "head_dim", "short_conv_kernel_size")
LFM2 = ("Lfm2ForCausalLM", "Lfm2MoeForCausalLM")
# LFM2-VL: LFM2's conv state from its text_config (configs/lfm2_vl.py:38-103)
LFM2_VL = "Lfm2VlForConditionalGeneration"
LFM2_CONV = ("conv", "short_conv")  # lfm2.py:46-51, lfm2_moe.py:34-41
LFM2_CHUNK = 1  # the `mamba_chunk_size` property (lfm2.py:53-56, lfm2_moe.py:43-46)
# Bailing hybrids: the config class is chosen by model_type (BailingHybridConfig,
# configs/bailing_hybrid.py:48-49); BailingMoeV2_5ForCausalLM the architecture that carries it
BAILING = "BailingMoeV2_5ForCausalLM"
BAILING_TYPE = "bailing_hybrid"
# the registry-only GDN model (configs/gigachat35.py:237-252)
GIGACHAT = "GigaChat35ForCausalLM"
GIGACHAT_KEYS = ("num_hidden_layers", "linear_conv_kernel_dim", "linear_key_head_dim",
                 "linear_value_head_dim", "linear_num_key_heads", "linear_num_value_heads")
GIGACHAT_FULL = ("attention", "full_attention")  # gigachat35.py:14-16
ZAYA = "ZayaForCausalLM"
QWEN4_EXP = "Qwen4ExpForConditionalGeneration"
ZAYA_CCA_TIME = 2  # ZayaConfig's cca_time0 / cca_time1 defaults (configs/zaya.py:84-85)
ZAYA_QUERY_GROUPS = 2  # its num_query_groups default (zaya.py:44)
# pure state-space models (configs/mamba.py, configs/mamba2.py): every layer a mamba layer
MAMBA1 = ("MambaForCausalLM", "FalconMambaForCausalLM")  # model_config.py:156-159
MAMBA1_KEYS = ("num_hidden_layers", "hidden_size", "state_size", "conv_kernel")
MAMBA1_CHUNK = 256  # _MAMBA1_CACHE_CHUNK_SIZE (configs/mamba.py:22-24)
MAMBA2 = "Mamba2ForCausalLM"
MAMBA2_KEYS = ("num_hidden_layers", "intermediate_size", "n_groups", "num_heads",
               "head_dim", "state_size", "conv_kernel")
# MiniCPM-SALA (configs/minicpm.py:6-27): the config class by model_type minicpm_sala
MINICPM = "MiniCPMSALAForCausalLM"
MINICPM_TYPE = "minicpm_sala"
MINICPM_MIXERS = {"minicpm4": "minicpm4", "minicpm": "minicpm4", "standard": "minicpm4",
                  "attention": "minicpm4", "attn": "minicpm4", "lightning": "lightning-attn",
                  "lightning_attn": "lightning-attn", "lightning-attn": "lightning-attn"}
# Nemotron-H Nano VL V2: a NemotronHConfig under llm_config (configs/nano_nemotron_vl.py:
# 79-86), the mamba-ish config (hybrid_arch.py:96-97); Nano Omni V3's config is that class
# under its own model_type (:180-186)
NEMOTRON_VL = ("NemotronH_Nano_VL_V2", "NemotronH_Nano_Omni_Reasoning_V3",
               "NemotronH_Omni_Reasoning_V3")
# the full Nemotron-H Omni V3 (configs/nano_nemotron_vl.py:189-198): Nano Omni V3's class
# under model_type nemotron_h_omni, its llm_config's layer names aliased first (:33-39)
NEMOTRON_OMNI = "NemotronH_Omni_Reasoning_V3"
OMNI_TYPE = "nemotron_h_omni"
OMNI_ALIASES = {"linear_attention": "mamba", "full_attention": "attention"}
OMNI_TEMPORAL = 2  # the top-level video_temporal_patch_size default (transformers 5.25)
# Inkling (configs/inkling.py): the config class by model_type; its multimodal wrapper holds
# the text config under text_config (:309-358), the state is the text config's (:404-405)
INKLING = ("InklingForConditionalGeneration", "InklingForConditionalGenerationMTP")
INKLING_TYPES = ("inkling_mm_model", "inkling_model")
INKLING_CHUNK = 64  # its `mamba_chunk_size` property (inkling.py:210-215)


def _plain(data: dict[str, Any], key: str) -> int | None:
    value = data.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 \
        else None


def gdn_shape(data: dict[str, Any]) -> tuple[int, ...] | None:
    """(layers, intermediate_size, n_groups, num_heads, head_dim, state_size, conv_kernel)
    of a Qwen3-Next-style config (the module docstring), None when a key is missing."""
    text = data.get("text_config")
    source = text if isinstance(text, dict) else data
    values = [_plain(source, key) for key in GDN_KEYS]
    if any(v is None for v in values):
        return None
    layers, interval, kernel, k_dim, v_dim, k_heads, v_heads = (int(v or 0) for v in values)
    linear = sum(1 for layer in range(layers) if (layer + 1) % interval != 0)
    if linear == 0 or kernel < 2:
        return None
    return (linear, v_dim * v_heads, k_heads, v_heads, v_dim, k_dim, kernel)


def qwen4_exp_layers(text: dict[str, Any]) -> list[int] | None:
    """Qwen4-Exp's GDN layers (Qwen3NextConfig.linear_layer_ids over Qwen4ExpTextConfig's
    `layers_block_type`, configs/qwen4_exp.py:79-91, qwen3_next.py:259-277): the
    "linear_attention" entries of the text config's `layer_types` when given (the attention
    kinds are renamed "attention", any other name kept), else Qwen3-Next's interval rule."""
    types = text.get("layer_types")
    if types is None:
        layers, interval = _plain(text, "num_hidden_layers"), _plain(text,
                                                                     "full_attention_interval")
        if layers is None or interval is None:
            return None
        return [i for i in range(layers) if (i + 1) % interval != 0]
    if not isinstance(types, list):
        return None
    return [i for i, t in enumerate(types) if t == "linear_attention"]


QWEN4_TEXT = "transformers 5.25 Qwen4ExpTextConfig"


def _qwen4_exp_checks(text: dict[str, Any]) -> None:
    """The text config's own refusals on SGLang's pinned stack: transformers 5.25's
    `Qwen4ExpTextConfig.validate_architecture` (configuration_qwen4_exp.py:191-192, the same
    words as SGLang's configs/qwen4_exp.py:42-43) refuses hc_count <= 1, and with PLE layers
    an unset or empty eos_token_id (:251-252); its field validation a text eos_token_id; with
    PLE layers SGLang's N-gram embedding then takes `int(config.eos_token_id)` at load
    (models/qwen4_exp.py:597), which a list of ids fails."""
    from graphfit.planner.core.errors import ConfigError, excerpt

    hc = text.get("hc_count", 4)
    if isinstance(hc, int) and not isinstance(hc, bool) and hc <= 1:
        raise ConfigError(f"hc_count: Qwen4-Exp requires hc_count > 1, got {hc} "
                          f"({QWEN4_TEXT}, as SGLang configs/qwen4_exp.py:42-43)")
    eos = text.get("eos_token_id")
    if isinstance(eos, str):
        raise ConfigError(f"eos_token_id: {QWEN4_TEXT}'s field validation refuses "
                          f"{excerpt(eos)}: expected int, list[int] or null")
    if not text.get("ple_layer_ids"):
        return
    if eos is None or eos == []:
        raise ConfigError(f"eos_token_id: eos_token_id must be set when Qwen4-Exp PLE layers "
                          f"are enabled ({QWEN4_TEXT}.validate_architecture)")
    if isinstance(eos, list):
        raise ConfigError("eos_token_id: SGLang's PLE N-gram embedding takes "
                          "int(config.eos_token_id) at load, which a list fails "
                          "(models/qwen4_exp.py:597)")


def qwen4_exp_shape(data: dict[str, Any]) -> tuple[int, ...] | None:
    """Qwen4-Exp's GDN state: its text config derives from Qwen3NextConfig (configs/
    qwen4_exp.py:15-97), so Qwen3-Next's arithmetic (gdn_shape) on `qwen4_exp_layers`. The
    PLE short-conv states (`short_conv_state_shape`, :93-110) are priced apart, in the
    request pool (kv_cache_configurator.py:1612-1632), not in the state cache's memory solve
    (`extra_mamba_cache_bytes_per_req` is 0, :350, 3290-3292), so they do not change it."""
    text = data.get("text_config")
    if not isinstance(text, dict):
        return None
    _qwen4_exp_checks(text)
    linear = qwen4_exp_layers(text)
    values = [_plain(text, key) for key in GDN_KEYS[2:]]
    if not linear or any(v is None for v in values):
        return None
    kernel, k_dim, v_dim, k_heads, v_heads = (int(v or 0) for v in values)
    if kernel < 2:
        return None
    return (len(linear), v_dim * v_heads, k_heads, v_heads, v_dim, k_dim, kernel)


def granite_shape(data: dict[str, Any]) -> tuple[int, ...] | None:
    """A GraniteMoeHybrid config's state (configs/granitemoehybrid.py:180-250, 297-310):
    its mamba layers from `layer_types` (stated in the file, one per layer), intermediate =
    mamba_expand x hidden_size, n_groups = mamba_n_groups, num_heads = mamba_n_heads,
    head_dim = mamba_d_head, state_size = mamba_d_state, conv_kernel = mamba_d_conv. None
    when a key is missing, the types are not SGLang's, or there is no mamba layer (SGLang
    then treats the model as plain attention, configs/hybrid_arch.py:99-105,
    arg_groups/overrides.py:461-466)."""
    types = data.get("layer_types")
    layers = _plain(data, "num_hidden_layers")
    if not isinstance(types, list) or layers is None or len(types) != layers \
            or any(t not in GRANITE_MAMBA + GRANITE_ATTENTION for t in types):
        return None
    mamba = sum(1 for t in types if t in GRANITE_MAMBA)
    values = [_plain(data, key) for key in GRANITE_KEYS]
    if mamba == 0 or any(v is None for v in values):
        return None
    hidden, expand, groups, heads, head_dim, state, kernel = (int(v or 0) for v in values)
    if kernel < 2:
        return None
    return (mamba, expand * hidden, groups, heads, head_dim, state, kernel)


def nemotron_h_shape(data: dict[str, Any]) -> tuple[int, ...] | None:
    """A Nemotron-H config's state (`NemotronHConfig.mamba2_cache_params`, configs/
    nemotron_h.py:424-439): the mamba layers are the "mamba" entries of `layers_block_type`
    (else of the legacy `hybrid_override_pattern`, one letter a layer, :195-209, 497-510),
    intermediate = mamba_num_heads x mamba_head_dim, n_groups = the file's `n_groups` (read
    as a plain attribute, :430), num_heads = mamba_num_heads, head_dim = mamba_head_dim,
    state_size = ssm_state_size, conv_kernel = the file's `conv_kernel` (set after the
    constructor's `mamba_d_conv`, :363, 399-405), else `mamba_d_conv`. None when a key is
    missing or no layer is a mamba layer."""
    types = _nemotron_types(data)
    if types is None or any(t not in NEMOTRON_PATTERN.values() for t in types):
        return None
    mamba = sum(1 for t in types if t == "mamba")
    values = [_plain(data, key) for key in NEMOTRON_KEYS]
    kernel = _plain(data, "conv_kernel") if "conv_kernel" in data \
        else _plain(data, "mamba_d_conv")
    if mamba == 0 or kernel is None or kernel < 2 or any(v is None for v in values):
        return None
    heads, head_dim, groups, state = (int(v or 0) for v in values)
    return (mamba, heads * head_dim, groups, heads, head_dim, state, kernel)


def falcon_h1_shape(data: dict[str, Any]) -> tuple[int, ...] | None:
    """A Falcon-H1 config's state (`FalconH1Config.mamba2_cache_params`, configs/
    falcon_h1.py:301-315): every layer has a mamba mixer (:296-299), intermediate =
    mamba_d_ssm, or mamba_expand x hidden_size when it is null (:211-213), head_dim =
    mamba_d_head, or intermediate // mamba_n_heads when "auto" (:219-220), n_groups =
    mamba_n_groups, state_size = mamba_d_state, conv_kernel = mamba_d_conv. `mamba_d_ssm`
    and `mamba_d_head` must be stated (the class defaults 1024 / "auto" are not restated).
    None when a key is missing or the heads do not tile the intermediate size (SGLang's
    ValueError, :215-225)."""
    values = [_plain(data, key) for key in FALCON_KEYS]
    if any(v is None for v in values) or "mamba_d_ssm" not in data \
            or "mamba_d_head" not in data:
        return None
    layers, heads, groups, state, kernel = (int(v or 0) for v in values)
    if data["mamba_d_ssm"] is None:
        expand, hidden = _plain(data, "mamba_expand"), _plain(data, "hidden_size")
        if expand is None or hidden is None:
            return None
        intermediate: int | None = expand * hidden
    else:
        intermediate = _plain(data, "mamba_d_ssm")
    if intermediate is None or kernel < 2 or intermediate % heads:
        return None
    head_dim = intermediate // heads if data["mamba_d_head"] == "auto" \
        else _plain(data, "mamba_d_head")
    if head_dim is None or head_dim * heads != intermediate:
        return None
    return (layers, intermediate, groups, heads, head_dim, state, kernel)


def kimi_linear_shape(data: dict[str, Any]) -> tuple[int, ...] | None:
    """A Kimi-Linear config's KDA state (`KimiLinearConfig.mamba2_cache_params`, configs/
    kimi_linear.py:172-182, `KimiLinearStateShape.create`, configs/mamba_utils.py:323-367):
    the KDA layers are those whose 1-based number is in `linear_attn_config.kda_layers`
    (:158-166); H = linear_attn_config.num_heads, D = its head_dim (the key heads and key
    dim default to them: create() is called without them, :176-180), K = its
    short_conv_kernel_size. Per layer a conv state of (K - 1) x (H D / tp + 2 H D / tp) and an
    SSM state of (H / tp, D, D): the Mamba-2 arithmetic of (layers, intermediate H D,
    n_groups H, heads H, head_dim D, state_size D, K), whose divisibility asserts fail on
    the same TP widths (H D and H divided by tp; H % tp == 0 leaves no group widening). The
    state dtype comes from the environment only (`KimiLinearCacheParams` is built without
    the config, mamba_utils.py:111-112, kimi_linear.py:182). None when a key is missing or
    no layer is a KDA layer (SGLang's `is_linear_attn`, :147-156)."""
    attn = data.get("linear_attn_config")
    layers = _plain(data, "num_hidden_layers")
    if not isinstance(attn, dict) or layers is None:
        return None
    kda = attn.get("kda_layers")
    values = [_plain(attn, key) for key in KIMI_KEYS]
    if not isinstance(kda, list) or any(v is None for v in values) \
            or not isinstance(attn.get("full_attn_layers"), list):  # asserted, :119-121
        return None
    linear = sum(1 for layer in range(layers) if layer + 1 in kda)
    heads, head_dim, kernel = (int(v or 0) for v in values)
    if linear == 0 or kernel < 2:
        return None
    return (linear, heads * head_dim, heads, heads, head_dim, head_dim, kernel)


def glm5_next_text(data: dict[str, Any]) -> dict[str, Any]:
    """Glm5Next's text config as its constructor assembles it (configs/glm5_next.py:
    305-316): the top-level keys it copies, then `text_config`'s own over them."""
    text = data.get("text_config")
    top = {key: data[key] for key in GLM5_KEYS if key in data}
    return {**top, **text} if isinstance(text, dict) else top


def glm5_kda_layers(text: dict[str, Any]) -> list[int] | None:
    """Glm5Next's KDA layers, 0-BASED (`is_kda_layer`: `layer_idx in kda_layers`,
    configs/glm5_next.py:243-252; Kimi-Linear's are 1-based): the file's
    `linear_attn_config.kda_layers`, else the "linear_attention" entries of `layer_types`
    (the `layer_types` + `linear_num_heads` form, :198-210), stated in the file (the class's
    every-fourth-layer fallback, :201-205, is not restated)."""
    layers = _plain(text, "num_hidden_layers")
    attn = text.get("linear_attn_config")
    if layers is None:
        return None
    if attn is not None:
        kda = attn.get("kda_layers") if isinstance(attn, dict) else None
        if not isinstance(kda, list):
            return None
        return [i for i in range(layers) if i in kda]
    types = text.get("layer_types")
    if not isinstance(types, list):
        return None
    return [i for i, t in enumerate(types) if t == "linear_attention" and i < layers]


def glm5_next_shape(data: dict[str, Any]) -> tuple[int, ...] | None:
    """Glm5Next's KDA state (`Glm5NextTextConfig.mamba2_cache_params`, configs/glm5_next.py:
    257-268): `KimiLinearStateShape` of the text config's `linear_attn_config` num_heads /
    head_dim / short_conv_kernel_size when the file gives that dict, else of
    linear_num_heads / linear_head_dim / linear_conv_kernel_dim (:186-225), the same
    arithmetic as Kimi-Linear's (kimi_linear_shape). None when a key is missing or no layer
    is a KDA layer. Its TP width is `linear_attn_tp_size()` (:260): the whole TP group under
    CP-TP group sharing (graphfit.planner.engines.sglang_mamba_memory.state_tp)."""
    text = glm5_next_text(data)
    kda = glm5_kda_layers(text)
    attn = text.get("linear_attn_config")
    if isinstance(attn, dict):
        values = [_plain(attn, key) for key in KIMI_KEYS]
    else:
        values = [_plain(text, key) for key in
                  ("linear_num_heads", "linear_head_dim", "linear_conv_kernel_dim")]
    if not kda or any(v is None for v in values):
        return None
    heads, head_dim, kernel = (int(v or 0) for v in values)
    if kernel < 2:
        return None
    return (len(kda), heads * head_dim, heads, heads, head_dim, head_dim, kernel)


def jet_nemotron_shape(data: dict[str, Any]) -> tuple[int, ...] | None:
    """A Jet-Nemotron config's JetBlock state (`JetNemotronConfig.mamba2_cache_params`,
    configs/jet_nemotron.py:58-80): the "jet" entries of `layer_types` (:50-56), and from
    `efficient_attention_config["jet"]` H = num_heads, Dk = head_dim, Dv = int(Dk x
    expand_v): `Mamba2StateShape.create(intermediate H Dv, n_groups H, heads H, head_dim Dv,
    state_size Dk, conv_kernel conv_size)`. Every JetBlockConfig field must be stated (the
    dataclass has no defaults, :14-23) and `num_hidden_layers` must count `layer_types` (the
    pipeline split reads it). None otherwise or with no jet layer."""
    types, layers = data.get("layer_types"), _plain(data, "num_hidden_layers")
    attention = data.get("efficient_attention_config")
    jet = attention.get("jet") if isinstance(attention, dict) else None
    if not isinstance(types, list) or layers != len(types) or not isinstance(jet, dict) \
            or any(key not in jet for key in JET_KEYS):
        return None
    heads, k_dim, kernel = (_plain(jet, key) for key in ("num_heads", "head_dim", "conv_size"))
    expand = jet.get("expand_v")
    if heads is None or k_dim is None or kernel is None or kernel < 2 \
            or isinstance(expand, bool) or not isinstance(expand, (int, float)):
        return None
    v_dim = int(k_dim * expand)
    count = sum(1 for t in types if t == "jet")
    if count == 0 or v_dim < 1:
        return None
    return (count, heads * v_dim, heads, heads, v_dim, k_dim, kernel)


def lfm2_shape(data: dict[str, Any]) -> tuple[int, ...] | None:
    """An LFM2 / LFM2-MoE config's short-conv state (`Lfm2Config.mamba2_cache_params`,
    configs/lfm2.py:58-97; `Lfm2MoeConfig`'s, lfm2_moe.py:48-84): the "conv" /
    "short_conv" entries of `layer_types` (stated in the file), `Mamba2StateShape.create(
    intermediate = hidden_size, n_groups 1, num_heads = the TP width, head_dim =
    hidden_size, state_size 0, conv_kernel = conv_L_cache)`: a conv state only. Given as
    (layers, hidden, 1, 1, hidden, 0, conv_L_cache): state size 0 marks the conv-only state
    (sglang_mamba_memory.MambaStateShape). None when a key is missing or no layer is a
    conv layer (SGLang then has no cache params, :66-68)."""
    types = data.get("layer_types")
    hidden, kernel = _plain(data, "hidden_size"), _plain(data, "conv_L_cache")
    if not isinstance(types, list) or hidden is None or kernel is None or kernel < 2:
        return None
    conv = sum(1 for t in types if t in LFM2_CONV)
    return None if conv == 0 else (conv, hidden, 1, 1, hidden, 0, kernel)


def _first_nonzero(data: dict[str, Any], key: str) -> int | None:
    """Zaya's per-layer list read as its constructor does: the first non-zero entry
    (configs/zaya.py:140-159); None when the list is absent or empty."""
    values = data.get(key)
    if not isinstance(values, list) or not values:
        return None
    return next((v for v in values if v), None)


def bailing_layers(data: dict[str, Any]) -> list[int] | None:
    """A Bailing hybrid's linear-attention layers (`linear_layer_ids`, configs/
    bailing_hybrid.py:172-204): with an integer `layer_group_size` g every layer l with
    (l + 1) % g != 0. The class default 1 (no linear layer) is not restated; a list
    schedule transformers' config validation refuses on the pinned stack (_bailing_fields)."""
    layers, group = _plain(data, "num_hidden_layers"), _plain(data, "layer_group_size")
    if layers is None or group is None:
        return None
    return [layer for layer in range(layers) if (layer + 1) % group != 0]


def _bailing_fields(data: dict[str, Any]) -> None:
    """transformers 5.25's field validation of BailingHybridConfig, which SGLang's parse
    runs on the pinned stack: a list `layer_group_size` and a null `head_dim` are refused
    ("Field 'layer_group_size' expected int, got list"), so SGLang never builds the list
    schedule (configs/bailing_hybrid.py:172-204) or the hidden_size // heads fallback (:129)."""
    from graphfit.planner.core.errors import ConfigError

    for key in ("layer_group_size", "head_dim"):
        value = data.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{key}: SGLang's config parse refuses it on its pinned "
                              f"transformers: Field '{key}' expected int, got "
                              f"{type(value).__name__} (configs/bailing_hybrid.py)")


def bailing_shape(data: dict[str, Any]) -> tuple[int, ...] | None:
    """A Bailing hybrid's state (`BailingHybridConfig.mamba2_cache_params`, configs/
    bailing_hybrid.py:213-236). With a `short_conv_kernel_size` (`use_kda`, :156-158) the
    KDA state `KimiLinearStateShape.create(num_heads = num_attention_heads, head_dim,
    conv_kernel_size)`, Kimi-Linear's arithmetic (kimi_linear_shape); without it the
    lightning layers' SSM-only state `Mamba2StateShape.create(intermediate 0, n_groups 0,
    num_heads = num_attention_heads (num_linear_key_value_heads, :147), head_dim,
    state_size = head_dim, conv_kernel 1)`. head_dim must be stated (null would be
    hidden_size // num_attention_heads, :129, but transformers' field validation refuses
    a null head_dim on the pinned stack). Both built without the config, so the state
    dtype comes from the environment only (mamba_utils.py:111-112). None when a key is
    missing or no layer is a linear one."""
    linear = bailing_layers(data)
    heads, head_dim = _plain(data, "num_attention_heads"), _plain(data, "head_dim")
    kernel = data.get("short_conv_kernel_size")
    if not linear or heads is None or head_dim is None:
        return None
    if kernel is None:
        return (len(linear), 0, 0, heads, head_dim, head_dim, 1)
    kernel = _plain(data, "short_conv_kernel_size")
    if kernel is None or kernel < 2:
        return None
    return (len(linear), heads * head_dim, heads, heads, head_dim, head_dim, kernel)


def gigachat_layers(data: dict[str, Any]) -> list[int] | None:
    """GigaChat3.5's GDN layers (`_resolve_layer_types`, configs/gigachat35.py:157-195):
    the "linear_attention" entries of `layer_types` (one per layer; "attention" /
    "full_attention" the others, any other name a ValueError), else every layer but those
    in `full_attention_layers`, else every layer. None where SGLang raises."""
    layers = _plain(data, "num_hidden_layers")
    types, full = data.get("layer_types"), data.get("full_attention_layers")
    if layers is None:
        return None
    if types is not None:
        if not isinstance(types, list) or len(types) != layers \
                or any(t != "linear_attention" and t not in GIGACHAT_FULL for t in types):
            return None
        return [i for i, t in enumerate(types) if t == "linear_attention"]
    if full is None:
        return list(range(layers))
    if not isinstance(full, list) or any(
            isinstance(i, bool) or not isinstance(i, int) or not -layers <= i < layers
            for i in full):
        return None
    gone = {i % layers for i in full}
    return [i for i in range(layers) if i not in gone]


def gigachat_shape(data: dict[str, Any]) -> tuple[int, ...] | None:
    """GigaChat3.5's GDN state (`GigaChat35Config.mamba2_cache_params`, configs/
    gigachat35.py:209-234), registered only through the linear-attention registry
    (:237-252): Qwen3-Next's arithmetic (gdn_shape) on its `gigachat_layers`. Its dtype
    from the config (mamba2_state_dtype(self), :232)."""
    linear = gigachat_layers(data)
    values = [_plain(data, key) for key in GIGACHAT_KEYS]
    if not linear or any(v is None for v in values):
        return None
    _, kernel, k_dim, v_dim, k_heads, v_heads = (int(v or 0) for v in values)
    if kernel < 2:
        return None
    return (len(linear), v_dim * v_heads, k_heads, v_heads, v_dim, k_dim, kernel)


def zaya_layers(data: dict[str, Any]) -> list[int] | None:
    """Zaya's state layers (`linear_layer_ids` = its attention layers, configs/zaya.py:
    231-239): the "a" entries of `zaya_layers` when the file gives a non-empty list (which
    then also sets the layer count, :111-115), else the even layers of num_hidden_layers."""
    listed = data.get("zaya_layers")
    if isinstance(listed, list) and listed:
        return [i for i, t in enumerate(listed) if t == "a"]
    layers = _plain(data, "num_hidden_layers")
    return None if layers is None else list(range(0, layers, 2))


def zaya_shape(data: dict[str, Any]) -> tuple[int, ...] | None:
    """Zaya's CCA state (`ZayaConfig.mamba2_cache_params`, configs/zaya.py:245-303): per
    layer a head-split conv state (C / tp, P) and a whole one (hidden_size, 1), with C =
    (num_attention_heads + num_key_value_heads) x head_dim and P = (cca_time0 - 1) +
    (cca_time1 - 1); its SSM state (1, 1, 0) is empty. Given as (layers, C, 1, 1, 1, 0,
    P + 1, hidden_size): the conv-only form plus conv_full (sglang_mamba_memory.
    MambaStateShape). num_attention_heads is `cca_num_q_heads`' first non-zero entry when
    that list is given (:140-145), head_dim `kv_channels` when head_dim is null (:165-167);
    a file whose num_query_groups (or its list's) differs from num_key_value_heads SGLang
    refuses (:170-172): no shape then. None when a key is missing or P is 0."""
    layers = zaya_layers(data)
    hidden, kv = _plain(data, "hidden_size"), _plain(data, "num_key_value_heads")
    heads = _first_nonzero(data, "cca_num_q_heads") or _plain(data, "num_attention_heads")
    groups = _first_nonzero(data, "num_query_groups_list") or data.get(
        "num_query_groups", ZAYA_QUERY_GROUPS)
    head_dim = _plain(data, "head_dim") if "head_dim" in data else 128  # zaya.py:54
    if "head_dim" in data and data["head_dim"] is None:
        head_dim = _plain(data, "kv_channels")
    times = [data.get(key, ZAYA_CCA_TIME) for key in ("cca_time0", "cca_time1")]
    if not layers or hidden is None or kv is None or heads is None or head_dim is None \
            or groups != kv or any(isinstance(t, bool) or not isinstance(t, int) or t < 1
                                   for t in times):
        return None
    padding = sum(times) - 2
    if padding < 1:
        return None
    return (len(layers), (heads + kv) * head_dim, 1, 1, 1, 0, padding + 1, hidden)


def mamba1_shape(data: dict[str, Any]) -> tuple[int, ...] | None:
    """A pure Mamba-1 / Falcon-Mamba state (`_mamba1_cache_params`, configs/mamba.py:27-38):
    every layer, `Mamba2StateShape.create_full_rank(intermediate_size, state_size,
    conv_kernel)` (mamba_utils.py:245-290) with transformers' intermediate_size =
    int(expand x hidden_size), which its MambaConfig sets over any the file gives; given as
    (layers, I, 0, I, 1, state_size, conv_kernel) (sglang_mamba_memory.MambaStateShape's
    full-rank form). None when a key is missing."""
    values = [_plain(data, key) for key in MAMBA1_KEYS]
    expand = data.get("expand")
    if any(v is None for v in values) or isinstance(expand, bool) \
            or not isinstance(expand, (int, float)) or expand <= 0:
        return None
    layers, hidden, state, kernel = (int(v or 0) for v in values)
    intermediate = int(expand * hidden)
    if intermediate < 1 or kernel < 2:
        return None
    return (layers, intermediate, 0, intermediate, 1, state, kernel)


def mamba2_shape(data: dict[str, Any]) -> tuple[int, ...] | None:
    """A pure Mamba-2 state (`Mamba2Config.mamba2_cache_params`, configs/mamba2.py:40-57):
    every layer, `Mamba2StateShape.create` of the file's intermediate_size, n_groups,
    num_heads, head_dim, state_size and conv_kernel. Transformers 5.25's Mamba2Config sets
    no intermediate_size, so a file without one is SGLang's AttributeError when it prices
    the state: refused here with it. None when another key is missing."""
    if "intermediate_size" not in data:
        from graphfit.planner.core.errors import ConfigError

        raise ConfigError("Mamba2ForCausalLM: SGLang fails with \"'Mamba2Config' object has no "
                          "attribute 'intermediate_size'\" (configs/mamba2.py:50) when "
                          "config.json does not state it")
    values = [_plain(data, key) for key in MAMBA2_KEYS]
    if any(v is None for v in values) or int(values[-1] or 0) < 2:
        return None
    return tuple(int(v or 0) for v in values)


def minicpm_layers(data: dict[str, Any]) -> list[int] | None:
    """MiniCPM-SALA's lightning layers (`lightning_layer_ids`, configs/minicpm.py:93-104,
    191-194): `mixer_types` by SGLang's aliases, repeated over num_hidden_layers. None when
    not stated or where SGLang raises (more types than layers, an unknown name)."""
    layers, mixers = _plain(data, "num_hidden_layers"), data.get("mixer_types")
    if layers is None or not isinstance(mixers, list) or not mixers or len(mixers) > layers \
            or any(not isinstance(m, str) or m not in MINICPM_MIXERS for m in mixers):
        return None
    kinds = [MINICPM_MIXERS[m] for m in mixers] * (layers // len(mixers) + 1)
    return [i for i in range(layers) if kinds[i] == "lightning-attn"]


def minicpm_shape(data: dict[str, Any]) -> tuple[int, ...] | None:
    """MiniCPM-SALA's lightning state (`MiniCPMHybridConfig.mamba2_cache_params`, configs/
    minicpm.py:147-169): the SSM-only `Mamba2StateShape.create(intermediate 0, n_groups 0,
    num_heads = lightning_nkv, head_dim = lightning_head_dim, state_size = the same, conv
    kernel 1)` over the attention-TP width; lightning_nkv falls back to num_key_value_heads,
    lightning_head_dim to head_dim, then hidden_size // num_attention_heads (:77-79,
    105-113), each stated in the file. SGLang refuses lightning layers whose query and KV head
    counts differ (:114-123): refused here with its words. None when a key is missing."""
    lightning = minicpm_layers(data)
    if not lightning:
        return None
    kv = _plain(data, "lightning_nkv") if data.get("lightning_nkv") is not None \
        else _plain(data, "num_key_value_heads")
    nh = _plain(data, "lightning_nh") if data.get("lightning_nh") is not None \
        else _plain(data, "num_attention_heads")
    head_dim = _plain(data, "lightning_head_dim") or _plain(data, "head_dim")
    if head_dim is None and data.get("head_dim") is None \
            and data.get("lightning_head_dim") is None:
        hidden, heads = _plain(data, "hidden_size"), _plain(data, "num_attention_heads")
        head_dim = hidden // heads if hidden is not None and heads is not None else None
    if kv is None or nh is None or not head_dim:
        return None
    if nh != kv:
        from graphfit.planner.core.errors import ConfigError

        raise ConfigError("MiniCPM Lightning attention requires equal query and KV head counts "
                          f"(SGLang configs/minicpm.py:114-123): lightning_nh={nh}, "
                          f"lightning_nkv={kv}")
    return (len(lightning), 0, 0, kv, head_dim, head_dim, 1)


def zaya_head_counts(data: dict[str, Any]) -> tuple[int, int] | None:
    """Zaya's (num_attention_heads, num_query_groups) as its config sets them (the first
    non-zero entry of a per-layer list, configs/zaya.py:140-152), read where its state is:
    the attention asserts the TP width divides both at load (models/zaya.py:917-925)."""
    heads = _first_nonzero(data, "cca_num_q_heads") or _plain(data, "num_attention_heads")
    kv = _plain(data, "num_key_value_heads")  # == num_query_groups, or no state (zaya_shape)
    return None if heads is None or kv is None else (heads, kv)


def omni_llm_config(data: dict[str, Any]) -> dict[str, Any]:
    """The full Omni V3's config as SGLang's class holds it: `_nemotron_h_compatible_config`
    renames the llm_config's `layers_block_type` / `mtp_layers_block_type` entries
    linear_attention -> mamba, full_attention -> attention (configs/nano_nemotron_vl.py:
    33-39, 189-198), before the NemotronHConfig reads them. The file is first parsed by
    transformers 5.25's own `nemotron_h_omni` class (SGLang's registration loses to it,
    utils/hf_transformers/common.py:282-289), whose `validate_architecture` refuses a vision
    config whose `video_temporal_patch_size` differs from the top level's (default 2, the
    vision default 2 only when vision_config is absent): refused here with its words."""
    from graphfit.planner.core.errors import ConfigError

    vision = data.get("vision_config")
    top = data.get("video_temporal_patch_size", OMNI_TEMPORAL)
    theirs = vision.get("video_temporal_patch_size") if isinstance(vision, dict) \
        else OMNI_TEMPORAL
    if theirs != top:
        raise ConfigError(f"vision_config.video_temporal_patch_size: ({theirs}) and "
                          f"`video_temporal_patch_size` ({top}) must be equal (transformers "
                          f"5.25 NemotronH_Omni_Reasoning_V3_Config, as SGLang loads it)")
    llm = data.get("llm_config")
    if not isinstance(llm, dict):
        return data
    llm = dict(llm)
    for key in ("layers_block_type", "mtp_layers_block_type"):
        if isinstance(llm.get(key), list):
            llm[key] = [OMNI_ALIASES.get(v, v) if isinstance(v, str) else v for v in llm[key]]
    return {**data, "llm_config": llm}


def _inkling_int(text: dict[str, Any], key: str, default: int | None) -> int | None:
    """A text-config value as `InklingModelConfig.__init__` takes it: the file's, else the
    class default (configs/inkling.py:24-75); None where the file's is not a positive int."""
    if key not in text or text[key] is None:
        return default
    return _plain(text, key)


def inkling_text(data: dict[str, Any]) -> dict[str, Any] | None:
    """The dict SGLang builds InklingModelConfig from: the wrapper's `text_config` (an
    absent or null one: every class default, inkling.py:329-333) or the file itself for a
    bare `inkling_model`; None for another model_type (SGLang then builds another class)."""
    kind = data.get("model_type")
    if kind == INKLING_TYPES[0]:
        text = data.get("text_config")
        return text if isinstance(text, dict) else {} if text is None else None
    return data if kind == INKLING_TYPES[1] else None


def inkling_state(data: dict[str, Any]) -> tuple[int, ...] | None:
    """Inkling's conv-state inputs (graphfit.planner.engines.sglang_mamba_inkling.
    INKLING_FIELDS) as its text config resolves them (configs/inkling.py:77-88): head_dim
    defaults to hidden_size // num_attention_heads, the sliding-window head count / head dim
    to the full ones, sconv_kernel_size to 4, the rest to the class defaults (hidden 1536,
    16 layers, 12 heads, 4 KV heads). The banded-MTP assertion (:106-126, on the text
    config's own `mtp_local_layer_ids`) is SGLang's refusal, restated. None when a value is
    not a positive integer."""
    text = inkling_text(data)
    if text is None:
        return None
    hidden = _inkling_int(text, "hidden_size", 1536)
    heads = _inkling_int(text, "num_attention_heads", 12)
    layers = _inkling_int(text, "num_hidden_layers", 16)
    kv = _inkling_int(text, "num_key_value_heads", 4)
    kernel = _inkling_int(text, "sconv_kernel_size", 4)
    if hidden is None or heads is None or layers is None or kv is None or kernel is None:
        return None
    head_dim = _inkling_int(text, "head_dim", hidden // heads)
    swa_kv = _inkling_int(text, "swa_num_key_value_heads", kv)
    swa_dim = _inkling_int(text, "swa_head_dim", head_dim)
    if head_dim is None or swa_kv is None or swa_dim is None or kernel < 2:
        return None
    _inkling_mtp_checks(text, swa_kv, swa_dim)
    return (layers, kernel, kv, head_dim, swa_kv, swa_dim, hidden)


def _inkling_mtp_checks(text: dict[str, Any], swa_kv: int, swa_dim: int) -> None:
    """InklingModelConfig's assertions on its own `mtp_local_layer_ids` (inkling.py:106-126):
    unique, in [0, num_nextn_predict_layers), and the banded MTP head geometry equal to the
    trunk's sliding-window geometry (its conv-state cache is sized from the trunk's)."""
    from graphfit.planner.core.errors import ConfigError

    ids = text.get("mtp_local_layer_ids")
    if not isinstance(ids, list) or not ids:
        return
    depth = text.get("num_nextn_predict_layers", 8)
    if len(set(map(repr, ids))) != len(ids):
        raise ConfigError(f"mtp_local_layer_ids: must be unique: {excerpt_ids(ids)} (SGLang "
                          f"configs/inkling.py:107-110 asserts it)")
    if not all(isinstance(i, int) and isinstance(depth, int) and 0 <= i < depth for i in ids):
        raise ConfigError(f"mtp_local_layer_ids: must be in [0, {depth}): {excerpt_ids(ids)} "
                          f"(SGLang configs/inkling.py:111-114 asserts it)")
    mtp_kv = text.get("mtp_swa_num_key_value_heads")
    mtp_dim = text.get("mtp_swa_head_dim")
    mtp_kv = swa_kv if mtp_kv is None else mtp_kv
    mtp_dim = swa_dim if mtp_dim is None else mtp_dim
    if (mtp_kv, mtp_dim) != (swa_kv, swa_dim):
        raise ConfigError(f"mtp_swa_num_key_value_heads / mtp_swa_head_dim: banded MTP head "
                          f"geometry must match the trunk swa geometry: kv_heads {mtp_kv} vs "
                          f"{swa_kv}, head_dim {mtp_dim} vs {swa_dim} (SGLang configs/"
                          f"inkling.py:118-126)"[:200])


def excerpt_ids(ids: list[Any]) -> str:
    """A layer-id list, shortened for one error line."""
    text = repr(ids)
    return text if len(text) <= 60 else text[:57] + "..."


def _nemotron_types(data: dict[str, Any]) -> list[Any] | None:
    types = data.get("layers_block_type")
    pattern = data.get("hybrid_override_pattern")
    if types is None and isinstance(pattern, str) and pattern \
            and all(c in NEMOTRON_PATTERN for c in pattern):
        types = [NEMOTRON_PATTERN[c] for c in pattern]
    return types if isinstance(types, list) else None


def layer_map(architecture: str, data: dict[str, Any]) -> tuple[int, ...]:
    """One 0/1 per model layer, 1 where `mamba2_cache_params.layers` lists it (the layers a
    pipeline stage's share counts, kv_cache_configurator.py:3233-3249), for a config whose
    shape was read (so every key below is there): GDN (qwen3_next.py:259-277), Granite
    (granitemoehybrid.py:297-310), Nemotron-H (nemotron_h.py:409-414), Falcon-H1 (every
    layer, falcon_h1.py:296-299)."""
    if architecture == GRANITE:
        return tuple(int(t in GRANITE_MAMBA) for t in data["layer_types"])
    if architecture in NEMOTRON_H:
        return tuple(int(t == "mamba") for t in _nemotron_types(data) or ())
    if architecture == FALCON_H1:
        return (1,) * int(data["num_hidden_layers"])
    if architecture == GLM5_NEXT:
        text = glm5_next_text(data)
        kda = glm5_kda_layers(text) or []
        return tuple(int(i in kda) for i in range(int(text["num_hidden_layers"])))
    if architecture in (KIMI_LINEAR, KIMI_K3):
        text = data["text_config"] if architecture == KIMI_K3 else data
        kda = text["linear_attn_config"]["kda_layers"]
        return tuple(int(layer + 1 in kda) for layer in range(int(text["num_hidden_layers"])))
    if architecture in LFM2:
        return tuple(int(t in LFM2_CONV) for t in data["layer_types"])
    if architecture == LFM2_VL:
        return tuple(int(t in LFM2_CONV) for t in data["text_config"]["layer_types"])
    if architecture == JET_NEMOTRON:
        return tuple(int(t == "jet") for t in data["layer_types"])
    if architecture in (*MAMBA1, MAMBA2):
        return (1,) * int(data["num_hidden_layers"])
    if architecture == MINICPM:
        ids = minicpm_layers(data) or []
        return tuple(int(i in ids) for i in range(int(data["num_hidden_layers"])))
    if architecture in NEMOTRON_VL:
        return layer_map(NEMOTRON_H[0], data["llm_config"])
    if architecture == QWEN4_EXP:
        text = data["text_config"]
        ids = qwen4_exp_layers(text) or []
        count = len(text["layer_types"]) if isinstance(text.get("layer_types"), list) \
            else int(text["num_hidden_layers"])
        return tuple(int(i in ids) for i in range(count))
    if architecture in (BAILING, GIGACHAT, ZAYA):
        ids = (bailing_layers(data) if architecture == BAILING else
               gigachat_layers(data) if architecture == GIGACHAT else zaya_layers(data)) or []
        listed = data.get("zaya_layers") if architecture == ZAYA else None
        count = len(listed) if isinstance(listed, list) and listed \
            else int(data["num_hidden_layers"])
        return tuple(int(i in ids) for i in range(count))
    nested = data.get("text_config")
    source = nested if isinstance(nested, dict) else data
    interval = int(source["full_attention_interval"])
    return tuple(int((layer + 1) % interval != 0)
                 for layer in range(int(source["num_hidden_layers"])))


def ssm_dtype(data: dict[str, Any]) -> str | None:
    """The config's mamba_ssm_dtype where SGLang takes it (mamba_utils.py:75-92)."""
    text = data.get("text_config")
    value = (text.get("mamba_ssm_dtype") if isinstance(text, dict)
             and "mamba_ssm_dtype" in text else data.get("mamba_ssm_dtype"))
    return value if value in SSM_DTYPES else None


def mamba_state_settings(model: str) -> list[Setting]:
    """Weak settings for SglangOptions.mamba_state_shape / mamba_ssm_dtype from a local
    model's config.json, none for other models, a hub id or a file that does not say."""
    from graphfit.inputs.model_config import config_path
    from graphfit.inputs.target_overrides import on_load

    path = config_path(model)
    if path is None:
        return []
    data = on_load(path, load_json(path, "model config"))
    if not isinstance(data, dict):
        return []
    architectures = data.get("architectures")
    architecture = (architectures[0] if isinstance(architectures, list) and architectures
                    else None)
    if architecture == NEMOTRON_OMNI and data.get("model_type") == OMNI_TYPE:
        data = omni_llm_config(data)  # the class by model_type (nano_nemotron_vl.py:190)
    chunk = _plain(data, "mamba_chunk_size")  # read off the top-level config
    env_only: tuple[int, ...] | None = None  # a state whose dtype is the environment's only
    if architecture in MAMBA1:  # no config to the cache params (mamba.py:38, mamba_utils.py:111)
        env_only, chunk = mamba1_shape(data), MAMBA1_CHUNK
    elif architecture == MAMBA2:  # mamba2.py:54-56; chunk_size aliased (:31-35)
        env_only, chunk = mamba2_shape(data), _plain(data, "chunk_size")
    elif architecture == MINICPM and data.get("model_type") == MINICPM_TYPE:  # minicpm.py:169
        env_only = minicpm_shape(data)
    if env_only is not None:
        return [Setting("mamba_state_shape", env_only, f"{path}: linear-attention state",
                        FILE, weak=True),
                Setting("mamba_layer_map", layer_map(str(architecture), data),
                        f"{path}: layers", FILE, weak=True),
                *([Setting("mamba_chunk_size", chunk, f"{path}: mamba_chunk_size", FILE,
                           weak=True)] if chunk else [])]
    if architecture in INKLING:  # bfloat16 conv states only (inkling.py:253), every layer
        state = inkling_state(data)
        return [] if state is None else [
            Setting("inkling_conv_state", state, f"{path}: Inkling short-conv state", FILE,
                    weak=True),
            Setting("mamba_layer_map", (1,) * state[0], f"{path}: layers", FILE, weak=True),
            Setting("mamba_chunk_size", INKLING_CHUNK, f"{path}: mamba_chunk_size", FILE,
                    weak=True)]
    if architecture == GLM5_NEXT:  # KDA: the state dtype from the environment only
        shape = glm5_next_shape(data)  # (KimiLinearCacheParams without a config, :268)
        return [] if shape is None else [
            Setting("mamba_state_shape", shape, f"{path}: linear-attention state", FILE,
                    weak=True),
            Setting("mamba_layer_map", layer_map(architecture, data),
                    f"{path}: KDA layers", FILE, weak=True)]
    if architecture in (GRANITE, KIMI_LINEAR, KIMI_K3):
        # its cache params take the state dtype from the environment only (no config
        # argument: mamba_utils.py:111-112, granitemoehybrid.py:310)
        # (Kimi-Linear too, kimi_linear.py:182); Kimi-Linear states no chunk size
        # (FLA's 64 then, overrides.py:1907-1917); Kimi-K3's state is its text config's
        granite = architecture == GRANITE
        text = data.get("text_config") if architecture == KIMI_K3 else data
        shape = (granite_shape(data) if granite else
                 kimi_linear_shape(text) if isinstance(text, dict) else None)
        return [] if shape is None else [
            Setting("mamba_state_shape", shape, f"{path}: linear-attention state", FILE,
                    weak=True),
            Setting("mamba_layer_map", layer_map(architecture, data),
                    f"{path}: {'layer_types' if granite else 'kda_layers'}", FILE,
                    weak=True),
            *([Setting("mamba_chunk_size", chunk or GRANITE_CHUNK,
                       f"{path}: mamba_chunk_size", FILE, weak=True)] if granite else [])]
    if architecture in NEMOTRON_H:
        shape = nemotron_h_shape(data)
        # the legacy `chunk_size` key when mamba_chunk_size is not stated (:222-243)
        chunk = chunk or _plain(data, "chunk_size") or NEMOTRON_CHUNK
    elif architecture == FALCON_H1:
        shape = falcon_h1_shape(data)
        chunk = chunk or FALCON_CHUNK
    elif architecture in GDN_ARCHITECTURES:
        shape = gdn_shape(data)
    elif architecture == JET_NEMOTRON:  # its dtype from the config (jet_nemotron.py:78-80)
        shape = jet_nemotron_shape(data)
    elif architecture in LFM2:  # no SSM state, so its dtype does not matter
        shape = lfm2_shape(data)
        chunk = LFM2_CHUNK
    elif architecture == LFM2_VL:  # the text config's (lfm2_vl.py:70-103), chunk 1 (:57-59)
        text = data.get("text_config")
        shape = lfm2_shape(text) if isinstance(text, dict) else None
        chunk = LFM2_CHUNK
    elif architecture == BAILING and data.get("model_type") == BAILING_TYPE:
        # both cache params built without the config: the dtype from the environment only
        # (bailing_hybrid.py:224, 236); no mamba_chunk_size, so FLA's 64
        _bailing_fields(data)
        shape = bailing_shape(data)
        return [] if shape is None else [
            Setting("mamba_state_shape", shape, f"{path}: linear-attention state", FILE,
                    weak=True),
            Setting("mamba_layer_map", layer_map(architecture, data),
                    f"{path}: layer_group_size", FILE, weak=True)]
    elif architecture == GIGACHAT:  # its dtype from the config (gigachat35.py:232)
        shape = gigachat_shape(data)
    elif architecture == QWEN4_EXP:  # the text config's dtype (mamba_utils.py:75-80)
        shape = qwen4_exp_shape(data)
    elif architecture in NEMOTRON_VL:  # its llm_config's state and dtype (nemotron_h.py:
        llm = data.get("llm_config")  # 424-439); the chunk size read off the top level
        shape = nemotron_h_shape(llm) if isinstance(llm, dict) else None
    elif architecture == ZAYA:  # an empty SSM state: its dtype does not matter
        shape = zaya_shape(data)
        chunk = None
    else:
        return []
    if shape is None:
        return []
    where = f"{path}: linear-attention state"
    out = [Setting("mamba_state_shape", shape, where, FILE, weak=True),
           Setting("mamba_layer_map", layer_map(architecture, data), f"{path}: layers",
                   FILE, weak=True)]
    if chunk is not None:  # (overrides.py:1916-1917)
        out.append(Setting("mamba_chunk_size", chunk, f"{path}: mamba_chunk_size", FILE,
                           weak=True))
    counts = zaya_head_counts(data) if architecture == ZAYA else None
    if counts is not None:
        out.append(Setting("mamba_head_counts", counts, f"{path}: attention head counts",
                           FILE, weak=True))
    dtype = ssm_dtype(data["llm_config"] if architecture in NEMOTRON_VL else data)
    if dtype is not None:
        out.append(Setting("mamba_ssm_dtype", dtype, f"{path}: mamba_ssm_dtype", FILE,
                           weak=True))
    return out
