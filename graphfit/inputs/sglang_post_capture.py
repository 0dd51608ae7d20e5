"""What SGLang 0.5.23's `post_capture_kv_sizing_planned` (arg_groups/overrides.py:1791-1862)
reads beside the graphs and the switch, from a pasted line, a config file or a model directory
(graphfit.planner.engines.sglang_post_capture applies it; MOONCAKE_PROTOCOL, an environment
variable, is read by graphfit.inputs.environment).

- `--device`: SGLang strips an index ("cuda:1" is "cuda", serving_hook.py:650-660) and sizes
  KV after capture on CUDA only (:1805). Any other device takes another platform's backends
  and graph runners (arg_groups/platform_hook.py:33-190), which graphfit does not plan: one
  error line, not a plan of a CUDA server.
- `--disaggregation-transfer-backend` (mooncake by default, fields/disagg.py:65-71): with
  mooncake, MOONCAKE_PROTOCOL=efa turns post-capture sizing off (:1817-1822).
- `--enable-dynamic-chunking` and `--max-prefill-tokens`: under PP they raise the prefill
  buffer the largest prefill graph must cover (`max_prefill_buffer_tokens`, :1865-1883).
- The model's hybrid-SWA layout (`is_hybrid_swa_model`, configs/model_config.py:2651-2697),
  which decides it under --enable-unified-memory (:1826-1836).
"""

from __future__ import annotations

from typing import Any

from graphfit.inputs import model_config
from graphfit.inputs.settings import FILE, Setting
from graphfit.inputs.values import as_str
from graphfit.planner.core.enums import Engine
from graphfit.planner.core.errors import ConfigError, excerpt
from graphfit.planner.engines.sglang_attn_default import HYBRID_SWA

SG = Engine.SGLANG


def device(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`--device`: CUDA (any index) is what graphfit plans; unset is SGLang's auto-detection,
    taken as CUDA like every other input; another device is refused as not modelled."""
    if value is None:
        return [Setting("engine", SG, origin, layer)], []
    name = as_str(origin, value).split(":")[0]
    if name != "cuda":
        raise ConfigError(f"{origin}: {excerpt(value)}: graphfit plans SGLang on CUDA only; "
                          f"another device has its own backends and graphs (platform_hook.py:"
                          f"33-190), not modelled")
    return [Setting("engine", SG, origin, layer)], []


def _text_config(data: dict[str, Any]) -> dict[str, Any]:
    text = data.get("text_config")
    return text if isinstance(text, dict) else data


def hybrid_swa(data: dict[str, Any]) -> bool:
    """SGLang's `is_hybrid_swa_model(architectures, hf_text_config)` over a config.json: a
    listed class (Beam only with a "sliding_attention" layer, Laguna only with a sliding
    window), else the text config's own `is_hybrid_swa` (configs/model_config.py:2651-2697).
    The text config is `text_config` when the file has one (a multimodal checkpoint)."""
    classes = data.get("architectures")
    names = [c for c in classes if isinstance(c, str)] if isinstance(classes, list) else []
    text = _text_config(data)
    if any(c in HYBRID_SWA for c in names):
        if "BeamForCausalLM" in names:
            types = text.get("layer_types")
            return isinstance(types, list) and "sliding_attention" in types
        # Laguna only with a sliding window
        return not ("LagunaForCausalLM" in names and not text.get("sliding_window"))
    return bool(text.get("is_hybrid_swa", False))


def hybrid_swa_settings(model: str) -> list[Setting]:
    """SglangOptions.hybrid_swa from a local model's config.json (weak, like the other model
    facts); nothing for a hub id without local files (then unknown)."""
    path = model_config.config_path(model)
    if path is None:
        return []
    from graphfit.inputs import sglang_unified_linear

    data = model_config.load_config(path)
    return [Setting("hybrid_swa", hybrid_swa(data), f"{path}: architectures (hybrid SWA)",
                    FILE, weak=True),
            # the page-major list for unequal K / V rows (issue 23 s42u)
            *sglang_unified_linear.model_settings(str(path), data)]


__all__ = ["device", "hybrid_swa", "hybrid_swa_settings"]
