"""The served model's own config.json (Hugging Face format): what its buffers are sized by.

`vllm serve MODEL`, `--model PATH`, SGLang's `--model-path` and TensorRT-LLM's MODEL name a
directory holding `config.json` (or the file itself). graphfit reads the values its buffers
need -- hidden size, dtype (what `--dtype auto` becomes), max_position_embeddings (what
`--max-model-len auto` becomes), M-RoPE (the multimodal position buffers) -- and reports the
layer count and vocabulary for context. Nothing is downloaded: a hub id with no local files
leaves graphfit's defaults, with a note saying so.

The model's values are weak settings of the config-file layer: any flag, JSON config or
`--config` key that sets the same field wins.
"""

from __future__ import annotations

import os
import types
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphfit.inputs import (
    sglang_bare_rope,
    sglang_class_lengths,
    sglang_context_length,
    sglang_mla_reads,
    sglang_own_rope,
    sglang_qwen4_text_only,
    sglang_strict_nulls,
    sglang_sub_configs,
    sglang_text_pick,
    sglang_text_values,
)
from graphfit.inputs import sglang_nvfp4_moe_layers as nvfp4_moe_layers
from graphfit.inputs.reading import load_json, shown_path
from graphfit.inputs.settings import FILE, Setting
from graphfit.inputs.sglang_draft_layer_default import CLASS_LAYERS
from graphfit.inputs.sglang_dtype import sglang_dtype
from graphfit.inputs.sglang_quant_files import (
    checkpoint_quant,
    hf_quantization_config,
    mxfp4_pack,
)
from graphfit.inputs.sglang_safetensors import fp8_experts
from graphfit.inputs.target_overrides import on_load, overrides_for, shown
from graphfit.planner import aux_layer_ids
from graphfit.planner.core.errors import ConfigError, brief, excerpt
from graphfit.planner.engines.sglang_class_picks import HYV4, PUZZLE
from graphfit.planner.engines.sglang_model_quant import MINIMAX_M3, NEMOTRON_H
from graphfit.planner.engines.sglang_quant_overrides import quant_config_text
from graphfit.planner.engines.sglang_quantization import (
    checkpoint_method,
    parsed_quantization_config,
)

WARNING = "warning: "  # a note the CLI prints as a warning

# vLLM's keys for a model's maximum length, the smallest given wins (config/model.py
# _get_and_verify_max_len's possible_keys)
MAX_LENGTH_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length",
                   "model_max_length", "max_sequence_length", "max_seq_length", "seq_len")
_DTYPES = {"bfloat16": "bfloat16", "float16": "float16", "half": "float16",
           "float32": "float32", "float": "float32"}


@dataclass(frozen=True)
class ModelInfo:
    """What graphfit read from one config.json (None: the file does not say)."""

    path: Path
    architecture: str | None
    hidden_size: int | None
    torch_dtype: str | None
    max_position_embeddings: int | None
    num_hidden_layers: int | None
    vocab_size: int | None
    mrope: bool
    multimodal: bool
    # target layers a draft config names for its aux hidden states (vLLM's lookup,
    # graphfit.planner.aux_layer_ids); 0 when it names none
    aux_layers: int = 0
    # the vision encoder's size (vision_config), for SGLang's memory reserve; None: not said
    vision_layers: int | None = None
    vision_hidden_size: int | None = None
    # SGLang's context length (first key, RoPE factor; graphfit.inputs.sglang_context_length;
    # no key: the class default, graphfit.inputs.sglang_class_lengths), None: no key and a
    # class graphfit does not know
    sglang_context_length: int | None = None

    @property
    def dtype(self) -> str:
        """What `--dtype auto` resolves to on an Ampere or newer GPU: the checkpoint's dtype,
        float32 (or none given) downcast to bfloat16 (vLLM config/model.py
        _resolve_auto_dtype with CUDA's supported dtypes)."""
        if self.torch_dtype in (None, "float32"):
            return "bfloat16"
        return self.torch_dtype

    def describe(self) -> str:
        parts = [self.architecture or self.path.name]
        if self.hidden_size:
            parts.append(f"hidden {self.hidden_size}")
        if self.num_hidden_layers:
            parts.append(f"{self.num_hidden_layers} layers")
        if self.vocab_size:
            parts.append(f"vocab {self.vocab_size}")
        parts.append(self.torch_dtype or "dtype not given")
        if self.max_position_embeddings:
            parts.append(f"max {self.max_position_embeddings} positions")
        if self.mrope:
            parts.append("M-RoPE")
        elif self.multimodal:
            parts.append("multimodal")
        return ", ".join(parts)


def config_path(model: str) -> Path | None:
    """The config.json a model argument names locally (a directory or the file), else None.

    Any directory entry named so counts -- a FIFO, a device, a dangling or looping link --
    so that reading it is an error naming the file (graphfit.inputs.reading), never a silent
    fallback to graphfit's defaults."""
    path = Path(model).expanduser()
    if path.suffix == ".json" and os.path.lexists(path) and not path.is_dir():
        return path
    if path.is_dir() and os.path.lexists(path / "config.json"):
        return path / "config.json"
    return None


def local_config(model: str) -> dict[str, Any] | None:
    """The JSON object of the config.json a model argument names locally; None for a hub id
    or a file that is not an object (the readers that only look for optional keys treat both
    as "the file does not say"; a file that cannot be read is still an error)."""
    path = config_path(model)
    if path is None:
        return None
    data = on_load(path, load_json(path, "model config"))
    return data if isinstance(data, dict) else None


