"""The fixed-slot encoder-decoder graphs' shared device lengths, measured (not a test;
tests/oracle/test_trtllm_shared_seq_lens_reference.py is):

    python -m tests.oracle.measure_trtllm_shared_lengths 100 --before /work/main

Generates N encoder-decoder configs with fixed sequence slots (T5;
tests/oracle/test_trtllm_encdec_reference.py `encdec_configs`), plans each, captures its
encoder graphs with the rehearsal's toy forward (`KeyedGraphRunner.from_plan`, CPU backend)
and runs every batch of request lengths within the bounds (tokens capped at 12; each multiset
longest first and reversed), shuffled so consecutive replays change keys, with graphfit's one
`seq_lens_cuda` poisoned before each step. The engine is restated with one tensor per key
(`trtllm_reference.GraphSeqLensRef`: `cite_fact("graph_metadata_fresh_seq_lens")`,
`cite_fact("seq_lens_setter")`). Prints, for this checkout and for the graphfit at `--before`
(a subprocess on the same configs): the lines with captured graphs, the replays, those whose
rows the graph read equal the engine's per-key tensor after its refill, those equal to eager,
and those where the engine's tensor held stale lengths before the refill.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any


def emit(cfgs: list[list[Any]]) -> list[int]:
    """[lines with graphs, replays, rows read == the engine's tensor, output == eager,
    engine tensor stale before the refill]."""
    import torch

    from graphfit import EngineConfig, plan
    from graphfit.cudagraph.keyed import KeyedGraphRunner
    from graphfit.cudagraph.rehearsal import KeyedToyForward
    from tests.helpers import load_module
    from tests.oracle.test_trtllm_encdec_reference import _multisets

    # this checkout's restatement of the engine, whichever graphfit is on sys.path
    ref = load_module(Path(__file__).resolve().parent / "trtllm_reference.py",
                      "shared_lengths_trtllm_reference")
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
        captured = theirs.captured_keys()
        if not captured:
            continue
        counts[0] += 1
        runner = KeyedGraphRunner.from_plan(KeyedToyForward(), p)
        runner.capture()
        engine = ref.GraphSeqLensRef(sorted(captured))
        batches = [order for m in _multisets(S, min(T, 12), L) for order in {m, m[::-1]}]
        random.Random(len(captured)).shuffle(batches)
        for lens in batches:
            key = theirs.replay_key(list(lens), captured)
            if key is None or theirs.replay_raises(list(lens), captured):
                continue
            ids = torch.randint(0, 1000, (sum(lens),), generator=gen, dtype=torch.int32)
            _, _, slot_lens, _ = ref.slotted_replay(theirs, key, list(lens), ids.tolist(),
                                                    [0] * key[1])
            before, read = engine.replay(key, slot_lens)
            with torch.no_grad():
                if runner.seq_lens_cuda is not None:
                    runner.seq_lens_cuda.fill_(-7)
                got = runner.step(ids, lens)
                mine = (None if runner.seq_lens_cuda is None
                        else runner.seq_lens_cuda[:key[0]].tolist())
                eager = runner.step(ids, lens, eager=True)
            counts[1] += 1
            counts[2] += mine == read
            counts[3] += torch.equal(got, eager)
            counts[4] += before != read
    return counts


def _print(label: str, c: list[int]) -> None:
    print(f"{label}: lines with graphs {c[0]}; replays {c[1]} (engine tensor stale before "
          f"its refill {c[4]}); rows read == the engine's per-key tensor {c[2]}/{c[1]}; "
          f"output == eager {c[3]}/{c[1]}")


def main() -> int:
    args = sys.argv[1:]
    from tests.oracle.measure_before import measure
    from tests.oracle.trtllm_measure_draws import draw_encdec_configs

    return measure(__file__, args, "fixed-slot encoder-decoder configs", draw_encdec_configs,
                   emit, _print)


if __name__ == "__main__":
    raise SystemExit(main())
