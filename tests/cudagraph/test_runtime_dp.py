"""Data-parallel padding agreement over two gloo processes on the CPU (~5 s: process start-up).

Invariants, not a copy of the algorithm: both ranks end on the same (mode, padded); the mode
is the lowest-ranked of the ranks' own modes; unless it is NONE the padded size is the largest
of the ranks' own, it holds every rank's batch and is a fixed point of the plan's table; with
NONE each rank runs its own tokens unpadded. Each rank then replays its graph and the outputs
equal eager.
"""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist

from graphfit import CUDAGraphMode, plan
from graphfit.cudagraph import GraphRunner, StaticBuffers, sync_dp_padding
from tests.cudagraph.runtime_models import SMALL, TinyTarget, target_batch

Q = SMALL.uniform_query_len
# per scenario: (num_tokens, num_reqs, uniform_decode) on rank 0 and on rank 1
SCENARIOS: list[tuple[tuple[int, int, bool], tuple[int, int, bool]]] = [
    ((5, 2, False), (12, 3, True)),     # PIECEWISE 8 vs FULL 16 (uniform 12) -> PIECEWISE 16
    ((8, 2, True), (24, 6, True)),      # both FULL decode -> FULL at the larger size
    ((3, 1, False), (200, 8, False)),   # rank 1 is above the largest graph -> all eager
    ((4, 1, True), (30, 7, False)),     # FULL vs PIECEWISE -> PIECEWISE 32
    ((32, 8, True), (1, 1, False)),
]
TIMEOUT_S = 60


def _worker(rank: int, store: str, out: Any) -> None:
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=2)
    try:
        p = plan(SMALL)
        bufs = StaticBuffers.allocate(p, "cpu", "target")
        model = TinyTarget()
        runner = GraphRunner(model.graph_fn, p, bufs)
        gen = torch.Generator().manual_seed(rank)
        results = []
        for scenario in SCENARIOS:
            n, r, uniform = scenario[rank]
            local = p.pad(n, uniform_decode=uniform, num_reqs=r)
            agreed = sync_dp_padding(local, None, plan=p, num_tokens=n, uniform_decode=uniform)
            batch = target_batch(gen, n, r)
            if uniform:
                batch["query_start_loc"] = torch.arange(0, n + 1, Q, dtype=torch.int32)
            got = runner.step(batch, uniform_decode=uniform, dispatch=agreed)
            ref = model(batch["input_ids"], batch["positions"], batch["query_start_loc"],
                        batch["seq_lens"])
            results.append((local, agreed, bool(torch.allclose(got, ref, atol=1e-5))))
        out.put((rank, results))
    finally:
        dist.destroy_process_group()


def test_two_gloo_ranks_agree_on_mode_and_padding(tmp_path: Path) -> None:
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    store = str(tmp_path / "store")
    procs = [ctx.Process(target=_worker, args=(rank, store, queue)) for rank in (0, 1)]
    for proc in procs:
        proc.start()
    try:
        got = dict(queue.get(timeout=TIMEOUT_S) for _ in procs)
    finally:
        for proc in procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.kill()
    assert [proc.exitcode for proc in procs] == [0, 0]
    p = plan(SMALL)
    for i, scenario in enumerate(SCENARIOS):
        (l0, a0, ok0), (l1, a1, ok1) = got[0][i], got[1][i]
        assert ok0 and ok1, scenario
        assert a0.mode is a1.mode, scenario
        mode = min((l0.mode, l1.mode), key=lambda m: m.rank)
        assert a0.mode.rank == mode.rank, scenario
        if mode is CUDAGraphMode.NONE:
            assert (a0.padded, a1.padded) == (scenario[0][0], scenario[1][0])
            continue
        assert a0.padded == a1.padded == max(l0.padded, l1.padded), scenario
        assert a0.padded >= max(scenario[0][0], scenario[1][0])
        assert p.pad(a0.padded).padded == a0.padded


def test_without_a_process_group_the_dispatch_is_unchanged() -> None:
    assert not dist.is_initialized()
    p = plan(SMALL)
    d = p.pad(5)
    assert sync_dp_padding(d, plan=p, num_tokens=5) is d
