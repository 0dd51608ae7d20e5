"""A toy engine loop: a DFlash-like drafter replayed over graphfit's buffers (seed bug config).

Run: python examples/toy_engine.py [--steps 200] [--compile-backend inductor|aot_eager|none]

EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash"): a full batch
sends a 33 * 4 = 132-token query to the drafter.

1. vLLM-legacy sizing (ladder "vllm-legacy", query buffers S*q = 132 as vLLM's formula had):
   the 132-token query pads to 136. Sliced the naive way, `buf[:136]` is 132 rows and the
   graph compiled for 136 fails with `AssertionError: expected size 132==136`; graphfit's
   buffers with the same capacity refuse at capture time with CapacityError instead.
2. graphfit's plans (ladder "vllm", which captures 132, and "vllm-legacy" with graphfit's 136
   rows): a full-batch burst runs clean -- replay == eager logits every step, and padded
   tokens (slot -1) never write into the KV cache.

Exit status 0 when the failure reproduced and both clean runs were clean, else 1.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping

import torch
from rich.console import Console

import graphfit
from graphfit.cudagraph import CaptureSession, CompiledBackend, GraphRunner, StaticBuffers
from graphfit.cudagraph.progress import capture_progress

SEED = graphfit.EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash",
                            # the seed bug is the V1 runner's: vLLM <= 0.33
                            options=graphfit.VllmOptions(runner="v1"),
                            engine_version="0.33.0")
QUERY_BUFFERS = ("input_ids", "positions", "slot_mapping_buffer")
VOCAB, DIM, SLOTS_PER_REQ = 512, 64, 1024


class ToyDrafter(torch.nn.Module):
    """Random-weight drafter: logits per query token, and a KV-cache write per token.

    Slot -1 (graphfit's sentinel for padded tokens) is redirected to a trash row, the way
    vLLM's reshape_and_cache skips PAD_SLOT_ID -- a zero-filled slot tail would instead
    overwrite request 0's first KV slot on every padded step.
    """

    def __init__(self, num_slots: int) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.emb = torch.nn.Embedding(VOCAB, DIM)
        self.key = torch.nn.Linear(DIM, DIM)
        self.head = torch.nn.Linear(DIM, VOCAB)
        self.register_buffer("kv", torch.zeros(num_slots + 1, DIM))  # last row: trash

    def forward(self, input_ids: torch.Tensor, positions: torch.Tensor,
                slots: torch.Tensor) -> torch.Tensor:
        x = self.emb(input_ids.long()) + torch.sin(positions.unsqueeze(-1).float() / 64.0)
        trash = self.kv.shape[0] - 1
        self.kv.index_copy_(0, torch.where(slots >= 0, slots, trash), self.key(x))
        return self.head(torch.tanh(x))

    def graph_fn(self, views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        return self(views["input_ids"], views["positions"], views["slot_mapping_buffer"])


def query_batch(gen: torch.Generator, context: torch.Tensor, num_reqs: int,
                q: int) -> dict[str, torch.Tensor]:
    """The DFlash query: q tokens per request at the positions after its context."""
    positions = (context[:num_reqs, None] + torch.arange(q)).reshape(-1)
    reqs = torch.arange(num_reqs).repeat_interleave(q)
    return {"input_ids": torch.randint(0, VOCAB, (num_reqs * q,), generator=gen,
                                       dtype=torch.int32),
            "positions": positions,
            "slot_mapping_buffer": reqs * SLOTS_PER_REQ + positions % SLOTS_PER_REQ}


def legacy_failure(compile_backend: str) -> bool:
    """Part 1: reproduce the seed bug both ways; True when it reproduced."""
    legacy = graphfit.plan(SEED.replace(ladder="vllm-legacy"))
    S, q = SEED.max_num_seqs, SEED.uniform_query_len
    padded = legacy.pad(S * q, component="drafter").padded
    vllm_caps = {name: S * q for name in QUERY_BUFFERS}
    tag = f"[vllm-legacy, buffers S*q={S * q}]"
    audit = legacy.verify({f"drafter.{k}": v for k, v in vllm_caps.items()})
    print(f"{tag} a full {S * q}-token query pads to {padded}; plan.verify: "
          f"{audit.ranges()[0].describe() if audit.ranges() else 'ok'}")
    reproduced = padded > S * q and not audit.ok
    model = ToyDrafter(S * SLOTS_PER_REQ)
    if compile_backend != "none":
        good = StaticBuffers.allocate(legacy, "cpu", "drafter")
        views = {name: good.view(name, padded) for name in QUERY_BUFFERS}
        start = time.perf_counter()
        graph = CompiledBackend(compile_backend, dynamic=False).capture(model.graph_fn, views)
        took = time.perf_counter() - start
        naive = {name: torch.zeros(S * q, dtype=views[name].dtype)[:padded]
                 for name in QUERY_BUFFERS}  # vLLM: buffer[:num_input_tokens]
        try:
            out = graph.call_with(naive)
            shape = tuple(out.shape) if isinstance(out, torch.Tensor) else "?"
            print(f"{tag} naive buf[:{padded}] is {S * q} rows; {compile_backend} graph "
                  f"({took:.1f}s to compile) ran silently, output {shape}: wrong, unnoticed")
        except AssertionError as exc:
            first = str(exc).splitlines()[0]
            print(f"{tag} naive buf[:{padded}] is {S * q} rows; {compile_backend} graph for "
                  f"{padded} ({took:.1f}s to compile): AssertionError: {first}")
    buffers = StaticBuffers.allocate(legacy, "cpu", "drafter", capacities=vllm_caps)
    try:
        GraphRunner(model.graph_fn, legacy, buffers)
        print(f"{tag} graphfit runner captured?! (expected CapacityError)")
        reproduced = False
    except graphfit.CapacityError as exc:
        print(f"{tag} graphfit refuses at capture: CapacityError: {exc}")
    return reproduced


def burst(ladder: str, steps: int) -> bool:
    """Part 2: a full-batch burst over graphfit's plan; True when every step was clean."""
    p = graphfit.plan(SEED.replace(ladder=ladder))
    S, q = SEED.max_num_seqs, SEED.uniform_query_len
    buffers = StaticBuffers.allocate(p, "cpu", "drafter")
    graph_model, eager_model = ToyDrafter(S * SLOTS_PER_REQ), ToyDrafter(S * SLOTS_PER_REQ)
    # capture as an engine does: one session (pool, largest first, gc frozen), with a bar
    with capture_progress(Console(stderr=True), f"[{ladder}] capturing") as progress:
        session = CaptureSession("cpu", progress=progress)
        runner = GraphRunner(graph_model.graph_fn, p, buffers,
                             graph_inputs=QUERY_BUFFERS, session=session)
        session.capture()
    gen = torch.Generator().manual_seed(1)
    context = torch.randint(1, 256, (S,), generator=gen)
    worst, full, elapsed = 0.0, 0, 0.0
    for step in range(steps):
        num_reqs = S if step % 5 else int(torch.randint(1, S + 1, (1,), generator=gen))
        full += num_reqs == S
        batch = query_batch(gen, context, num_reqs, q)
        buffers.poison(QUERY_BUFFERS)  # nothing stale may survive into the next replay
        start = time.perf_counter()
        logits = runner.step(batch)
        elapsed += time.perf_counter() - start
        with torch.no_grad():
            ref = eager_model(batch["input_ids"], batch["positions"],
                              batch["slot_mapping_buffer"])
        worst = max(worst, float((logits - ref).abs().max()))
        context[:num_reqs] += torch.randint(1, q + 1, (num_reqs,), generator=gen)
    kv_equal = torch.equal(graph_model.kv[:-1], eager_model.kv[:-1])
    assert runner.capture_stats is not None
    print(f"[{ladder}, graphfit plan] {steps} steps ({full} full-batch: {S * q} tokens -> "
          f"graph {p.pad(S * q, component='drafter').padded}), "
          f"{runner.capture_stats.graphs} graphs, max |graph - eager| = {worst:.2e}, "
          f"KV cache equal: {kv_equal}, {elapsed / steps * 1e6:.0f} us/step")
    return worst <= 1e-5 and kv_equal


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--compile-backend", default="inductor",
                        help="dynamo backend for the seed-bug graph: inductor (asserts sizes, "
                             "~10-30 s to compile), aot_eager (does not), or none")
    args = parser.parse_args(argv)
    reproduced = legacy_failure(args.compile_backend)
    clean = burst("vllm", args.steps) and burst("vllm-legacy", args.steps)
    print(f"seed failure {'REPRODUCED' if reproduced else 'NOT reproduced'}; "
          f"graphfit runs {'CLEAN' if clean else 'NOT clean'}")
    return 0 if reproduced and clean else 1


if __name__ == "__main__":
    raise SystemExit(main())
