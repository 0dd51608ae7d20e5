"""TensorRT-LLM's fixed encoder sequence slots, read off the served checkpoint.

The encoder-decoder encoder graphs place each request in a slot of the key's capture layout
when `use_fixed_sequence_slots` is on, and TensorRT-LLM turns it on for an encoder-decoder
model when `hasattr(model.model_config.pretrained_config, "relative_attention_num_buckets")`
(T5-style relative attention;
tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:204-210). That is the
only place it is decided: no LLM-API argument, environment variable or runner option says
it, so graphfit reads it from the checkpoint's config.json (a local directory or file, as for
the model's other values), as a weak setting of `encoder_fixed_slots` which `--config` can
override either way (`encoder_fixed_slots: false` on a T5 checkpoint, `true` for a hub id).

What `hasattr` sees on the pretrained config, the object transformers' AutoConfig builds from
config.json (TensorRT-LLM's `load_pretrained_config`,
tensorrt_llm/_torch/pyexecutor/config_utils.py, ends in `transformers.AutoConfig.
from_pretrained` for a model type it does not map itself; its T5 model is built on
transformers' `T5Config`, tensorrt_llm/_torch/models/modeling_t5.py@e18ea371f2:39):

* the key at the top level of config.json (a config class keeps unknown keys as attributes);
* the config class of the file's `model_type` defining the attribute, with or without the
  key in the file (`CLASS_DEFAULTS`: T5Config defaults it to 32, so every T5 / Flan-T5 /
  ByT5 checkpoint has fixed slots);
* not a key nested in `text_config`, `encoder` or another sub-config: `hasattr` reads the
  top-level object only (a composite config does not forward its sub-configs' attributes);
  graphfit notes such a key instead of turning slots on.

tests/oracle/test_trtllm_slots_reference.py checks this reading against transformers'
AutoConfig and `hasattr` on generated config files.
"""

from __future__ import annotations

from typing import Any

from graphfit.inputs.model_config import config_path, load_config
from graphfit.inputs.settings import FILE, Setting

KEY = "relative_attention_num_buckets"

# model_type -> the transformers config class that defines KEY (a class default: the file
# need not name it). transformers 5.25.0 (the oracle extra's), each class's field:
# t5/configuration_t5.py:50, mt5/configuration_mt5.py:49, umt5/configuration_umt5.py:49,
# longt5/configuration_longt5.py:62, switch_transformers/configuration_switch_transformers.
# py:72, pop2piano/configuration_pop2piano.py:49, udop/configuration_udop.py:49,
# mpnet/configuration_mpnet.py:58, pix2struct/configuration_pix2struct.py:68 and :135 (the
# text and vision sub-configs' own model types; the composite `pix2struct` has none).
CLASS_DEFAULTS: dict[str, str] = {
    "t5": "T5Config", "mt5": "MT5Config", "umt5": "UMT5Config", "longt5": "LongT5Config",
    "switch_transformers": "SwitchTransformersConfig", "pop2piano": "Pop2PianoConfig",
    "udop": "UdopConfig", "mpnet": "MPNetConfig",
    "pix2struct_text_model": "Pix2StructTextConfig",
    "pix2struct_vision_model": "Pix2StructVisionConfig",
}
# sub-configs a composite config.json nests (what a nested key is looked for in)
NESTED = ("text_config", "encoder", "decoder", "encoder_config", "decoder_config",
          "vision_config", "audio_config")


def has_fixed_slots(data: dict[str, Any]) -> str | None:
    """Why TensorRT-LLM's `hasattr` finds the key on this config.json's pretrained config
    (the key at the top level, or its model type's config class), or None."""
    if KEY in data:
        return KEY
    model_type = data.get("model_type")
    if isinstance(model_type, str) and model_type in CLASS_DEFAULTS:
        return f"model_type {model_type} ({CLASS_DEFAULTS[model_type]} defines {KEY})"
    return None


def nested_key(data: dict[str, Any]) -> str | None:
    """The first sub-config that names the key (which `hasattr` does not see), or None."""
    for name in NESTED:
        sub = data.get(name)
        if isinstance(sub, dict) and KEY in sub:
            return name
    return None


def fixed_slot_settings(model: str) -> list[Setting]:
    """`encoder_fixed_slots` true when TensorRT-LLM's `hasattr` finds the key on the
    checkpoint's pretrained config (`has_fixed_slots`); nothing otherwise."""
    path = config_path(model)
    if path is None:
        return []
    why = has_fixed_slots(load_config(path))
    if why is None:
        return []
    return [Setting("encoder_fixed_slots", True, f"{path}: {why}", FILE, weak=True)]


def fixed_slot_notes(model: str) -> list[str]:
    """A note when only a sub-config names the key: TensorRT-LLM leaves slots off then."""
    path = config_path(model)
    if path is None:
        return []
    data = load_config(path)
    if has_fixed_slots(data) is not None:
        return []
    where = nested_key(data)
    if where is None:
        return []
    return [f"{where}.{KEY} in {path.name}: TensorRT-LLM reads the key at the top level "
            "only (hasattr on the pretrained config), so encoder graphs use no fixed "
            "sequence slots (set encoder_fixed_slots in --config to override)"]
