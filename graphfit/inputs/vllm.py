"""vLLM's own inputs: `--speculative-config`, `--compilation-config` / `-O`.

Keys graphfit models become Settings; keys vLLM has but that do not change ladders or buffers
(draft TP size, quantization, inductor passes...) are accepted and reported as ignored;
anything else is an error naming the key, as vLLM itself rejects unknown keys there.
"""

from __future__ import annotations

from graphfit.inputs.keys import Handler, field_key
from graphfit.inputs.reading import parse_json
from graphfit.inputs.settings import COMMAND_LINE, Setting
from graphfit.inputs.values import (
    as_bool,
    as_int,
    as_object,
    as_sizes,
    as_str,
    normalize_key,
    reject_unknown,
)
from graphfit.planner.core.enums import CUDAGraphMode, Engine, SpecMethod
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.core.limits import MAX_CAPTURE_SIZES, MAX_INT

SPEC_IGNORED = frozenset({
    "model", "draft_tensor_parallel_size", "tensor_parallel_size", "quantization",
    "max_model_len", "revision", "code_revision", "prompt_lookup_max", "prompt_lookup_min",
    "disable_padded_drafter_batch", "parallel_drafting", "speculative_token_tree",
    "disable_by_batch_size", "disable_logprobs", "enforce_eager", "hf_overrides",
    "suffix_decoding_max_tree_depth", "suffix_decoding_max_cached_requests",
    "suffix_decoding_max_spec_factor", "suffix_decoding_min_token_prob", "draft_load_config",
    "attention_backend", "moe_backend", "use_local_argmax_reduction", "rejection_sample_method",
    "num_speculative_tokens_per_batch_size",
})
COMPILATION_IGNORED = frozenset({
    "level", "mode", "backend", "custom_ops", "splitting_ops", "use_inductor", "compile_sizes",
    "inductor_compile_config", "inductor_passes", "pass_config", "cudagraph_num_of_warmups",
    "cudagraph_copy_inputs", "full_cuda_graph", "debug_dump_path", "cache_dir",
    "compile_cache_save_format", "use_inductor_graph_partition", "cudagraph_specialize_lora",
    "compile_mm_encoder", "dynamic_shapes_config", "local_cache_dir", "fast_moe_cold_start",
    "compile_ranges_split_points", "static_forward_context",
})
# compilation-config keys vLLM 0.34.0 added (graphfit/inputs/flags/vllm-0.34.0.json against
# vllm.json; only 0.34's parser reads them, which makes the line a 0.34 line:
# inputs/commandline.py). The five split capture-size keys
# (config/vllm.py:2558-2737 in 0.34) are not graphfit inputs yet: refused, never dropped.
COMPILATION_0_34_SPLIT = frozenset({
    "prefill_cudagraph_capture_token_sizes", "max_prefill_cudagraph_capture_tokens",
    "decode_cudagraph_capture_request_sizes", "max_decode_cudagraph_capture_requests",
    "max_decode_cudagraph_capture_tokens"})
COMPILATION_0_34_IGNORED = frozenset({"use_breakable_cudagraph",
                                      "encoder_cudagraph_max_token_budget"})
OPTIMIZATION_LEVEL_MODES = {  # vLLM -O0..-O3 cudagraph_mode defaults (user settings win)
    0: CUDAGraphMode.NONE,
    1: CUDAGraphMode.PIECEWISE,
    2: CUDAGraphMode.FULL_AND_PIECEWISE,
    3: CUDAGraphMode.FULL_AND_PIECEWISE,
}
# UNO is SGLang's (--speculative-algorithm UNO): vLLM's speculative-config has no such method
_METHODS = {m.value: m for m in SpecMethod if m not in (SpecMethod.NONE, SpecMethod.UNO)}
# speculative-config keys graphfit refuses rather than ignores: they change k or the drafter's
# batches in ways the plan does not model
SPEC_NOT_MODELLED = {
    "num_speculative_tokens_per_batch_size": (
        "dynamic speculative decoding (k chosen per batch size: every tier has its own decode "
        "query length, capture sizes and buffers) is not modelled; plan each tier's k "
        "separately"),
}


def spec_method(origin: str, name: str) -> SpecMethod:
    """vLLM 0.33's method names (config/speculative.py:55-82): the model-specific *_mtp names
    (deepseek_mtp, qwen3_next_mtp, ...) are MTP; custom_class is not modelled."""
    key = name.strip().lower()
    if key.endswith("_mtp"):
        return SpecMethod.MTP
    if key in _METHODS:
        return _METHODS[key]
    choices = ", ".join(sorted(_METHODS))
    raise ConfigError(f"{origin}: {name!r} is not modelled (supported: {choices})")


