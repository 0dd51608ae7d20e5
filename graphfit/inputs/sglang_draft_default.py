"""Multi-layer EAGLE's draft-extend backend for a pasted SGLang line that names no attention
backend: SGLang's own default for the GPU `--gpu-memory-gb` names and the model's config.json
(graphfit.planner.engines.sglang_attn_default), set as `mtp_draft_backend` so the plan counts
SGLang's draft-extend graphs instead of the per-step upper bound.

Left at the upper bound (the planner's note says so, and a note here says why) when an input
graphfit lacks decides it: the GPU given in GiB or not at all (its generation is unknown), a
model without a local config.json, an architecture whose SGLang override picks its own
backend, or a FlashAttention default on a model whose KV pool
layout (hybrid sliding window, hybrid linear attention) decides the count.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from graphfit.inputs.gpus import GPU_CAPABILITY_MAJOR, GPU_MEMORY_GB, ROCM_GPUS, gpu_name
from graphfit.inputs.model_config import config_path, load_config
from graphfit.inputs.settings import Resolved
from graphfit.inputs.sglang_minimax_moe import quantization as minimax_quantization
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_arch_overrides import (
    IQUEST,
    QSA_WHY,
    QWEN4_EXP,
    RESTATED,
    OverrideInputs,
    draft_extend_default,
    forced_base,
    line_refusals,
)
from graphfit.planner.engines.sglang_attn_default import (
    DSA_ARCHITECTURES,
    HYBRID_SWA,
    MLA_ARCHITECTURES,
    SINK_ARCHITECTURES,
    AttentionDefaultInputs,
    DefaultBackend,
    default_attention_backend,
    named_before_default,
)
from graphfit.planner.engines.sglang_backend_checks import (
    FP4_KV,
    NGRAM_BFS_BREADTH,
    ResolvedAttention,
    check_resolved,
    fa4_page,
    nvfp4_draft,
    nvfp4_phases,
    resolved_page,
)
from graphfit.planner.engines.sglang_mtp_graphs import FLASH_ATTENTION, draft_extend_backend

FIELD = "mtp_draft_backend"
DEQUANT = "prefill_kv_cache_dequant_dtype"
LINE_HINT = "--attention-backend on the line"  # how the user names the backend
ROCM = ROCM_GPUS  # the AMD names (graphfit.inputs.gpus)
EAGLE_FAMILY = frozenset({"EAGLE", "EAGLE3", "NEXTN", "STANDALONE"})  # spec_info.py:262-264
# `_auto_choose_speculative_params` (speculative_hook.py:1439-1459): (steps, topk, draft
# tokens) for these architectures; the planner's engine model keeps its own copy, private to it
TREE_DEFAULT_ARCHS = frozenset({"LlamaForCausalLM", "Grok1ForCausalLM", "Grok1VForCausalLM"})
EAGLE_TREE_DEFAULTS = (5, 4, 8)
ADA = frozenset({"L4", "L40", "L40S", "RTX4090"})  # capability 8.9
_KINDS = {7: "turing", 8: "ampere", 9: "hopper", 10: "sm100", 12: "sm120"}
# config.json keys of hybrid linear-attention (mamba / linear) layer schedules
_LINEAR_KEYS = ("layers_block_type", "hybrid_override_pattern", "linear_attn_config",
                "full_attention_interval")
# model types of the configs SGLang runs with mamba / linear-attention state (`mambaish_config`,
# configs/hybrid_arch.py:70-157: Zaya, Mamba / Mamba2 / FalconMamba, KimiLinear, Bailing
# hybrid, GLM-5 Next, LFM2-VL; the others there are OWN_BACKEND architectures)
LINEAR_MODEL_TYPES = frozenset({"zaya", "mamba", "mamba2", "falcon_mamba", "kimi_linear",
                                "bailing_hybrid", "glm5_next", "lfm2_vl"})


def gpu_kind(given: object) -> str | None:
    """The generation SGLang's probes tell for a named GPU (graphfit.inputs.gpus), None for
    a figure in GiB or nothing."""
    name = gpu_name(given)
    if not name:
        return None
    if name in ROCM:
        return "rocm"
    if name in ADA:
        return "ada"
    return _KINDS.get(GPU_CAPABILITY_MAJOR.get(name, 0))


def _text(data: Mapping[str, Any]) -> Mapping[str, Any]:
    text = data.get("text_config")
    return text if isinstance(text, dict) else data


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 \
        else None


def model_inputs(data: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
    """(the model's AttentionDefaultInputs fields, whether its KV pool is hybrid) from a
    config.json (module docstring of graphfit.planner.engines.sglang_attn_default)."""
    archs = data.get("architectures")
    arch = archs[0] if isinstance(archs, list) and archs and isinstance(archs[0], str) else ""
    text = _text(data)
    heads, hidden = _int(text.get("num_attention_heads")), _int(text.get("hidden_size"))
    head_dim = _int(text.get("head_dim")) or (hidden // heads if heads and hidden else None)
    v_head_dim = _int(text.get("v_head_dim")) or head_dim
    mla = arch in MLA_ARCHITECTURES or (arch == "PixtralForConditionalGeneration"
                                        and text.get("kv_lora_rank") is not None)
    layer_types = text.get("layer_types")
    linear = any(k in text for k in _LINEAR_KEYS) or (
        isinstance(layer_types, list) and any(
            isinstance(t, str) and ("linear" in t or "mamba" in t) for t in layer_types))
    linear = linear or any(str(d.get("model_type")) in LINEAR_MODEL_TYPES for d in (data, text))
    mixers = text.get("mixer_types")  # MiniCPM-SALA lightning layers (configs/minicpm.py:6-15)
    linear = linear or (isinstance(mixers, list) and any(
        m in ("lightning", "lightning_attn", "lightning-attn") for m in mixers))
    hybrid = arch in HYBRID_SWA or bool(text.get("is_hybrid_swa")) or linear
    return {
        "architecture": arch, "mla": mla,
        "dsa": arch in DSA_ARCHITECTURES and (data.get("index_topk") is not None
                                              or text.get("index_topk") is not None),
        "attention_sinks": arch in SINK_ARCHITECTURES or bool(text.get("learnable_sink")),
        "asymmetric_kv": not mla and head_dim != v_head_dim,
        "kv_heads": _int(text.get("num_key_value_heads")),
        "sliding_window_pattern": text.get("sliding_window_pattern") is not None,
    }, hybrid


def _line_int(values: Mapping[str, Any], key: str) -> int | None:
    return _int(values.get(key))


def default_draft_backend(line: Mapping[str, Any], gpu_given: object,
                          hint: str = LINE_HINT) -> tuple[str | None, str]:
    """(SGLang's draft-extend backend for a multi-layer EAGLE line naming no backend, or None,
    and the origin / the reason it is not restated). An architecture with a model override
    of its own goes through graphfit.planner.engines.sglang_arch_overrides (ConfigError
    where that override refuses the line)."""
    found, hybrid, inputs = _default_inputs(line, gpu_given, hint)
    if inputs is not None and inputs.architecture in RESTATED:
        found = draft_extend_default(override_inputs(line, gpu_given, inputs, found))
    elif inputs is not None:
        found = default_attention_backend(inputs)
        _check_generic(line, inputs, found)
    if found.name is None:
        return None, found.why
    if found.name in FLASH_ATTENTION and hybrid:
        return None, (f"SGLang's default {found.name} on this hybrid model: its KV pool "
                      f"decides the draft-extend graph count (flashattention_backend.py:"
                      f"553-560), not modelled")
    return found.name, (f"SGLang's default attention backend on {gpu_name(gpu_given)}: "
                        f"{found.why}; assumes CUDA >= 12.8 and flashinfer installed")


def _check_generic(line: Mapping[str, Any], inputs: AttentionDefaultInputs,
                   found: DefaultBackend, topk: int | None = None, ngram: bool = False
                   ) -> None:
    """SGLang's checks of the backend set it resolved for an architecture without a model
    override of its own (graphfit.planner.engines.sglang_backend_checks; the DeepSeek DSA
    page size is 64 x its index pool on CUDA, deepseek_v2.py:159-175)."""
    if found.name is None:
        return
    prefill, decode = nvfp4_phases(
        inputs.gpu, inputs.kv_cache_dtype,
        _flag(line, "prefill_attention_backend") or _flag(line, "attention_backend")
        or named_before_default(inputs),
        _flag(line, "prefill_attention_backend"), _flag(line, "decode_attention_backend"),
        _flag(line, DEQUANT))
    base = prefill if prefill is not None and prefill == decode else found.name  # :1128-1131
    page = inputs.page_size
    if found.name == "dsa" and inputs.gpu != "rocm":
        page = 64
    check_resolved(ResolvedAttention(
        inputs.gpu, base, prefill, decode, topk or inputs.topk or 1,
        resolved_page(page, base, prefill, decode,
                      fa4_page(inputs.gpu, inputs.mla, inputs.topk, inputs.architecture)),
        inputs.kv_cache_dtype, ngram, inputs.mla, _algorithm(line),
        _flag(line, "speculative_draft_attention_backend"), **pool_flags(line)))


def pool_flags(line: Mapping[str, Any]) -> dict[str, bool]:
    """The line's pool flags `kv4` reads (graphfit.planner.engines.sglang_backend_checks.
    ResolvedAttention): unified memory, PD disaggregation, a host cache tier; and the
    skip-softmax variable the attention hook reads off the pasted line's environment
    (graphfit.inputs.sglang_skip_softmax; issue 23 s67p)."""
    from graphfit.inputs.sglang_skip_softmax import line_active

    mode = _flag(line, "disaggregation_mode")
    return {"unified_memory": line.get("enable_unified_memory") is True,
            "disaggregated": mode not in (None, "null"),
            "host_pool": line.get("enable_hierarchical_cache") is True
            or line.get("enable_lmcache") is True,
            "skip_softmax": line_active()}


def _algorithm(line: Mapping[str, Any]) -> str | None:
    value = line.get("speculative_algorithm")
    return str(value).upper() if value else None


def override_inputs(line: Mapping[str, Any], gpu_given: object,
                    inputs: AttentionDefaultInputs, found: DefaultBackend) -> OverrideInputs:
    """The inputs a model override reads (graphfit.planner.engines.sglang_arch_overrides.
    OverrideInputs) from the line, the GPU name and the model's config.json."""
    model = line.get("model_path")
    path = config_path(str(model)) if isinstance(model, str) else None
    data: Mapping[str, Any] = load_config(path) if path is not None else {}
    text = _text(data)
    name = gpu_name(gpu_given)
    layer_types = text.get("layer_types")
    dcp = _line_int(line, "dcp_size")
    return OverrideInputs(
        default=inputs,
        prefill_flag=_flag(line, "prefill_attention_backend"),
        decode_flag=_flag(line, "decode_attention_backend"),
        mode="decode" if line.get("speculative_attention_mode") == "decode" else "prefill",
        gpu_mem_gb=GPU_MEMORY_GB.get(name) if name else None,
        model_type=str(data.get("model_type") or ""),
        mamba_layers=isinstance(layer_types, list) and "mamba" in layer_types,
        minicpm_sparse=_minicpm_sparse(data),
        # minimax_m3.py:18-34: an mxfp8 checkpoint with NVFP4-packed experts, or the line
        # minimax_m3.py:18-34, 46-54: the line's --quantization, else an mxfp8 checkpoint
        # with NVFP4-packed experts
        minimax_nvfp4=minimax_quantization(line, data) == "minimax_m3_nvfp4",
        # parse_qsa_profile (layers/attention/qsa/config.py:78-88)
        qsa=text.get("indexer_n_heads") is not None,
        dcp_size=dcp or 1,
        mla_unknown=found.name is None and "MLA" in found.why,
        base_flag=_flag(line, "attention_backend"),
        draft_flag=_flag(line, "speculative_draft_attention_backend"),
        dequant_flag=_flag(line, DEQUANT), algorithm=_algorithm(line), **pool_flags(line),
        moe_a2a=_flag(line, "moe_a2a_backend") or "none",
        moe_runner=_flag(line, "moe_runner_backend") or "auto")


