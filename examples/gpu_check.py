"""GPU check: capture every graph on CUDA, replay == eager on random batches, report cost.

Run: python examples/gpu_check.py [--batches 300] [--cpu]

For the seed config (S=33, k=3, DFlash; vLLM and vLLM-legacy ladders) it allocates the target
and drafter buffers on the GPU, captures all their graphs (largest first, one pool per
runner), then replays random batches -- uniform decode, mixed, above the largest graph, with
the buffers poisoned in between -- and compares each output with the eager, unpadded run.
It prints capture time and graph-pool memory (torch.cuda.memory_reserved delta) per runner.
Takes well under 2 minutes on an H200 (tiny models; the graphs, not the math, are tested).

Then it captures the target and drafter together as an engine does (`CaptureSession`: one
pool, largest first across both, outputs held by weak reference except the last, gc frozen,
a progress bar, per-capture memory from torch.cuda.mem_get_info) and replays both again.

With `--profile-out FILE` it also captures a few explicit ladders (varying both the largest
size and the graph count), each into a fresh pool, and writes the reserved-pool growth as a
graphfit.graph-profile/1 document that `graphfit memory --graph-profile FILE` fits.

Exit status: 0 all replays matched; 1 a mismatch (or any error); 0 with a "SKIP" line when
there is no CUDA device. `--cpu` runs the same checks with the CPU backend (a dry run).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping

import torch

import graphfit
from graphfit.cudagraph import (
    CaptureSession,
    CPUBackend,
    CUDABackend,
    GraphRunner,
    StaticBuffers,
)
from graphfit.cudagraph.progress import capture_progress

SEED = graphfit.EngineConfig(max_num_seqs=33, num_speculative_tokens=3, spec_method="dflash",
                            # the seed bug is the V1 runner's: vLLM <= 0.33
                            options=graphfit.VllmOptions(runner="v1"),
                            engine_version="0.33.0")
VOCAB, DIM = 1024, 256


class Target(torch.nn.Module):
    """Token embedding + a per-request term through query_start_loc / seq_lens (FULL-style)."""

    def __init__(self) -> None:
        super().__init__()
        self.emb = torch.nn.Embedding(VOCAB, DIM)
        self.out = torch.nn.Linear(DIM, DIM)

    def forward(self, views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        ids, qsl, seq_lens = views["input_ids"], views["query_start_loc"], views["seq_lens"]
        tokens = torch.arange(ids.shape[0], device=ids.device)
        req = torch.bucketize(tokens, qsl[1:], right=True).clamp(max=seq_lens.shape[0] - 1)
        x = self.emb(ids.long() % VOCAB) + torch.sin(views["positions"].unsqueeze(-1) / 64.0)
        return self.out(torch.tanh(x + 1e-3 * seq_lens[req].unsqueeze(-1).float()))


class Drafter(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.emb = torch.nn.Embedding(VOCAB, DIM)
        self.head = torch.nn.Linear(DIM, VOCAB)

    def forward(self, views: Mapping[str, torch.Tensor]) -> torch.Tensor:
        x = self.emb(views["input_ids"].long() % VOCAB)
        return self.head(torch.relu(x + torch.cos(views["positions"].unsqueeze(-1) / 64.0)))


def target_batch(gen: torch.Generator, n: int, r: int, dev: torch.device
                 ) -> dict[str, torch.Tensor]:
    cuts = (torch.randperm(n - 1, generator=gen)[:r - 1] + 1).sort().values
    qsl = torch.cat([torch.zeros(1, dtype=torch.int64), cuts, torch.tensor([n])])
    batch = {"input_ids": torch.randint(0, VOCAB, (n,), generator=gen, dtype=torch.int32),
             "positions": torch.randint(0, 4000, (n,), generator=gen),
             "slot_mapping": torch.randint(0, 10**6, (n,), generator=gen),
             "query_start_loc": qsl.to(torch.int32),
             "seq_lens": torch.randint(1, 4000, (r,), generator=gen, dtype=torch.int32)}
    return {k: v.to(dev) for k, v in batch.items()}


def check(ladder: str, component: str, batches: int, dev: torch.device) -> int:
    """Capture one runner, replay random batches; returns the number of mismatches."""
    p = graphfit.plan(SEED.replace(ladder=ladder))
    torch.manual_seed(0)
    model = (Target() if component == "target" else Drafter()).to(dev)
    buffers = StaticBuffers.allocate(p, dev, component)
    cuda = dev.type == "cuda"
    if cuda:
        torch.cuda.synchronize()
    reserved = torch.cuda.memory_reserved() if cuda else 0
    start = time.perf_counter()
    runner = GraphRunner(model, p, buffers, backend=CUDABackend() if cuda else CPUBackend(),
                         graph_inputs=("input_ids", "positions", "slot_mapping",
                                       "query_start_loc", "seq_lens") if component == "target"
                         else ("input_ids", "positions", "slot_mapping_buffer"))
    if cuda:
        torch.cuda.synchronize()
    took = time.perf_counter() - start
    pool = (torch.cuda.memory_reserved() - reserved) / 2**20 if cuda else float("nan")
    gen = torch.Generator().manual_seed(1)
    S, q, T = SEED.max_num_seqs, SEED.uniform_query_len, SEED.max_num_batched_tokens
    bad, worst, graphed = 0, 0.0, 0
    for i in range(batches):
        uniform = component == "target" and i % 3 == 0
        if component == "drafter":
            r = int(torch.randint(1, S + 1, (1,), generator=gen))
            n = r * q
            batch = target_batch(gen, n, r, dev)
            batch = {"input_ids": batch["input_ids"], "positions": batch["positions"],
                     "slot_mapping_buffer": batch["slot_mapping"]}
        else:
            top = p.max_capture_size if i % 4 else T  # some batches run eagerly
            r = int(torch.randint(1, S + 1, (1,), generator=gen))
            n = r * q if uniform else int(torch.randint(r, max(r, top) + 1, (1,), generator=gen))
            batch = target_batch(gen, n, r, dev)
            if uniform:
                batch["query_start_loc"] = torch.arange(0, n + 1, q, dtype=torch.int32,
                                                        device=dev)
        buffers.poison(runner.graph_inputs)
        out = runner.step(batch, uniform_decode=uniform)
        assert isinstance(out, torch.Tensor)
        out = out.clone()  # CUDA outputs are the graph's static tensors
        dispatch = runner.last_dispatch
        graphed += dispatch is not None and dispatch.mode is not graphfit.CUDAGraphMode.NONE
        ref = runner.step(batch, uniform_decode=uniform, eager=True)
        assert isinstance(ref, torch.Tensor)
        err = float((out - ref).abs().max()) if out.numel() else 0.0
        worst = max(worst, err)
        if out.shape != ref.shape or not torch.allclose(out, ref, rtol=1e-4, atol=1e-4):
            bad += 1
            print(f"  MISMATCH {ladder}/{component} batch {i}: n={n} r={r} "
                  f"{runner.last_dispatch} max err {err:.3g}")
    stats = runner.capture_stats
    assert stats is not None
    print(f"{ladder:12s} {component:8s} {stats.graphs:3d} graphs captured in {took:6.2f}s, "
          f"pool {pool:7.1f} MiB, buffers {buffers.total_bytes / 2**20:6.1f} MiB; "
          f"{batches} batches ({graphed} replayed), max |replay - eager| {worst:.2e}, "
          f"{bad} mismatches")
    return bad


def check_session(ladder: str, batches: int, dev: torch.device) -> int:
    """Target and drafter in one CaptureSession with weak outputs; replays == eager."""
    p = graphfit.plan(SEED.replace(ladder=ladder))
    torch.manual_seed(0)
    target, drafter = Target().to(dev), Drafter().to(dev)
    cuda = dev.type == "cuda"
    reserved = torch.cuda.memory_reserved() if cuda else 0
    with capture_progress(description=f"{ladder}: capturing target + drafter") as progress:
        session = CaptureSession(CUDABackend() if cuda else CPUBackend(), progress=progress,
                                 weak_outputs=True)
        t = GraphRunner(target, p, StaticBuffers.allocate(p, dev, "target"), session=session,
                        graph_inputs=("input_ids", "positions", "slot_mapping",
                                      "query_start_loc", "seq_lens"))
        d = GraphRunner(drafter, p, StaticBuffers.allocate(p, dev, "drafter"),
                        session=session,
                        graph_inputs=("input_ids", "positions", "slot_mapping_buffer"))
        report = session.capture()
    pool = (torch.cuda.memory_reserved() - reserved) / 2**20 if cuda else float("nan")
    measured = report.pool_bytes
    gen = torch.Generator().manual_seed(2)
    S, q = SEED.max_num_seqs, SEED.uniform_query_len
    bad, worst = 0, 0.0
    for i in range(batches):
        r = int(torch.randint(1, S + 1, (1,), generator=gen))
        batch = target_batch(gen, r * q, r, dev)
        for runner, inputs in ((t, batch), (d, {"input_ids": batch["input_ids"],
                                                "positions": batch["positions"],
                                                "slot_mapping_buffer": batch["slot_mapping"]})):
            out = runner.step(inputs)
            assert isinstance(out, torch.Tensor)
            out = out.clone()
            ref = runner.step(inputs, eager=True)
            assert isinstance(ref, torch.Tensor)
            worst = max(worst, float((out - ref).abs().max()))
            if not torch.allclose(out, ref, rtol=1e-4, atol=1e-4):
                bad += 1
                print(f"  MISMATCH session {ladder}/{runner.component} batch {i}: r={r}")
    mib = f"{measured / 2**20:7.1f} MiB" if measured is not None else "not measured"
    print(f"{ladder:12s} session  {len(report.events):3d} graphs (target + drafter, one pool) "
          f"in {report.seconds:6.2f}s, mem_get_info {mib}, reserved {pool:7.1f} MiB; "
          f"{batches} x 2 batches, max |replay - eager| {worst:.2e}, {bad} mismatches")
    return bad


PROFILE_LADDERS: tuple[tuple[int, ...], ...] = (
    (64,), (256,), (512,), tuple(range(8, 257, 8)), tuple(range(16, 513, 16)),
    tuple(range(32, 513, 32)),
)


def profile_pool(dev: torch.device) -> dict[str, object]:
    """Pool bytes reserved by capturing each PROFILE_LADDERS ladder (largest first, one pool)."""
    samples = []
    for sizes in PROFILE_LADDERS:
        config = graphfit.EngineConfig(max_num_seqs=64, cudagraph_mode="PIECEWISE",
                                       ladder="explicit", cudagraph_capture_sizes=sizes)
        p = graphfit.plan(config)
        torch.manual_seed(0)
        model = Target().to(dev)
        buffers = StaticBuffers.allocate(p, dev, "target")
        cuda = dev.type == "cuda"
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.empty_cache()
        before = torch.cuda.memory_reserved() if cuda else 0
        runner = GraphRunner(model, p, buffers,
                             backend=CUDABackend() if cuda else CPUBackend(),
                             graph_inputs=("input_ids", "positions", "slot_mapping",
                                           "query_start_loc", "seq_lens"))
        if cuda:
            torch.cuda.synchronize()
        grown = (torch.cuda.memory_reserved() - before) if cuda else 0
        samples.append({"sizes": list(sizes), "pool_bytes": int(grown)})
        print(f"profile: {len(sizes):3d} graphs, largest {sizes[-1]:4d}: pool "
              f"{grown / 2**20:7.1f} MiB")
        del runner, buffers, model
    return {
        "schema": "graphfit.graph-profile/1",
        "device": torch.cuda.get_device_name() if dev.type == "cuda" else "cpu (dry run)",
        "torch": torch.__version__, "dtype": "float32", "model": f"gpu_check.Target dim {DIM}",
        "samples": samples,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=300)
    parser.add_argument("--cpu", action="store_true", help="dry run with the CPU backend")
    parser.add_argument("--profile-out", metavar="FILE",
                        help="also write a graphfit.graph-profile/1 pool-memory profile")
    args = parser.parse_args(argv)
    if args.cpu:
        dev = torch.device("cpu")
    elif torch.cuda.is_available():
        dev = torch.device("cuda")
        torch.backends.cuda.matmul.allow_tf32 = False
        print(f"device: {torch.cuda.get_device_name()} (torch {torch.__version__}, "
              f"CUDA {torch.version.cuda})")
    else:
        print(f"SKIP: no CUDA device (torch {torch.__version__}, cuda available: False); "
              f"nothing checked. Use --cpu for a dry run.")
        return 0
    bad = 0
    for ladder in ("vllm", "vllm-legacy"):
        for component in ("target", "drafter"):
            bad += check(ladder, component, args.batches, dev)
        bad += check_session(ladder, args.batches // 3, dev)
    if args.profile_out:
        with open(args.profile_out, "w") as out:
            json.dump(profile_pool(dev), out, indent=2)
        print(f"profile written to {args.profile_out}")
    print("OK: every replay matched eager" if not bad else f"FAIL: {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