def _infer_method(model: str) -> SpecMethod:
    lowered = model.lower()
    for needle, method in (("eagle3", SpecMethod.EAGLE3), ("eagle", SpecMethod.EAGLE),
                           ("dflash", SpecMethod.DFLASH), ("dspark", SpecMethod.DSPARK),
                           ("ngram", SpecMethod.NGRAM)):
        if needle in lowered:
            return method
    return SpecMethod.DRAFT_MODEL


def speculative_config(origin: str, value: object,
                       layer: int = COMMAND_LINE) -> tuple[list[Setting], list[str]]:
    """Settings from vLLM's speculative config (a JSON object or its text)."""
    obj = {normalize_key(k): v for k, v in as_object(origin, value).items()}
    for key, why in SPEC_NOT_MODELLED.items():
        if obj.get(key) is not None:
            raise ConfigError(f"{origin}: {key}: {why}")
    method_name = str(obj.get("method") or "").strip().lower()
    if obj.get("parallel_drafting") and method_name not in ("dflash", "dspark"):
        raise ConfigError(f"{origin}: parallel_drafting: P-EAGLE / PARD drafting (K - 1 or K "
                          "extra input slots per request, the V1 runner only) is not modelled")
    if obj.get("enforce_eager") is True:
        raise ConfigError(f"{origin}: enforce_eager: a drafter-only eager mode (the V1 "
                          "drafter's dispatcher without graphs) is not modelled")
    reject_unknown(origin, obj, SPEC_IGNORED | {"method", "num_speculative_tokens"})
    notes: list[str] = []
    if "method" in obj and obj["method"] is not None:
        method = spec_method(f"{origin}: method", as_str(f"{origin}: method", obj["method"]))
    elif obj.get("model") is not None:
        method = _infer_method(as_str(f"{origin}: model", obj["model"]))
        notes.append(f"{origin}: method inferred as {method.value} from the model name")
    else:
        raise ConfigError(f"{origin}: method missing (and no model to infer it from)")
    if obj.get("num_speculative_tokens") is None:
        raise ConfigError(f"{origin}: num_speculative_tokens missing")
    k = as_int(f"{origin}: num_speculative_tokens", obj["num_speculative_tokens"])
    settings = [Setting("spec_method", method, f"{origin}: method", layer),
                Setting("num_speculative_tokens", k, f"{origin}: num_speculative_tokens",
                        layer),
                Setting("engine", Engine.VLLM, origin, layer)]
    backend = obj.get("attention_backend")
    if backend is not None:  # the draft's own attention backend
        levels = draft_levels(f"{origin}: attention_backend", backend)
        if len(levels) == 1:
            settings.append(Setting("drafter_attention_cudagraph_support", levels[0],
                                    f"{origin}: attention_backend", layer))
        elif levels:
            notes.append(f"{origin}: attention_backend {backend} reports "
                         f"{' or '.join(levels)}: the plan covers each")
    ignored = sorted(set(obj) & (SPEC_IGNORED - {"model", "attention_backend"}))
    if ignored:
        notes.append(f"{origin}: not modelled, ignored: {', '.join(ignored)}")
    return settings, notes


_MODE_NUMBERS = {0: CUDAGraphMode.NONE, 1: CUDAGraphMode.PIECEWISE, 2: CUDAGraphMode.FULL}


def attention_backend(origin: str, value: object) -> str | None:
    """`--attention-backend NAME` (an AttentionBackendEnum name; "auto" selects
    automatically: graphfit then covers every level)."""
    text = as_str(origin, value).strip().upper()
    return None if text in ("AUTO", "NONE", "") else text


def draft_levels(origin: str, value: object) -> tuple[str, ...]:
    """The cudagraph support levels the named backend can report (empty for auto)."""
    from graphfit.planner.engines.vllm.attention import backend_levels

    name = attention_backend(origin, value)
    if name is None:
        return ()
    try:
        return tuple(level.value for level in backend_levels(name))
    except ConfigError as exc:
        raise ConfigError(f"{origin}: {str(exc).partition(': ')[2]}") from None


def support_level(origin: str, value: object) -> str:
    """An AttentionCGSupport level name (EngineConfig validates it)."""
    return as_str(origin, value).strip().upper()