# MiniCPMHybridConfig's names of its full-attention mixer (configs/minicpm.py:6-15)
MINICPM4_ALIASES = frozenset({"minicpm4", "minicpm", "standard", "attention", "attn"})


def _minicpm_sparse(data: Mapping[str, Any]) -> bool:
    """`MiniCPMHybridConfig.has_minicpm_sparse_attention` (configs/minicpm.py:27, 93-105,
    179-184): a `minicpm_sala` config with a `sparse_config` and a full-attention mixer (no
    `mixer_types` means all full attention); other configs lack the property (False)."""
    if data.get("model_type") != "minicpm_sala" or data.get("sparse_config") is None:
        return False
    mixers = data.get("mixer_types")
    return not mixers or (isinstance(mixers, list) and any(
        isinstance(m, str) and m in MINICPM4_ALIASES for m in mixers))


def _flag(line: Mapping[str, Any], key: str) -> str | None:
    value = line.get(key)
    return str(value).strip().lower() if value else None


def default_base_backend(line: Mapping[str, Any], gpu_given: object,
                         hint: str = LINE_HINT) -> tuple[DefaultBackend, bool]:
    """(SGLang's base attention backend for a line naming none, as the attention hook sees
    the line: its own topk, page size, algorithm, KV dtype and deterministic switch; name
    None with the reason when graphfit lacks an input) and whether the KV pool is hybrid."""
    found, hybrid, inputs = _default_inputs(line, gpu_given, hint)
    if inputs is None:
        return found, hybrid
    return default_attention_backend(inputs), hybrid


