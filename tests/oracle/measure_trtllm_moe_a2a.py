"""TensorRT-LLM's one-sided MoE all-to-all workspace in the plan, measured (not a test;
tests/oracle/test_trtllm_moe_a2a_reference.py is):

    python -m tests.oracle.measure_trtllm_moe_a2a 300 --before /work/main

Draws N LLM-API lines (`moe_lines` of tests/oracle/test_trtllm_moe_sizes_reference.py), keeps
those the restated mapping accepts (`ref.moe_mapping`, this checkout's
tests/oracle/trtllm_reference.py) and graphfit plans, and prints, for this checkout and for
the graphfit at `--before` (a subprocess on the same lines): the planned lines, those where
the restated CutlassFusedMoE builds the one-sided method (`ref.moe_a2a_one_sided`: attention
DP and moe_tp_size 1; s54t) and of them the plans that show the workspace with the restated
engine's auxiliary bytes and rows (`ref.moe_a2a_offsets`), and the other lines that show
none. `moe_lines` draws no attention DP, so since s54t every line is "not built";
tests/oracle/measure_trtllm_moe_a2a_inputs.py draws lines with it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any


def emit(lines: list[dict[str, Any]]) -> list[int]:
    """[lines, planned, planned with moe_ep_size > 1, of them showing the engine's bytes,
    planned with moe_ep_size 1, of them showing no workspace]."""
    from graphfit import ConfigError, plan
    from tests.helpers import load_module
    from tests.oracle.test_trtllm_reference import graphfit_config

    ref = load_module(Path(__file__).resolve().parent / "trtllm_reference.py",
                      "a2a_trtllm_reference")
    c = [0] * 6
    for raw in lines:
        c[0] += 1
        cp = raw.get("context_parallel_size") or 1
        kind = (raw.get("cp_config") or {}).get("cp_type")
        try:
            sizes = ref.moe_mapping(raw, cp, None if kind is None else kind.upper())
            p = plan(graphfit_config(raw))
        except (ref.Rejected, ConfigError):
            continue
        c[1] += 1
        shown = dict(p.engine_inputs).get("moe_a2a_workspace")
        if not ref.moe_a2a_one_sided(raw, sizes):  # s54t: CutlassFusedMoE's pick
            c[4] += 1
            c[5] += shown is None
            continue
        c[2] += 1
        limit = p.config.max_num_batched_tokens
        aux = ref.moe_a2a_offsets(sizes.ep, limit)["payload_data"]
        match = re.search(r"(\d+) bytes \([\d.]+ MiB\) aux \+ (\d+) rows", shown or "")
        c[3] += bool(match) and (int(match[1]), int(match[2])) == (aux, sizes.ep * limit)
    return c


def _print(label: str, c: list[int]) -> None:
    print(f"{label}: lines {c[0]}, planned {c[1]}; one-sided method built: {c[2]}, "
          f"workspace shown with the engine's aux bytes and rows {c[3]}/{c[2]}; not built: "
          f"{c[4]}, none shown {c[5]}/{c[4]}")


def draw_lines(n: int) -> list[dict[str, Any]]:
    from tests.oracle.measure_trtllm_moe_sizes import draw_lines as moe_draw

    out: list[dict[str, Any]] = moe_draw(n)
    return out


def main() -> int:
    args = sys.argv[1:]
    from tests.oracle.measure_before import measure

    return measure(__file__, args, "TensorRT-LLM LLM-API lines with MoE parallel sizes",
                   draw_lines, emit, _print)


if __name__ == "__main__":
    raise SystemExit(main())
