"""DeepSeek-V4.1's config.json as SGLang 0.5.23 reads it: flattened before anything reads it.

SGLang loads a config.json whose `model_type` is `deepseek_v41` / `deepseek_v41_text` with
its own `DeepseekV41Config` / `DeepseekV41TextConfig` (registered by model type,
utils/hf_transformers/common.py:224-227; the text class is a subclass,
configs/deepseek_v41.py:74-77), whose constructor rewrites the values first
(`normalize_deepseek_v41_config`, configs/deepseek_v41.py:23-40, called at :63-66):

* `text_config` is popped and flattened into the top level, a key written at the top level
  winning over the nested one (`{**text, **values}`); the text's own `model_type` dropped;
* `vision_config` is popped; ten of its keys land under `vision_*` names (`_VISION_FIELDS`,
  :5-16), each only where the top level lacks that name (`setdefault`);
* `model_type`, when present, becomes `deepseek_v41`; `architectures` exactly
  `["DeepseekV41ForCausalLM"]` becomes `["DeepseekV4ForCausalLM"]`.

`get_config` normalizes the `--json-model-override-args` object the same way before applying
it when the loaded config is a `DeepseekV41Config` (utils/hf_transformers/config.py:405-407):
a `text_config` override then sets top-level keys and a `vision_config` override the
`vision_*` ones. graphfit.inputs.target_overrides.on_load calls both, so every reader of the
config.json sees SGLang's flat config. The vision model type (`deepseek_v41_vision`) is a
plain `PretrainedConfig` (:80-81) and is not normalized.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.planner.core.errors import ConfigError, excerpt

# config.json model types SGLang loads with DeepseekV41Config or its subclass
MODEL_TYPES = frozenset({"deepseek_v41", "deepseek_v41_text"})
# vision_config key -> the flat name SGLang gives it (configs/deepseek_v41.py:5-16)
VISION_FIELDS: Mapping[str, str] = {
    "num_hidden_layers": "vision_n_layers",
    "hidden_size": "vision_dim",
    "num_attention_heads": "vision_n_heads",
    "intermediate_size": "vision_inter_dim",
    "patch_size": "vision_patch_size",
    "rope_theta": "vision_rope_theta",
    "downsample_ratio": "vision_downsample_ratio",
    "max_image_tokens": "vision_max_n_token",
    "min_pixels": "vision_min_pixels",
    "max_wh_ratio": "vision_max_wh_ratio",
}
WRITTEN_ARCHITECTURE = ["DeepseekV41ForCausalLM"]
RUNTIME_ARCHITECTURE = ["DeepseekV4ForCausalLM"]


def is_v41(data: object) -> bool:
    """Whether SGLang loads this config.json object with its DeepseekV41Config class."""
    return isinstance(data, dict) and data.get("model_type") in MODEL_TYPES


def normalize(values: Mapping[str, Any], origin: str) -> dict[str, Any]:
    """`values` (a config.json object or an override object) as SGLang's
    `normalize_deepseek_v41_config` leaves it (module docstring); `values` is not changed.
    A non-null sub-config that is not an object: ConfigError (SGLang's `dict(...)` of it,
    :20, fails or reads pairs graphfit does not restate)."""
    out = dict(values)
    text = out.pop("text_config", None)
    vision = out.pop("vision_config", None)
    for key, sub in (("text_config", text), ("vision_config", vision)):
        if sub is not None and not isinstance(sub, dict):
            raise ConfigError(f"{origin}: {key}: expected an object, got {excerpt(sub)} "
                              f"(DeepSeek-V4.1's config, configs/deepseek_v41.py:20)")
    if isinstance(text, dict):
        flat = {k: v for k, v in text.items() if k != "model_type"}
        out = {**flat, **out}
    if isinstance(vision, dict):
        for source, target in VISION_FIELDS.items():
            if source in vision:
                out.setdefault(target, vision[source])
    if "model_type" in out:
        out["model_type"] = "deepseek_v41"
    if out.get("architectures") == WRITTEN_ARCHITECTURE:
        out["architectures"] = list(RUNTIME_ARCHITECTURE)
    return out
