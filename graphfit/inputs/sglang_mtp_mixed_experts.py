"""The ModelOpt MIXED_PRECISION algorithm of a Qwen3.5 / Qwen4-Exp MTP draft's experts, as
SGLang 0.5.23 resolves it (issue 23, s70d). Paths under sglang/srt/.

Why read: ModelOptMixedPrecisionConfig gives a FusedMoE layer the method of its
`quantized_layers` entry (layers/quantization/modelopt_quant.py:1079-1094): FP8 is
ModelOptFp8MoEMethod, no entry no method (FusedMoE's unquantized one). Both build their own
runner whatever `--speculative-moe-runner-backend` asked for, so a humming /
flashinfer_cutedsl request does not spare the draft's DeepEPMoE its low-latency assert
(graphfit.planner.engines.sglang_draft_runner_swap). The MTP module names its layer
`mtp.layers.0` (models/qwen3_5_mtp.py:137-142, qwen4_exp_mtp.py:62), so the experts are
`mtp.layers.0.mlp.experts`; `_resolve_quant_algo` (:978-1008) takes their exact entry, else
the first entry under them (the lm_head / language_model candidates and the packed-module
branch never apply to that name).

Read for the same drafts and the same config as graphfit.inputs.sglang_mtp_quant (a local
draft SGLang renames to one of these classes, a `--speculative-moe-a2a-backend` given;
config.json's `quantization_config`, else hf_quant_config.json), and only for a
MIXED_PRECISION one that keeps its config for the MTP (a dropped one is that module's).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphfit.inputs.reading import shown_path
from graphfit.inputs.settings import FILE, Setting
from graphfit.inputs.sglang_draft_path import a2a_draft_config
from graphfit.inputs.sglang_mtp_quant import checkpoint_config, dropped_method
from graphfit.planner.engines.sglang_draft_moe_classes import MOE_DRAFTS
from graphfit.planner.engines.sglang_draft_runner_swap import MTP_EXPERTS, UNLISTED

SITE = "modelopt_quant.py:978-1008"


def experts_algo(cfg: Mapping[str, Any], experts: str) -> str | None:
    """The algorithm `_resolve_quant_algo` gives `experts` in a MIXED_PRECISION config
    (module docstring), UNLISTED where no entry names them; None where `cfg` is not such a
    config or the entry carries no algorithm."""
    section = cfg if cfg.get("quant_algo") is not None else cfg.get("quantization")
    if not isinstance(section, Mapping) or section.get("quant_algo") != "MIXED_PRECISION":
        return None
    layers = section.get("quantized_layers")
    if not isinstance(layers, Mapping):
        return None
    info = layers.get(experts)
    if info is None:
        info = next((value for key, value in layers.items()
                     if str(key).startswith(experts + ".")), None)
        if info is None:
            return UNLISTED
    algo = info.get("quant_algo") if isinstance(info, Mapping) else None
    return str(algo).upper() if isinstance(algo, str) and algo else None


def settings(values: Mapping[str, Any]) -> list[Setting]:
    """`draft_mtp_experts_algo` for the line's local MIXED MTP draft, else nothing."""
    found = a2a_draft_config(values)
    if found is None:
        return []
    path, data, first = found
    built = MOE_DRAFTS.get(first) if first is not None else None
    experts = MTP_EXPERTS.get(built[0]) if built is not None else None
    if experts is None:
        return []
    cfg = checkpoint_config(path, data)
    if cfg is None or dropped_method(cfg) is not None:
        return []
    algo = experts_algo(cfg, experts)
    if algo is None:
        return []
    return [Setting("draft_mtp_experts_algo", algo,
                    f"{shown_path(path)}: the MTP's experts {experts} ({SITE})", FILE)]


__all__ = ["SITE", "experts_algo", "settings"]
