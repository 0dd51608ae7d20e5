"""Qwen3.5 checkpoints whose LM head is a decision readout, and the Clef / Kev heads, as
SGLang 0.5.23's ModelConfig finds them and its model hooks serve them (issue 23, s70a).

ModelConfig (configs/model_config.py:636-656) reads three side files of a local checkpoint
whose config.json names exactly one class:

* `decision_config.json` beside a bare `["Qwen3_5Model"]` backbone (`load_decision_config`,
  :263-293): `format_version` must be 1, `attention_mode` "causal" (the default) or
  "noncausal_full_attention", `pooling` "last" (the default), else a ValueError; the class is
  then read as `Qwen3_5ForConditionalGeneration` (:641-642);
* `joint_head_config.json` beside `["Qwen3_5ForConditionalGeneration"]`, after that renaming
  (:649-651): a Clef checkpoint;
* `head.pt` beside `["Qwen3_5TextModel"]` (:652-653): a Kev checkpoint.

The hooks then (arg_groups/model_hook.py): a decision checkpoint with noncausal full attention
turns radix cache and chunked prefill off (:206-221); a Clef or Kev checkpoint refuses a TP or
PP size other than 1 and turns chunked prefill, radix cache and CUDA graphs off (:990-1021);
head.pt's `option_isolation` / `special_embeddings` are refused (configs/model_config.py:342-344,
read without torch by graphfit.inputs.torch_pickle_meta).

Why: graphfit judged the given chunk on these checkpoints (it refused `--page-size 64
--chunked-prefill-size 96`, which SGLang starts with the hook's -1) and planned Clef / Kev
lines at `--tp-size 2`, which SGLang refuses. Not read: a head.pt in torch's legacy format, a Kev
LoRA checkpoint resolved
through its base (`POINTER_ADAPTER_BASES`, :628-634) and hub ids.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphfit.inputs.model_config import config_path, local_config
from graphfit.inputs.reading import load_json
from graphfit.inputs.torch_pickle_meta import plain_entries
from graphfit.planner.core.errors import ConfigError, excerpt

BACKBONE, CLEF_CLASS, KEV_BACKBONE = "Qwen3_5Model", "Qwen3_5ForConditionalGeneration", \
    "Qwen3_5TextModel"
NONCAUSAL = "noncausal_full_attention"  # configs/model_config.py:260
MODES = ("causal", NONCAUSAL)  # :282-283
SWITCHES = ("option_isolation", "special_embeddings")  # head.pt's refused switches (:342)
CONFIG = "configs/model_config.py"
HOOK = "arg_groups/model_hook.py"


@dataclass(frozen=True)
class Heads:
    """What SGLang's ModelConfig found beside a checkpoint: `noncausal` (a decision_config.json
    with noncausal full attention) and `head` ("Clef", "Kev" or None)."""

    noncausal: bool
    head: str | None

    def __post_init__(self) -> None:
        if self.head not in (None, "Clef", "Kev"):
            raise ValueError(f"unknown decision head {self.head!r}")

    @property
    def chunk_off(self) -> bool:
        """Whether a hook declares `chunked_prefill_size=-1` (model_hook.py:220, 1003-1011)."""
        return self.noncausal or self.head is not None


def _decision(folder: Path) -> bool | None:
    """decision_config.json's noncausal mode as `load_decision_config` reads it (None: no
    file); ConfigError where SGLang raises."""
    path = folder / "decision_config.json"
    if not path.is_file():
        return None
    data = load_json(path, "decision config")
    where = path.name
    if not isinstance(data, dict) or "format_version" not in data:
        raise ConfigError(f"{where} has no format_version (KeyError, {CONFIG}:276)")
    if data["format_version"] != 1:
        raise ConfigError(f"{where} format_version {excerpt(data['format_version'])} is not "
                          f"supported, only version 1 is (ValueError, {CONFIG}:276-280)")
    mode = data.get("attention_mode", "causal")
    if mode not in MODES:
        raise ConfigError(f"{where} attention_mode {excerpt(mode)} is not supported (ValueError, "
                          f"{CONFIG}:282-286)")
    if data.get("pooling", "last") != "last":
        raise ConfigError(f"{where} pooling {excerpt(data.get('pooling'))} is not supported, only "
                          f"'last' is (ValueError, {CONFIG}:287-291)")
    return bool(mode == NONCAUSAL)


def _pointer_switches(path: Path) -> None:
    """ConfigError where head.pt sets a switch `load_pointer_head` refuses (:342-344), read
    without torch (graphfit.inputs.torch_pickle_meta; an unreadable file is not judged)."""
    entries = plain_entries(path) or {}
    for name in SWITCHES:
        if entries.get(name):
            raise ConfigError(f"head.pt {name} is not supported (ValueError, {CONFIG}:342-344)")


def heads(model: str) -> Heads | None:
    """The side files of a local checkpoint (module docstring); None where none applies."""
    path = config_path(model)
    data = local_config(model)
    if path is None or not isinstance(data, dict):
        return None
    names = data.get("architectures")
    noncausal = False
    if names == [BACKBONE]:
        found = _decision(path.parent)
        if found is None:
            return None
        noncausal, names = found, [CLEF_CLASS]  # :641-642
    head = None
    if names == [CLEF_CLASS] and (path.parent / "joint_head_config.json").is_file():
        head = "Clef"
    elif names == [KEV_BACKBONE] and (path.parent / "head.pt").is_file():
        head = "Kev"
        _pointer_switches(path.parent / "head.pt")
    if not noncausal and head is None:
        return None
    return Heads(noncausal, head)


def _size(values: Mapping[str, Any], key: str) -> int | None:
    value = values.get(key)
    if value is None:
        return 1
    return int(str(value)) if str(value).lstrip("-").isdigit() else None


def check(values: Mapping[str, Any]) -> None:
    """ConfigError where SGLang refuses the line's checkpoint: a decision_config.json it
    cannot read, or a Clef / Kev head at a TP or PP size other than 1 (model_hook.py:998-1002)."""
    model = values.get("model_path")
    found = heads(model) if isinstance(model, str) else None
    if found is None or found.head is None:
        return
    tp, pp = _size(values, "tp_size"), _size(values, "pp_size")
    if tp in (None, 1) and pp in (None, 1):
        return
    why = (", since the joint schema head reads full LM head rows" if found.head == "Clef"
           else "")
    raise ConfigError(f"{found.head} checkpoints are served with --tp-size 1 and --pp-size 1"
                      f"{why} (ValueError, {HOOK}:998-1002)")


__all__ = ["BACKBONE", "CLEF_CLASS", "KEV_BACKBONE", "NONCAUSAL", "Heads", "check", "heads"]