def _sample_from_anchor(origin: str, value: object) -> bool:
    return as_bool(origin, value)




def cudagraph_mode(origin: str, value: object) -> CUDAGraphMode:
    """A mode name (any case) or vLLM's integer value: 0 NONE, 1 PIECEWISE, 2 FULL (the two
    FULL_* modes are pairs and have no integer; compilation.py:853-879)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value not in _MODE_NUMBERS:
            raise ConfigError(f"{origin}: {value} is not a cudagraph mode (0, 1 or 2)")
        return _MODE_NUMBERS[value]
    text = as_str(origin, value).upper()
    for mode in CUDAGraphMode:
        if text == mode.value:
            return mode
    choices = ", ".join(m.value for m in CUDAGraphMode)
    raise ConfigError(f"{origin}: {value!r} is not one of {choices}")


def optimization_level(origin: str, value: object, layer: int = COMMAND_LINE) -> list[Setting]:
    """-O0..-O3: a default cudagraph_mode that any explicit cudagraph_mode overrides."""
    level = as_int(origin, value, minimum=0)
    if level not in OPTIMIZATION_LEVEL_MODES:
        raise ConfigError(f"{origin}: optimization level must be 0..3, got {level}")
    return [Setting("cudagraph_mode", OPTIMIZATION_LEVEL_MODES[level], f"{origin} {level}",
                    layer, weak=True),
            Setting("engine", Engine.VLLM, origin, layer)]


def compilation_config(origin: str, value: object,
                       layer: int = COMMAND_LINE) -> tuple[list[Setting], list[str]]:
    """Settings from vLLM's compilation config: a JSON object, or an -O level digit."""
    if isinstance(value, int) or (isinstance(value, str) and value.strip().isdigit()):
        return optimization_level(origin, value, layer), []
    obj = {normalize_key(k): v for k, v in as_object(origin, value).items()}
    mapped = {"cudagraph_capture_sizes", "max_cudagraph_capture_size", "cudagraph_mode",
              "use_cudagraph"}
    reject_unknown(origin, obj,
                   COMPILATION_IGNORED | COMPILATION_0_34_SPLIT | COMPILATION_0_34_IGNORED | mapped)
    settings = [Setting("engine", Engine.VLLM, origin, layer)]
    notes: list[str] = []
    for key in sorted(set(obj) & COMPILATION_0_34_SPLIT):  # only 0.34's parser lets them in
        if obj[key] is not None:
            settings.append(Setting(key, split_size(f"{origin}: {key}", key, obj[key]),
                                    f"{origin}: {key}", layer))
    ignored_0_34 = sorted(set(obj) & COMPILATION_0_34_IGNORED)
    if ignored_0_34:
        notes.append(f"{origin}: not modelled, ignored: {', '.join(ignored_0_34)}")
    if obj.get("cudagraph_capture_sizes") is not None:
        key = f"{origin}: cudagraph_capture_sizes"
        settings.append(Setting("cudagraph_capture_sizes",
                                as_sizes(key, obj["cudagraph_capture_sizes"], normalize=True),
                                key, layer))
    if obj.get("max_cudagraph_capture_size") is not None:
        key = f"{origin}: max_cudagraph_capture_size"
        settings.append(Setting("max_cudagraph_capture_size",
                                as_int(key, obj["max_cudagraph_capture_size"]), key, layer))
    if obj.get("cudagraph_mode") is not None:
        key = f"{origin}: cudagraph_mode"
        settings.append(Setting("cudagraph_mode", cudagraph_mode(key, obj["cudagraph_mode"]),
                                key, layer))
    if "use_cudagraph" in obj:
        key = f"{origin}: use_cudagraph"
        if not as_bool(key, obj["use_cudagraph"]):
            settings.append(Setting("cudagraph_mode", CUDAGraphMode.NONE, key, layer))
    ignored = sorted(set(obj) & COMPILATION_IGNORED)
    if ignored:
        notes.append(f"{origin}: not modelled, ignored: {', '.join(ignored)}")
    return settings, notes


