"""TensorRT-LLM context-parallel lines, measured (not a test;
tests/oracle/test_trtllm_context_parallel_reference.py is):

    python -m tests.oracle.measure_trtllm_context_parallel 300 --before /work/main

Draws N LLM-API lines (`cp_lines` of that test: context_parallel_size None/1/2/4/8, a
cp_config with no cp_type or one of the CpType names in several spellings, graphs on, off or
listed, MTP or not, sometimes a moe_expert_parallel_size), restates each with this
checkout's tests/oracle/trtllm_reference.py (`model_engine`, `context_parallel`) and plans it
with graphfit. Prints, for this checkout and
for the graphfit at `--before` (a subprocess on the same lines): the lines, those whose
context-parallel rank captures nothing in the engine (cp > 1, not helix), how many of those
graphfit plans, the lines planned with the engine's captured sizes, the reachable generation
batches and those dispatched as the engine does, the lines whose every buffer has the
engine's elements, the helix lines refused naming helix, and the lines the mapping refuses
(MoE EP beside non-helix CP) refused by graphfit with the mapping's reason. Since s48t also
each helix line with enable_attention_dp false and true, and how many graphfit refuses with
the reason `helix_reason` gives (what the helix rank runs).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any


def emit(lines: list[dict[str, Any]]) -> list[int]:
    """[lines, non-capturing CP lines, of them planned, ladder agrees, batches, dispatch
    agrees, buffers agree, helix lines, helix refused naming helix, lines the mapping
    refuses, of them refused with its reason, helix lines with and without attention DP, of
    them refused with the reference's reason (`helix_reason`, s48t)]."""
    from graphfit import ConfigError, plan
    from tests.helpers import load_module
    from tests.oracle.test_trtllm_reference import graph_sizes, graphfit_config, graphfit_dispatch

    # this checkout's restatement of the engine, whichever graphfit is on sys.path
    ref = load_module(Path(__file__).resolve().parent / "trtllm_reference.py",
                      "cp_trtllm_reference")
    c = [0] * 13
    for raw in lines:
        c[0] += 1
        engine = ref.model_engine(ref.llm_args(raw))
        try:
            theirs = ref.context_parallel(raw, engine)
        except ref.Rejected as exc:  # the mapping refuses the MoE sizes (beside CP or not)
            c[9] += 1
            c[10] += refused_naming(raw, str(exc))
            continue
        except ref.NotModelled:
            c[7] += 1
            c[8] += refused_naming(raw, "helix")
            for adp in (False, True):  # each helix line also under attention DP
                line = {**raw, "enable_attention_dp": adp}
                c[11] += 1
                try:
                    ref.context_parallel(line, engine)
                except ref.NotModelled as exc:
                    c[12] += refused_naming(line, str(exc))
            continue
        c[1] += not theirs.captures
        try:
            p = plan(graphfit_config(raw))
        except ConfigError:
            c[4] += len(engine.reachable_generation_batches())
            continue
        c[2] += not theirs.captures
        c[3] += graph_sizes(p) == theirs.captured_sizes
        batches = engine.reachable_generation_batches()
        c[4] += len(batches)
        c[5] += sum(graphfit_dispatch(p, b) == theirs.dispatch(b) for b in batches)
        got = element_counts(p)
        c[6] += all(got.get(k, 0) == v for k, v in theirs.buffers().items())
    return c


def refused_naming(raw: dict[str, Any], reason: str) -> bool:
    """Whether graphfit refuses the line with `reason` in its message (a plan is not)."""
    from graphfit import ConfigError, plan
    from tests.oracle.test_trtllm_reference import graphfit_config

    try:
        plan(graphfit_config(raw))
    except ConfigError as exc:
        return reason in str(exc)
    return False


def element_counts(p: Any) -> dict[str, int]:
    """The target's buffers as elements (rows x the other dims), the reference's unit.
    Here, not in the test module, since `emit` also runs in a `--before` checkout whose
    tests package may lack that module; the test imports it from here."""
    out = {}
    for b in p.components["target"].buffers:
        elems = b.reference_capacity
        for dim in b.shape[:b.axis_dim] + b.shape[b.axis_dim + 1:]:
            elems *= dim
        out[b.name] = elems
    return out


def _print(label: str, c: list[int]) -> None:
    print(f"{label}: lines {c[0]}; CP ranks that capture nothing {c[1]}, planned {c[2]}/"
          f"{c[1]}; captured sizes == the engine's {c[3]}/{c[0] - c[7] - c[9]}; generation batches "
          f"dispatched as the engine {c[5]}/{c[4]}; buffers == the engine's {c[6]}/"
          f"{c[0] - c[7] - c[9]}; helix refused naming it {c[8]}/{c[7]}; refused by the "
          f"mapping (its MoE sizes) {c[9]}, by graphfit with its reason {c[10]}/{c[9]}"
          + (f"; helix lines with and without attention DP {c[11]}, refused with the "
             f"rank's reason {c[12]}/{c[11]}" if len(c) > 11 else ""))


def draw_lines(n: int) -> list[dict[str, Any]]:
    from hypothesis import HealthCheck, Phase, given, settings

    from tests.oracle.test_trtllm_context_parallel_reference import cp_lines

    out: list[dict[str, Any]] = []

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=True)
    @given(cp_lines())
    def draw(raw: dict[str, Any]) -> None:
        out.append(raw)

    draw()
    return out


def main() -> int:
    args = sys.argv[1:]
    from tests.oracle.measure_before import measure

    return measure(__file__, args, "TensorRT-LLM LLM-API lines with context_parallel_size",
                   draw_lines, emit, _print)


if __name__ == "__main__":
    raise SystemExit(main())