def looks_local(model: str) -> bool:
    """Whether a model argument is a filesystem path rather than a hub id ("org/name"):
    absolute, ~, ./ or ../, or more than one slash."""
    return (model.startswith(("/", "~", "./", "../", ".\\")) or model in (".", "..")
            or model.count("/") > 1)


def _int(data: dict[str, Any], key: str, origin: str = "", prefix: str = "",
         *, null_ok: bool = False) -> int | None:
    """A positive integer under `key`, None when absent; anything else (negative, zero, a
    float, a string, a bool, null unless `null_ok`) is a ConfigError naming the key."""
    if key not in data:
        return None
    value = data[key]
    if value is None and null_ok:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    raise ConfigError(f"{origin}: {prefix}{key}: expected a positive integer, got "
                      f"{excerpt(value)}")


def _uses_mrope(data: dict[str, Any]) -> bool:
    for key in ("rope_scaling", "rope_parameters"):
        rope = data.get(key)
        if isinstance(rope, dict) and ("mrope_section" in rope
                                       or rope.get("rope_type") == "mrope"
                                       or rope.get("type") == "mrope"):
            return True
    return False


def load_config(path: Path) -> dict[str, Any]:
    """A config.json as its JSON object (bounded and strict: graphfit.inputs.reading); the
    target's with SGLang's `--json-model-override-args` applied while a line is read
    (graphfit.inputs.target_overrides)."""
    data = on_load(path, load_json(path, "model config"))
    if not isinstance(data, dict):
        raise ConfigError(f"{shown_path(path)}: expected a JSON object")
    return data


def _written(path: Path) -> dict[str, Any]:
    """A config.json as written (no override args), {} when not an object."""
    data = load_json(path, "model config")
    return data if isinstance(data, dict) else {}


