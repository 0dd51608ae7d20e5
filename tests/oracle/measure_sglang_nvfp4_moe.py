"""Acceptance agreement of graphfit with SGLang 0.5.23 on pasted lines of a ModelOpt NVFP4
Qwen3-MoE checkpoint (tests.oracle.sglang_moe_a2a_compare.quantized_model_dir) under each MoE
runner, on named GPUs each side of the Marlin fallback and Blackwell, `--quantization
modelopt_fp4` given or not. SGLang's side: its server arguments, then the model load's NVFP4
MoE method (tests.oracle.sglang_nvfp4_moe_oracle.model_refusal, modelopt_quant.py:2369-2388),
then its graph runners. Prints agreement overall and on the lines that load rule refuses.

Run: python -m tests.oracle.measure_sglang_nvfp4_moe [COUNT] [SEED] [GRAPHFIT_ROOT]
GRAPHFIT_ROOT: another checkout whose `graphfit` is scored (a before figure)."""

from __future__ import annotations

import logging
import random
import sys

from tests.oracle.measure_root import count_seed_root

GPUS = ("A100", "H100", "H200", "B200", "RTX5090")
RUNNERS = ("auto", "marlin", "experimental_sgl_marlin", "triton", "cutlass",
           "flashinfer_cutlass", "flashinfer_trtllm", "flashinfer_trtllm_routed",
           "flashinfer_cutedsl", "lora_triton", "lora_marlin")


def lines(count: int, seed: int, model: str) -> list[tuple[str, ...]]:
    """`count` seeded pasted lines on `model`."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        flag = rng.choice(((), ("--quantization", "modelopt_fp4")))
        out.append(("--gpu-memory-gb", rng.choice(GPUS), "--model-path", model, *flag,
                    "--moe-runner-backend", rng.choice(RUNNERS)))
    return out


def main(argv: list[str]) -> int:
    count, seed = count_seed_root(argv, 80)
    from tests.oracle import sglang_compare as sc
    from tests.oracle import sglang_moe_a2a_compare as mc
    from tests.oracle import sglang_nvfp4_moe_oracle as nm

    logging.disable(logging.WARNING)
    agree = load_lines = load_agree = started = 0
    wrong: list[str] = []
    for line in lines(count, seed, mc.quantized_model_dir("NVFP4")):
        sg, gf = mc.sglang(line), mc.graphfit_cli(line)
        ok = not sc.compare_acceptance(sg, gf)
        agree += ok
        started += sg.rejected is None
        at_load = sg.runner_error is not None and any(
            words in sg.runner_error for words in (nm.LORA_WORDS, nm.PLATFORM_WORDS,
                                                   nm.CUTLASS_WORDS))
        load_lines += at_load
        load_agree += at_load and ok
        if not ok:
            wrong.append(f"{' '.join(w for w in line if not w.startswith('/'))} :: SGLang "
                         f"{str(sg.rejected)[:90]} :: graphfit {str(gf.rejected)[:120]}")
    print(f"{count} NVFP4 MoE lines (seed {seed}): acceptance agrees on {agree}/{count}; "
          f"SGLang starts {started}, refuses {load_lines} at the NVFP4 MoE method (graphfit "
          f"agrees on {load_agree}/{load_lines})")
    for text in wrong[:12]:
        print("  " + text)
    return 0 if not wrong else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
