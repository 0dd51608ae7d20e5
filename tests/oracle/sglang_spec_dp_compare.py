"""SGLang 0.5.23's DFLASH and DSPARK under attention DP: SGLang's own checks and runners
against graphfit (graphfit.planner.engines.sglang_spec_dp).

A line is a generated DFLASH or DSPARK line (sglang_dflash_compare / sglang_dspark_compare)
with its parallel flags replaced by attention DP (`--tp-size T --attn-dp-size D`, D > 1),
`--enable-dp-lm-head` on most lines, context parallelism on a few. It is compared as the
block-draft lines are (sglang_block_drafts.compare_line: acceptance, ladders, widths, padding,
components, buffers, fills, the translated values), plus what only attention DP changes, per
rank, with SGLang's own code:

* the gather requirements of each runner SGLang builds: SGLang's own
  `DecodeCudaGraphRunner.decode_graph_gather_requirements` on the target's model runner and on
  the draft's (whose `_forward_is_dp_local` reads the draft checkpoint), against graphfit's
  `target_gather` / `draft_gather`;
* the `global_num_tokens` buffers: SGLang's own `DecodeInputBuffers.create` with the
  published `num_dp_ranks` and that runner's MLP gather, against graphfit's planned counts;
* the graph key and padded batch of every rank for generated per-rank batches: SGLang's own
  `_max_dp_batch_size` (under an MLP gather) or the rank's batch, padded by its own
  `_pad_to_bucket` over the runner's capture list, against graphfit's `graph_batch` padded by
  `Plan.pad` on the pasted line's plan;
* under compact ragged verify (SGLANG_RAGGED_VERIFY_MODE=compact) the target is keyed by token
  tier instead: the compact oracle (sglang_dspark_compact.compare_compact) and every rank's
  tier, idle ranks included (`compact_ranks`: SGLang's own worker / planner layout code
  against graphfit's `target_compact` dispatch of `sglang_spec_dp.compact_requests`).

Glue (not SGLang logic): the forward batch handed to `_max_dp_batch_size` carries only the
per-rank request counts it reads; the model-runner stubs of sglang_oracle.
"""

from __future__ import annotations

import random
import types
from typing import Any

from hypothesis import strategies as st

from tests.oracle import sglang_block_drafts as bd
from tests.oracle import sglang_compare as sc
from tests.oracle import sglang_dflash_compare as dc
from tests.oracle import sglang_dspark_compact as cd
from tests.oracle import sglang_dspark_compare as kc
from tests.oracle import sglang_oracle as so

PARALLEL = ("--tp-size", "--attn-dp-size", "--attn-cp-size")
DRAFTS = {"DFLASH": "dflash_draft", "DSPARK": "dspark_draft"}
Line = tuple[tuple[str, ...], float | None]


def _algorithm(argv: tuple[str, ...]) -> str:
    return argv[argv.index("--speculative-algorithm") + 1].upper()


def _without(argv: tuple[str, ...], flags: tuple[str, ...]) -> list[str]:
    out: list[str] = []
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word in flags:
            skip = True
        else:
            out.append(word)
    return out


@st.composite
def dp_lines(draw: st.DrawFn) -> Line:
    """A generated DFLASH or DSPARK line under attention DP (module docstring); half the
    DSPARK lines get cap-accept or compact ragged verify (the rest keep the generator's)."""
    algorithm = draw(st.sampled_from(("DFLASH", "DSPARK")))
    argv, gb = draw(dc.dflash_lines() if algorithm == "DFLASH" else kc.dspark_lines())
    words = _without(argv, PARALLEL)
    if algorithm == "DSPARK" and draw(st.booleans()):  # a ragged verify mode on 1 in 2
        mode = draw(st.sampled_from(("cap-accept", "compact", "compact")))
        words = [f"{cd.VAR}={mode}",
                 *(w for w in words if not w.startswith(f"{cd.VAR}="))]
    tp = draw(st.sampled_from((2, 4, 4, 8)))
    dp = draw(st.sampled_from([d for d in (2, 4, 8) if tp % d == 0]))
    words += ["--tp-size", str(tp), "--attn-dp-size", str(dp)]
    if draw(st.integers(0, 4)) > 0:
        words.append("--enable-dp-lm-head")
    if draw(st.integers(0, 7)) == 0:  # refused by both (speculative_hook.py:310-313, 697-701)
        words += ["--attn-cp-size", "2"]
    return tuple(words), gb