def read_model(path: Path, *, sglang: bool = False) -> ModelInfo:
    """Read a config.json; text values come from `text_config` when the model nests them
    (s68e, `sglang`: from the sub-config SGLang's parser picks on a plain class; vLLM's
    transformers `get_text_config` names `text_config` alone, vllm/transformers_utils/
    config.py:1303-1317)."""
    origin = shown(path, shown_path(path))
    data = load_config(path)
    # s68e: a plain class's picked thinker_config / llm_config / language_config, or its top
    # level, where SGLang's parser takes one (graphfit.inputs.sglang_text_values)
    source = sglang_text_values.text_source(data, _written(path), sglang=sglang)
    text = {} if source.value is None else source.value
    sub = source.prefix
    if not isinstance(text, dict):
        raise ConfigError(f"{origin}: {source.key}: expected an object, got {excerpt(text)}")

    def number(key: str, *, null_ok: bool = False) -> int | None:
        # the GPT-2 family's own spellings (n_positions, n_embd, ...) are the same attribute
        # to transformers (attribute_map; graphfit.inputs.sglang_class_lengths.ALIASES)
        spelled = sglang_class_lengths.spelling
        top = {} if source.picked else data  # s68e: no top-level fallback
        found = (_int(text, spelled(text, key), origin, sub, null_ok=null_ok)
                 or _int(top, spelled(top, key), origin, null_ok=null_ok))
        if found is None and not text and key not in data:  # the class's own default
            found = sglang_class_lengths.class_fact(data, key)
        if found is None and key not in text:  # the text sub-config class's default
            found = TEXT_CLASS_FACTS.get(sglang_class_lengths.model_type(data) or "",
                                         {}).get(key)
        return found

    # vLLM skips a null length key (config/model.py _get_and_verify_max_len); graphfit too,
    # except max_position_embeddings, the one its buffers are sized by
    lengths = [v for v in (number(k, null_ok=k != "max_position_embeddings")
                           for k in MAX_LENGTH_KEYS) if v]
    dtype = _dtype(origin, text, sub) or _dtype(origin, data, "")
    architectures = data.get("architectures")
    architecture = (architectures[0] if isinstance(architectures, list) and architectures
                    and isinstance(architectures[0], str) else None)
    mrope = _uses_mrope(text) or _uses_mrope(data)
    multimodal = mrope or any(k in data for k in ("vision_config", "audio_config"))
    vision = data.get("vision_config")
    if vision is None and architecture in DEFAULT_VISION_TOWERS:
        # the config class builds its default vision tower (DEFAULT_VISION_TOWERS)
        multimodal, vision = True, DEFAULT_VISION_TOWERS[architecture]
    vision_layers, vision_hidden = _vision_size(vision)
    # SGLang's context length reads hf_text_config's RoPE dict (a nested model's text_config,
    # common.py:547-612) as transformers standardized it before the override args
    rope = (sglang_context_length.standardized(text) if text else
            sglang_context_length.sglang_rope(_written(path), overrides_for(path)))
    bare_text = sglang and source.key == sglang_text_values.TEXT_CONFIG and (
        sglang_class_lengths.model_type(data) in CLASS_LAYERS)  # s69f: converted too (:569)
    if (source.picked or bare_text) and text:  # s69f: the bare sub-config's own dict (the
        # later of rope_scaling / rope_parameters wins, graphfit.inputs.sglang_bare_rope)
        bare = sglang_bare_rope.loaded_rope(text)
        rope = None if bare is None else sglang_context_length.standardized(text, bare)
    # a length key the file does not write is the class's default (scaled alike, as SGLang
    # reads it off the loaded config; graphfit.inputs.sglang_class_lengths)
    defaults = {} if text else sglang_class_lengths.class_keys_with(
        data, sglang_context_length.sglang_rope(_written(path), overrides_for(path)))

    def length_key(key: str) -> int | None:
        found = number(key, null_ok=key != "max_position_embeddings")
        if found is None and not sglang_class_lengths.written(data, key):
            return defaults.get(key)
        return found

    multimodal_keys = sglang_class_lengths.text_class_keys(data)
    model_type = sglang_class_lengths.model_type(data) or ""
    sub_config = sglang_sub_configs.sub_config(data)
    if (sub_config is not None and not sub_config.prefix
            and model_type != sglang_sub_configs.MINIMAX_M3_VL):
        # Dots-VLM: the override args set the parent, not the text config built at load
        sub_config = sglang_sub_configs.sub_config(_written(path))
    nested = sglang_sub_configs.nested_override(_written(path), overrides_for(path))
    built = sub_config  # the sub-config as the class built it: before a nested override
    if nested is not None:
        built = sglang_sub_configs.sub_config(_written(path))
    failure = (sglang_class_lengths.load_failure(_written(path))
               or sglang_qwen4_text_only.load_failure(_written(path), overrides_for(path))
               or sglang_own_rope.load_failure(_written(path), overrides_for(path))
               or sglang_sub_configs.load_failure(_written(path) if nested else data)
               or (None if built is None or not built.prefix else
                   # InternVL's parent takes llm_config's attributes before the override
                   # args are set (utils/hf_transformers/config.py:303-306)
                   sglang_own_rope.load_failure(
                       _written(path),
                       {} if model_type == "internvl_chat" else overrides_for(path),
                       sglang_own_rope.PARENT)
                   or sglang_own_rope.load_failure(built.values, {},
                                                   built.own_class(model_type))))
    if failure is None and multimodal_keys is not None and not sglang_class_lengths.top_level_text(
            data):  # the text_config classes' parents take the top-level dict the same way
        # (Qwen4-Exp's parent with a nested text config holds that config's RoPE dict and
        # length after load, qwen4_exp.py:169-171: measured, the override args' dicts load)
        failure = sglang_own_rope.load_failure(
            _written(path), {} if model_type == "qwen4_exp"
            and not sglang_class_lengths.top_level_text(data) else overrides_for(path),
            sglang_own_rope.PARENT)
    if failure is not None:
        raise ConfigError(f"{origin}: {failure}")
    if sub_config is not None:
        # llm_config / language_config classes: the sub-config's keys, else its class's
        # default, under its RoPE dict (graphfit.inputs.sglang_sub_configs)
        values = sub_config.values

        def sub_key(key: str) -> int | None:
            found = _int(dict(values), key, origin, sub_config.prefix,
                         null_ok=key != "max_position_embeddings")
            default = (built or sub_config).default if key == "max_position_embeddings" else None
            return default if found is None and key not in values else found

        start = values if built is None else built.values
        sub_rope = sglang_context_length.standardized(start)
        own_class = (built or sub_config).own_class(model_type)
        if own_class and sglang_own_rope.modelled(start, own_class):  # SGLang's own classes
            sub_rope = sglang_own_rope.loaded_rope(start, sub_rope, own_class)
        if nested is not None:  # set on the built sub-config afterwards
            sub_rope = sglang_sub_configs.overridden_rope(sub_rope, values, nested)
        if not sub_config.prefix and model_type == sglang_sub_configs.MINIMAX_M3_VL:
            sub_rope = rope  # the parent is the text config: the override args reach it
        sglang_length = sglang_context_length.context_length(origin, sub_rope, sub_key)
        if sglang_length is None and sub_config.default is None:  # no key, no class default
            sglang_length = sglang_context_length.NO_KEY_LENGTH  # common.py:700, not scaled
    elif multimodal_keys is not None and not sglang_class_lengths.top_level_text(data):
        # SGLang's own multimodal class: get_context_length reads its text sub-config, built
        # from `text_config` alone, so a top-level length key or RoPE dict does not reach it;
        # a key the text config does not write is the text class's default
        # (sglang_class_lengths.TEXT_CLASS_KEYS), under the text config's RoPE dict
        def text_key(key: str) -> int | None:
            found = _int(text, key, origin, sub, null_ok=key != "max_position_embeddings")
            return multimodal_keys.get(key) if found is None and key not in text else found

        text_rope = sglang_context_length.standardized(text) if text else None
        if text and model_type == "kimi_vl":  # SGLang's DeepseekV2Config (kimi_vl.py:29-32)
            failure = sglang_own_rope.load_failure(text, {}, "deepseek_vl_v2")
            if failure is not None:
                raise ConfigError(f"{origin}: {failure}")
            text_rope = sglang_own_rope.loaded_rope(text, text_rope, "deepseek_vl_v2")
        sglang_length = sglang_context_length.context_length(origin, text_rope, text_key)
    else:
        if multimodal_keys is not None:  # Qwen4-Exp's text-only form: the top-level keys
            defaults = multimodal_keys
            # built at load (qwen4_exp.py:143-150): a RoPE dict the override args set on the
            # parent afterwards is a new dict (config.py:411-424), not the text config's,
            # and so is a written rope_parameters (graphfit.inputs.sglang_qwen4_text_only)
            rope = sglang_qwen4_text_only.text_rope(_written(path))
        sglang_length = sglang_context_length.context_length(origin, rope, length_key)
    if sglang_length is None and (source.picked or (
            not text and sglang_class_lengths.no_length_class(data))):
        sglang_length = sglang_context_length.NO_KEY_LENGTH  # common.py:700, not scaled
    return ModelInfo(path=path, architecture=architecture,
                     hidden_size=number("hidden_size"),
                     torch_dtype=dtype, max_position_embeddings=min(lengths) if lengths else None,
                     num_hidden_layers=number("num_hidden_layers"),
                     vocab_size=number("vocab_size"),
                     mrope=mrope, multimodal=multimodal,
                     aux_layers=len(aux_layer_ids(types.SimpleNamespace(**data))),
                     vision_layers=vision_layers, vision_hidden_size=vision_hidden,
                     sglang_context_length=sglang_length)


