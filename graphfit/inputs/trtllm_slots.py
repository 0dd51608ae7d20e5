"""TensorRT-LLM's fixed encoder sequence slots, read off the served checkpoint.

The encoder-decoder encoder graphs place each request in a slot of the key's capture layout
when `use_fixed_sequence_slots` is on, and TensorRT-LLM turns it on for an encoder-decoder
model whose pretrained config has `relative_attention_num_buckets` (T5-style relative
attention; tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:204-210). No
LLM-API argument says it, so graphfit reads the key from the checkpoint's config.json (a local
directory or file, as for the model's other values): a weak setting of `encoder_fixed_slots`,
which `--config` can override. A hub id with no local files leaves it off; set it then.
"""

from __future__ import annotations

from graphfit.inputs.model_config import config_path, load_config
from graphfit.inputs.settings import FILE, Setting

KEY = "relative_attention_num_buckets"


def fixed_slot_settings(model: str) -> list[Setting]:
    """`encoder_fixed_slots` true when the checkpoint's config.json has
    `relative_attention_num_buckets` at its top level (TensorRT-LLM's `hasattr` on the
    pretrained config; a sub-config's key does not count there either); nothing otherwise.
    A config class that defaults the attribute without the file naming it is not seen."""
    path = config_path(model)
    if path is None:
        return []
    if KEY not in load_config(path):
        return []
    return [Setting("encoder_fixed_slots", True, f"{path}: {KEY}", FILE, weak=True)]