def default_target_backend(line: Mapping[str, Any], gpu_given: object) -> str | None:
    """SGLang's base attention backend for a line naming none, where graphfit restates it
    (a named GPU, a local config.json, an architecture without a model override of its own,
    graphfit.planner.engines.sglang_arch_overrides); None otherwise. It is the target's
    decode backend when no split flag names one (model_override_base.py:138-152)."""
    _, _, inputs = _default_inputs(line, gpu_given, LINE_HINT)
    if inputs is None or inputs.architecture in RESTATED:
        return None
    return default_attention_backend(inputs).name


def generic_base_backend(line: Mapping[str, Any], gpu_given: object) -> str | None:
    """SGLang's generic base backend (`_attention_backend_default`, overrides.py:1126-1140;
    graphfit.planner.engines.sglang_attn_default.generic_default) for a line whose model
    override did not fire; None where the GPU or the config.json is missing."""
    from graphfit.planner.engines.sglang_attn_default import generic_default

    _, _, inputs = _default_inputs(line, gpu_given, LINE_HINT)
    return None if inputs is None else generic_default(inputs).name


def _default_inputs(line: Mapping[str, Any], gpu_given: object, hint: str
                    ) -> tuple[DefaultBackend, bool, AttentionDefaultInputs | None]:
    """(a reason when an input is missing, whether the KV pool is hybrid, SGLang's default's
    inputs: None where the GPU or the config.json is missing)."""
    kind = gpu_kind(gpu_given)
    if kind is None:
        return DefaultBackend(None, "SGLang's default attention backend depends on the GPU "
                              f"generation: name the GPU (--gpu-memory-gb H100) or give "
                              f"{hint}"), False, None
    model = line.get("model_path")
    path = config_path(str(model)) if isinstance(model, str) else None
    if path is None:
        return DefaultBackend(None, "SGLang's default attention backend depends on the "
                              "model: no local config.json"), False, None
    data = load_config(path)
    fields, hybrid = model_inputs(data)
    algorithm = line.get("speculative_algorithm")
    kv_dtype = line.get("kv_cache_dtype")
    inputs = AttentionDefaultInputs(
        gpu=kind, speculative_algorithm=str(algorithm) if algorithm else None,
        topk=_line_int(line, "speculative_eagle_topk"),
        page_size=_line_int(line, "page_size"),
        kv_cache_dtype=str(kv_dtype) if kv_dtype else None,
        # `--rl-on-policy-target` turns deterministic inference on (attention_hook.py:586-593)
        deterministic=(line.get("enable_deterministic_inference") is True
                       or line.get("rl_on_policy_target") is not None),
        all_unset=not any(line.get(k) for k in (
            "attention_backend", "prefill_attention_backend", "decode_attention_backend")),
        **fields)
    if not fields["mla"] and _text(data).get("kv_lora_rank") is not None:
        # SGLang makes more architectures MLA on config conditions (configs/model_config.py:
        # 1435-1515) than graphfit lists: an MLA-shaped config outside the list stays unknown
        reason = DefaultBackend(None, f"{fields['architecture'] or 'the model'} has an "
                                      f"MLA-shaped config graphfit's MLA list lacks; SGLang's "
                                      f"default is not restated")
        if fields["architecture"] in RESTATED:  # its override may name the backend itself
            return reason, hybrid, inputs
        return reason, hybrid, None
    return DefaultBackend(None, ""), hybrid, inputs