# SGLang's own multimodal config classes that build their text sub-config from `text_config`
# alone, with that class's defaults for what it does not write: Inkling's `InklingMMConfig`
# (model_type inkling_mm_model, both architectures) builds `InklingModelConfig(**text_config)`
# (configs/inkling.py:309-335), hidden_size 1536 (:25), and its `hidden_size` is the text
# config's (:367-369). ModelConfig's hidden_size (hf_text_config) sizes the prefill runner's
# multimodal input_embeds (prefill_cuda_graph_runner.py:435-442, 713-731: Inkling's model
# declares no `input_embeds_hidden_size`) and the graphs' hidden-width buffers
# (issue 23 s44m: also its vocab_size 201024 and num_hidden_layers 16, :24-28, which the
# properties read off the text config too, :367-374: the logits' width and the layer count)
TEXT_CLASS_FACTS: dict[str, dict[str, int]] = {
    "inkling_mm_model": {"hidden_size": 1536, "vocab_size": 201024, "num_hidden_layers": 16}}
# `InklingMMConfig`'s read-only properties (configs/inkling.py:363-406): a config.json writing
# one of them at the top level fails to load, PretrainedConfig.__init__ setting the attribute
# ("property ... has no setter"); checked for SGLang (`sglang_load_failure`, issue 23 s44m)
INKLING_MM_PROPERTIES = ("vocab_size", "hidden_size", "num_hidden_layers",
                         "num_attention_heads", "num_key_value_heads", "head_dim",
                         "full_attention_layer_ids", "linear_layer_ids", "conv_layer_ids",
                         "mamba_chunk_size", "mamba2_cache_params")


def sglang_load_failure(data: Mapping[str, Any],
                        written: Mapping[str, Any] | None = None) -> str | None:
    """SGLang's failure to load an Inkling multimodal config.json that writes one of
    INKLING_MM_PROPERTIES at the top level, or a plain class's bad `text_config`
    (`plain_text_config_failure`; first, s68c: a null a plain type's transformers class
    refuses at load, graphfit.inputs.sglang_strict_nulls; `written`: the file before the
    override args, None: `data`); None: it loads."""
    kind = data.get("model_type")  # s68c: a null the type's transformers class refuses
    strict = sglang_strict_nulls.strict_null(data if written is None else written,
                                             kind) if isinstance(kind, str) else None
    plain = strict or plain_text_config_failure(data, written)
    if plain is not None:
        return plain
    if sglang_class_lengths.model_type(data) != "inkling_mm_model":
        return None
    key = next((k for k in INKLING_MM_PROPERTIES if k in data), None)
    if key is None:
        return None
    return (f"{key} at the top level: SGLang fails to load it (AttributeError: property "
            f"{key!r} of 'InklingMMConfig' object has no setter, configs/inkling.py:363-406); "
            f"write it under text_config")
