"""`moe_config.backend` AUTO (or not given) on a named GPU (issue 23, s64g), measured (not a
test; tests/oracle/test_trtllm_moe_auto_gpu_reference.py is):

    python -m tests.oracle.measure_trtllm_moe_auto_gpu 300 --before /work/main

Draws N lines `graphfit plan --gpu-memory-gb GPU -- trtllm-serve CKPT --tp_size T --ep_size T
--extra_llm_api_options FILE` (FILE: enable_attention_dp true, and moe_config.backend AUTO or
no backend; GPU a drawn NVIDIA name of the restated table, `ref.GPU_SM`) over a local bf16
checkpoint (the architectures and quantizations of measure_trtllm_moe_auto), with
ENABLE_CONFIGURABLE_MOE unset or "0". For this checkout and for the graphfit at `--before`
(a subprocess on the same lines) it prints: the lines and how many were refused (an
error; such a line is then planned without the GPU, and counted below as that plan); those
where what AUTO resolves to on that GPU's SM builds the restated workspace
(`ref.moe_a2a_auto_sized_on`), how many plans show the engine's total, and how many of them
no line without the GPU could size (`ref.moe_a2a_auto_sized` false); those where it builds
another, how many plans give no bytes and how many show bytes anyway.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.helpers import load_module

# the sibling script by path, so that a `--before` subprocess (another checkout's tests on its
# path) draws and writes the same lines (s66t)
_AUTO = load_module(Path(__file__).resolve().parent / "measure_trtllm_moe_auto.py",
                    "moe_auto_gpu_measure_auto")
ARCHS, QUANTS, TOKENS = _AUTO.ARCHS, _AUTO.QUANTS, _AUTO.TOKENS
hf_file, write_line = _AUTO.hf_file, _AUTO.write_line

GPUS = ["T4", "A10G", "L40S", "RTX4090", "RTX5090", "A100", "H100", "H20", "H200", "B200",
        "GB200", "GB300"]


def emit(lines: list[dict[str, Any]]) -> list[int]:
    """[lines, refused, sized on the GPU, shown exactly, of them sized only with the GPU,
    another backend on the GPU, no bytes given, bytes shown anyway]."""
    from graphfit import plan
    from graphfit.cli.options import build_config
    from graphfit.planner.core.errors import ConfigError

    ref = load_module(Path(__file__).resolve().parent / "trtllm_reference.py",
                      "moe_auto_gpu_trtllm_reference")
    c = [0] * 8
    with tempfile.TemporaryDirectory() as tmp:
        for i, item in enumerate(lines):
            c[0] += 1
            data, quant, words, environ = write_line(Path(tmp), i, item)
            sm = ref.GPU_SM[item["gpu"]]
            try:
                config = build_config({"gpu_memory_gb": item["gpu"]}, environ, words)
            except ConfigError:  # refused: the same line planned without the GPU
                c[1] += 1
                config = build_config({}, environ, words)
            shown = str(dict(plan(config).engine_inputs).get("moe_a2a_workspace"))
            match = re.search(r"payload, (\d+) bytes \([\d.]+ MiB\) in all", shown)
            got = int(match[1]) if match else None
            if ref.moe_a2a_auto_sized_on(item["backend"], item["configurable"], data,
                                         hf_file(quant, ref), sm):
                c[2] += 1
                c[3] += got == ref.moe_a2a_workspace_size(item["tp"], item["top_k"], TOKENS,
                                                          4096, 2)
                c[4] += not ref.moe_a2a_auto_sized(item["backend"], item["configurable"],
                                                   data, hf_file(quant, ref))
            else:
                c[5] += 1
                c[6] += got is None
                c[7] += got is not None
    return c


def _print(label: str, c: list[int]) -> None:
    print(f"{label}: lines {c[0]}, refused {c[1]} (then planned without it); the restated "
          f"workspace on the named GPU {c[2]}, shown exactly {c[3]}/{c[2]} (sized only with "
          f"the GPU: {c[4]}); another backend on it {c[5]}, no bytes given {c[6]}/{c[5]}, "
          f"bytes shown anyway {c[7]}")


def draw_lines(n: int) -> list[dict[str, Any]]:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    out: list[dict[str, Any]] = []

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=True)
    @given(arch=st.sampled_from(ARCHS), quant=st.integers(0, len(QUANTS) - 1),
           backend=st.sampled_from([None, "AUTO"]), top_k=st.integers(1, 8),
           tp=st.sampled_from([2, 4, 8]), configurable=st.sampled_from([None, None, "0"]),
           gpu=st.sampled_from(GPUS))
    def draw(arch: str | None, quant: int, backend: str | None, top_k: int, tp: int,
             configurable: str | None, gpu: str) -> None:
        out.append({"arch": arch, "quant": quant, "backend": backend, "top_k": top_k,
                    "tp": tp, "configurable": configurable, "gpu": gpu})

    draw()
    return out


def main() -> int:
    args = sys.argv[1:]
    from tests.oracle.measure_before import measure

    return measure(__file__, args, "TensorRT-LLM DEP lines on a named GPU over a local MoE "
                   "checkpoint, moe_config backend AUTO or not given", draw_lines, emit, _print)


if __name__ == "__main__":
    raise SystemExit(main())
