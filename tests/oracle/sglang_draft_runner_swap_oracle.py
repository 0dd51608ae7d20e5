"""SGLang 0.5.23's answer on a quantized MoE draft whose `--speculative-moe-runner-backend` asks
for humming or flashinfer_cutedsl, where the draft's quantization method builds its own runner
(graphfit.planner.engines.sglang_draft_runner_swap; issue 23, s70d), shared by
tests/oracle/test_sglang_draft_runner_swap_oracle.py and measure_sglang_draft_runner_swap
(not a test).

The drafts: s69e's quantized drafts (tests.oracle.sglang_draft_lowlat_oracle.DRAFTS: ModelOpt
FP8, MIXED, Quark, fp8 block) and a ModelOpt MIXED Qwen3.5 MTP draft whose experts'
`quantized_layers` entry is FP8. SGLang: the
low-latency oracle's answer (tests.oracle.sglang_mtp_quant_oracle.answers: its resolution,
the target's MoE block, then the draft built on meta under its own loader's quantization
config, where FusedMoE asks the method for its runner); graphfit: its CLI.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from tests.oracle import sglang_draft_deepep_oracle as ddo
from tests.oracle import sglang_draft_lowlat_oracle as lo
from tests.oracle import sglang_mtp_quant_oracle as mq

# name -> (base draft, config.json's quantization_config, hf_quant_config.json), as mq.DRAFTS
DRAFTS: dict[str, tuple[str, dict[str, Any] | None, dict[str, Any] | None]] = {
    **{name: lo.DRAFTS[name] for name in ("mtp_fp8", "mtp_mixed", "mtp_quark",
                                          "dsv3_modelopt_fp8", "dsv3_fp8_block")},
    # a MIXED MTP draft naming its experts FP8 (ModelOptFp8MoEMethod, triton); NVFP4 experts
    # (which keep the request) stop first on the oracle's SM90 at the FP4 MoE backend check
    # (ValueError, quantization/modelopt_quant.py), so none is drawn
    "mtp_mixed_fp8_experts": ("qwen3_5_moe", None, mq._mixed(
        ("model.layers.0.mlp.experts", "NVFP4"), ("mtp.layers.0.mlp.experts", "FP8"))),
    # a MIXED checkpoint with no NVFP4 layer loads as w4afp8 (W4AFp8MoEMethod makes no runner)
    "dsv3_w4afp8": ("deepseek_v3", None, mq._mixed(("model.layers.3.mlp.experts", "FP8"))),
}
REQUESTS = ("humming", "flashinfer_cutedsl")


def dirs(root: Path, names: tuple[str, ...] = tuple(DRAFTS)) -> dict[str, Path]:
    """The Qwen3-MoE target and the named quantized drafts under `root`."""
    return mq.dirs(root, names, DRAFTS)


def draw(rng: random.Random, paths: dict[str, Path]) -> tuple[tuple[str, ...], bool]:
    """One drawn line (a draft of `DRAFTS`; a humming / flashinfer_cutedsl draft runner 80% of
    the time, else triton / deep_gemm; the draft a2a backend, mode, target runner, dtype,
    attention DP, multi-layer EAGLE) and whether JIT DeepGEMM is on."""
    extra: list[str] = []
    if rng.random() < 0.15:
        extra += ["--dtype", "float16"]
    backend = rng.choice(("deepep", "deepep", "pplx", "mooncake", "none"))
    if backend == "pplx" or rng.random() < 0.2:  # pplx needs attention DP (moe_hook.py:589-595)
        extra += ["--enable-dp-attention", "--dp-size", "2"]
    if rng.random() < 0.1:
        extra.append("--enable-multi-layer-eagle")
    runner = rng.choice(REQUESTS) if rng.random() < 0.8 else rng.choice(("triton", "deep_gemm"))
    extra += ["--speculative-moe-runner-backend", runner]
    line = ddo.argv(paths[rng.choice(tuple(DRAFTS))], backend, "none",
                    rng.choice(("auto", "low_latency", "low_latency", "normal")),
                    rng.choice(("triton", "auto")), *extra)
    return line, rng.random() < 0.2


answers = mq.answers

__all__ = ["DRAFTS", "REQUESTS", "answers", "dirs", "draw"]