def plain_text_config_failure(data: Mapping[str, Any],
                              written: Mapping[str, Any] | None = None) -> str | None:
    """A plain text class (sglang_draft_layer_default.CLASS_LAYERS: its config class builds
    no text sub-config) whose config.json writes `text_config` null, as a dict without
    `num_attention_heads` or as any other value: SGLang's config parser keeps it as written
    (a dict becomes a bare PretrainedConfig, utils/hf_transformers/common.py:565-571) and
    `get_hf_text_config`'s assert fails (:602-605), inside the parser, before the override
    args apply (utils/hf_transformers/config.py:258, 405-424), so the model does not load
    (issue 23 s63c). That bare config, with the overrides merged into it, is the
    ModelConfig's text config, which reads `hidden_size`, `num_hidden_layers` and
    `vocab_size` off it with no default (`TEXT_CONFIG_READS`), and an MLA branch's latent
    sizes (graphfit.inputs.sglang_mla_reads, issue 23 s65c / s66c; some off the top level):
    a config without one fails there with an AttributeError (issue 23 s64c); one written
    null fails where it is computed with (a TypeError); SGLang's own Kimi-Linear /
    Bailing-hybrid classes are judged too, and a config.json with no `text_config` on its
    MLA branch's reads off itself, with the class's defaults (issue 23 s67c: SGLang's own
    classes; s68c: the plain ones too). s68c: the text config is the sub-config SGLang's
    parser picks (`thinker_config`, `llm_config`, `language_config` before `text_config`,
    graphfit.inputs.sglang_text_pick; a null `thinker_config` / `language_config`: the top
    level), on these classes and on `LANGUAGE_CONFIG_CLASSES`. `data`: the config with the
    override args applied; `written`: as written (None: `data`). None: it loads."""
    kind = data.get("model_type")
    if not isinstance(kind, str) or (kind not in CLASS_LAYERS
                                     and kind not in sglang_mla_reads.OWN_TEXT_DICT_CLASSES
                                     and kind not in LANGUAGE_CONFIG_CLASSES):
        return None
    file = data if written is None else written
    # s68c: the sub-config the parser takes (thinker_config, llm_config, language_config,
    # text_config), or its failure, on the file as written (graphfit.inputs.sglang_text_pick)
    seen = file
    if kind in LANGUAGE_CONFIG_CLASSES:  # their class builds `text_config` from a dict or
        own = file.get("text_config")  # null (not judged), keeps another value
        if own is not None and not isinstance(own, dict) and kind == "bailing_moe_v3_vl":
            return (f"text_config {sglang_text_pick.said(own)} ({kind}): SGLang fails to load "
                    f"it (AttributeError, configs/bailing_hybrid.py:276)")
        if isinstance(own, dict) or own is None:
            seen = {k: v for k, v in file.items() if k != "text_config"}
            if not any(key in file for key in sglang_text_pick.PRIORITY[:-1]):
                return None
    # s69f: the written sub-config dicts left as dicts (all here but Kimi-VL / Bailing-V3-VL's
    # text_config, which their class builds: left out of `seen` above) become bare
    # PretrainedConfigs, whose RoPE check fails on some dicts (graphfit.inputs.sglang_bare_rope)
    chosen = sglang_text_pick.pick(seen, kind, bare=True)
    if chosen.failure is not None:
        return chosen.failure
    if chosen.key in (None, "text_config") and not any(
            key in file for key in sglang_text_pick.PRIORITY[:-1]):
        # the ModelConfig's assert again (model_config.py:636) on the overridden config (an
        # override writing `text_config` null)
        again = sglang_text_pick.pick(data, kind)
        if again.failure is not None:
            return again.failure
        chosen = again
    sub = chosen.key
    text = data.get(sub) if sub is not None else None
    if sub is None:  # s67c: the config is its own text config (common.py:611-613)
        # s68c: a plain class's too, after the preamble (sglang_mla_reads.own_text_view)
        data = text = sglang_mla_reads.own_text_view(data, file, None)
        reads = list(sglang_mla_reads.mla_reads(text, text))
    elif isinstance(text, dict):
        reads = text_config_reads(data, text)
    else:
        return None
    read = next((r for r in reads if sglang_mla_reads.missing(r, data, text, file, sub)), None)
    if read is None:
        return None
    # short enough that the config.json's path and the `error:` line fit in 200 characters
    held = sub or next((k for k in sglang_text_pick.PRIORITY if k in file), "text_config")
    where = (f"without {held}" if sub is None and held not in file
             else f"with {held} null" if sub is None else "on top" if read.top else f"in {held}")
    if read.null:  # s67c: a null read, used in a sum
        return (f"{read.key} null {where} ({kind}): SGLang's ModelConfig fails on it "
                f"(TypeError, configs/model_config.py:{read.site})")
    if sub is None:
        where = f"no {read.key}, {held} null" if held in file else f"no {read.key}, no {held}"
    else:
        where = (f"no {read.key} on top or in {held}" if read.top
                 else f"{held} lacks {read.key}")
    return (f"{where} ({kind}): SGLang's ModelConfig reads it "
            f"(AttributeError, configs/model_config.py:{read.site})")


# issue 23 s67c: SGLang's own multimodal config classes whose written `language_config` dict
# wins over the text config they build (utils/hf_transformers/common.py:589-606: thinker_config,
# llm_config, language_config, text_config): KimiVLConfig (configs/kimi_vl.py) and
# BailingMoeV3VL's (configs/bailing_hybrid.py); measured through the oracle. s68c: judged in
# `plain_text_config_failure` with the plain classes (a null one, another value, thinker_config
# and llm_config too: graphfit.inputs.sglang_text_pick)
LANGUAGE_CONFIG_CLASSES = frozenset({"kimi_vl", "bailing_moe_v3_vl"})


def text_config_reads(data: Mapping[str, Any],
                      text: Mapping[str, Any]) -> list[sglang_mla_reads.Read]:
    """The keys SGLang's `_derive_model_shapes` reads with no default, in its order, for the
    top-level config `data` (with the override args) whose text config is `text`: the width
    for the head size where the text config writes none (configs/model_config.py:1341-1350),
    the MLA branch's latent sizes (graphfit.inputs.sglang_mla_reads: the first branch's,
    issue 23 s65c; the others', some off the top level, s66c), then `TEXT_CONFIG_READS`."""
    # s67c: `hidden_size // num_attention_heads` fails on a null one (TypeError); the heads
    # are read at :1348 (always there under text_config's assert, not under language_config)
    reads = [sglang_mla_reads.Read("hidden_size", "1347"),
             sglang_mla_reads.Read("num_attention_heads", "1348"),
             *sglang_mla_reads.uses("1347", "hidden_size", "num_attention_heads")] \
        if text.get("head_dim") is None else []
    return [*reads, *sglang_mla_reads.mla_reads(data, text),
            *(sglang_mla_reads.Read(key, site) for key, site in TEXT_CONFIG_READS.items())]


# what SGLang's ModelConfig reads off the text config with no default after the MLA branch,
# in its order, and where (configs/model_config.py: the width at :1566, the layers at :1581,
# the vocabulary at :1605; issue 23 s64c)
TEXT_CONFIG_READS = {"hidden_size": "1566", "num_hidden_layers": "1581", "vocab_size": "1605"}


