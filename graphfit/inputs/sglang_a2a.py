"""SGLang's MoE all-to-all flags as a pasted line or a config file gives them.

`--moe-a2a-backend` and `--deepep-mode` set SglangOptions.moe_a2a_backend / deepep_mode (their
rules: graphfit.planner.engines.sglang_moe_a2a). `--deepep-mode normal` with the deepep backend
makes SGLang turn both graph phases off (arg_groups/moe_hook.py:383-398) after its memory hook
sized the default reserve with them: graphfit's model applies it (SglangModel.resolve); a
pasted line's reader only notes it (`graphs_off`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import model_config
from graphfit.inputs.reading import load_json
from graphfit.inputs.settings import Setting
from graphfit.inputs.values import as_str
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_moe_a2a import (
    DEEPEP_MODES,
    check_backend,
    check_deepep_mode,
    check_draft_choice,
    check_runner,
)

NORMAL = "--deepep-mode normal with --moe-a2a-backend deepep"


def backend(origin: str, value: Any) -> str:
    """`--moe-a2a-backend NAME`: one of SGLang's choices that graphfit models."""
    try:
        return check_backend(as_str(origin, value))
    except ConfigError as exc:
        raise ConfigError(f"{origin}: {str(exc).split(': ', 1)[1]}") from None


def deepep_mode(origin: str, value: Any) -> str:
    """`--deepep-mode`: SglangOptions.deepep_mode (normal with deepep turns both graph phases
    off after SGLang's memory hook: graphfit.planner.engines.sglang_moe_a2a.normal_mode_off)."""
    try:
        return check_deepep_mode(as_str(origin, value))
    except ConfigError as exc:
        raise ConfigError(f"{origin}: {str(exc).split(': ', 1)[1]}") from None


def runner(origin: str, value: Any) -> str:
    """`--moe-runner-backend`: SglangOptions.moe_runner_backend (the megamoe alias refused)."""
    try:
        return check_runner(as_str(origin, value))
    except ConfigError as exc:
        raise ConfigError(f"{origin}: {str(exc).split(': ', 1)[1]}") from None


def draft(origin: str, value: Any) -> str:
    """`--speculative-moe-a2a-backend`: SglangOptions.speculative_moe_a2a_backend."""
    try:
        return check_draft_choice(as_str(origin, value))
    except ConfigError as exc:
        raise ConfigError(f"{origin}: {str(exc).split(': ', 1)[1]}") from None


# the per-token expert counts whose presence makes the scheduler seed the MoE flags
# (managers/scheduler.py:998-1008, read from hf_text_config)
MOE_TOPK_KEYS = ("num_experts_per_tok", "num_experts_per_token", "top_k_experts",
                 "moe_top_k", "moe_topk")


def model_known(model: Any) -> bool:
    """Whether a pasted line's model has a local config.json graphfit reads."""
    return isinstance(model, str) and model_config.config_path(model) is not None


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
    """A pasted line's note that DeepEP's normal mode disables decode and prefill graphs
    whatever the line asks (moe_hook.py:383-398; the model applies it). A backend on a dense
    model is refused: the scheduler seeds it only for a MoE model (scheduler.py:998-1008),
    yet resolution still applies its prefill and memory rules, a split graphfit does not
    model."""
    name = str(values.get("moe_a2a_backend") or "none").strip().lower()
    draft = str(values.get("speculative_moe_a2a_backend") or "none").strip().lower()
    for flag, value, live in (("--moe-a2a-backend", name, name not in ("none", "ascend_tp")),
                              ("--speculative-moe-a2a-backend", draft, draft != "none")):
        if live and dense_model(values.get("model_path")):
            raise ConfigError(f"{flag} {value}: the model names no experts "
                              f"(num_experts_per_tok), so SGLang's graph runners ignore the "
                              f"backend (scheduler.py:998-1008); not modelled: drop the flag")
    notes: list[str] = []
    given = [f for f, v in (("--moe-a2a-backend", name not in ("none", "ascend_tp")),
                            ("--speculative-moe-a2a-backend", draft != "none")) if v]
    if given and not model_known(values.get("model_path")):
        notes.append(f"{' and '.join(given)}: graphfit assumes a MoE model (no local "
                     f"config.json to read; SGLang's runners see the backend only for a model "
                     f"naming num_experts_per_tok, scheduler.py:998-1008)")
    mode = str(values.get("deepep_mode") or "auto").strip().lower()
    if name == "deepep" and mode == "normal":
        notes.append(f"{NORMAL}: SGLang captures no CUDA graphs (moe_hook.py:383-398); its "
                     f"default mem_fraction_static still reserves for them (the memory hook "
                     f"runs first)")
    return [], notes


__all__ = ["DEEPEP_MODES", "MOE_TOPK_KEYS", "backend", "dense_model", "deepep_mode",
           "draft", "graphs_off", "model_known", "runner"]
