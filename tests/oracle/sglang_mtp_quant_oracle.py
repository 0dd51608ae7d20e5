"""SGLang 0.5.23's answer on a quantized Qwen3.5 / Qwen4-Exp MTP draft under a DeepEP / pplx
draft backend (issue 23, s68d), shared by tests/oracle/test_sglang_mtp_quant_oracle.py and
measure_sglang_mtp_quant (not a test).

The drafts: SGLang's own config classes (tests.oracle.sglang_draft_build.NEXTN_DRAFTS'
Qwen3.5-MoE, its text form and Qwen4-Exp) with a checkpoint quantization config in config.json
or a ModelOpt hf_quant_config.json beside it. SGLang: tests.oracle.sglang_draft_deepep_oracle's
answer (its resolution, the target's MoE block, then the draft model on meta), the draft built
with the quantization config its own loader makes from the draft ModelConfig (model_loader/
loader.py:174-281) -- the MTP class then applies its own `_mtp_quant_config`
(models/qwen3_5_mtp.py:50-91). graphfit: its CLI on the pasted line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.oracle import sglang_draft_build as sdb
from tests.oracle import sglang_draft_deepep_oracle as ddo
from tests.oracle import sglang_oracle as so

_NVFP4 = {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "ignore": []}
_QUARK = {"quant_method": "quark", "export": {"kv_cache_group": [], "pack_method": "reorder"},
          "layer_quant_config": {}, "layer_type_quant_config": {},
          "global_quant_config": {
              "weight": {"dtype": "fp8_e4m3", "qscheme": "per_tensor", "is_dynamic": False},
              "input_tensors": {"dtype": "fp8_e4m3", "qscheme": "per_tensor",
                                "is_dynamic": False},
              "output_tensors": None, "bias": None}}


def _mixed(*layers: tuple[str, str]) -> dict[str, Any]:
    """hf_quant_config.json of a ModelOpt MIXED_PRECISION checkpoint: (layer, algorithm)."""
    return {"producer": {"name": "modelopt"}, "quantization": {
        "quant_algo": "MIXED_PRECISION",
        "quantized_layers": {name: {"quant_algo": algo} for name, algo in layers}}}


# name -> (base draft, config.json's quantization_config or None, hf_quant_config.json or None)
DRAFTS: dict[str, tuple[str, dict[str, Any] | None, dict[str, Any] | None]] = {
    "nvfp4": ("qwen3_5_moe", _NVFP4, None),  # dropped (serialized NVFP4)
    "nvfp4_awq_text": ("qwen3_5_moe_text", {**_NVFP4, "quant_algo": "NVFP4_AWQ"}, None),
    "nvfp4_file": ("qwen3_5_moe", None, {"producer": {"name": "modelopt"}, "quantization": {
        "quant_algo": "NVFP4", "group_size": 16, "exclude_modules": []}}),
    "qwen4_nvfp4": ("qwen4_exp", _NVFP4, None),
    "mixed": ("qwen3_5_moe", None, _mixed(("model.layers.0.mlp.experts", "NVFP4"))),
    "qwen4_mixed": ("qwen4_exp", None, _mixed(("model.layers.0.mlp.experts", "NVFP4"))),
    "quark_experts": ("qwen3_5_moe", {**_QUARK, "exclude": [
        "lm_head", "mtp.fc", "mtp.layers.0.mlp.experts.0.gate_proj"]}, None),
    # kept: FP8 (no NVFP4), an `mtp.` layer quantized, MTP excludes without its experts
    "fp8": ("qwen3_5_moe", {"quant_method": "modelopt", "quant_algo": "FP8", "ignore": []},
            None),
    "mixed_mtp": ("qwen3_5_moe", None, _mixed(("model.layers.0.mlp.experts", "NVFP4"),
                                              ("mtp.fc", "FP8"))),
    "quark_attn": ("qwen3_5_moe", {**_QUARK, "exclude": [
        "lm_head", "mtp.layers.0.self_attn.o_proj"]}, None),
    # a dense Qwen3.5 MTP: no MoE layer, nothing to assert
    "dense_nvfp4": ("qwen3_5", _NVFP4, None),
}
# the drafts whose MTP keeps its config: their experts' quantized DeepEPMoE meets the
# low-latency assert (ep_moe/layer.py:168-178), restated for every method since s69e
# (tests.oracle.sglang_draft_lowlat_oracle)
KEPT = ("fp8", "mixed_mtp", "quark_attn")


def dirs(root: Path, names: tuple[str, ...] = tuple(DRAFTS),
         table: dict[str, tuple[str, dict[str, Any] | None, dict[str, Any] | None]] = DRAFTS
         ) -> dict[str, Path]:
    """The Qwen3-MoE target and the named quantized drafts under `root` (s69e: of `table`,
    shaped as `DRAFTS`)."""
    out = ddo.dirs(root)
    for name in names:
        base, config_qc, file_qc = table[name]
        data = json.loads(json.dumps(sdb.NEXTN_DRAFTS[base]))
        if config_qc is not None:
            data["quantization_config"] = config_qc
        folder = root / name
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps(data))
        if file_qc is not None:
            (folder / "hf_quant_config.json").write_text(json.dumps(file_qc))
        out[name] = folder
    return out


def answers(paths: dict[str, Path], line: tuple[str, ...], jit: bool
            ) -> tuple[str | None, tuple[int, str]]:
    """(SGLang's refusal or None, graphfit's (exit status, error line)): the DeepEPMoE
    oracle's answer with the draft built under its own loader's quantization config."""
    from tests.oracle import sglang_draft_build as build
    from tests.oracle import test_sglang_deepep_class_oracle as dc

    draft = line[line.index("--speculative-draft-model-path") + 1]
    with dc._own_build_only():  # resolution alone: which worker SGLang picks
        r = so.resolve(line, model=str(paths["target"]))
    record = getattr(r, "record", None)
    context = isinstance(r, so.Resolved) and build.enters_context(record)

    def block(config: Any, quant: Any) -> None:
        from sglang.srt.runtime_context import get_parallel

        dc._qwen3_block(config, quant)  # the target's model first
        build.build_draft(record, draft, context, get_parallel().moe_ep_size, jit, True)

    theirs = dc.sglang(paths["target"], line, jit, block=block, shared_build=False)
    return theirs, dc.graphfit(paths["target"], line, jit)


__all__ = ["DRAFTS", "KEPT", "answers", "dirs"]