# multimodal architectures whose SGLang config class builds a default vision tower when
# config.json has no (or a null) vision_config: Qwen4-Exp's `Qwen4ExpVisionConfig()`
# (configs/qwen4_exp.py:151-155), SGLang's own Qwen3VLVisionConfig with its defaults
# (configs/qwen3_vl.py:8-24: hidden_size 1152; its `depth` 27 has no attribute_map to
# num_hidden_layers, so the VLM fraction takes getattr's fallback 24, memory_hook.py:440-441)
# Inkling's `InklingMMConfig` builds `InklingVisionConfig()` (configs/inkling.py:284-306,
# 309-345), which has neither attribute: the VLM fraction takes getattr's fallbacks 24 and
# 1024 (memory_hook.py:440-441). Only the MTP architecture served as the target is
# multimodal by default (configs/model_config.py:691-697 spares the other).
DEFAULT_VISION_TOWERS: dict[str, dict[str, int]] = {
    "Qwen4ExpForConditionalGeneration": {"num_hidden_layers": 24, "hidden_size": 1152},
    "InklingForConditionalGenerationMTP": {"num_hidden_layers": 24, "hidden_size": 1024}}


def _vision_size(vision: object) -> tuple[int | None, int | None]:
    """The vision encoder's layers and width as SGLang reads them off HF's config object
    (`vision_config.num_hidden_layers` / `.hidden_size`, arg_groups/memory_hook.py:440-441).
    HF's Qwen2-VL / Qwen2.5-VL / Qwen3-VL vision configs name the layer count `depth` and map
    `num_hidden_layers` to it (their `attribute_map`), so `depth` is read where
    num_hidden_layers is absent. A size the file does not state plainly is None (unknown):
    HF's class defaults are not restated here."""
    if not isinstance(vision, dict):
        return None, None

    def plain(key: str) -> int | None:
        value = vision.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) \
            and value > 0 else None

    return plain("num_hidden_layers") or plain("depth"), plain("hidden_size")


def vision_settings(model: str) -> list[Setting]:
    """SGLang's vision-encoder facts from a local model's config.json (weak, like the other
    model facts); none for a text-only model, a hub id or a size the file does not state."""
    path = config_path(model)
    if path is None:
        return []
    info = read_model(path, sglang=True)
    if not info.multimodal or info.vision_layers is None or info.vision_hidden_size is None:
        return []
    where = f"{path}: vision_config"
    return [Setting("vision_layers", info.vision_layers, where, FILE, weak=True),
            Setting("vision_hidden_size", info.vision_hidden_size, where, FILE, weak=True)]


def quant_settings(model: str) -> list[Setting]:
    """SGLang's view of a local checkpoint's quantization: the config `_verify_quantization`
    reads, from config.json or the model directory's ModelSlim / hf_quant_config.json file
    (graphfit.inputs.sglang_quant_files; SglangOptions.checkpoint_quant_config), config.json's
    `quantization_config.quant_method` as the model overrides copy it (case kept,
    checkpoint_quant_method) and its `quant_algo` as written (SGLang's
    `ModelConfig.hf_quant_config` is that dict, configs/model_config.py:722-727; megamoe
    looks for "FP4" in it, arg_groups/mega_moe_hook.py:67-75). Nothing for a hub id or an
    unquantized checkpoint."""
    path = config_path(model)
    if path is None:
        return []
    data = load_config(path)
    folder = Path(model).expanduser()
    cfg, source = checkpoint_quant(path, data, folder if folder.is_dir() else None)
    verified = [] if cfg is None else [Setting(
        "checkpoint_quant_config", quant_config_text(cfg),
        f"{source}: the quantization config SGLang verifies", FILE, weak=True)]
    verified += _fp8_experts(data, folder)
    pack = mxfp4_pack(data)
    if pack is not None:
        verified.append(Setting("kimi_mxfp4_pack", pack,
                                f"{path}: text_config.quantization_config", FILE, weak=True))
    quant = hf_quantization_config(path, data)
    verified += _hf_config_quant(path, data, quant)
    verified += puzzle_block_experts(path, data)
    verified += _nvfp4_moe_layers(path, data, cfg, quant)
    if quant is None:
        return verified
    out = _fp4_experts(path, quant)
    method = checkpoint_method(quant)
    if method is not None and method.strip():  # what get_quantization_config returns
        out.append(Setting("checkpoint_quant_method", method,
                           f"{path}: quantization_config", FILE, weak=True))
    algo = quant.get("quant_algo")
    if algo is None:
        return [*out, *verified]
    if not isinstance(algo, str) or not algo.strip():
        raise ConfigError(f"{shown_path(path)}: quantization_config.quant_algo: expected a "
                          f"name, got {excerpt(algo)}")
    return [Setting("quant_algo", algo, f"{path}: quantization_config.quant_algo", FILE,
                    weak=True), *out, *verified]


# model_overrides/nemotron_h.py, deepseek_v2.py:80; MiniMax-M3's override copies its method
# into an unset flag (minimax_m3.py:18-53; issue 23 s63m: sglang_quantization.
# check_minimax_copy verifies it against a ModelSlim description)
HF_QUANT_READERS = (*NEMOTRON_H, *HYV4, *MINIMAX_M3)


def _hf_config_quant(path: Path, data: dict[str, Any], quant: dict[str, Any] | None
                     ) -> list[Setting]:
    """SglangOptions.hf_config_quant for the classes whose override reads
    hf_config.quantization_config beyond its method (Nemotron-H, HYV4:
    graphfit.planner.engines.sglang_class_picks; MiniMax-M3, whose copy
    sglang_quantization.check_minimax_copy verifies and `_minimax_flag` hands the MoE runner
    rules): config.json's, ModelOpt-parsed in place as
    SGLang does (configs/model_config.py:1727-1741), or "absent". Nothing for other classes."""
    classes = data.get("architectures")
    if not isinstance(classes, list) or not classes or classes[0] not in HF_QUANT_READERS:
        return []
    value = "absent" if quant is None else quant_config_text(parsed_quantization_config(quant))
    return [Setting("hf_config_quant", value, f"{path}: quantization_config", FILE,
                    weak=True)]


