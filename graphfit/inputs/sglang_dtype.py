"""The dtype SGLang 0.5.23's ModelConfig runs a model in: `_get_and_verify_dtype` (configs/
model_config.py:2284-2345) on the model's text config and the line's --dtype.

An explicit --dtype wins (`_STR_DTYPE_TO_TORCH_DTYPE`, :2274-2280). `auto` takes the text
config's `dtype` / `torch_dtype` (a text_config without one carries the top level's, as
SGLang's hf_text_config reads it; s69f: the sub-config SGLang's parser picks on a plain class,
`text_config` elsewhere), and a float32 or missing one becomes float16 -- bfloat16
for a gemma model type (:2303-2318). That is not vLLM's rule (float32 -> bfloat16,
graphfit.inputs.model_config.ModelInfo.dtype), so an SGLang line's target takes this one
(model_config.py:881 builds the target's dtype with it) and so does its draft's ModelConfig
(:923-975, graphfit.inputs.sglang_draft_shape).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import sglang_text_values

# _STR_DTYPE_TO_TORCH_DTYPE (model_config.py:2274-2280) for --dtype; a config's dtype string
# is a torch attribute name (transformers turns it into torch.<name> when it loads the file)
FLAG_DTYPES = {"half": "float16", "float16": "float16", "float": "float32",
               "float32": "float32", "bfloat16": "bfloat16"}
CONFIG_DTYPES = {"float16": "float16", "half": "float16", "bfloat16": "bfloat16",
                 "float32": "float32", "float": "float32"}


def text_config(data: Mapping[str, Any],
                written: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
    """The dict the ModelConfig's `hf_text_config` is read from (`data`: with the override
    args; `written`: as written, None: `data`). s69f: on a plain class, the sub-config SGLang's
    parser picks (a `thinker_config` / `llm_config` / `language_config` dict before
    `text_config`, the top level under a null thinker_config / language_config:
    graphfit.inputs.sglang_text_values, common.py:582-613), so that its own `dtype` /
    `torch_dtype` and `model_type` are the ones read; `text_config` elsewhere."""
    source = sglang_text_values.text_source(data, data if written is None else written)
    text = None if source.key is None else source.value
    return text if isinstance(text, dict) else data


def flag_dtype(flag: object) -> str | None:
    """An explicit --dtype's dtype; None for auto (or no flag)."""
    if isinstance(flag, str) and flag.lower() != "auto":
        return FLAG_DTYPES.get(flag.lower())
    return None


def sglang_dtype(data: Mapping[str, Any], flag: object,
                 written: Mapping[str, Any] | None = None) -> str | None:
    """`_get_and_verify_dtype` (module docstring) on a config.json's object (`written`: as
    written, for the sub-config SGLang picks, `text_config`); None for a config dtype graphfit
    does not map (a quantized storage dtype: not modelled)."""
    if isinstance(flag, str) and flag.lower() != "auto":
        return flag_dtype(flag)
    text = text_config(data, written)
    written = text.get("dtype") or text.get("torch_dtype")
    if written is None:  # a text sub-config without one carries the top level's
        written = data.get("dtype") or data.get("torch_dtype")
    if written is None:
        config = "float32"
    elif isinstance(written, str) and written.removeprefix("torch.") in CONFIG_DTYPES:
        config = CONFIG_DTYPES[written.removeprefix("torch.")]
    else:
        return None
    if config != "float32":
        return config
    model_type = str(text.get("model_type") or "")
    return "bfloat16" if model_type.startswith("gemma") else "float16"
