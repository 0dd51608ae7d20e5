"""TensorRT-LLM's fixed sequence slots in `graphfit rehearse`, measured (not a test;
tests/oracle/test_trtllm_capture_offsets_reference.py is):

    python -m tests.oracle.measure_trtllm_fixed_slots 100 --before /work/main

Generates N encoder-decoder configs with fixed sequence slots (T5;
tests/oracle/test_trtllm_encdec_reference.py `encdec_configs`), plans each, captures its
encoder graphs with the rehearsal's toy forward (`KeyedGraphRunner.from_plan`, CPU backend)
and runs every batch of request lengths within the bounds (tokens capped at 12; each
multiset longest first and reversed) that replays a graph. Prints, for this checkout and for
the graphfit at `--before` (a subprocess on the same configs): the lines with graphs, those
whose planned device bytes for the graphs' boundaries equal the engine's `capture_offsets_cuda`
tensors (`trtllm_reference.cite_fact("encdec_capture_offsets")`), the replays, those whose
device token rows and positions are the ones the engine's replay scatters
(`trtllm_reference.slotted_replay`, `cite_fact("encdec_slot_scatter")`), and those equal to
eager.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any


def emit(cfgs: list[list[Any]]) -> list[int]:
    """[lines with graphs, boundary bytes == the engine's, replays, staged rows == the
    engine's, output == eager]."""
    import torch

    from graphfit import EngineConfig, plan
    from graphfit.cudagraph.keyed import KeyedGraphRunner
    from graphfit.cudagraph.rehearsal import KeyedToyForward
    from tests.helpers import load_module
    from tests.oracle.test_trtllm_encdec_reference import _multisets

    # this checkout's restatement of the engine, whichever graphfit is on sys.path
    ref = load_module(Path(__file__).resolve().parent / "trtllm_reference.py",
                      "fixed_slots_trtllm_reference")
    counts = [0, 0, 0, 0, 0]
    gen = torch.Generator().manual_seed(0)
    for sizes, tokens, lengths, padding, S, T, L in cfgs:
        p = plan(EngineConfig.from_dict({
            "engine": "trtllm", "max_num_seqs": 8, "max_num_batched_tokens": max(T, 8),
            "max_model_len": L,
            "options": {"encoder_graph_batch_sizes": sizes, "encoder_graph_padding": padding,
                        "encoder_graph_num_tokens": tokens, "encoder_graph_seq_lens": lengths,
                        "encoder_max_batch_size": S, "encoder_max_num_tokens": T,
                        "encoder_fixed_slots": True}}))
        theirs = ref.encdec_runner_ref(sizes, tokens, lengths, padding, S, T, L, True)
        comp = p.keyed.get("encoder")
        if comp is None or not comp.graph_keys:
            continue
        counts[0] += 1
        planned = sum(b.reference_bytes for b in comp.buffers
                      if b.name == "capture_offsets_cuda")
        engine = sum(len(v) * 4 for v, _ in ref.graph_capture_offsets(theirs).values())
        counts[1] += planned == engine
        runner = KeyedGraphRunner.from_plan(KeyedToyForward(), p)
        runner.capture()
        captured = theirs.captured_keys()
        for m in _multisets(S, min(T, 12), L):
            for lens in {m, m[::-1]}:
                key = theirs.replay_key(list(lens), captured)
                if key is None or theirs.replay_raises(list(lens), captured):
                    continue
                ids = torch.randint(0, 1000, (sum(lens),), generator=gen, dtype=torch.int32)
                with torch.no_grad():
                    got = runner.step(ids, lens)
                    eager = runner.step(ids, lens, eager=True)
                want_ids, want_pos, _, _ = ref.slotted_replay(theirs, key, list(lens),
                                                              ids.tolist(), [0] * key[1])
                counts[2] += 1
                counts[3] += (runner.input_ids[:key[1]].tolist() == want_ids
                              and runner.position_ids[:key[1]].tolist() == want_pos)
                counts[4] += torch.equal(got, eager)
    return counts


def _print(label: str, c: list[int]) -> None:
    print(f"{label}: lines with graphs {c[0]}; boundary bytes == the engine's "
          f"capture_offsets_cuda {c[1]}/{c[0]}; replays {c[2]}; device rows == the engine's "
          f"slot scatter {c[3]}/{c[2]}; output == eager {c[4]}/{c[2]}")


def main() -> int:
    args = sys.argv[1:]
    from tests.oracle.measure_before import measure
    from tests.oracle.trtllm_measure_draws import draw_encdec_configs

    return measure(__file__, args, "fixed-slot encoder-decoder configs", draw_encdec_configs,
                   emit, _print)


if __name__ == "__main__":
    raise SystemExit(main())
