"""Whether SGLang 0.5.23's prefill runner captures a zigzag line's CP graphs (issue 23 s62p):
SGLang's own capture assert vs graphfit's refusal.

SGLang's side, under the published record with attention CP rank 0 stated (as
sglang_prefill_cp_replay_oracle does): for each kept bucket, largest first as the runner
captures them (prefill_cuda_graph_runner.py:1715-1736), the capture batch (the bucket split
into requests of at most the model's context length, `capture_prepare`, :1520-1536, restated)
goes through SGLang's own `prepare_cp_forward` (layers/cp/utils.py:148-150), which
`PrefillCPBCGInput.prepare` runs first (bcg/bcg.py:190). The first bucket whose batch fails
its `assert is_cp_active` is the one the server dies on.

graphfit's side: the pasted line's plan, or its refusal naming that bucket."""

from __future__ import annotations

import re
import types

from tests.oracle import sglang_dcp_oracle as dc
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_prefill_cp_bcg_oracle as bo
from tests.oracle import sglang_prefill_cp_oracle as cp
from tests.oracle import sglang_prefill_oracle as po

FAILS = re.compile(r"capture fails .* bucket (\d+) at context length")


def sglang_failing_bucket(case: bo.Case) -> int | str | None:
    """The first bucket whose capture fails SGLang's assert; None: every bucket captures;
    "no CP graphs" where the line builds none (refused before, or another backend)."""
    argv, gpu, model = case
    gb, capability = dc.GPUS[gpu]
    with pc.environment(None):
        sg = po.prefill(argv, gb, cp.model_dir(model), capability)
        if isinstance(sg, so.Rejected) or "cp_bcg_positions" not in sg.buffers:
            return "no CP graphs"
        r = so.resolve(argv, gpu_mem_gb=gb, model=cp.model_dir(model), capability=capability)
    assert isinstance(r, so.Resolved)
    import torch

    with so.published(r):
        from sglang.srt.runtime_context import get_parallel

        with get_parallel().override(attn_cp_rank=0):
            return _first_failure(r, sg, torch)


def _first_failure(r: so.Resolved, sg: po.SglangPrefill, torch: types.ModuleType) -> int | None:
    from sglang.srt.arg_groups.model_override_base import model_config_of
    from sglang.srt.layers.cp import base, zigzag
    from sglang.srt.layers.cp.utils import prepare_cp_forward
    from sglang.srt.model_executor.forward_batch_info import ForwardMode

    base._STRATEGY = None  # a fresh worker binds it from the published bags
    saved = zigzag.get_device
    zigzag.get_device = lambda: types.SimpleNamespace(device="cpu")
    try:
        ctx = int(model_config_of(r.record).context_len)
        for bucket in reversed(sg.captured):
            seq = [min(ctx, bucket - s) for s in range(0, bucket, ctx)]
            fb = types.SimpleNamespace(
                forward_mode=ForwardMode.EXTEND,
                input_ids=torch.zeros(bucket, dtype=torch.int64), extend_seq_lens_cpu=seq,
                seq_lens_cpu=seq, attn_cp_metadata=None, global_num_tokens_cpu=None,
                out_cache_loc=None)
            try:
                prepare_cp_forward(fb)
            except AssertionError:
                return bucket
        return None
    finally:
        zigzag.get_device = saved
        base._STRATEGY = None


def graphfit_failing_bucket(case: bo.Case) -> int | str | None:
    """graphfit's answer in the same terms: the bucket its refusal names, None where it plans
    CP graphs, "no CP graphs" where it plans none or refuses otherwise (whether SGLang refuses
    those lines too is sglang_prefill_cp_bcg_oracle's comparison)."""
    from graphfit.planner.engines.sglang_prefill_plan import prefill_graphs

    gf, _ = dc.graphfit_answer(case)
    if gf.plan is None:
        hit = FAILS.search(gf.rejected or "")
        return int(hit.group(1)) if hit else "no CP graphs"  # refused otherwise
    return None if prefill_graphs(gf.plan.config).cp_bcg is not None else "no CP graphs"


def compare(case: bo.Case) -> tuple[str, str]:
    """("agree" | "differs", a description)."""
    theirs, ours = sglang_failing_bucket(case), graphfit_failing_bucket(case)
    return ("agree" if theirs == ours else "differs"), f"SGLang {theirs}, graphfit {ours}"


def generate(count: int, seed: int) -> list[bo.Case]:
    """`count` zigzag lines (sglang_prefill_cp_bcg_oracle.generate, zigzag on B200 with CP
    width 2 / 4 / 8 and trtllm_mha) with a `--context-length` drawn near the buckets: just past
    a bucket (a remainder of 1 .. 2 x cp - 1 for some bucket) or anywhere from 16 to 2600."""
    import random

    rng = random.Random(seed)
    out: list[bo.Case] = []
    for argv, _, model in bo.generate(count * 4, seed):
        if len(out) == count:
            break
        if "zigzag" not in argv or "--attn-cp-size" not in argv or "1" in argv:
            continue
        width = int(argv[argv.index("--attn-cp-size") + 1])
        bucket = rng.choice((16, 32, 64, 128, 256, 512, 1024))
        ctx = (bucket - rng.randint(1, 2 * width - 1) if rng.random() < 0.5
               else rng.randint(16, 2600))
        if "--attention-backend" not in argv:
            argv = (*argv, "--attention-backend", "trtllm_mha")
        out.append(((*argv, "--context-length", str(ctx)), "B200", model))
    return out
