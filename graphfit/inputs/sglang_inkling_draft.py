"""An Inkling MTP draft checkpoint's short-conv state, read for its heads' own conv caches.

SGLang builds the draft worker's ModelConfig from `--speculative-draft-model-path`
(managers/tp_worker.py:465-478; the line's --json-model-override-args applied,
configs/model_config.py:950-975). With an Inkling config its architecture becomes
`InklingForConditionalGenerationMTP` (:1098-1103), and under multi-layer EAGLE each draft head
clones the target's request pool with a one-layer conv cache priced from that config's
`mamba2_cache_params` (configs/inkling.py:217-256; graphfit.planner.engines.
sglang_mamba_mtp_draft). This module reads the draft's text config as the target's is read
(graphfit.inputs.mamba_state.inkling_state, SGLang's defaults and its banded-MTP assertion)
into `inkling_draft_conv_state`. Nothing for a hub id (not downloaded), another model or an
algorithm without an EAGLE-family draft.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import model_config, target_overrides
from graphfit.inputs.mamba_state import INKLING, inkling_state
from graphfit.inputs.reading import shown_path
from graphfit.inputs.settings import FILE, Setting
from graphfit.inputs.sglang_draft_shape import ALGORITHMS


def _draft_data(values: Mapping[str, Any]) -> tuple[dict[str, Any], str] | None:
    """The local draft config.json with the line's override args (as the draft ModelConfig
    reads it; load_config has applied them already to the target's own directory), and
    where it is; None without one."""
    method = str(values.get("speculative_algorithm") or "").upper()
    draft = values.get("speculative_draft_model_path")
    if method not in ALGORITHMS or not isinstance(draft, str):
        return None
    path = model_config.config_path(draft)
    if path is None:
        return None
    data = model_config.load_config(path)
    target = values.get("model_path")
    target_path = model_config.config_path(target) if isinstance(target, str) else None
    if target_path is None or target_path.resolve() != path.resolve():
        data = target_overrides.apply(data, target_overrides.parse(
            values.get("json_model_override_args")))
    return data, shown_path(path)


def settings(values: Mapping[str, Any]) -> list[Setting]:
    """`inkling_draft_conv_state` for a local Inkling draft (module docstring)."""
    found = _draft_data(values)
    if found is None:
        return []
    data, where = found
    architectures = data.get("architectures")
    first = architectures[0] if isinstance(architectures, list) and architectures else None
    if first not in INKLING:
        return []
    state = inkling_state(data)
    return [] if state is None else [
        Setting("inkling_draft_conv_state", state, f"{where}: the Inkling draft's short-conv "
                                                   f"state", FILE, weak=True)]


__all__ = ["settings"]
