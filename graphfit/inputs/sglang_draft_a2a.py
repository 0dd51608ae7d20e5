"""The draft checkpoint's MoE class on a pasted SGLang line, for the draft's Mooncake /
NixlEP dispatcher rule (graphfit.planner.engines.sglang_draft_dispatch; issue 23, s54e).

Why here: only the line readers see the draft's checkpoint. The draft ModelConfig renames
the checkpoint's first architecture (configs/model_config.py:1010-1211); where the result
is a class graphfit restates as building FusedMoE layers
(sglang_draft_dispatch.MOE_DRAFTS), SglangOptions.draft_moe_class carries it to the planner,
which decides at model build, after every start-up check, as SGLang does. The draft is the
line's `--speculative-draft-model-path`, else the checkpoint SGLang fills in
(graphfit.inputs.sglang_draft_path), read with the line's --json-model-override-args as the
draft's ModelConfig reads it; a hub id is not read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs import (
    sglang_draft_layer_entries,
    sglang_gelu_target,
    sglang_longcat_rope,
    sglang_mtp_mixed_experts,
    sglang_mtp_quant,
    sglang_nextn_excludes,
    sglang_target_layer_entries,
)
from graphfit.inputs.reading import shown_path
from graphfit.inputs.settings import FILE, Setting
from graphfit.inputs.sglang_a2a import dense_model, model_known
from graphfit.inputs.sglang_draft_path import a2a_draft_config, draft_config
from graphfit.planner.engines.sglang_draft_dispatch import MOE_DRAFTS
from graphfit.planner.engines.sglang_draft_gelu_runner import GELU_DRAFTS
from graphfit.planner.engines.sglang_draft_moe_classes import (
    MOE_KEYS,
    MOE_LAYER_KEYS,
    MOE_MODEL_TYPES,
    MOE_TEXT_KEYS,
)


def settings(values: Mapping[str, Any]) -> list[Setting]:
    """`draft_moe_class` where the line's draft checkpoint is a restated MoE class, else
    nothing (no speculative a2a backend given: nothing to decide, but for s69l's GELU
    drafts, which inherit the target's runner, `dense_target`); s67d: first, whether the
    draft's build fails on its layer entry (graphfit.inputs.sglang_draft_layer_entries);
    s68d: last, the method whose config a Qwen3.5 MTP draft drops (graphfit.inputs.
    sglang_mtp_quant); and LongCat-Flash configs SGLang cannot build, target or draft
    (graphfit.inputs.sglang_longcat_rope; a draft's only where no layer entry fails first);
    Step-3.5 / Exaone-MoE targets whose layer entry fails (graphfit.inputs.
    sglang_target_layer_entries)."""
    targets = sglang_target_layer_entries.settings(values)
    entries = sglang_draft_layer_entries.settings(values)
    longcat = [s for s in sglang_longcat_rope.settings(values)
               if not (entries and s.field == "draft_build_failure")]
    return (targets + entries + longcat + _moe_class(values)
            + sglang_mtp_quant.settings(values)
            + sglang_gelu_target.settings(values)  # s69l: a Gemma 4 MoE target
            + sglang_mtp_mixed_experts.settings(values)  # s70d: a MIXED MTP's experts
            + sglang_nextn_excludes.settings(values))  # s70p: a NextN layer left unquantized


def _moe_class(values: Mapping[str, Any]) -> list[Setting]:
    """`draft_moe_class` (`settings`)."""
    inherited = values.get("speculative_moe_a2a_backend") is None
    found = draft_config(values) if inherited else a2a_draft_config(values)
    if found is None:
        return []
    path, data, first = found
    built = MOE_DRAFTS.get(first) if first is not None else None
    if built is None or (inherited and built[0] not in GELU_DRAFTS):
        return []
    if built[0] in GELU_DRAFTS and dense_target(values):
        return []  # s69l: its runner is auto there (`dense_target`)
    types = MOE_MODEL_TYPES.get(str(first))  # s63d: a Qwen3.5 draft is MoE by its model type
    if types is not None and data.get("model_type") not in types:
        return []
    key = MOE_KEYS.get(str(first))  # s63d: GigaChat-3.5's `nextn_is_sparse` (bool() of it)
    if key is not None and not data.get(key):
        return []
    text_key = MOE_TEXT_KEYS.get(str(first))  # s68m: a Gemma 4 unified assistant's MoE block
    text = data.get("text_config")
    if text_key is not None and not (isinstance(text, Mapping) and text.get(text_key)):
        return []
    if not layer_sparse(str(first), data):
        return []
    return [Setting("draft_moe_class", built[0],
                    f"{shown_path(path)}: the draft's class {first} (as SGLang builds it)",
                    FILE)]


def dense_target(values: Mapping[str, Any]) -> bool:
    """Whether the line's target is a known dense model (graphfit.inputs.sglang_a2a.
    dense_model), where a GELU draft (sglang_draft_gelu_runner.GELU_DRAFTS) never runs
    DeepGEMM (issue 23, s69l): the scheduler seeds no MoE flag (scheduler.py:991-1008), so
    the draft's runner context reads auto (layers/moe/utils.py:531-539) and its a2a context
    none (:541-549), whatever the flags (unquant.py:1183-1184, fp8.py:1526-1541). A backend
    given as `none` sets no SglangOptions.dense_model (graphfit.inputs.sglang_a2a.graphs_off),
    so the reader gives such a draft no class there: no rule reads it on a dense target.

    Why the class is read without `--speculative-moe-a2a-backend` for these drafts: SGLang's
    draft then inherits the target's runner and backend (`_default_speculative_moe_runner_
    backend` / `_default_speculative_a2a_backend`, layers/moe/utils.py:463-476), so under a
    target's deep_gemm runner its GELU experts meet DeepGemmRunnerCore's assert. The other
    draft rules read the draft backend as given: their classes stay unread there."""
    model = values.get("model_path")
    return model_known(model) and dense_model(model)


def layer_sparse(first: str, data: Mapping[str, Any]) -> bool:
    """Whether the draft's one decoder layer is sparse by the config entry that names it
    (MOE_LAYER_KEYS, s66d): Step-3.5's `moe_layers_enum`, a comma-separated string of layer
    ids SGLang reads as `{int(x) for x in enum.split(",")}` (models/step3p5.py:543-545),
    holding the MTP block's 45; Exaone-MoE's `is_moe_layer` list true at 0
    (models/exaone_moe.py:502). True for the other architectures. A missing or malformed
    entry reads as dense here: SGLang's build then fails on the entry itself, which
    graphfit.inputs.sglang_draft_layer_entries refuses first (s67d)."""
    entry = MOE_LAYER_KEYS.get(first)
    if entry is None:
        return True
    key, layer, in_text, form = entry
    text = data.get("text_config") if in_text else data
    value = text.get(key) if isinstance(text, Mapping) else None
    if form == "ids" and isinstance(value, str):
        try:
            return layer in {int(x) for x in value.split(",")}
        except ValueError:
            return False
    if form == "flags" and isinstance(value, list):
        return layer < len(value) and bool(value[layer])
    return False

__all__ = ["dense_target", "layer_sparse", "settings"]