def puzzle_block_experts(path: Path, data: dict[str, Any]) -> list[Setting]:
    """SglangOptions.moe_block_experts for a NemotronHPuzzle config.json: block_configs'
    `n_routed_experts` of each block whose `block_type` is "moe", the counts Nemotron-H's
    override compares under an expert remap (model_overrides/nemotron_h.py:169-180).
    Nothing for other classes, or where the list or a MoE block's count is not plain (the
    remap rule then says it is not modelled)."""
    classes = data.get("architectures")
    blocks = data.get("block_configs")
    if not isinstance(classes, list) or not classes or classes[0] != PUZZLE or (
            not isinstance(blocks, list)) or not all(isinstance(b, dict) for b in blocks):
        return []
    counts = [b.get("n_routed_experts") for b in blocks if b.get("block_type") == "moe"]
    if any(isinstance(c, bool) or not isinstance(c, int) or c < 1 for c in counts):
        return []
    return [Setting("moe_block_experts", tuple(counts),
                    f"{path}: block_configs[*].n_routed_experts", FILE, weak=True)]


def _nvfp4_moe_layers(path: Path, data: dict[str, Any], cfg: dict[str, Any] | None,
                      quant: dict[str, Any] | None) -> list[Setting]:
    """SglangOptions.nvfp4_moe_layers ("first" / "later" / "none") where graphfit walks the
    model's FusedMoE layers (graphfit.inputs.sglang_nvfp4_moe_layers); nothing where it
    cannot tell."""
    classes = data.get("architectures")
    arch = classes[0] if isinstance(classes, list) and classes else None
    hybrid = quant is not None and (
        str(quant.get("quant_algo", "")).upper() == "MIXED_PRECISION"
        and str(quant.get("moe_quant_algo", "")).upper() == "NVFP4"
        and quant.get("group_size") is not None)  # configs/model_config.py:775-784
    answer = nvfp4_moe_layers.built(arch, data.get("num_hidden_layers"), cfg,
                                    None if quant is None else quant.get("ignore"), hybrid,
                                    data)
    if answer is None:
        return []
    return [Setting("nvfp4_moe_layers", answer,
                    f"{path}: its FusedMoE layers under the quantization config", FILE,
                    weak=True)]


def _fp8_experts(data: dict[str, Any], folder: Path) -> list[Setting]:
    """SglangOptions.checkpoint_fp8_experts where SGLang reads the safetensors headers: a
    DeepseekV3ForCausalLM model directory (architectures[0]) whose quantization_config
    names no method (arg_groups/overrides.py:766-797; get_quantization_config,
    utils/common.py:3849-3854, on the ModelOpt-parsed config). Nothing elsewhere."""
    classes = data.get("architectures")
    quant = data.get("quantization_config")
    if not folder.is_dir() or not isinstance(classes, list) or not classes or (
            classes[0] != "DeepseekV3ForCausalLM") or (
            isinstance(quant, dict) and checkpoint_method(quant) is not None):
        return []
    return [Setting("checkpoint_fp8_experts", fp8_experts(folder),
                    f"{folder}: the safetensors headers' expert weights", FILE, weak=True)]


def _fp4_experts(path: Path, quant: dict[str, Any]) -> list[Setting]:
    """SglangOptions.moe_fp4_checkpoint as SGLang's ModelConfig derives it
    (configs/model_config.py:722-797): `is_fp4_experts` (routed_experts_quant_method "mxfp4";
    a DeepSeek-V4 class without that key reads its weights, :744-761: unknown, None) or
    `nvfp4_moe_meta` (quant_algo MIXED_PRECISION, moe_quant_algo NVFP4, a group_size; the
    names upper-cased as SGLang does). MiMo-V2's store_dtype (:735-741) is not read: no
    backend graphfit models accepts that class for it. Nothing when neither holds."""
    where = f"{path}: quantization_config"
    method = quant.get("routed_experts_quant_method")
    hybrid = (str(quant.get("quant_algo", "")).upper() == "MIXED_PRECISION"
              and str(quant.get("moe_quant_algo", "")).upper() == "NVFP4"
              and quant.get("group_size") is not None)
    if method == "mxfp4" or hybrid:
        return [Setting("moe_fp4_checkpoint", True, where, FILE, weak=True)]
    classes = load_config(path).get("architectures") or []
    if method is None and isinstance(classes, list) and "DeepseekV4ForCausalLM" in classes:
        return [Setting("moe_fp4_checkpoint", None, f"{where} (no routed_experts_quant_method)",
                        FILE, weak=True)]
    return []


def _dtype(origin: str, data: dict[str, Any], prefix: str) -> str | None:
    """The checkpoint dtype under torch_dtype (or transformers' newer `dtype`): one of the
    floating types graphfit sizes buffers with, "torch." allowed; anything else names the
    key. s70e: a non-null `dtype` is the one transformers keeps beside a `torch_dtype`
    (configuration_utils.py:440-442), so it is read first."""
    keys = ("dtype", "torch_dtype") if data.get("dtype") is not None else ("torch_dtype", "dtype")
    for key in keys:
        if key not in data:
            continue
        value = data[key]
        name = value.removeprefix("torch.").lower() if isinstance(value, str) else None
        if name not in _DTYPES:
            raise ConfigError(f"{origin}: {prefix}{key}: expected one of "
                              f"{', '.join(sorted(set(_DTYPES.values())))}, got "
                              f"{excerpt(value)}")
        return _DTYPES[name]
    return None