def compare_line(argv: tuple[str, ...], gpu_mem_gb: float | None = 80
                 ) -> tuple[str, list[sc.Difference]]:
    """(outcome, differences): the block-draft comparison of the line, then, when both plan
    with decode graphs, the per-rank aspects (module docstring)."""
    algorithm = _algorithm(argv)
    compare = dc.compare_line if algorithm == "DFLASH" else kc.compare_line
    outcome, diffs = compare(argv, gpu_mem_gb)
    if outcome not in ("runner", "no_runner"):
        return outcome, diffs
    sg, gf = bd.sglang(argv, gpu_mem_gb), bd.pasted(argv, gpu_mem_gb)
    assert sg.runners is not None and gf.plan is not None
    if not sc._gf_graphs(gf) or "target" not in sg.runners:
        return outcome, diffs
    diffs = per_rank(sg, gf, algorithm, compact(argv))
    if compact(argv):
        diffs += cd.compare_compact(argv, gpu_mem_gb)[1]
    return ("differs" if diffs else outcome), diffs


def compact(argv: tuple[str, ...]) -> bool:
    """Whether the line asks for compact ragged verify (its VAR=value prefix)."""
    return bd.split_env(argv)[0].get(cd.VAR) == "compact"


def sglang_gathers(sg: sc.SglangAnswer, algorithm: str) -> dict[str, tuple[bool, bool]]:
    """SGLang's own (mlp, attn) gather requirements of every decode runner it builds, read
    from `decode_graph_gather_requirements` on the target's model runner and the draft's."""
    from sglang.srt.model_executor.runner.decode_cuda_graph_runner import (
        DecodeCudaGraphRunner,
    )

    r = sg.resolved
    assert isinstance(r, so.Resolved) and sg.runners is not None
    out: dict[str, tuple[bool, bool]] = {}
    with so.published(r):
        target = so._model_runner_stub(r, 1, 1, "meta", 64, 128, draft=False)
        out["target"] = _bools(DecodeCudaGraphRunner.decode_graph_gather_requirements(target))
        draft = sg.runners.get(DRAFTS[algorithm])
        if draft is not None:
            runner = draft.live.model_runner
            out[DRAFTS[algorithm]] = _bools(
                DecodeCudaGraphRunner.decode_graph_gather_requirements(runner))
    return out


def _bools(pair: Any) -> tuple[bool, bool]:
    return bool(pair[0]), bool(pair[1])


def sglang_global_tokens(sg: sc.SglangAnswer, mlp_gather: bool) -> int:
    """The entries of `global_num_tokens_gpu` SGLang's own `DecodeInputBuffers.create`
    allocates for a runner with this MLP gather and the published `num_dp_ranks`
    (decode_cuda_graph_runner.py:470-486)."""
    import torch
    from sglang.srt.model_executor.runner_utils.buffers import DecodeInputBuffers
    from sglang.srt.runtime_context import get_parallel

    r = sg.resolved
    assert isinstance(r, so.Resolved)
    with so.published(r):
        buffers = DecodeInputBuffers.create(
            device=torch.device("meta"), max_bs=1, max_num_token=1, hidden_size=8,
            next_token_logits_buffer=torch.empty((1, 8), device="meta"), dtype=torch.bfloat16,
            num_dp_ranks=get_parallel().num_dp_ranks, pp_size=1, is_encoder_decoder=False,
            require_mlp_tp_gather=mlp_gather, seq_len_fill_value=1, encoder_len_fill_value=0,
            num_tokens_per_req=1, cache_loc_dtype=torch.int64, enable_mamba_track=False)
    return int(buffers.global_num_tokens_gpu.shape[0])


