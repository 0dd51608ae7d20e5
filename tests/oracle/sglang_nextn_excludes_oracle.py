"""SGLang 0.5.23's answer on a DeepSeek-V3 or GLM-5-Next NextN draft. Each draft's checkpoint
either excludes the NextN layer (a Quark `exclude` entry, GLM-5-Next's `ignore`) or keeps it
(issue 23, s70p). The line puts the draft under a DeepEP / pplx draft backend. Shared by
tests/oracle/test_sglang_nextn_excludes_oracle.py and measure_sglang_nextn_excludes (not a
test).

`_resolve_nextn_quant_config` hands the NextN layer no config where the checkpoint's own list
names it (models/deepseek_nextn.py:265-275, glm5_next_nextn.py:49-68). The layer's experts are
then unquantized DeepEPMoE, which meets the unquantized assert (ep_moe/layer.py:135-147). A
kept layer is quantized and meets the low-latency one (:168-178).

The drafts: tests.oracle.sglang_draft_build.NEXTN_DRAFTS' deepseek_v3 (4 layers, or 61 to
meet its mapper's `model.layers.61`) and glm5_next configs. Their Quark FP8 or ModelOpt FP8
`quantization_config` is in config.json, for GLM-5-Next at the top or in the text config.

SGLang: tests.oracle.sglang_mtp_quant_oracle.answers (through sglang_nextn_fp4_oracle's, which
sets SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE on both sides). That is the resolution, the target's MoE
block, then the draft model on meta under the draft loader's own quantization config, with the
loader's weight-name mapper applied (model_loader/loader.py:174-281). graphfit: its CLI on the
pasted line.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from tests.oracle import sglang_draft_build as sdb
from tests.oracle import sglang_draft_deepep_oracle as ddo
from tests.oracle import sglang_nextn_fp4_oracle as nf

_QUARK = {"quant_method": "quark", "export": {"kv_cache_group": [], "pack_method": "reorder"},
          "layer_quant_config": {}, "layer_type_quant_config": {},
          "global_quant_config": {
              "weight": {"dtype": "fp8_e4m3", "qscheme": "per_tensor", "is_dynamic": False},
              "input_tensors": {"dtype": "fp8_e4m3", "qscheme": "per_tensor",
                                "is_dynamic": False},
              "output_tensors": None, "bias": None}}
_FP8 = {"quant_method": "modelopt", "quant_algo": "FP8"}


def _quark(*excludes: str) -> dict[str, Any]:
    return {**_QUARK, "exclude": ["lm_head", *excludes]}


# name -> (base draft, top-level config keys, text_config keys)
DRAFTS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    # DeepSeek-V3 (4 layers): dropped by an equal or `re:` entry
    "ds_layer": ("deepseek_v3", {"quantization_config": _quark("model.layers.4")}, {}),
    "ds_regex": ("deepseek_v3", {"quantization_config": _quark("re:model.layers.4.*")}, {}),
    # 61 layers: the mapper turns both sides into model.decoder
    "ds_61": ("deepseek_v3", {"num_hidden_layers": 61,
                              "quantization_config": _quark("model.layers.61")}, {}),
    # GLM-5-Next: its `ignore` (top level or text config), its Quark exclude (mapped)
    "glm5_ignore": ("glm5_next", {"quantization_config": {**_FP8,
                                                          "ignore": ["model.layers.4.*"]}}, {}),
    "glm5_ignore_text": ("glm5_next", {}, {"quantization_config": {
        **_FP8, "ignore": ["lm_head", "model.layers.4.*"]}}),
    "glm5_quark": ("glm5_next", {"quantization_config": _quark(
        "model.language_model.layers.4")}, {}),
    # the loader's `language_model.` copy (quark.py:404-411); GLM-5-Next's `ignore` on a
    # ModelOpt NVFP4 checkpoint: no config reaches DeepseekModelNextN, so no FP8 override
    "ds_lm": ("deepseek_v3", {"quantization_config": _quark(
        "language_model.model.layers.4")}, {}),
    "glm5_ignore_nvfp4": ("glm5_next", {"quantization_config": {
        "quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
        "ignore": ["model.layers.4.*"]}}, {}),
    # kept: a sub-module, one expert, an escaped pattern the mapper does not rewrite, another
    # layer number, 61 on a 4-layer config, another layer in `ignore`, a Quark list without it
    "ds_mlp": ("deepseek_v3", {"quantization_config": _quark("model.layers.4.mlp")}, {}),
    "ds_expert": ("deepseek_v3", {"quantization_config": _quark(
        "model.layers.4.mlp.experts.0.gate_proj")}, {}),
    "ds_61_escaped": ("deepseek_v3", {"num_hidden_layers": 61, "quantization_config": _quark(
        r"re:model\.layers\.61")}, {}),
    "ds_other": ("deepseek_v3", {"quantization_config": _quark("model.layers.3")}, {}),
    "ds_61_on_4": ("deepseek_v3", {"quantization_config": _quark("model.layers.61")}, {}),
    "glm5_ignore_other": ("glm5_next", {"quantization_config": {
        **_FP8, "ignore": ["model.layers.3.*", "model.layers.4"]}}, {}),
    "glm5_quark_kept": ("glm5_next", {"quantization_config": _quark("model.layers.4.mlp")}, {}),
}
KEPT = ("ds_mlp", "ds_expert", "ds_61_escaped", "ds_other", "ds_61_on_4",
        "glm5_ignore_other", "glm5_quark_kept")


def dirs(root: Path, names: tuple[str, ...] = tuple(DRAFTS)) -> dict[str, Path]:
    """The Qwen3-MoE target and the named drafts under `root`."""
    out = ddo.dirs(root)
    for name in names:
        base, top, text = DRAFTS[name]
        data = json.loads(json.dumps(sdb.NEXTN_DRAFTS[base]))
        data.update(json.loads(json.dumps(top)))
        if text:
            data["text_config"].update(json.loads(json.dumps(text)))
        folder = root / name
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps(data))
        out[name] = folder
    return out


def draw(rng: random.Random, paths: dict[str, Path]) -> tuple[tuple[str, ...], bool]:
    """One drawn line over what the rule reads: a draft, half dropped and half kept; the
    draft a2a backend, the mode, the target / draft runner, the dtype, an FP8 flag that
    clashes with the checkpoint, attention DP, multi-layer EAGLE. Also whether JIT DeepGEMM
    is on."""
    extra: list[str] = []
    if rng.random() < 0.1:
        extra += ["--dtype", "float16"]
    backend = rng.choice(("deepep", "deepep", "pplx", "mooncake", "none"))
    if backend == "pplx" or rng.random() < 0.2:  # pplx needs attention DP (moe_hook.py:589-595)
        extra += ["--enable-dp-attention", "--dp-size", "2"]
    if rng.random() < 0.1:
        extra.append("--enable-multi-layer-eagle")
    if rng.random() < 0.15:
        extra += ["--quantization", "fp8"]
    if rng.random() < 0.3:
        extra += ["--speculative-moe-runner-backend",
                  rng.choice(("deep_gemm", "triton", "auto"))]
    dropped = tuple(name for name in DRAFTS if name not in KEPT)
    draft = rng.choice(KEPT if rng.random() < 0.5 else dropped)
    line = ddo.argv(paths[draft], backend, "none",
                    rng.choice(("auto", "low_latency", "normal")),
                    rng.choice(("deep_gemm", "deep_gemm", "triton", "auto")), *extra)
    return line, rng.random() < 0.2


def answers(paths: dict[str, Path], line: tuple[str, ...], jit: bool, env: str | None = None
            ) -> tuple[str | None, tuple[int, str]]:
    """(SGLang's refusal or None, graphfit's (exit status, error line)), with
    SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE as `env` on both sides (tests.oracle.
    sglang_nextn_fp4_oracle.answers)."""
    return nf.answers(paths, line, jit, env)

__all__ = ["DRAFTS", "KEPT", "answers", "dirs", "draw"]
