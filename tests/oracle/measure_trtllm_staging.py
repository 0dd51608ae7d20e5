"""Token-mode host staging in `graphfit rehearse`, measured (not a test;
tests/cudagraph/test_runtime_host_staging.py is):

    python -m tests.oracle.measure_trtllm_staging 100 --before /work/main

Generates N TensorRT-LLM encoder-only lines (tests/oracle/test_trtllm_encoder_reference.py
`encode_args`), plans each, captures its encoder graphs with the rehearsal's toy forward
(`KeyedGraphRunner.from_plan`, CPU backend) and replays each captured key's witness batch
with random ids, the device and host buffers poisoned first. Prints, for this checkout and
for the graphfit at `--before` (run in a subprocess on the same lines): the replays, those
that went through host staging copies the plan declares, and those whose device rows equal
the rows the engine's replay stages (`trtllm_reference.token_mode_staged_rows`), and whose
output equals the eager run; then those whose graph, replayed alone after a second batch of
the same lengths was written in the host copy only, ran on that batch (the host-to-device
copy recorded in the graph, as the engine's `capture_h2d`), and the lines whose positions
come from the plan's arange buffer. Since issue 23 (s37t): the replays whose graphs' device
lengths (`seq_lens_cuda`, the engine's per-key `_seq_lens_cuda`) hold the batch's lengths
then 1 per dummy (`trtllm_reference.cite_fact("encoder_graph_seq_lens_cuda")`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings


def emit(lines: list[dict[str, Any]]) -> list[int]:
    """[replays, through host copies, staged rows == the engine's, output == eager, the H2D
    copy recorded in the graph, lines, lines with positions from the plan's arange]."""
    import torch

    from graphfit import ConfigError, plan
    from graphfit.cudagraph import CaptureSession
    from graphfit.cudagraph.keyed import KeyedGraphRunner
    from graphfit.cudagraph.rehearsal import KeyedToyForward
    from tests.helpers import load_module
    from tests.oracle.test_trtllm_reference import graphfit_config

    # this checkout's restatement of the engine, whichever graphfit is on sys.path
    ref = load_module(Path(__file__).resolve().parent / "trtllm_reference.py",
                      "staging_trtllm_reference")

    counts = [0, 0, 0, 0, 0, 0, 0, 0]
    gen = torch.Generator().manual_seed(0)
    for raw in lines:
        try:
            p = plan(graphfit_config(raw))
        except ConfigError:
            continue
        comp = p.keyed.get("encoder")
        if comp is None or not comp.graph_keys:
            continue
        session = CaptureSession("cpu", freeze_gc=False)
        runner = KeyedGraphRunner.from_plan(KeyedToyForward(), p, session=session)
        session.capture()
        staging = getattr(runner, "staging", {})
        counts[5] += 1
        counts[6] += getattr(runner, "arange", None) is not None
        for key in sorted(runner.graphs):
            lens = list(comp.probe(key))
            ids = torch.randint(0, 1000, (sum(lens),), generator=gen, dtype=torch.int32)
            lengths = getattr(runner, "seq_lens_cuda", None)
            for tensor in (runner.input_ids, runner.position_ids, *staging.values(),
                           *([] if lengths is None else [lengths])):
                tensor.fill_(-1)
            with torch.no_grad():
                got = runner.step(ids, lens)
                if runner.last_key != key:
                    continue
                ref_out = runner.step(ids, lens, eager=True)
            rows = runner.dispatch.rows(key)
            want = ref.token_mode_staged_rows(rows, ids.tolist(), lens)
            counts[0] += 1
            counts[1] += bool(staging)
            counts[2] += (runner.input_ids[:rows].tolist() == want["input_ids"]
                          and runner.position_ids[:rows].tolist() == want["position_ids"])
            counts[3] += torch.equal(got, ref_out)
            counts[7] += lengths is not None and lengths[:key[0]].tolist() == [
                *lens, *[1] * (key[0] - len(lens))]
            if "input_ids" in staging:  # a second batch in the host copy only, then replay
                second = ids + 1
                staging["input_ids"][0, :len(ids)].copy_(second)
                with torch.no_grad():
                    out = runner.graphs[key].replay()
                    want_out = runner.step(second, lens, eager=True)
                counts[4] += torch.equal(out[:len(ids)], want_out)
    return counts


def _draw(n: int) -> list[dict[str, Any]]:
    from tests.oracle.test_trtllm_encoder_reference import encode_args

    lines: list[dict[str, Any]] = []

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), derandomize=True)
    @given(encode_args())
    def draw(raw: dict[str, Any]) -> None:
        lines.append(raw)

    draw()
    return lines


def _print(label: str, c: list[int]) -> None:
    print(f"{label}: replays {c[0]}; through the plan's host staging copies {c[1]}/{c[0]}; "
          f"device rows == the engine's staged rows {c[2]}/{c[0]}; output == eager "
          f"{c[3]}/{c[0]}; H2D copy recorded in the graph {c[4]}/{c[0]}; positions from "
          f"the plan's arange on {c[6]}/{c[5]} lines; graphs' device lengths == the "
          f"engine's {c[7] if len(c) > 7 else 0}/{c[0]}")


def main() -> int:
    args = sys.argv[1:]
    from tests.oracle.measure_before import measure

    return measure(__file__, args, "encoder-only lines", _draw, emit, _print)


if __name__ == "__main__":
    raise SystemExit(main())
