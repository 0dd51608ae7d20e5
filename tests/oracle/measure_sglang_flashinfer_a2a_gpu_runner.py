"""Measure FlashInfer A2A lines (`--moe-a2a-backend flashinfer`) whose MoE runner
`_moe_runner_backend_quant_constraints` settles by GPU (arg_groups/overrides.py:1449-1522):
`--quantization nvfp4_online` (SM100 only; its auto runner becomes flashinfer_trtllm,
:1462-1465) and `modelopt_fp4` with the auto runner (flashinfer_cutlass on SM110 / SM120,
:1513-1522; auto elsewhere, which FlashInfer A2A's runner assert refuses, moe_hook.py:531-540).
graphfit called every such line "not modelled" until issue 23 s67m
(graphfit.planner.engines.sglang_flashinfer_a2a.gpu_runner). Compared with SGLang's own
argument pipeline and graph runners (tests/oracle/sglang_moe_a2a_compare.compare).
`python -m tests.oracle.measure_sglang_flashinfer_a2a_gpu_runner [COUNT] [SEED] [BEFORE]`
(default 40 draws, seed 67); with BEFORE (e.g. /work/main) that tree's graphfit scores the
same draws first, in a child process."""

from __future__ import annotations

import random
import sys

from tests.oracle.measure_root import main_before_after
from tests.oracle.measure_sglang_flashinfer_a2a_copy import tally

ARCHS = ("Qwen3MoeForCausalLM", "Glm4MoeForCausalLM")
LAYOUTS = ("none", "fp8", "modelopt-nvfp4", "modelopt-fp8")
RUNNERS = ("auto", "auto", "auto", "flashinfer_trtllm", "flashinfer_cutedsl",
           "flashinfer_cutlass", "triton")
FLAGS = ("nvfp4_online", "modelopt_fp4", "modelopt_fp4", None)
# SM100, SM90, SM120, SM80 (graphfit.inputs.gpus)
GPUS = ("B200", "B200", "H100", "RTX5090", "RTX5090", "A100")


def draws(count: int, seed: int) -> list[tuple[str, str, str, str, str | None]]:
    """(class, config.json's quantization_config, runner, GPU, given flag) per line, in
    measure_sglang_flashinfer_a2a_copy.line's words."""
    rng = random.Random(seed)
    return [(rng.choice(ARCHS), rng.choice(LAYOUTS), rng.choice(RUNNERS), rng.choice(GPUS),
             rng.choice(FLAGS)) for _ in range(count)]


def measure(count: int, seed: int) -> None:
    tally(draws(count, seed))


if __name__ == "__main__":
    main_before_after("measure_sglang_flashinfer_a2a_gpu_runner", measure, sys.argv[1:], 40, 67)
