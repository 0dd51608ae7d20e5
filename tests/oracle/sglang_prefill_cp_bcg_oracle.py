"""Prefill context parallelism's own breakable prefill graphs (issue 23 s54g): SGLang
0.5.23's prefill runner (its `supports_prefill_cp_bcg`, capture filter and
`PrefillCPBCGInput.create`, run by sglang_prefill_oracle.cp_bcg under the fake GPU) vs
graphfit's "prefill" component of the same pasted `--enable-prefill-cp` line.

`compare(case)`: a line SGLang refuses (at resolution, or in the prefill runner's CP setup)
must be refused with SGLang's sentence; a line it serves goes through the prefill-CP oracle's
comparison (sglang_prefill_cp_oracle.compare: ladders, padding, decode buffers, prefill
backend), then the prefill runner's captured token counts and buffers (names, rows, dtypes)
must equal the plan's prefill component. "not modelled" only where graphfit says so."""

from __future__ import annotations

import random
from typing import Any

from tests.oracle import sglang_dcp_oracle as dc
from tests.oracle import sglang_oracle as so
from tests.oracle import sglang_post_capture_oracle as pc
from tests.oracle import sglang_prefill_cp_oracle as cp
from tests.oracle import sglang_prefill_oracle as po

Case = cp.Case


def generate(count: int, seed: int) -> list[Case]:
    """`count` prefill-CP lines on the Llama-shaped target with `--attn-cp-size` equal to
    `--tp-size` (the lines CP's breakable graphs concern): TP, strategy, GPU (Hopper /
    Blackwell: the default prefill backend), a named backend, the prefill max drawn."""
    rng = random.Random(seed)
    out: list[Case] = []
    for _ in range(count):
        tp = rng.choice((1, 2, 4, 8))
        argv = ["--enable-prefill-cp", "--max-running-requests", "24", "--tp-size", str(tp),
                "--cp-strategy", rng.choice(("zigzag", "zigzag", "interleave"))]
        if tp > 1 or rng.random() < 0.5:
            argv += ["--attn-cp-size", str(tp)]
        if rng.random() < 0.3:
            argv += ["--attention-backend", rng.choice(("trtllm_mha", "flashinfer", "fa3"))]
        if rng.random() < 0.4:
            argv += ["--cuda-graph-max-bs-prefill", str(rng.choice((8, 12, 16, 20, 64, 512)))]
        out.append((tuple(argv), rng.choice(("B200", "B200", "H100")), "llama"))
    return out


def _prefill(case: Case) -> po.SglangPrefill | so.Rejected:
    argv, gpu, model = case
    gb, capability = dc.GPUS[gpu]
    with pc.environment(None):
        return po.prefill(argv, gb, cp.model_dir(model), capability)


def compare(case: Case) -> tuple[str, list[str]]:
    """("same refusal" | "agree" | "not modelled" | "differs", the differences)."""
    sg = _prefill(case)
    gf, _ = dc.graphfit_answer(case)
    if isinstance(sg, so.Rejected):
        theirs = cp.sglang_reason(sg.text)
        if gf.rejected is not None and theirs in gf.rejected:
            return "same refusal", []
        return "differs", [f"SGLang refuses ({theirs[:160]}); graphfit: {gf.rejected or 'plans'}"]
    outcome, diffs = cp.compare(case)
    if outcome != "agree":
        return outcome, diffs
    assert gf.plan is not None
    # the default mem_fraction_static: the memory hook reserves CP's breakable prefill graphs
    # where they are supported (cuda_graph_hook.py:203-211 runs before it; issue 23 s55g)
    theirs, _, _ = dc.fraction(case, None)
    if theirs is not None and abs(gf.plan.config.mem_fraction_static - float(theirs)) > 1e-9:
        return "differs", [f"fraction: SGLang {theirs}, graphfit "
                           f"{gf.plan.config.mem_fraction_static}"]
    return runner_diffs(gf.plan, sg)


def runner_diffs(plan: Any, sg: po.SglangPrefill) -> tuple[str, list[str]]:
    """A plan's prefill component against SGLang's prefill runner: the backend, the captured
    token counts and the buffers (names, rows, dtypes)."""
    diffs: list[str] = []
    comp = plan.components.get("prefill")
    if comp is None:
        return ("agree", []) if sg.backend == "disabled" else (
            "differs", [f"SGLang prefill {sg.backend} {sg.captured}; graphfit none"])
    if sg.backend == "disabled":
        return "differs", [f"SGLang prefill disabled; graphfit {comp.tables.sizes}"]
    if comp.tables.sizes != sg.captured:
        diffs.append(f"captured: SGLang {sg.captured}, graphfit {comp.tables.sizes}")
    planned = po.planned_buffers(comp)
    if planned != sg.buffers:
        ours, theirs = set(planned.items()), set(sg.buffers.items())
        diffs.append(f"buffers: SGLang only {sorted(theirs - ours)}, graphfit only "
                     f"{sorted(ours - theirs)}")
    return ("differs", diffs) if diffs else ("agree", [])


# --- issue 23 s55g: the live check and graphfit's config file ---------------------------------


def live_file_compare(case: Case) -> dict[str, tuple[str, list[str]]]:
    """The line read as SGLang's resolved record on the live check (the GPU named: its
    generation known, as inside the server) and as graphfit's own `--config` file, each
    first through the prefill-CP oracle's comparison with the pasted line
    (sglang_prefill_cp_oracle.live_compare / file_compare: refusals with SGLang's sentence,
    the same ladders, components, sizes and buffers), then, where both agree, its prefill
    component against SGLang's prefill runner itself (`runner_diffs`)."""
    sg = _prefill(case)
    out = {"live": cp.live_compare(case, named=True), "file": cp.file_compare(case)}
    if isinstance(sg, so.Rejected):
        return out
    if out["live"][0] == "agree":
        out["live"] = runner_diffs(_live_plan(case), sg)
    plan = cp.file_plan(case)[0]
    if out["file"][0] == "agree" and plan is not None:
        out["file"] = runner_diffs(plan, sg)
    return out


def _live_plan(case: Case) -> Any:
    """graphfit's plan of SGLang's resolved record of the line, the GPU named."""
    import graphfit
    from graphfit.integrations.sglang import from_sglang

    argv, gpu, model = case
    gb, capability = dc.GPUS[gpu]
    with pc.environment(None):
        resolved = so.resolve(argv, gpu_mem_gb=gb, model=cp.model_dir(model),
                              capability=capability)
    assert isinstance(resolved, so.Resolved)
    return graphfit.plan(from_sglang(resolved.record, environ={}, gpu_memory_gb=gpu))
