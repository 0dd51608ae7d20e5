"""The MiniMax-M3 VL wrapper's per-layer lists, checked as transformers checks them when
SGLang loads the config (issue 23 s55n).

SGLang's `get_config` loads a `minimax_m3_vl` config.json through transformers' AutoConfig
(SGLang 0.5.23 utils/hf_transformers/config.py:228). Under transformers 5.25 (the version the
oracle runs) that class builds its `text_config` dict as `MiniMaxM3VLTextConfig` whatever
model_type the dict names (`sub_configs_defaults`, models/minimax_m3_vl/
configuration_minimax_m3_vl.py:184-188; configuration_utils.py:250-268), and its
`__post_init__` derives `layer_types` from the text dict's own
`sparse_attention_config.sparse_attention_freq` ("minimax_m3_sparse" for a non-zero entry,
else "full_attention", :137-140) and `mlp_layer_types` from `moe_layer_freq` ("sparse" /
"dense", :145-146) unless the dict gives them. `@strict` then runs `validate_layer_type`
(configuration_utils.py:709-724): every entry in its allowed list, and each list as long as
`num_hidden_layers`, else ValueError wrapped in StrictDataclassClassValidationError, so the
server stops at argument resolution. It sees the WRITTEN dict: --json-model-override-args are
applied after the class is built (utils/hf_transformers/config.py:411-414).

The top-level class (`MiniMaxM3SparseForCausalLM`, model_type minimax_m2) builds no such
lists; a text dict without num_hidden_layers is left to the later ModelConfig read
(graphfit.inputs.sglang_sub_configs._text_reads), not judged against the class default here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

VL_MODEL_TYPE = "minimax_m3_vl"
# configuration_utils.py:66-87 (the entries graphfit's derived lists can hold are in these)
ATTN_TYPES = ("full_attention", "sliding_attention", "chunked_attention", "window_attention",
              "indexed_attention", "compressed_sparse_attention",
              "heavily_compressed_attention", "minimax_m3_sparse", "conv", "moe", "hybrid",
              "hybrid_sliding")
MLP_TYPES = ("sparse", "dense")
WHERE = "transformers configuration_utils.py:718-724"  # validate_layer_type


def _derived(given: Any, freq: Any, on: str, off: str) -> Any:
    """The list `__post_init__` holds: the dict's own, else one built from `freq`."""
    if given is not None:
        return given
    return None if not isinstance(freq, list) else [on if f else off for f in freq]


def written_failure(model: object) -> str | None:
    """`layer_list_failure` on the model's config.json AS WRITTEN: graphfit's `local_config`
    hands back the target's config with the override args applied while a line is read
    (graphfit.inputs.target_overrides.on_load), which transformers never sees."""
    from graphfit.inputs.model_config import config_path
    from graphfit.inputs.reading import load_json

    path = config_path(model) if isinstance(model, str) else None
    data = None if path is None else load_json(path, "model config")
    return layer_list_failure(data) if isinstance(data, Mapping) else None


def layer_list_failure(data: Mapping[str, Any]) -> str | None:
    """Why transformers refuses the VL wrapper's text config (module docstring), or None."""
    text = data.get("text_config")
    if data.get("model_type") != VL_MODEL_TYPE or not isinstance(text, Mapping):
        return None
    count = text.get("num_hidden_layers")
    if not isinstance(count, int) or isinstance(count, bool):
        return None
    sparse = text.get("sparse_attention_config") or {}
    freq = sparse.get("sparse_attention_freq") if isinstance(sparse, Mapping) else None
    lists = (("layer_types", ATTN_TYPES, "sparse_attention_freq",
              _derived(text.get("layer_types"), freq, "minimax_m3_sparse", "full_attention")),
             ("mlp_layer_types", MLP_TYPES, "moe_layer_freq",
              _derived(text.get("mlp_layer_types"), text.get("moe_layer_freq"), "sparse",
                       "dense")))
    for name, allowed, source, layers in lists:
        if not isinstance(layers, list):
            return None  # unset (the class default is as long as the model) or not a list
        origin = name if text.get(name) is not None else f"{name} (from {source})"
        if not all(isinstance(kind, str) and kind in allowed for kind in layers):
            return (f"SGLang fails loading it: text_config's {origin} has an entry outside "
                    f"{'/'.join(allowed) if len(allowed) < 3 else 'the allowed types'} "
                    f"({WHERE})")
        if count != len(layers):
            return (f"SGLang fails loading it: text_config's {origin} has {len(layers)} "
                    f"entries, not num_hidden_layers {count} ({WHERE})")
    return None


__all__ = ["layer_list_failure", "written_failure"]