def split_size(origin: str, key: str, value: object) -> int | tuple[int, ...]:
    """A vLLM 0.34 split capture-size key's value: the two lists take any integers (vLLM
    drops those outside [1, limit] with a warning; `[]` captures none), the caps an integer
    >= 0 (`max_decode_cudagraph_capture_tokens` >= 1): compilation.py:762-801 in 0.34."""
    if key.endswith("_sizes"):
        if isinstance(value, str) and value.strip().startswith("["):
            value = parse_json(value.strip(), origin)
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{origin}: expected a list of integers, got {excerpt(value)}")
        if len(value) > MAX_CAPTURE_SIZES:
            raise ConfigError(f"{origin}: {len(value):,} sizes; graphfit plans at most "
                              f"{MAX_CAPTURE_SIZES:,} capture sizes")
        return tuple(as_int(origin, v, minimum=-MAX_INT) for v in value)
    return as_int(origin, value, minimum=1 if key == "max_decode_cudagraph_capture_tokens"
                  else 0)


def _aux_layers(origin: str, value: object) -> int:
    """How many target layers the DFlash/DSpark draft reads aux hidden states from."""
    return as_int(origin, value, minimum=0)


def _split_key(key: str) -> Handler:
    """A config file's split capture-size key (the EngineConfig field of the same name)."""

    def read(origin: str, value: object) -> int | tuple[int, ...]:
        return split_size(origin, key, value)

    return field_key(key, read, Engine.VLLM)


def enforce_eager(origin: str, value: object, layer: int) -> list[Setting]:
    if not as_bool(origin, value):
        return []
    return [Setting("cudagraph_mode", CUDAGraphMode.NONE, origin, layer),
            Setting("engine", Engine.VLLM, origin, layer)]


def vllm_dtype(origin: str, value: object) -> str | None:
    """vLLM's --dtype spellings; `auto` keeps graphfit's default (the checkpoint's dtype)."""
    text = as_str(origin, value).lower()
    aliases = {"half": "float16", "float": "float32", "bf16": "bfloat16", "fp16": "float16"}
    if text == "auto":
        return None
    return aliases.get(text, text)



def max_model_len(origin: str, value: object) -> int | None:
    """vLLM's --max-model-len: an integer, or `auto` / -1 for the model's own maximum (None:
    the model's config.json or graphfit's default decides)."""
    if value == -1 or (isinstance(value, str) and value.strip().lower() in ("auto", "-1")):
        return None
    return as_int(origin, value)


def _int(origin: str, value: object) -> int:
    return as_int(origin, value)


def _sizes(origin: str, value: object) -> tuple[int, ...]:
    return as_sizes(origin, value, normalize=True)


def _level(origin: str, value: object, layer: int) -> tuple[list[Setting], list[str]]:
    return optimization_level(origin, value, layer), []


def _eager(origin: str, value: object, layer: int) -> tuple[list[Setting], list[str]]:
    return enforce_eager(origin, value, layer), []


def _speculative(origin: str, value: object, layer: int) -> tuple[list[Setting], list[str]]:
    return speculative_config(origin, value, layer)


def _compilation(origin: str, value: object, layer: int) -> tuple[list[Setting], list[str]]:
    return compilation_config(origin, value, layer)


# vLLM's own keys (EngineArgs names: `vllm serve` flags' dests and --config YAML keys) that
# graphfit models; every other key of vLLM's is read and ignored (listed in a note).
FILE_KEYS: dict[str, Handler] = {
    "max_num_seqs": field_key("max_num_seqs", _int),
    "max_num_batched_tokens": field_key("max_num_batched_tokens", _int),
    "max_model_len": field_key("max_model_len", max_model_len),
    "block_size": field_key("block_size", _int),
    "dtype": field_key("dtype", vllm_dtype),
    "speculative_config": _speculative,
    "compilation_config": _compilation,
    "optimization_level": _level,
    "enforce_eager": _eager,
    "cudagraph_capture_sizes": field_key("cudagraph_capture_sizes", _sizes),
    "max_cudagraph_capture_size": field_key("max_cudagraph_capture_size", _int),
    "performance_mode": field_key("performance_mode", lambda o, v: as_str(o, v).lower()),
    "attention_backend": field_key("attention_backend", attention_backend, Engine.VLLM),
    "attention_cudagraph_support": field_key("attention_cudagraph_support", support_level,
                                             Engine.VLLM),
    "drafter_attention_cudagraph_support": field_key("drafter_attention_cudagraph_support",
                                                     support_level, Engine.VLLM),
    "dspark_sample_from_anchor": field_key("dspark_sample_from_anchor", _sample_from_anchor,
                                           Engine.VLLM),
    **{key: _split_key(key) for key in sorted(COMPILATION_0_34_SPLIT)},
    "draft_aux_layers": field_key("draft_aux_layers", _aux_layers, Engine.VLLM),
}
