"""Which captured bucket a prefill-CP batch replays (issue 23 s60r): SGLang 0.5.23's own choice
vs graphfit's.

SGLang's side runs, under the published record (sglang_oracle.published) with attention CP
rank 0 stated, the runner's CP gate and choice as they run in a worker: `is_cp_active` (layers/
cp/utils.py:121-135) on an EXTEND batch, then the strategy input's
`select_replay_bucket_for_batch` (bcg/bcg.py:137-176; prefill_cuda_graph_runner.py:1478-1491)
over the kept buckets. Each bucket's CP-local rows are taken as `prepare` takes them at
capture (bcg.py:217-231): the capture batch (the bucket split into requests of at most the
model's context length, `capture_prepare`, prefill_cuda_graph_runner.py:1520-1536, restated)
through SGLang's own `prepare_cp_forward` and the strategy's `shard_hidden_states`, on CPU
tensors (the metadata's device read is pointed at the CPU).

graphfit's side: `PrefillGraphs.replays_cp` of the plan's config, and for one-request batches
the plan's prefill dispatch table (`lookup`), which must give the same bucket or eager."""

from __future__ import annotations

import random
import types
from typing import Any

from tests.oracle import sglang_dcp_oracle as dc
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_prefill_cp_bcg_oracle as bo
from tests.oracle import sglang_prefill_cp_oracle as cp
from tests.oracle import sglang_prefill_oracle as po

Batch = tuple[int, ...]


def batches(cp_size: int, top: int, count: int, seed: int) -> list[Batch]:
    """`count` extend batches (request lengths) around the CP gate and the buckets: one
    request of 1..top + 1 tokens, equal requests just past a block, and several short or
    uneven requests."""
    rng = random.Random(seed)
    least = 2 * cp_size
    out: list[Batch] = [(1,), (least - 1,), (least,), (least + 1,), (top,), (top + 1,),
                        # equal requests one past a zigzag block: every rank's share rounds
                        # up, so the bucket may lie above the token count's
                        *((least + 1,) * k for k in (2, 3, 5))]
    while len(out) < count:
        reqs = rng.choice((1, 1, 2, 3, 5))
        spread = rng.choice((least + 3, top // max(reqs, 1) + 2, 3 * least))
        out.append(tuple(rng.randint(max(1, least - 2), max(least, spread))
                         for _ in range(reqs)))
    return out


def sglang_choices(case: bo.Case, lens: list[Batch]) -> dict[Batch, int | None] | None:
    """SGLang's replayed bucket (None: eager) for each batch; None where the line has no CP
    graphs (refused, or another backend)."""
    argv, gpu, model = case
    gb, capability = dc.GPUS[gpu]
    with pc.environment(None):
        sg = po.prefill(argv, gb, cp.model_dir(model), capability)
        if isinstance(sg, so.Rejected) or "cp_bcg_positions" not in sg.buffers:
            return None
        r = so.resolve(argv, gpu_mem_gb=gb, model=cp.model_dir(model), capability=capability)
    assert isinstance(r, so.Resolved)
    import torch

    with so.published(r):
        from sglang.srt.runtime_context import get_parallel

        with get_parallel().override(attn_cp_rank=0):
            return _choices(r, sg, lens, torch)


def _choices(r: so.Resolved, sg: po.SglangPrefill, lens: list[Batch], torch: Any
             ) -> dict[Batch, int | None]:
    """`sglang_choices` under the published record, CP rank 0 stated."""
    from sglang.srt.arg_groups.model_override_base import model_config_of
    from sglang.srt.layers.cp import base, zigzag
    from sglang.srt.layers.cp.bcg.bcg import PrefillCPBCGInput
    from sglang.srt.layers.cp.utils import is_cp_active, prepare_cp_forward
    from sglang.srt.model_executor.forward_batch_info import ForwardMode
    from sglang.srt.model_executor.runner import prefill_cuda_graph_runner as pr

    base._STRATEGY = None  # a fresh worker binds it from the published bags
    saved = zigzag.get_device
    zigzag.get_device = lambda: types.SimpleNamespace(device="cpu")
    try:
        mc = model_config_of(r.record)
        stand_in = types.SimpleNamespace(device="meta", max_num_tokens=max(sg.captured),
                                         model_runner=types.SimpleNamespace(
                                             model_config=mc, dtype=mc.dtype))
        made = PrefillCPBCGInput.create(stand_in)
        strategy = base.get_cp_strategy()
        assert strategy is not None

        def batch(seq: Batch) -> Any:
            n = sum(seq)
            return types.SimpleNamespace(
                forward_mode=ForwardMode.EXTEND, input_ids=torch.zeros(n, dtype=torch.int64),
                extend_seq_lens_cpu=list(seq), seq_lens_cpu=list(seq),
                attn_cp_metadata=None, global_num_tokens_cpu=None, out_cache_loc=None)

        ctx = int(mc.context_len)
        for bucket in sg.captured:  # capture_prepare's requests, then prepare's rows
            capture = tuple(min(ctx, bucket - s) for s in range(0, bucket, ctx))
            fb = batch(capture)
            prepare_cp_forward(fb)
            made.bucket_local_tokens[bucket] = int(
                strategy.shard_hidden_states(torch.zeros(bucket, 1), fb).shape[0])
        out: dict[Batch, int | None] = {}
        for seq in lens:
            fb = batch(seq)
            out[seq] = None if not is_cp_active(fb) else made.select_replay_bucket_for_batch(
                num_tokens=sum(seq), extend_seq_lens=list(seq),
                capture_num_tokens=list(sg.captured),
                max_padding_factor=pr._MAX_PREFILL_CUDA_GRAPH_PADDING_FACTOR)
        return out
    finally:
        zigzag.get_device = saved
        base._STRATEGY = None


def compare(case: bo.Case, count: int = 24, seed: int = 0
            ) -> tuple[str, list[str], int]:
    """("agree" | "differs" | "no CP graphs", the differences, batches compared)."""
    from graphfit.planner.core.enums import CUDAGraphMode
    from graphfit.planner.engines.sglang_prefill_plan import prefill_graphs

    gf, _ = dc.graphfit_answer(case)
    if gf.plan is None:
        return "no CP graphs", [], 0
    graphs = prefill_graphs(gf.plan.config)
    if graphs.cp_bcg is None:
        return "no CP graphs", [], 0
    lens = batches(graphs.cp_size, graphs.captured[-1], count, seed)
    theirs = sglang_choices(case, lens)
    if theirs is None:
        return "differs", [f"graphfit captures CP graphs {graphs.captured}; SGLang none"], 0
    tables = gf.plan.components["prefill"].tables
    diffs = []
    for seq in lens:
        ours = graphs.replays_cp(seq)
        if ours != theirs[seq]:
            diffs.append(f"{seq}: SGLang {theirs[seq]}, graphfit {ours}")
        if len(seq) == 1 and seq[0] <= graphs.captured[-1]:
            hit = tables.lookup(seq[0], num_reqs=1)
            table = None if hit.mode is CUDAGraphMode.NONE else hit.padded
            if table != theirs[seq]:
                diffs.append(f"{seq}: SGLang {theirs[seq]}, graphfit's table {table}")
    return ("differs" if diffs else "agree"), diffs, len(lens)