def settle(line: Mapping[str, Any], resolved: Resolved, gpu_given: object,
           hint: str = LINE_HINT, every_line: bool = True) -> Resolved:
    """Set `mtp_draft_backend` to SGLang's default for a multi-layer EAGLE line naming no
    backend (module docstring); a note says why when it is not restated. A pasted line
    (`every_line`) that is not multi-layer EAGLE meets SGLang's checks of its resolved
    backends too (`every_line_checks`)."""
    values = resolved.values
    if FIELD in values and _multi_layer(values) and line.get("speculative_algorithm"):
        if draft_extend_backend(line):
            _line_refusals(line, gpu_given, hint)
        if _qsa_model(line):
            return _qsa(resolved)
        return _nvfp4_draft(line, _forced(line, resolved), gpu_given)
    if not _multi_layer(values):
        if every_line:
            every_line_checks(line, gpu_given, hint)
        return resolved
    if FIELD in values or not line.get("speculative_algorithm") or draft_extend_backend(line):
        return resolved
    name, said = default_draft_backend(line, gpu_given, hint)
    if name is None:  # no local config.json on ROCm: graphfit's --architecture may decide it
        by_class = rocm_by_class(line, values.get("architecture"), gpu_given)
        if by_class is not None:
            name, said = by_class, (f"SGLang's default attention backend on ROCm for "
                                    f"{values.get('architecture')} (--architecture; no local "
                                    f"config.json)")
    kind = gpu_kind(gpu_given)
    nvfp4 = nvfp4_draft(kind, _flag(line, "kv_cache_dtype"), _decode_mode(line)) if (
        kind is not None and not _flag(line, "speculative_draft_attention_backend")) else None
    if nvfp4 is not None and name is not None:
        name, said = nvfp4, f"{said}; {NVFP4_DRAFT_WHY}"
    if name is None:
        return replace(resolved, notes=(
            *resolved.notes, f"multi-layer EAGLE draft-extend graphs counted per step: {said}"))
    return replace(resolved, values=MappingProxyType({**values, FIELD: name}),
                   origins=MappingProxyType({**resolved.origins, FIELD: said}),
                   notes=(*resolved.notes, f"multi-layer EAGLE draft backend {name}: {said}; "
                                           f"give {hint} to be sure"))


