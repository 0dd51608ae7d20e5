"""SGLang 0.5.23's answer on a ModelOpt NVFP4 GLM-4.5, GLM-4.7-Flash or Bailing NextN draft
under a DeepEP / pplx draft backend (issue 23, s70d), shared by
tests/oracle/test_sglang_nextn_drops_oracle.py and measure_sglang_nextn_drops (not a test).

Each of these NextN classes drops a `modelopt_fp4` config before it builds its decoder layer
(models/glm4_moe_nextn.py:52-56, glm4_moe_lite_nextn.py:55-60, bailing_moe_nextn.py:84-88), and
none reads SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE (DeepseekModelNextN alone does,
deepseek_nextn.py:66), so the experts are unquantized DeepEPMoE whatever the variable.
The drafts: tests.oracle.sglang_draft_build.NEXTN_DRAFTS' glm4_moe, glm4_moe_lite and
bailing_hybrid configs with a ModelOpt config in config.json or a hf_quant_config.json beside
it, and a kept ModelOpt FP8 GLM-4.5 draft. SGLang and graphfit: as
tests.oracle.sglang_nextn_fp4_oracle.answers (the draft built on meta under its own loader's
quantization config, the variable in SGLang's environment and on graphfit's line).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from tests.oracle import sglang_mtp_quant_oracle as mq
from tests.oracle import sglang_nextn_fp4_oracle as nf

_NVFP4 = {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16, "ignore": []}
_FP8 = {"quant_method": "modelopt", "quant_algo": "FP8", "ignore": []}

# name -> (base draft, config.json's quantization_config or None, hf_quant_config.json or None)
DRAFTS: dict[str, tuple[str, dict[str, Any] | None, dict[str, Any] | None]] = {
    "glm4_nvfp4": ("glm4_moe", _NVFP4, None),
    "glm4_nvfp4_file": ("glm4_moe", None, {"producer": {"name": "modelopt"}, "quantization": {
        "quant_algo": "NVFP4", "group_size": 16, "exclude_modules": []}}),
    "glm4_lite_nvfp4": ("glm4_moe_lite", _NVFP4, None),
    "bailing_nvfp4": ("bailing_hybrid", _NVFP4, None),
    # kept: ModelOpt FP8 is not modelopt_fp4, the layer is quantized (the low-latency assert,
    # ep_moe/layer.py:168-178, graphfit.planner.engines.sglang_draft_deepep.quantized_problem)
    "glm4_fp8": ("glm4_moe", _FP8, None),
}
KEPT = ("glm4_fp8",)


def dirs(root: Path, names: tuple[str, ...] = tuple(DRAFTS)) -> dict[str, Path]:
    """The Qwen3-MoE target and the named quantized drafts under `root`."""
    return mq.dirs(root, names, DRAFTS)


def draw(rng: random.Random, paths: dict[str, Path]
         ) -> tuple[tuple[str, ...], bool, str | None]:
    """One drawn line over what the rule reads (a dropping draft, 10% the kept one; the draft
    a2a backend, the mode, the target / draft runner, the dtype, an inherited FP8 flag,
    attention DP, multi-layer EAGLE), whether JIT DeepGEMM is on, and the variable (which
    these classes never read)."""
    dropping = tuple(name for name in DRAFTS if name not in KEPT)
    return nf.draw_line(
        rng, paths, lambda r: r.choice(KEPT) if r.random() < 0.1 else r.choice(dropping),
        (None, None, "1"))


answers = nf.answers

__all__ = ["DRAFTS", "KEPT", "answers", "dirs", "draw"]