def sglang_padded(run: so.Runner, mlp_gather: bool, local: int, ranks: tuple[int, ...],
                  padding: bool = True) -> int | None:
    """The batch SGLang's runner replays on a rank with `local` requests, every rank's in
    `ranks` (decode_cuda_graph_runner.py:871-890, 1624-1628): the key, then can_run and
    `_pad_to_bucket` as for one rank (sglang_compare.sglang_decode_pad); None: eager."""
    from sglang.srt.model_executor.runner.decode_cuda_graph_runner import (
        DecodeCudaGraphRunner,
    )

    batch = types.SimpleNamespace(original_global_num_tokens_cpu=list(ranks))
    key = DecodeCudaGraphRunner._max_dp_batch_size(batch) if mlp_gather else local
    return sc.sglang_decode_pad(run, key, padding)


def per_rank(sg: sc.SglangAnswer, gf: sc.GraphfitAnswer, algorithm: str,
             compact_verify: bool = False) -> list[sc.Difference]:
    """Gather requirements, `global_num_tokens` counts and every rank's padded batch for
    generated per-rank batches, runner by runner (module docstring)."""
    from graphfit.planner.engines.sglang_spec_dp import draft_gather, graph_batch, target_gather

    assert sg.runners is not None and gf.plan is not None
    plan = gf.plan
    config = plan.config
    ours = sglang_gathers(sg, algorithm)
    diffs: list[sc.Difference] = []
    r = sg.resolved
    assert isinstance(r, so.Resolved)
    rng = random.Random(" ".join(sg.resolved.argv))
    pool = sg.max_requests
    batches = [tuple(rng.randint(0, pool) for _ in range(r.attn_dp_size)) for _ in range(12)]
    for name, (mlp, attn) in ours.items():
        gather = target_gather(config) if name == "target" else draft_gather(config)
        if (gather.mlp, gather.attn) != (mlp, attn):
            diffs.append(sc.Difference("gather", f"{name}: SGLang (mlp, attn) {(mlp, attn)}, "
                                                 f"graphfit {(gather.mlp, gather.attn)}"))
            continue
        planned = {b.name: b for b in plan.components[name].buffers}
        count = sglang_global_tokens(sg, mlp)
        theirs = planned.get("global_num_tokens_gpu")
        if theirs is None or theirs.shape != (count,):
            diffs.append(sc.Difference("global_num_tokens", f"{name}: SGLang ({count},), "
                                       f"graphfit {None if theirs is None else theirs.shape}"))
        run = sg.runners[name]
        if name == "target" and compact_verify:
            # compact: the target verifies by token tier only, never by the batch-size path
            # this loop replays (can_run_graph, decode_cuda_graph_runner.py:850-858); each
            # rank's tier is compared by compact_ranks
            diffs += compact_ranks(sg, plan, run.width, batches)
            continue
        for ranks in batches:
            for local in sorted(set(ranks) - {0}):
                want = sglang_padded(run, mlp, local, ranks, not r.disable_cuda_graph_padding)
                key = graph_batch(gather, local, ranks)
                got = sc.graphfit_decode_pad(plan, name, run.width, key)
                if want != got:
                    diffs.append(sc.Difference("rank_padding", f"{name}: ranks {ranks}, local "
                                               f"{local}: SGLang {want}, graphfit {got}"))
    return diffs[:8]


