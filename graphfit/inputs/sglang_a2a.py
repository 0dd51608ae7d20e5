"""SGLang's MoE all-to-all flags as a pasted line or a config file gives them.

`--moe-a2a-backend` and `--deepep-mode` set SglangOptions.moe_a2a_backend / deepep_mode (their
rules: graphfit.planner.engines.sglang_moe_a2a). `--deepep-mode normal` with the deepep backend
makes SGLang turn both graph phases off (arg_groups/moe_hook.py:383-398) after its memory hook
sized the default reserve with them: graphfit's model applies it (SglangModel.resolve); a
pasted line's reader only notes it (`graphs_off`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from graphfit.inputs import model_config, sglang_topk_default
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


def _checked(check: Callable[[str], str], origin: str, value: Any) -> str:
    """`check`'s answer for the value, its error re-labelled with the flag as given."""
    try:
        return check(as_str(origin, value))
    except ConfigError as exc:
        raise ConfigError(f"{origin}: {str(exc).split(': ', 1)[1]}") from None


def backend(origin: str, value: Any) -> str:
    """`--moe-a2a-backend NAME`: one of SGLang's choices that graphfit models."""
    return _checked(check_backend, origin, value)


def deepep_mode(origin: str, value: Any) -> str:
    """`--deepep-mode`: SglangOptions.deepep_mode (normal with deepep turns both graph phases
    off after SGLang's memory hook: graphfit.planner.engines.sglang_moe_a2a.normal_mode_off)."""
    return _checked(check_deepep_mode, origin, value)


def runner(origin: str, value: Any) -> str:
    """`--moe-runner-backend`: SglangOptions.moe_runner_backend (megamoe: the alias of
    `--moe-a2a-backend megamoe`, applied by SglangOptions)."""
    return _checked(check_runner, origin, value)


def draft(origin: str, value: Any) -> str:
    """`--speculative-moe-a2a-backend`: SglangOptions.speculative_moe_a2a_backend."""
    return _checked(check_draft_choice, origin, value)


def draft_runner(origin: str, value: Any) -> str:
    """`--speculative-moe-runner-backend`: SglangOptions.speculative_moe_runner_backend
    (issue 23 s63d; any name, as `--moe-runner-backend`)."""
    return _checked(check_runner, origin, value)


# the per-token expert counts whose presence makes the scheduler seed the MoE flags
# (managers/scheduler.py:998-1008, read from hf_text_config)
MOE_TOPK_KEYS = ("num_experts_per_tok", "num_experts_per_token", "top_k_experts",
                 "moe_top_k", "moe_topk")


def model_known(model: Any) -> bool:
    """Whether a pasted line's model has a local config.json graphfit reads."""
    return isinstance(model, str) and model_config.config_path(model) is not None


def dense_model(model: Any) -> bool:
    """Whether a pasted line's local model config.json (its text config where nested) names
    no per-token expert count, nor is of a config type whose text config declares one
    (graphfit.inputs.sglang_topk_default, s70h): SGLang's graph runners then never see the
    backend."""
    if not isinstance(model, str):
        return False
    data = model_config.local_config(model)
    if data is None:
        return False
    text = data.get("text_config")
    keys = set(data) | (set(text) if isinstance(text, dict) else set())
    # s70h: a Gemma 4 text config declares top_k_experts (SGLang reads it with hasattr)
    return not keys & set(MOE_TOPK_KEYS) and not sglang_topk_default.declared(data)


def graphs_off(values: Mapping[str, Any]) -> tuple[list[Setting], list[str]]:
    """A pasted line's note that DeepEP's normal mode disables decode and prefill graphs
    whatever the line asks (moe_hook.py:383-398; the model applies it). A backend on a dense
    model sets `dense_model`: the scheduler seeds the runners' flag only for a MoE model
    (scheduler.py:998-1008), while resolution still applies the backend's prefill, budget
    and memory rules (graphfit.planner.engines.sglang_moe_a2a.runtime_backend)."""
    name = str(values.get("moe_a2a_backend") or "none").strip().lower()
    if str(values.get("moe_runner_backend") or "").strip().lower() == "megamoe":
        name = "megamoe"  # the runner alias (arg_groups/mega_moe_hook.py:259-276)
    draft = str(values.get("speculative_moe_a2a_backend") or "none").strip().lower()
    live = [(flag, value) for flag, value, on in (
        ("--moe-a2a-backend", name, name not in ("none", "ascend_tp")),
        ("--speculative-moe-a2a-backend", draft, draft != "none")) if on]
    model = values.get("model_path")
    settings: list[Setting] = []
    notes: list[str] = []
    if live and dense_model(model):
        flag, value = live[0]
        settings.append(Setting("dense_model", True, f"{flag} {value} on {model}"))
        notes.append(f"{flag} {value}: the model names no experts (num_experts_per_tok), so "
                     f"SGLang's graph runners see no all-to-all backend (scheduler.py:"
                     f"998-1008); its start-up rules still apply (moe_hook.py)")
    if live and not model_known(model):
        notes.append(f"{' and '.join(flag for flag, _ in live)}: graphfit assumes a MoE model "
                     f"(no local config.json to read; SGLang's runners see the backend only "
                     f"for a model naming num_experts_per_tok, scheduler.py:998-1008)")
    mode = str(values.get("deepep_mode") or "auto").strip().lower()
    if name == "deepep" and mode == "normal":
        notes.append(f"{NORMAL}: SGLang captures no CUDA graphs (moe_hook.py:383-398); its "
                     f"default mem_fraction_static still reserves for them (the memory hook "
                     f"runs first)")
    return settings, notes


__all__ = ["DEEPEP_MODES", "MOE_TOPK_KEYS", "backend", "dense_model", "deepep_mode",
           "draft", "graphs_off", "model_known", "runner"]
