"""The class a MoE backend builds without ConfigurableMoE, in TensorRT-LLM's one-sided
all-to-all workspace line, measured (not a test; tests/oracle/test_trtllm_moe_auto_reference.py
`test_legacy_route_classes` is):

    python -m tests.oracle.measure_trtllm_moe_legacy 300 --before /work/main

Draws N lines as tests/oracle/measure_trtllm_moe_auto.py does (a local bf16 checkpoint of a
drawn architecture and quantization, `--tp_size T --ep_size T`, attention DP), all with
ENABLE_CONFIGURABLE_MOE=0 and a `moe_config.backend` drawn from none, AUTO, CUTLASS and the
three backends whose class `get_moe_cls` picks by the quant config (TRTLLM, CUTEDSL,
DENSEGEMM; `ref.cite_fact("moe_legacy_cls")`, issue 23, s67t). For this checkout and for the
graphfit at `--before` (a subprocess on the same lines) it prints: the lines; those where
every class the line may build builds the restated workspace (`ref.moe_a2a_auto_sized`) and
how many plans show the engine's total; the others, how many plans give no bytes for them,
and how many show bytes anyway.
"""

from __future__ import annotations

import sys
from typing import Any

# the AUTO measure's count applies unchanged: it loads the reference from this directory too,
# so `--before` is judged by the same one
from tests.oracle.measure_trtllm_moe_auto import ARCHS, QUANTS, emit

BACKENDS = [None, "AUTO", "CUTLASS", "TRTLLM", "CUTEDSL", "DENSEGEMM"]


def _print(label: str, c: list[int]) -> None:
    print(f"{label}: lines {c[0]}; the restated workspace {c[1]}, shown exactly "
          f"{c[2]}/{c[1]}; another class {c[3]}, no bytes given {c[4]}/{c[3]}, bytes shown "
          f"anyway {c[5]}")


def draw_lines(n: int) -> list[dict[str, Any]]:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    out: list[dict[str, Any]] = []

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=True)
    @given(arch=st.sampled_from(ARCHS), quant=st.integers(0, len(QUANTS) - 1),
           backend=st.sampled_from(BACKENDS), top_k=st.integers(1, 8),
           tp=st.sampled_from([2, 4, 8]))
    def draw(arch: str | None, quant: int, backend: str | None, top_k: int, tp: int) -> None:
        out.append({"arch": arch, "quant": quant, "backend": backend, "top_k": top_k,
                    "tp": tp, "configurable": "0"})

    draw()
    return out


def main() -> int:
    from tests.oracle.measure_before import measure

    return measure(__file__, sys.argv[1:], "TensorRT-LLM DEP lines over a local MoE "
                   "checkpoint without ConfigurableMoE, moe_config backend drawn", draw_lines,
                   emit, _print)


if __name__ == "__main__":
    raise SystemExit(main())