def sglang_compact_tier(sg: sc.SglangAnswer, width: int, local: int, ranks: tuple[int, ...]
                        ) -> int | None:
    """The tier SGLang's target replays on a rank with `local` requests verifying in full,
    every rank's request count in `ranks`, under compact ragged verify (None: eager), from
    SGLang's own code on CPU: an idle rank's layout from the worker's own
    `_idle_verify_ragged_layout` (dspark_worker_v2.py:892-904, with its own
    `_dp_verify_tier_num_tokens` :906-916 and `draft_is_deepseek_v4`), a busy rank's from
    `uniform_ragged_layout` (dspark_planner.py:679-711) with the DP-global request count
    SGLang passes a dense draft (None, dspark_worker_v2.py:976-981: `_draft_is_moe` is
    `draft_is_deepseek_v4()`, :199); then `_can_run_ragged_verify_graph`'s bounds
    (decode_cuda_graph_runner.py:931-934). Glue: the runner and worker stubs carry only the
    attributes those read (the tiers from SGLang's `_build_ragged_verify_token_buckets`)."""
    import functools

    from sglang.srt.model_executor.runner.decode_cuda_graph_runner import (
        DecodeCudaGraphRunner,
    )
    from sglang.srt.speculative.dspark_components.dspark_config import draft_is_deepseek_v4
    from sglang.srt.speculative.dspark_components.dspark_planner import uniform_ragged_layout
    from sglang.srt.speculative.dspark_components.dspark_worker_v2 import DSparkWorkerV2
    from sglang.srt.speculative.ragged_verify import RaggedVerifyMode

    assert sg.runners is not None
    target = sg.runners["target"]
    runner = object.__new__(DecodeCudaGraphRunner)
    runner.capture_bs = list(target.capture_bs)
    runner.captured_req_width = width
    runner.max_bs = max(target.capture_bs)
    runner.ragged_verify_mode = True
    runner.capture_num_tokens = runner._build_ragged_verify_token_buckets()
    model_runner = types.SimpleNamespace(decode_cuda_graph_runner=runner)
    r = sg.resolved
    assert isinstance(r, so.Resolved)
    with so.published(r):
        is_moe = draft_is_deepseek_v4()
        if local == 0:
            worker = types.SimpleNamespace(
                _draft_is_moe=is_moe, device="cpu", verify_num_draft_tokens=width,
                model_runner=model_runner,
                _verify_planner=types.SimpleNamespace(is_compact_mode=True))
            worker._dp_verify_tier_num_tokens = functools.partial(
                DSparkWorkerV2._dp_verify_tier_num_tokens, worker)
            batch = types.SimpleNamespace(global_num_tokens=list(ranks),
                                          global_spec_verify_tier_num_tokens=None)
            layout = DSparkWorkerV2._idle_verify_ragged_layout(worker, batch)
            requests = max(ranks)
        else:
            assert not is_moe, "a DeepSeek-V4 draft is refused under attention DP"
            layout = uniform_ragged_layout(
                bs=local, device="cpu", verify_num_draft_tokens=width,
                ragged_verify_mode=RaggedVerifyMode.COMPACT, model_runner=model_runner,
                tier_num_reqs=None)
            requests = local
    if layout is None:
        return None
    tier = int(layout.graph_num_tokens)
    tiers = runner.capture_num_tokens
    admitted = tier <= tiers[-1] and requests <= runner._ragged_capture_slots(tier)
    return tier if admitted else None


def compact_ranks(sg: sc.SglangAnswer, plan: Any, width: int,
                  batches: list[tuple[int, ...]]) -> list[sc.Difference]:
    """Every rank's compact verify tier, idle ranks included: SGLang's (sglang_compact_tier)
    against graphfit's `target_compact` dispatch of the full verify of `compact_requests`."""
    from graphfit.planner.engines.sglang_dspark_epilogue import COMPONENT
    from graphfit.planner.engines.sglang_spec_dp import compact_requests

    if COMPONENT not in plan.keyed:
        return [sc.Difference("compact_rank", "graphfit plans no compact verify component")]
    dispatch = plan.keyed[COMPONENT].dispatch
    diffs: list[sc.Difference] = []
    for ranks in batches:
        if not any(ranks):
            continue
        for local in sorted(set(ranks)):
            want = sglang_compact_tier(sg, width, local, ranks)
            n = compact_requests(local, ranks)
            got = dispatch.lookup((n, n * width, width))
            if want != got:
                diffs.append(sc.Difference("compact_rank", f"ranks {ranks}, local {local}: "
                                           f"SGLang tier {want}, graphfit {got}"))
    return diffs