def rocm_by_class(line: Mapping[str, Any], architecture: object, gpu_given: object
                  ) -> str | None:
    """SGLang's default base backend on a ROCm GPU for a model with no local config.json,
    from graphfit's `--architecture` where the class alone decides it
    (graphfit.planner.engines.sglang_rocm_default); None otherwise. SGLang's checks of the
    backend set it then resolves run as for a model read from config.json (`_check_generic`:
    ConfigError where SGLang refuses, e.g. aiter under a page tree)."""
    from graphfit.planner.engines.sglang_rocm_default import rocm_class_inputs

    model = line.get("model_path")
    if (gpu_name(gpu_given) not in ROCM or not isinstance(architecture, str)
            or (isinstance(model, str) and config_path(model) is not None)):
        return None
    algorithm, kv_dtype = line.get("speculative_algorithm"), line.get("kv_cache_dtype")
    inputs = rocm_class_inputs(
        architecture, speculative_algorithm=str(algorithm) if algorithm else None,
        topk=_line_int(line, "speculative_eagle_topk"), page_size=_line_int(line, "page_size"),
        kv_cache_dtype=str(kv_dtype) if kv_dtype else None,
        # `--rl-on-policy-target` turns deterministic inference on (attention_hook.py:586-593)
        deterministic=(line.get("enable_deterministic_inference") is True
                       or line.get("rl_on_policy_target") is not None),
        all_unset=not any(line.get(k) for k in (
            "attention_backend", "prefill_attention_backend", "decode_attention_backend")))
    if inputs is None:
        return None
    found = default_attention_backend(inputs)
    _check_generic(line, inputs, found)
    return found.name


