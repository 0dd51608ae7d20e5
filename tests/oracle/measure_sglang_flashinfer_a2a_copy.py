"""Measure FlashInfer A2A lines (`--moe-a2a-backend flashinfer`) whose `--quantization` a model
class's override settles from the checkpoint (Qwen3-MoE / GLM-4 MoE copy config.json's method
on SM100, arg_groups/model_overrides/qwen3_moe.py:38-50, glm4_moe.py:15-33) against SGLang's own
argument pipeline and graph runners (tests/oracle/sglang_moe_a2a_compare.compare: acceptance,
decode ladder, padding, buffers). FlashInfer A2A's runner / quantization check
(graphfit.planner.engines.sglang_flashinfer_a2a) read only the given flag; it now reads the
settled one and restates mxfp8's runner resolution (overrides.py:1485-1512; issue 23 s66m).
`python -m tests.oracle.measure_sglang_flashinfer_a2a_copy [COUNT] [SEED] [BEFORE]` (default
40 draws, seed 66). A draw: a class, a quantization_config, a MoE runner, a GPU, sometimes
the flag given. It prints each difference and the counts of this tree and, with BEFORE (e.g.
/work/main), of that tree's graphfit on the same draws (a subprocess)."""

from __future__ import annotations

import functools
import json
import logging
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path

from tests.oracle.measure_root import main_before_after
from tests.oracle.measure_sglang_minimax_copy_runner import CONFIGS

ARCHS = ("Qwen3MoeForCausalLM", "Glm4MoeForCausalLM")
LAYOUTS = ("none", "fp8", "modelopt-fp8", "modelopt-nvfp4", "mxfp8")
RUNNERS = ("auto", "flashinfer_cutlass", "flashinfer_trtllm", "flashinfer_trtllm_routed",
           "flashinfer_cutedsl", "deep_gemm", "triton")
FLAGS = (None, None, None, "fp8", "mxfp8")
GPUS = ("B200", "B200", "H100")
# attention DP over the whole TP group, as FlashInfer A2A asks (moe_hook.py:471-488)
FLASHINFER = ("--tp-size", "2", "--attn-dp-size", "2", "--ep-size", "2",
              "--moe-a2a-backend", "flashinfer")


@functools.cache
def model_dir(layout: str, architecture: str) -> str:
    """The small Qwen3-MoE shapes of sglang_moe_a2a_compare under `architecture`, with
    CONFIGS[layout] as config.json's quantization_config (none: no key)."""
    from tests.oracle import sglang_oracle as so
    from tests.oracle import sglang_stubs

    so.oracle()
    root = Path(tempfile.mkdtemp(prefix="graphfit-sglang-fi-copy-"))
    directory = sglang_stubs.write_moe_model_dir(root / "model")
    data = json.loads((directory / "config.json").read_text())
    data["architectures"] = [architecture]
    if CONFIGS[layout] is not None:
        data["quantization_config"] = CONFIGS[layout]
    (directory / "config.json").write_text(json.dumps(data))
    return str(directory)


def line(arch: str, layout: str, runner: str, gpu: str, flag: str | None = None
         ) -> tuple[str, ...]:
    """One FlashInfer A2A line in sglang_moe_a2a_compare's words."""
    given = ("--quantization", flag) if flag is not None else ()
    return (*FLASHINFER, "--moe-runner-backend", runner, *given,
            "--model-path", model_dir(layout, arch), "--gpu-memory-gb", gpu)


def draws(count: int, seed: int) -> list[tuple[str, str, str, str, str | None]]:
    rng = random.Random(seed)
    return [(rng.choice(ARCHS), rng.choice(LAYOUTS), rng.choice(RUNNERS), rng.choice(GPUS),
             rng.choice(FLAGS)) for _ in range(count)]


def differences(argv: tuple[str, ...]) -> list[str]:
    """Every aspect sglang_moe_a2a_compare compares that differs on this line."""
    from tests.oracle import sglang_moe_a2a_compare as m

    return [f"{aspect}: {d}" for aspect, found in m.compare(argv).items() for d in found]


def measure(count: int, seed: int) -> None:
    tally(draws(count, seed))


def tally(drawn_lines: list[tuple[str, str, str, str, str | None]]) -> None:
    """Print each drawn line that differs and the counts (shared with
    measure_sglang_flashinfer_a2a_gpu_runner)."""
    from tests.oracle import sglang_moe_a2a_compare as m

    logging.disable(logging.WARNING)
    counts: Counter[str] = Counter()
    for drawn in drawn_lines:
        argv = line(*drawn)
        counts["sglang " + ("refuses" if m.sglang(argv).rejected is not None
                            or m.sglang(argv).runners is None else "starts")] += 1
        found = differences(argv)
        counts["differ" if found else "agree"] += 1
        if found:
            print("differs:", drawn, "|", found[0][:200])
    print(dict(sorted(counts.items())))


if __name__ == "__main__":
    main_before_after("measure_sglang_flashinfer_a2a_copy", measure, sys.argv[1:], 40, 66)
