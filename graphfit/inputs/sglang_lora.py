"""SGLang's LoRA flags read for `check_lora_server_args` (arg_groups/lora_hook.py:33-180) and
`check_lora_moe_runner_args` (:183-237; graphfit.planner.engines.sglang_lora_runner):
`--lora-backend`, `--lora-paths`, `--max-lora-rank` and `--lora-target-modules` (issue 23,
s65d); `--max-loras-per-batch`, `--enable-lora-overlap-loading`, `--max-loaded-loras`,
`--lora-drain-wait-threshold`, `--enable-pdmux`, how many adapters `--lora-paths` lists, whether
`--lora-target-modules` names `all` beside another module, and two environment variables
(s66l). Fields: arg_groups/fields/lora.py, disagg.py:173-176. s67l: a `lora_paths` value of a
shape SGLang's parse refuses (`invalid_paths`, from a config file) and the CLI action's JSON
items (`line_paths`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from graphfit.inputs import sglang_dsv4
from graphfit.inputs.flagtable import Refused
from graphfit.inputs.keys import Handler, field_key
from graphfit.inputs.reading import check_float, parse_float
from graphfit.inputs.settings import COMMAND_LINE, Setting
from graphfit.inputs.values import as_bool, as_int, as_str
from graphfit.planner.core.enums import Engine
from graphfit.planner.core.errors import excerpt
from graphfit.planner.core.limits import MAX_FLOAT, MAX_INT

SG = Engine.SGLANG
# SGLang's EnvBools the LoRA checks read (environ.py:1257, 1553; both off) -> SglangOptions
ENVIRONMENT = {"SGLANG_EXPERIMENTAL_LORA_OPTI": "lora_experimental_opti",
               "SGLANG_ENABLE_OVERLAP_PLAN_STREAM": "overlap_plan_stream"}
_TRUE, _FALSE = ("true", "1", "yes", "y"), ("false", "0", "no", "n")  # environ.py:143-150
ALL = "all"  # LORA_TARGET_ALL_MODULES


def _given(origin: str, value: Any) -> bool:
    """Whether a list / dict / string flag holds anything (SGLang tests it for truth)."""
    del origin
    return bool(value)


def _rank(origin: str, value: Any) -> int:
    return as_int(origin, value, minimum=0)


def _signed(origin: str, value: Any) -> int:
    """An integer of any sign: argparse's `type=int`; SGLang's asserts judge the value."""
    return as_int(origin, value, minimum=-MAX_INT)


def _number(origin: str, value: Any) -> float:
    """A finite number of any sign (argparse's `type=float`, fields/lora.py:109-112)."""
    if isinstance(value, str):
        return parse_float(origin, value, minimum=-MAX_FLOAT)
    return check_float(origin, value, minimum=-MAX_FLOAT)


def _backend(origin: str, value: Any) -> str:
    return as_str(origin, value).lower()


HOOK = "arg_groups/lora_hook.py"


def invalid_paths(value: Any) -> str | None:
    """SGLang's refusal of a `lora_paths` value its parse cannot take (lora_hook.py:76-136),
    in its words, or None. A list's items must be strings or mappings holding `lora_name` and
    `lora_path` (:96-98, :107-111); the value itself a list, a mapping or None (:132-136). The
    CLI's action only makes strings (argparse_actions.py:8-25): a config file gives the rest,
    as a Python caller's `ServerArgs(lora_paths=...)` would."""
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                if "lora_name" not in item or "lora_path" not in item:
                    return (f"--lora-paths: a dict item needs 'lora_name' and 'lora_path' keys, "
                            f"got {excerpt(item, 40)} (AssertionError, {HOOK}:96-98)")
            elif not isinstance(item, str):
                return (f"Invalid type for item in --lora-paths list: {type(item)}. Expected a "
                        f"string or a dictionary. (ValueError, {HOOK}:107-111)")
        return None
    if value is None or isinstance(value, dict):
        return None
    return (f"Invalid type for --lora-paths: {type(value)}. Expected a list or a dictionary. "
            f"(ValueError, {HOOK}:132-136)")


def _paths(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`--lora-paths`: whether it holds anything, and how many adapters it lists (one LoRARef
    per list item or dict key, lora_hook.py:74-128, counted by the assert at :162-165); and
    SGLang's refusal of its shape (`invalid_paths`; s67l), judged by the planner where SGLang
    parses it."""
    count = len(value) if isinstance(value, (list, tuple, Mapping)) else int(bool(value))
    out = [Setting("lora_paths_given", bool(value), origin, layer),
           Setting("lora_paths_count", count, origin, layer),
           Setting("engine", SG, origin, layer)]
    said = invalid_paths(value)
    if said is not None:
        out.append(Setting("lora_paths_invalid", said, origin, layer))
    return out, []


def line_paths(paths: Any) -> None:
    """SGLang's `LoRAPathAction` on one `--lora-paths` of a pasted line (arg_groups/
    argparse_actions.py:8-25): an item that looks like a JSON object (`{...}` once stripped)
    is parsed, and must hold `lora_path` and `lora_name`. Its failures are the parse's own
    (json's error, or the AssertionError), LoRA on or off. The action runs as argparse meets
    the flag, so graphfit's parser calls this there too (graphfit.inputs.sglang_cli,
    flagtable's checked store; issue 23 s68l): its error comes before a later flag's
    argparse error, unrecognized or missing arguments, and each occurrence is checked, not
    only the last (before s68l graphfit checked the last value after the whole parse)."""
    if not isinstance(paths, list):
        return
    for item in paths:
        text = str(item).strip()
        if not (text.startswith("{") and text.endswith("}")):
            continue
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError) as exc:  # json.JSONDecodeError is a ValueError
            raise Refused(f"{type(exc).__name__}: {str(exc)[:100]} "
                          f"(arg_groups/argparse_actions.py:16)") from None
        if "lora_path" not in obj or "lora_name" not in obj:
            raise Refused(f"AssertionError: {excerpt(text, 40)} looks like a JSON str, but "
                          f"lacks 'lora_name' or 'lora_path' (arg_groups/argparse_actions.py:"
                          f"17-20)")


def _targets(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`--lora-target-modules`: whether it holds anything, and whether its set (SGLang
    normalises it to one first, :133-139) holds `all` beside another module (:140-143)."""
    names = ({str(v) for v in value} if isinstance(value, (list, tuple, set, frozenset))
             else {str(value)} if value else set())
    return [Setting("lora_target_modules_given", bool(value), origin, layer),
            Setting("lora_target_all_mixed", ALL in names and len(names) > 1, origin, layer),
            Setting("engine", SG, origin, layer)], []


def _enable_lora(origin: str, value: Any, layer: int) -> tuple[list[Setting], list[str]]:
    """`enable_lora`: s50k's reading (graphfit.inputs.sglang_dsv4), and, given and false (a
    config file's; the CLI flag is store-true), `lora_disabled`: SGLang then ignores
    `lora_paths` (lora_hook.py:39-47; s67l). A config file holds what a Python caller's
    `ServerArgs(enable_lora=...)` holds, which SGLang reads by Python's truth wherever it
    reads it (lora_hook.py:39-50, server_args.py:287-288, deepseek_v4_hook.py:324): the
    string "false" is on, 0 or "" off (issue 23 s68l; before, "false" read as off and other
    values refused)."""
    on = None if value is None else bool(value)
    settings, notes = sglang_dsv4.KEYS["enable_lora"](origin, on, layer)
    if on is False:
        settings.append(Setting("lora_disabled", True, origin, layer))
    return settings, notes


KEYS: dict[str, Handler] = {
    "lora_backend": field_key("lora_backend", _backend, SG),
    "lora_paths": _paths,
    "max_lora_rank": field_key("max_lora_rank", _rank, SG),
    "lora_target_modules": _targets,
    "max_loras_per_batch": field_key("max_loras_per_batch", _signed, SG),
    "enable_lora_overlap_loading": field_key("enable_lora_overlap_loading", as_bool, SG),
    "max_loaded_loras": field_key("max_loaded_loras", _signed, SG),
    "lora_drain_wait_threshold": field_key("lora_drain_wait_threshold", _number, SG),
    "enable_pdmux": field_key("enable_pdmux", as_bool, SG),
    # after sglang_dsv4.KEYS in graphfit.inputs.sglang.FILE_KEYS, so this reading wins (s67l)
    "enable_lora": _enable_lora,
}


def environment(environ: Mapping[str, str]) -> list[Setting]:
    """The LoRA checks' EnvBools as SGLang parses them; a value it cannot parse keeps the
    default, off (environ.py:67-86), so no setting."""
    out: list[Setting] = []
    for name, field in ENVIRONMENT.items():
        raw = environ.get(name)
        if raw is not None and raw.lower() in (*_TRUE, *_FALSE):
            out.append(Setting(field, raw.lower() in _TRUE, f"{name}={raw}", COMMAND_LINE))
    return out


__all__ = ["ENVIRONMENT", "KEYS", "environment", "invalid_paths", "line_paths"]
