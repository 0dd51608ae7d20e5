"""TensorRT-LLM's fixed encoder sequence slots are on when
`hasattr(pretrained_config, "relative_attention_num_buckets")` holds for an encoder-decoder
model (tensorrt_llm/_torch/pyexecutor/engine/runners/encoder.py@0e91ee39be:204-210), the
pretrained config being what transformers' AutoConfig builds from config.json (TensorRT-LLM's
`load_pretrained_config`, tensorrt_llm/_torch/pyexecutor/config_utils.py). graphfit reads the
same answer off the file without transformers (graphfit.inputs.trtllm_slots); this compares
the two on generated config files: the key at the top level, in a sub-config, or absent, for
config classes that define it and ones that do not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from transformers import AutoConfig
from transformers.models.auto.configuration_auto import CONFIG_MAPPING

from graphfit.inputs import trtllm_slots
from graphfit.inputs.trtllm_slots import CLASS_DEFAULTS, KEY, has_fixed_slots

# the encoder-decoder models TensorRT-LLM's PyTorch flow registers (T5, BART, mBART, Whisper)
# and every config class graphfit lists, plus decoder-only ones
MODEL_TYPES = ("t5", "bart", "mbart", "whisper", "llama", "qwen2", "pix2struct",
               *CLASS_DEFAULTS)


def _pretrained(data: dict[str, Any]) -> object:
    """The config object transformers builds from the file (AutoConfig's model-type
    dispatch), as TensorRT-LLM's loader does."""
    rest = {k: v for k, v in data.items() if k != "model_type"}
    return AutoConfig.for_model(data["model_type"], **rest)


def test_every_listed_config_class_defines_the_key() -> None:
    for model_type, name in CLASS_DEFAULTS.items():
        cls = CONFIG_MAPPING[model_type]
        assert cls.__name__ == name
        assert hasattr(cls(), KEY), model_type


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(MODEL_TYPES), st.sampled_from(["top", "text_config", "encoder", None]),
       st.integers(2, 64))
def test_graphfit_reads_what_tensorrt_llm_sees(model_type: str, where: str | None,
                                               buckets: int) -> None:
    data: dict[str, Any] = {"model_type": model_type}
    if where == "top":
        data[KEY] = buckets
    elif where is not None:
        data[where] = {KEY: buckets}
    theirs = hasattr(_pretrained(data), KEY)
    assert (has_fixed_slots(data) is not None) == theirs, data


def test_cli_reading_of_checkpoints(tmp_path: Path) -> None:
    """A T5 checkpoint without the key has fixed slots (T5Config's default); BART with the
    key nested in text_config has none, and says why."""
    for name, data, slots in (
            ("t5", {"model_type": "t5", "d_model": 64}, True),
            ("bart", {"model_type": "bart", "text_config": {KEY: 32}}, False)):
        model = tmp_path / name
        model.mkdir()
        (model / "config.json").write_text(json.dumps(data))
        assert hasattr(_pretrained(data), KEY) == slots
        found = trtllm_slots.fixed_slot_settings(str(model))
        assert bool(found) == slots and all(s.value is True for s in found)
        notes = trtllm_slots.fixed_slot_notes(str(model))
        assert bool(notes) == (not slots) and (slots or "text_config" in notes[0])
