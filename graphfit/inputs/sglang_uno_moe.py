"""A pasted SGLang UNO line on a MoE model: the adapter's targets, read from its local
adapter_config.json (SGLang's `LoRAConfig`, lora/lora_config.py:40-85), checked against
graphfit.planner.engines.sglang_uno_moe (SGLang's UNO backend refuses LoRA on the experts;
UNO allocates no MoE LoRA graph buffers).

The model counts as MoE when its local config.json names a per-token expert count (the
keys the scheduler reads, graphfit.inputs.sglang_a2a.MOE_TOPK_KEYS): the layers SGLang then
builds as FusedMoE. Without the model's config.json or the adapter's, the line plans with a
note saying what graphfit assumes.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphfit.inputs.reading import load_json
from graphfit.inputs.sglang_a2a import dense_model, model_known
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_uno_moe import BACKEND, check_adapter, targets_experts

ADAPTER_CONFIG = "adapter_config.json"  # lora/lora_config.py:83
NO_MOE_BUFFERS = ("UNO allocates no MoE LoRA graph buffers (model_runner.py:831-836 skips "
                  "init_lora_cuda_graph_moe_buffers)")
__all__ = ["ADAPTER_CONFIG", "NO_MOE_BUFFERS", "line"]


def _adapter_config(path: Any) -> Path | None:
    if not isinstance(path, str) or not path:
        return None
    found = Path(path).expanduser() / ADAPTER_CONFIG
    return found if found.exists() else None


def line(values: Mapping[str, Any]) -> list[str]:
    """The UNO adapter checks on a pasted line; notes for a MoE model or a model graphfit
    cannot read (module docstring)."""
    if str(values.get("speculative_algorithm") or "").upper() != "UNO":
        return []
    model = values.get("model_path")
    config_path = _adapter_config(values.get("uno_lora_path"))
    targets: object = None
    if config_path is not None:
        data = load_json(config_path, "LoRA adapter config")
        if not isinstance(data, dict) or "target_modules" not in data:
            raise ConfigError(f"--uno-lora-path: {ADAPTER_CONFIG} has no target_modules "
                              f"(lora/lora_config.py:40)")
        targets = data["target_modules"]
    if not model_known(model):
        if config_path is not None:
            check_adapter(targets, False)  # the forms SGLang refuses on any model
            if not targets_experts(targets, True):
                return []
        return [f"UNO: no local config.json for the model, so graphfit assumes its adapter "
                f"leaves any MoE experts (SGLang refuses expert targets at load, {BACKEND}); "
                f"{NO_MOE_BUFFERS}"]
    moe = not dense_model(model)
    if config_path is not None:
        check_adapter(targets, moe)
    if not moe:
        return []
    if config_path is None:
        return [f"UNO on a MoE model: no local {ADAPTER_CONFIG} at --uno-lora-path, so "
                f"graphfit assumes the adapter leaves the experts (SGLang refuses expert "
                f"targets at load, {BACKEND}); {NO_MOE_BUFFERS}"]
    return [f"UNO on a MoE model: the adapter leaves the experts; {NO_MOE_BUFFERS}"]
