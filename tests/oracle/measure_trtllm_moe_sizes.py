"""TensorRT-LLM MoE parallel sizes, measured (not a test;
tests/oracle/test_trtllm_moe_sizes_reference.py is):

    python -m tests.oracle.measure_trtllm_moe_sizes 300 --before /work/main

Draws N LLM-API lines (`moe_lines` of that test: tensor_parallel_size, context_parallel_size,
a cp_config, and each of moe_tensor / moe_expert / moe_cluster_parallel_size absent or one of
1, 2, 3, 4, 8), restates each with this checkout's tests/oracle/trtllm_reference.py
(`moe_mapping`) and plans it with graphfit. Prints, for this checkout and for the graphfit at
`--before` (a subprocess on the same lines): the lines, those the mapping refuses and of them
the ones graphfit refuses with the mapping's reason, and those the mapping accepts (helix
aside, which graphfit refuses as not modelled) and of them the ones graphfit plans.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any


def emit(lines: list[dict[str, Any]]) -> list[int]:
    """[lines, refused by the mapping, of them refused by graphfit with its reason,
    accepted (not helix), of them planned by graphfit]."""
    from graphfit import ConfigError, plan
    from tests.helpers import load_module
    from tests.oracle.test_trtllm_reference import graphfit_config

    ref = load_module(Path(__file__).resolve().parent / "trtllm_reference.py",
                      "moe_trtllm_reference")
    c = [0] * 5
    for raw in lines:
        c[0] += 1
        cp = raw.get("context_parallel_size") or 1
        kind = (raw.get("cp_config") or {}).get("cp_type")
        kind = None if kind is None else kind.upper()
        try:
            ref.moe_mapping(raw, cp, kind)
        except ref.Rejected as exc:
            c[1] += 1
            try:
                plan(graphfit_config(raw))
            except ConfigError as err:
                c[2] += str(exc).split(" (")[0] in str(err)
            continue
        if cp > 1 and kind == "HELIX":
            continue
        c[3] += 1
        try:
            plan(graphfit_config(raw))
        except ConfigError:
            continue
        c[4] += 1
    return c


def _print(label: str, c: list[int]) -> None:
    print(f"{label}: lines {c[0]}; refused by the mapping {c[1]}, by graphfit with its reason "
          f"{c[2]}/{c[1]}; accepted by the mapping (helix aside) {c[3]}, planned by graphfit "
          f"{c[4]}/{c[3]}")


def draw_lines(n: int) -> list[dict[str, Any]]:
    from hypothesis import HealthCheck, Phase, given, settings

    from tests.oracle.test_trtllm_moe_sizes_reference import moe_lines

    out: list[dict[str, Any]] = []

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=True)
    @given(moe_lines())
    def draw(raw: dict[str, Any]) -> None:
        out.append(raw)

    draw()
    return out


def main() -> int:
    args = sys.argv[1:]
    from tests.oracle.measure_before import measure

    return measure(__file__, args, "TensorRT-LLM LLM-API lines with MoE parallel sizes",
                   draw_lines, emit, _print)


if __name__ == "__main__":
    raise SystemExit(main())