def every_line_checks(line: Mapping[str, Any], gpu_given: object, hint: str = LINE_HINT
                      ) -> None:
    """SGLang's checks of the backend set it resolves (`_line_refusals`), on a line that is
    not multi-layer EAGLE: SGLang runs them on every line (arg_groups/pipeline.py:225-306),
    not only where graphfit restates a draft-extend backend. Without speculation the topk
    rules do not run: only `_handle_eagle_family` holds them (speculative/spec_info.py:
    262-264, for EAGLE / EAGLE3 / STANDALONE; NEXTN becomes EAGLE). A line with another
    algorithm (DFLASH, DSPARK, NGRAM, FROZEN_KV_MTP, UNO) gets the checks that run on every
    line (the model hook, model_hook.py:515-722; trtllm_mla, overrides.py:1203-1219;
    trtllm_mha's GPUs, attention_hook.py:198-227) with topk 1 for the EAGLE topk rules
    (speculative_hook.py:1176-1180, :1267-1282 live in `_handle_eagle_family` only; DFLASH
    and DSPARK force topk 1, :351-366, :774-789); NGRAM meets `_handle_ngram`'s own page
    rule with its BFS breadth as topk (:1309-1313, :1356-1366). The default still sees the
    line's topk: SGLang's attention default runs before the speculative hook."""
    algorithm = str(line.get("speculative_algorithm") or "").upper()
    if not algorithm:
        line = {k: v for k, v in line.items() if k != "speculative_eagle_topk"}
    checked = None  # EAGLE family: the line's topk (or SGLang's automatic one)
    if algorithm == "NGRAM":  # `_handle_ngram` makes topk the BFS breadth (:1309-1313)
        checked = _line_int(line, "speculative_ngram_max_bfs_breadth") or NGRAM_BFS_BREADTH
    elif algorithm and algorithm not in EAGLE_FAMILY:
        checked = 1
    # no steps, topk nor draft tokens: SGLang picks them AFTER the attention default
    # (speculative_hook.py:1159-1174), so only the checks see the picked topk
    auto = algorithm in EAGLE_FAMILY - {"STANDALONE"} and not any(line.get(k) for k in (
        "speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens"))
    _line_refusals(line, gpu_given, hint, multi_layer=False, auto_params=auto,
                   checked_topk=checked, ngram=algorithm == "NGRAM")


def _line_refusals(line: Mapping[str, Any], gpu_given: object, hint: str,
                   multi_layer: bool = True, auto_params: bool = False,
                   checked_topk: int | None = None, ngram: bool = False) -> None:
    """A line naming its backends (multi-layer EAGLE: its draft-extend backend), or any line
    with `multi_layer` False (`every_line_checks`), on a model with a local
    config.json: the refusals of the model's override and SGLang's model hook that do not
    depend on the GPU (graphfit.planner.engines.sglang_arch_overrides.line_refusals); with
    a named GPU too, SGLang's checks of the whole backend set it resolves around the line's
    flags (the override's or the default's base: sglang_backend_checks)."""
    model = line.get("model_path")
    path = config_path(str(model)) if isinstance(model, str) else None
    if path is None:
        return
    fields = model_inputs(load_config(path))[0]
    base = _flag(line, "attention_backend")
    prefill = _flag(line, "prefill_attention_backend")
    decode = _flag(line, "decode_attention_backend")
    algorithm = line.get("speculative_algorithm")
    line_refusals(str(fields["architecture"]), base, prefill, decode,
                  swa_pattern=bool(fields["sliding_window_pattern"]),
                  algorithm=str(algorithm) if algorithm else None,
                  topk=_line_int(line, "speculative_eagle_topk"),
                  kv_cache_dtype=_flag(line, "kv_cache_dtype"), multi_layer=multi_layer)
    if not multi_layer and fields["architecture"] in IQUEST:
        if (algorithm and fields["architecture"] == "IQuestQ1ForCausalLM"
                and line.get("speculative_draft_model_path") in (None, model)):
            raise ConfigError("SGLang refuses IQuestQ1ForCausalLM speculation without its own "
                              "draft model (arg_groups/speculative_hook.py:1014-1023); give "
                              "--speculative-draft-model-path")
        _iquest_nvfp4(line, gpu_given, hint, base, prefill, decode)
        return  # its override's fa3 everywhere (line_refusals), no other resolved-set refusal
    found, _, inputs = _default_inputs(line, gpu_given, hint)
    if inputs is None:
        return
    if inputs.architecture in RESTATED:
        draft_extend_default(replace(override_inputs(line, gpu_given, inputs, found),
                                     checked_topk=checked_topk, ngram=ngram))
        return
    if prefill is not None and prefill == decode:
        base = prefill  # overrides.py:1128-1131
    if base is None:
        found = default_attention_backend(inputs)
    topk = checked_topk
    if auto_params and fields["architecture"] in TREE_DEFAULT_ARCHS:
        topk = EAGLE_TREE_DEFAULTS[1]  # `_auto_choose_speculative_params`, :1439-1459
    _check_generic(line, inputs, DefaultBackend(base, "the line") if base else found, topk,
                   ngram)


