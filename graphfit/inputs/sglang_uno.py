"""A pasted SGLang 0.5.23 UNO line (`--speculative-algorithm UNO`): the start-up checks that
read flags the plan does not carry.

`_handle_uno` (arg_groups/speculative_hook.py:449-611) refuses a line without
`--uno-lora-path`, with a draft model, deterministic inference, strict thinking, multi-LoRA
serving, rejection sampling, tree mode with PDMux or accept thresholds other than 1.0, or an
attention backend other than FA3 for prefill and decode. graphfit.planner.engines.sglang_uno
holds every check in SGLang's order (`resolve_uno`); this module builds its `UnoLine` from the
pasted flags so a refused line is refused here with SGLang's reason, and the planner repeats
the checks on what the plan carries (widths, parallelism, two-batch overlap).

A line that names no attention backend (or only one side) gets SGLang's default base backend,
picked by the attention hook (arg_groups/pipeline.py:242) BEFORE the speculative hook runs
`_handle_uno` (pipeline.py:306): the default therefore sees the line's own
`--speculative-eagle-topk` and `--page-size` (None when absent: `_handle_uno` sets topk later,
and `_page_size_default` runs at pipeline.py:256), and `_handle_uno` then checks the resolved
pair (speculative_hook.py:606-611). graphfit restates that default by GPU and model
(graphfit.inputs.sglang_draft_default.default_base_backend) once the GPU is known (`settle`,
called from graphfit.inputs.line_defaults): FA3 (an MHA model on Hopper with no topk or topk 1
and page size 1, an MLA model on Hopper) plans the line with a note; any other default is
refused with SGLang's reason; without the GPU's name or a local config.json the line is
refused with SGLang's reason when no GPU or model could make the default FA3
(graphfit.inputs.sglang_uno_default), else saying which input is missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from graphfit.inputs.gpus import gpu_name
from graphfit.inputs.settings import Resolved, Setting
from graphfit.inputs.sglang_draft_default import (
    default_base_backend,
    default_inputs,
    every_line_checks,
)
from graphfit.inputs.sglang_uno_default import (
    every_gpu_sides,
    never_fa3,
    override_sides,
    override_where,
)
from graphfit.planner.core.errors import ConfigError
from graphfit.planner.engines.sglang_attn_default import DefaultBackend
from graphfit.planner.engines.sglang_uno import (
    ATTENTION_ORDER,
    UNSET_BACKEND,
    check_line,
    check_line_with_default,
    line_of,
    unnamed_backend,
)

ALGORITHM = "UNO"
PIN = "--attention-backend fa3"
__all__ = ["ALGORITHM", "UNSET_BACKEND", "line", "settle"]


def _uno(values: Mapping[str, Any]) -> bool:
    return str(values.get("speculative_algorithm") or "").upper() == ALGORITHM


def line(values: Mapping[str, Any], settings: list[Setting]) -> list[Setting]:
    """A UNO line's checks (`check_line`, graphfit.planner.engines.sglang_uno); the settings
    pass through unchanged: SGLang's resolved steps, topk and widths are the planner's. A
    line leaving the backend to SGLang is checked up to the backend here and settled once
    the GPU is known (`settle`)."""
    if not _uno(values):
        return settings
    # SGLang's model hook (its overrides' asserts, the backend lists: arg_groups/pipeline.py:
    # 225) runs before the speculative hook's `_handle_uno` (pipeline.py:306): the refusals
    # that need no GPU name first (Moss-VL's prefill rule, moss_vl.py:18-30, among them)
    every_line_checks(values, None)
    if unnamed_backend(values):
        # every check but the pair: a named side is judged with SGLang's default for the
        # other one (`settle`), so a refusal names the pair SGLang names
        check_line_with_default(values, None, "", sides=("fa3", "fa3"))
        return settings
    check_line(values)
    return settings


def _missing(why: str) -> str:
    """The input graphfit lacks to restate SGLang's default, short enough for one error."""
    if "GPU generation" in why:
        return "SGLang's default needs the GPU's name (--gpu-memory-gb H100)"
    if "config.json" in why:
        return "SGLang's default needs the model's local config.json"
    return f"graphfit does not restate SGLang's default: {why}"


def settle(values: Mapping[str, Any], resolved: Resolved, gpu_given: object) -> Resolved:
    """A UNO line naming no backend (module docstring): planned with a note when SGLang's
    default on this GPU and model is FA3, else refused with SGLang's reason."""
    if not _uno(values) or not unnamed_backend(values):
        return resolved
    sides = override_sides(values, gpu_given) or every_gpu_sides(values, gpu_given)
    if sides is not None:
        return _settle_override(values, resolved, gpu_given, sides)
    found, _ = default_base_backend(values, gpu_given, PIN)
    if found.name is None:  # an input missing: refused precisely when it could not help
        never = never_fa3(values, gpu_given)
        if never is not None:
            raise ConfigError(never)
        named = [f"{side} {name}" for side, name in zip(("prefill", "decode"),
                                                         line_of(values).attention,
                                                         strict=True)
                 if name not in (None, "fa3")]
        if named:
            raise ConfigError(f"--speculative-algorithm: UNO needs FA3 (speculative_hook.py:"
                              f"606-611); the line names {named[0]}, refused whatever "
                              f"SGLang's default for the other side")
    try:
        check_line_with_default(values, found.name, _missing(found.why))
    except ConfigError as exc:
        if found.name is None:
            raise
        raise ConfigError(f"{exc}; {found.name} is SGLang's default on "
                          f"{gpu_name(gpu_given)}"[:200]) from None
    return replace(resolved, notes=(
        *resolved.notes,
        f"UNO attention backend: the line names none, so SGLang's default on "
        f"{gpu_name(gpu_given)} is assumed: {found.name} ({found.why}; {ATTENTION_ORDER}); "
        f"assumes CUDA >= 12.3; pin it with {PIN}"))


def _settle_override(values: Mapping[str, Any], resolved: Resolved, gpu_given: object,
                     sides: tuple[DefaultBackend, DefaultBackend]) -> Resolved:
    """A UNO line naming no backend on an architecture whose model override graphfit
    restates: the pair SGLang resolves after the override (graphfit.inputs.sglang_uno_default.
    override_sides) planned when it is fa3 / fa3 (with a note), else refused with SGLang's
    reason; a side graphfit does not restate refuses the line saying why."""
    prefill, decode = sides
    if prefill.name is None or decode.name is None:
        check_line_with_default(values, None, _missing(prefill.why or decode.why))
        raise AssertionError("unreachable: check_line_with_default refuses")  # pragma: no cover
    _, inputs = default_inputs(values, gpu_given)
    arch = inputs.architecture if inputs is not None else "the model"
    said = f"after {arch}'s override ({override_where(arch)}) on {gpu_name(gpu_given)}"
    try:
        check_line_with_default(values, None, "", sides=(prefill.name, decode.name))
    except ConfigError as exc:
        if "FA3 prefill and decode" not in str(exc):
            raise
        raise ConfigError(f"{exc}; after the model override ({override_where(arch)}) on "
                          f"{gpu_name(gpu_given)}"[:200]) from None
    return replace(resolved, notes=(
        *resolved.notes,
        f"UNO attention backend: the line leaves a side to SGLang, so its pair {said} is "
        f"assumed: {prefill.name} / {decode.name} ({ATTENTION_ORDER}); assumes CUDA >= 12.3; "
        f"pin it with {PIN}"))
