"""Whether an SGLang line's target builds Gemma 4 MoE blocks with GELU experts
(SglangOptions.gelu_moe_target; issue 23, s69l).

Why here: only the readers see the target's config.json. A Gemma 4 target class
(graphfit.planner.engines.sglang_gelu_target.GELU_TARGETS) builds Gemma4MoE in each decoder
layer where its text config sets `enable_moe_block` (`getattr(config, "enable_moe_block",
False)`, models/gemma4_causal.py:684-685, on the text config: `text_config` where the
config nests one, gemma4_mm.py:195, else the top-level one). The config
is read with the line's --json-model-override-args applied, as SGLang's ModelConfig reads
it; a hub id is not read (the rule stays silent).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import model_config, target_overrides
from graphfit.inputs.settings import FILE, Setting
from graphfit.planner.engines.sglang_gelu_target import GELU_TARGETS


def settings(values: Mapping[str, Any]) -> list[Setting]:
    """`gelu_moe_target` where the line's local target config is a Gemma 4 class with MoE
    blocks (module docstring), else nothing."""
    model = values.get("model_path")
    path = model_config.config_path(model) if isinstance(model, str) else None
    if path is None:
        return []
    data = target_overrides.apply(model_config.load_config(path), target_overrides.parse(
        values.get("json_model_override_args")))
    names = data.get("architectures")
    first = names[0] if isinstance(names, list) and names else None
    if first not in GELU_TARGETS:
        return []
    text = data.get("text_config")
    text = text if isinstance(text, Mapping) else data
    if not text.get("enable_moe_block"):
        return []
    return [Setting("gelu_moe_target", True,
                    f"{model}: {first} with enable_moe_block (gemma4_causal.py:640-653)",
                    FILE)]


__all__ = ["settings"]