def model_settings(model: str, origin: str, *, sglang: bool = False
                   ) -> tuple[list[Setting], list[str]]:
    """Weak settings from the target model's config.json, and one note saying what was read
    (or that a hub id without local files leaves graphfit's defaults). `sglang`: the length is
    SGLang's context length (first length key, scaled by a RoPE factor;
    graphfit.inputs.sglang_context_length), not vLLM's smallest key."""
    path = config_path(model)
    if path is None:
        if looks_local(model) and not os.path.lexists(Path(model).expanduser()):
            return [], [f"{WARNING}{origin} {brief(model)}: no such local path, so graphfit's "
                        "defaults are used for hidden size, dtype and max length (check the "
                        "path)"]
        return [], [f"{origin} {model}: no local config.json, so graphfit's defaults are used "
                    "for hidden size, dtype and max length (pass a model directory to read "
                    "them; nothing is downloaded)"]
    info = read_model(path, sglang=sglang)
    where = f"{path}"
    failure = sglang_load_failure(load_config(path), _written(path)) if sglang else None
    if failure is not None:
        raise ConfigError(f"{shown(path, shown_path(path))}: {failure}"[:200])
    # SGLang's auto dtype is its own rule (float32 -> float16, graphfit.inputs.sglang_dtype)
    own = sglang_dtype(load_config(path), None, _written(path)) if sglang else None
    settings = [Setting("dtype", own or info.dtype,
                        f"{where}: torch_dtype" + (" (SGLang's auto dtype)" if own else ""),
                        FILE, weak=True)]
    if info.hidden_size:
        settings.append(Setting("hidden_size", info.hidden_size, f"{where}: hidden_size", FILE,
                                weak=True))
    if sglang and info.sglang_context_length:
        settings.append(Setting("max_model_len", info.sglang_context_length,
                                f"{where}: SGLang's context length (get_context_length)", FILE,
                                weak=True))
    elif not sglang and info.max_position_embeddings:
        settings.append(Setting("max_model_len", info.max_position_embeddings,
                                f"{where}: max_position_embeddings", FILE, weak=True))
    if info.multimodal:
        settings.append(Setting("multimodal", True, f"{where}: M-RoPE / vision config", FILE,
                                weak=True))
    if info.architecture:  # SGLang's speculative defaults depend on it
        settings.append(Setting("architecture", info.architecture, f"{where}: architectures",
                                FILE, weak=True))
    if info.vocab_size:  # the logits buffers SGLang's graph runners hold
        settings.append(Setting("vocab_size", info.vocab_size, f"{where}: vocab_size", FILE,
                                weak=True))
    return settings, [f"model: {info.describe()} (from {path})"]


def sglang_length(model: str) -> int | None:
    """SGLang's derived context length of a local model (None: a hub id, or no length key
    and a class graphfit does not know)."""
    path = config_path(model)
    return None if path is None else read_model(path, sglang=True).sglang_context_length


def ask_draft_length(draft: str) -> list[str]:
    """A warning that a local draft model's context length, taken from a class default
    graphfit does not know, is not checked against the target's (SGLang refuses a draft
    shorter than the target: sglang_context_length.check_draft). [] when known or a hub id."""
    path = config_path(draft)
    if path is None or read_model(path, sglang=True).sglang_context_length is not None:
        return []
    return [WARNING + sglang_class_lengths.ask(shown_path(path), _written(path), draft=True)]


def ask_length(model: str, given: object) -> list[str]:
    """A warning asking for `--context-length` when SGLang takes a local model's length from
    a class default graphfit does not know (graphfit.inputs.sglang_class_lengths): graphfit's
    own default then stands, as for a hub id. None when `given` replaces it, for a hub id or
    a length graphfit knows."""
    path = config_path(model)
    if given is not None or path is None or read_model(
            path, sglang=True).sglang_context_length is not None:
        return []
    return [WARNING + sglang_class_lengths.ask(shown_path(path), _written(path))]


def draft_settings(model: str, origin: str, method: object = None, *, sglang: bool = False
                   ) -> tuple[list[Setting], list[str]]:
    """The drafter's hidden size from a local draft model (the width of its hidden_states
    buffer: vLLM v1/spec_decode/llm_base_proposer.py sizes it with the draft model's
    hidden size) and, for a DFlash / DSpark draft (`method`), how many target layers it
    names for its aux hidden states: vLLM's MRV2 speculator stages them for its FULL graph
    only when there are some (v1/worker/gpu/spec_decode/dflash/speculator.py:96-106 in
    0.33/0.34), as `EngineConfig.from_vllm` counts them."""
    path = config_path(model)
    if path is None:
        return [], []
    info = read_model(path, sglang=sglang)
    settings: list[Setting] = []
    if info.hidden_size:
        settings.append(Setting("draft_hidden_size", info.hidden_size, f"{path}: hidden_size",
                                FILE, weak=True))
    if str(getattr(method, "value", method)).strip().lower() in ("dflash", "dspark"):
        settings.append(Setting("draft_aux_layers", info.aux_layers,
                                f"{path}: aux hidden-state layer ids", FILE, weak=True))
    if not settings:
        return [], []
    aux = (f", {info.aux_layers} aux hidden-state layers"
           if any(s.field == "draft_aux_layers" for s in settings) else "")
    return settings, [f"draft model: {info.describe()}{aux} (from {path})"]
