"""Config types whose text config declares a per-token expert count whatever config.json
says (issue 23, s70h).

Why: SGLang's scheduler seeds the MoE runner flags where `hasattr(hf_text_config, name)`
holds for one of the per-token expert count names (managers/scheduler.py:991-1008), and
`hasattr` on a transformers config reads the attributes its class declares with defaults.
Gemma4TextConfig declares `top_k_experts: int | None = None` (transformers 5.25,
models/gemma4/configuration_gemma4.py:177), and the text config of a `gemma4` config is one
(SGLang's `get_hf_text_config`, utils/hf_transformers/common.py:547; `gemma4_unified` is
SGLang's alias of transformers' Gemma4Config, common.py:267-273). So a dense Gemma 4
config.json without `top_k_experts` is still MoE-seeded in SGLang: its draft inherits the
target's MoE runner and a2a backend (layers/moe/utils.py:463-476), and its graph runners see
the backend. Reading config.json keys alone (graphfit.inputs.sglang_a2a.dense_model) calls
it dense. A top-level `gemma4_text` config.json is not listed: SGLang's own config parse
stops on its per-layer `head_dim` (utils/hf_transformers/config.py:267) before any of this.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# config.json's model_type -> where its text config declares the per-token expert count
DECLARED: dict[str, str] = {
    "gemma4": "transformers 5.25 models/gemma4/configuration_gemma4.py:177 (top_k_experts)",
    "gemma4_unified": ("SGLang utils/hf_transformers/common.py:267-273 (Gemma4Config's "
                       "alias), transformers configuration_gemma4.py:177"),
}


def declared(data: Mapping[str, Any]) -> bool:
    """Whether config.json `data` names a config type whose text config declares a
    per-token expert count (module docstring)."""
    return data.get("model_type") in DECLARED


__all__ = ["DECLARED", "declared"]