def _iquest_nvfp4(line: Mapping[str, Any], gpu_given: object, hint: str, base: str | None,
                  prefill: str | None, decode: str | None) -> None:
    """IQuest-Q1's override writes fa3 where the line names no backend (iquest_q1.py:41-48)
    before `handle_nvfp4_prefill_kv_dequant_dtype` reads the pair (pipeline.py:225-241):
    with an nvfp4 KV cache and auto its fa3 is refused (kv_cache_hook.py:47-56); a named
    workspace dtype rewrites the pair, which then meets SGLang's checks of the resolved set
    (graphfit.planner.engines.sglang_backend_checks.check_resolved), as fp4_mx_block16's fa3
    does (the KV4 MHA list, kv_cache_hook.py:266-316)."""
    if base is None and prefill is None and decode is None:
        base = "fa3"
    elif base is None:
        prefill, decode = prefill or "fa3", decode or "fa3"
    kv = _flag(line, "kv_cache_dtype")
    if kv not in FP4_KV and _flag(line, DEQUANT) in (None, "auto"):
        return
    _, _, inputs = _default_inputs(line, gpu_given, hint)
    gpu = inputs.gpu if inputs is not None else "sm100"  # the hook's GPU test: SM100 alone
    prefill, decode = nvfp4_phases(gpu, kv, prefill or base, prefill, decode,
                                   _flag(line, DEQUANT))
    if inputs is None:
        return
    if prefill is not None and prefill == decode:
        base = prefill  # overrides.py:1128-1131
    check_resolved(ResolvedAttention(
        inputs.gpu, base, prefill, decode, 1,
        resolved_page(inputs.page_size, base, prefill, decode), kv, False, inputs.mla,
        _algorithm(line), _flag(line, "speculative_draft_attention_backend"),
        **pool_flags(line)))


def _qsa_model(line: Mapping[str, Any]) -> bool:
    """A Qwen4-Exp whose local config.json has a compressed QSA indexer (`parse_qsa_profile`,
    layers/attention/qsa/config.py:78-88)."""
    model = line.get("model_path")
    path = config_path(str(model)) if isinstance(model, str) else None
    if path is None:
        return False
    data = load_config(path)
    return (model_inputs(data)[0]["architecture"] in QWEN4_EXP
            and _text(data).get("indexer_n_heads") is not None)


def _qsa(resolved: Resolved) -> Resolved:
    """Its draft-extend steps run SGLang's own QSA backend whatever the line names
    (draft_utils.py:122-124): the named backend is dropped, the count is per step (QSA_WHY)."""
    values = {k: v for k, v in resolved.values.items() if k != FIELD}
    origins = {k: v for k, v in resolved.origins.items() if k != FIELD}
    return replace(resolved, values=MappingProxyType(values),
                   origins=MappingProxyType(origins),
                   notes=(*resolved.notes, f"multi-layer EAGLE draft-extend graphs counted "
                                           f"per step: {QSA_WHY}; the line's backend is not "
                                           f"used for them"))


def _forced(line: Mapping[str, Any], resolved: Resolved) -> Resolved:
    """A line whose draft-extend backend comes from `--attention-backend`, on a model whose
    override replaces that flag (graphfit.planner.engines.sglang_arch_overrides.forced_base:
    DeepSeek-V4's dsv4): the override's backend, with a note."""
    found = draft_extend_backend(line)
    model = line.get("model_path")
    path = config_path(str(model)) if isinstance(model, str) else None
    if found is None or found[1] != "--attention-backend" or path is None:
        return resolved
    arch = str(model_inputs(load_config(path))[0]["architecture"])
    forced = forced_base(arch)
    if forced is None:
        return resolved
    name, where = forced
    said = (f"{arch}'s override replaces --attention-backend {found[0]} with {name} "
            f"(arg_groups/model_overrides/{where})")
    return replace(resolved, values=MappingProxyType({**resolved.values, FIELD: name}),
                   origins=MappingProxyType({**resolved.origins, FIELD: said}),
                   notes=(*resolved.notes, f"multi-layer EAGLE draft backend {name}: {said}"))


