"""SGLang's MoE all-to-all flags as a pasted line or a config file gives them.

`--moe-a2a-backend` sets SglangOptions.moe_a2a_backend (its rules:
graphfit.planner.engines.sglang_moe_a2a). `--deepep-mode normal` with the deepep backend makes
SGLang turn both graph phases off (arg_groups/moe_hook.py:362-398): a rule across two keys, so
it is applied where a line's reader sees every key (`graphs_off`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import model_config
from graphfit.inputs.reading import load_json
from graphfit.inputs.settings import COMMAND_LINE, Setting
from graphfit.inputs.values import as_str
from graphfit.planner.core.enums import CUDAGraphMode
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_moe_a2a import check_backend

DEEPEP_MODES = ("auto", "normal", "low_latency")  # arg_groups/fields/exec_.py:898-901
AFTER_ALL = 9  # graphfit.inputs.sglang.AFTER_ALL: over every spelling of the backends
NORMAL = "--deepep-mode normal with --moe-a2a-backend deepep"


def backend(origin: str, value: Any) -> str:
    """`--moe-a2a-backend NAME`: one of SGLang's choices that graphfit models."""
    try:
        return check_backend(as_str(origin, value))
    except ConfigError as exc:
        raise ConfigError(f"{origin}: {str(exc).split(': ', 1)[1]}") from None


def deepep_mode(origin: str, value: Any) -> None:
    """`--deepep-mode`: checked here, applied with the backend (`graphs_off`)."""
    mode = as_str(origin, value).strip().lower()
    if mode not in DEEPEP_MODES:
        raise ConfigError(f"{origin}: {value!r} is not one of {', '.join(DEEPEP_MODES)}")


def file_deepep_mode(origin: str, value: Any) -> None:
    """A config file's `deepep_mode`: its files are read key by key, so normal (which needs
    the backend beside it) is refused with the fix."""
    deepep_mode(origin, value)
    if as_str(origin, value).strip().lower() == "normal":
        raise ConfigError(f"{origin}: normal is read only on a pasted SGLang line (with deepep "
                          f"SGLang captures no graphs, moe_hook.py:383-398); pass "
                          f"--disable-cuda-graph")


# the per-token expert counts whose presence makes the scheduler seed the MoE flags
# (managers/scheduler.py:998-1008, read from hf_text_config)
MOE_TOPK_KEYS = ("num_experts_per_tok", "num_experts_per_token", "top_k_experts",
                 "moe_top_k", "moe_topk")


def dense_model(model: Any) -> bool:
    """Whether a pasted line's local model config.json (its text config where nested) names
    no per-token expert count: SGLang's graph runners then never see the backend."""
    if not isinstance(model, str):
        return False
    path = model_config.config_path(model)
    if path is None:
        return False
    data = load_json(path, "model config")
    if not isinstance(data, dict):
        return False
    text = data.get("text_config")
    keys = set(data) | (set(text) if isinstance(text, dict) else set())
    return not keys & set(MOE_TOPK_KEYS)


def graphs_off(values: Mapping[str, Any]) -> tuple[list[Setting], list[str]]:
    """DeepEP's normal mode disables decode and prefill graphs whatever the line asks
    (moe_hook.py:383-398, declared after the CUDA-graph flags are read). A backend on a dense
    model is refused: the scheduler seeds it only for a MoE model (scheduler.py:998-1008),
    yet resolution still applies its prefill and memory rules, a split graphfit does not
    model."""
    name = str(values.get("moe_a2a_backend") or "none").strip().lower()
    if name not in ("none", "ascend_tp") and dense_model(values.get("model_path")):
        raise ConfigError(f"--moe-a2a-backend {name}: the model names no experts "
                          f"(num_experts_per_tok), so SGLang's graph runners ignore the backend "
                          f"(scheduler.py:998-1008); not modelled: drop the flag")
    mode = str(values.get("deepep_mode") or "auto").strip().lower()
    if name != "deepep" or mode != "normal":
        return [], []
    return ([Setting("cudagraph_mode", CUDAGraphMode.NONE, NORMAL, COMMAND_LINE,
                     priority=AFTER_ALL),
             Setting("cuda_graph_backend_prefill", "disabled", NORMAL, COMMAND_LINE,
                     priority=AFTER_ALL)],
            [f"{NORMAL}: SGLang captures no CUDA graphs (moe_hook.py:383-398)"])


__all__ = ["DEEPEP_MODES", "MOE_TOPK_KEYS", "backend", "dense_model", "deepep_mode",
           "file_deepep_mode", "graphs_off"]