NVFP4_DRAFT_WHY = ("an nvfp4 KV cache's pair sets the draft-extend backend "
                   "(arg_groups/kv_cache_hook.py:34-99, 204-224)")


def _decode_mode(line: Mapping[str, Any]) -> bool:
    return line.get("speculative_attention_mode") == "decode"


def _nvfp4_draft(line: Mapping[str, Any], resolved: Resolved, gpu_given: object) -> Resolved:
    """A line naming its backends, with an nvfp4 KV cache and no draft backend: the nvfp4
    hooks' pair, not the named flags, runs the draft-extend steps
    (graphfit.planner.engines.sglang_backend_checks.nvfp4_draft); the line's flags are
    checked against that pair already (`_line_refusals`)."""
    kind = gpu_kind(gpu_given)
    if kind is None or _flag(line, "speculative_draft_attention_backend") or not (
            resolved.values.get(FIELD)):
        return resolved
    name = nvfp4_draft(kind, _flag(line, "kv_cache_dtype"), _decode_mode(line))
    if name is None or name == resolved.values.get(FIELD):
        return resolved
    return replace(resolved, values=MappingProxyType({**resolved.values, FIELD: name}),
                   origins=MappingProxyType({**resolved.origins, FIELD: NVFP4_DRAFT_WHY}),
                   notes=(*resolved.notes, f"multi-layer EAGLE draft backend {name}: "
                                           f"{NVFP4_DRAFT_WHY}"))


def multi_layer_line(values: Mapping[str, Any]) -> bool:
    """Whether the line runs multi-layer EAGLE (`_multi_layer`)."""
    return _multi_layer(values)


def _multi_layer(values: Mapping[str, Any]) -> bool:
    """The line's switch, or a model override that turns multi-layer EAGLE on for EAGLE
    (graphfit.planner.engines.sglang_spec_runners.auto_multi_layer: MiMoV2, mimo_v2.py:23-25,
    and the others of AUTO_ARCHITECTURES)."""
    from graphfit.planner.engines.sglang_spec_runners import AUTO_ARCHITECTURES

    method = str(getattr(values.get("spec_method"), "value", values.get("spec_method")))
    return bool(values.get("multi_layer_eagle")) or (
        method in ("eagle", "mtp") and not values.get("frozen_kv_mtp")
        and values.get("architecture") in AUTO_ARCHITECTURES)


def settle_flags(resolved: Resolved, model_path: object, gpu_given: object) -> Resolved:
    """`settle` for graphfit's own SGLang flags (`graphfit plan --engine sglang --model-path
    DIR --gpu-memory-gb H100 --enable-multi-layer-eagle ...`): the flags as the line SGLang
    would read (no page-size or KV-dtype flag there: SGLang's defaults)."""
    values = resolved.values
    engine = values.get("engine")
    if str(getattr(engine, "value", engine)) != "sglang":
        return resolved
    line = {"model_path": model_path, "speculative_algorithm": values.get("spec_method"),
            "speculative_eagle_topk": values.get("speculative_eagle_topk")}
    # graphfit's own flags are not a whole SGLang line (a backend named by another graphfit
    # flag is missing here): the every-line checks need the pasted line
    return settle(line, resolved, gpu_given, "--mtp-draft-backend", every_line=False)


def default_inputs(line: Mapping[str, Any], gpu_given: object, hint: str = LINE_HINT
                   ) -> tuple[DefaultBackend, AttentionDefaultInputs | None]:
    """`_default_inputs` without the hybrid flag, for the UNO line's pair
    (graphfit.inputs.sglang_uno_default.override_sides): the reason an input is missing
    (or an MLA-shaped config outside graphfit's list) and SGLang's default's inputs."""
    found, _, inputs = _default_inputs(line, gpu_given, hint)
    return found, inputs
